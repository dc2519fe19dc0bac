"""Parent <-> subagent send_message (family send-message-adjacency, spec note 003).

=============  ===============================================================================
``model``      agents, states, events and reason codes, as values
``routes``     who may send to whom (authorization)
``table``      every lifecycle transition, one row each
``scenario``   parsing a scenario (the simulator's input)
``simulator``  the deterministic discrete-step simulator and its trace
``ops``        operation ``subagents.simulate``
=============  ===============================================================================
"""
