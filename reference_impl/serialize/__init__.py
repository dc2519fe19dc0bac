"""Serializing a canonical session history into provider requests (spec note 000).

Families block-omission (BO-*: what the serializers leave out of user and tool-result input)
and in-history-update (IHU-*: system messages inside the history).

=======================  ======================================================================
``model``                the canonical history: parsing, ``INVALID_HISTORY`` with its pointer
``anthropic_messages``   history -> an Anthropic Messages request body
``openai_chat``          history -> an OpenAI Chat Completions request body
``ops``                  operations ``anthropic.serialize`` and ``openai.serialize``
=======================  ======================================================================
"""
