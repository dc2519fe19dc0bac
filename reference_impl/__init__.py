"""agent-tck reference implementation: sans-I/O rule logic, one subpackage per rule family.

=======================  =======================================================================
``serialize``            the canonical history model and the Anthropic Messages / OpenAI Chat
                         serializers (families block-omission and in-history-update)
``session_log``          the chunk-free session log: format, reader, writer, recorder, views,
                         the source runtime's v4 profile (family chunk-free-persistence)
``message_parts``        streamed output reconciled into message parts, and its views
``subagents``            the parent <-> subagent send_message simulator (send-message-adjacency)
``developer_messages``   developer messages for tool changes: admission and projection
``wire``                 the provider wire model (normal form, reply reader, SSE codec) that the
                         serializers' comparison, the audit and the mock provider share
``errors``, ``strict_json``  the rejection value and the strict JSON reader every family uses
=======================  =======================================================================

Each family subpackage holds its rule logic and an ``ops`` module defining ``OPERATIONS``
(operation name -> pure function from plain JSON to plain JSON, or a :class:`TckError`); the
family descriptors in ``harness/families/`` name those modules and
:func:`harness.families.operations` gathers them.

Nothing in this package reads files, sockets or clocks (tests/test_imports.py checks the
imports): the adapter (:mod:`harness.reference_adapter`), the mock provider and the audit's
rules and tracker are tools of the kit and live in ``harness/``.
"""

from agent_tck.reference_impl.errors import TckError

__all__ = ["TckError"]
