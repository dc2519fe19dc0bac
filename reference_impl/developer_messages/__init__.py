"""Developer messages for dynamic tool changes (family developer-messages, spec note 004).

==============  ==============================================================================
``admission``   admission, reading and writing of ``developer/message`` records
``projection``  how developer messages reach the provider request
``ops``         operations ``developer-messages.*``
==============  ==============================================================================
"""
