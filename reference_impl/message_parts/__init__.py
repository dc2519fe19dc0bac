"""Streamed output reconciled into message parts (family message-parts, spec note 002).

==============  ==============================================================================
``reconciler``  runtime events -> typed, ordered message parts (state tables, frozen states)
``views``       what a client renders from a reconciled state (parts, answer, projection...)
``ops``         operations ``message-parts.*``
==============  ==============================================================================
"""
