"""The wire model's provider-validity predicates as a wire check (family block-omission).

BO-D009 (no empty assistant or system turn), BO-D010 (no empty text block in assistant or system
content), BO-D011 (a Chat assistant message has content or tool_calls) are checked on the wire
with the predicates of reference_impl/wire/validity.py, the same ones every serializer output is
held to (harness/run/invariants.py): one home for both.
"""

from __future__ import annotations

from agent_tck.harness.audit.checks import Emit, Request
from agent_tck.reference_impl.wire import validity
from agent_tck.reference_impl.wire.dialects import ANTHROPIC

#: the predicates' rules the audit reports through :func:`check_provider_accepts` (the other
#: predicates' rules have checks of their own in harness/audit/checks.py)
_VALIDITY_KEYS = {"BO-D009": "empty-turn", "BO-D010": "empty-text", "BO-D011": "assistant-content"}


def check_provider_accepts(req: Request) -> Emit:
    """BO-D009 (no empty assistant or system turn), BO-D010 (no empty text block in assistant or
    system content), BO-D011 (a Chat assistant message has content or tool_calls): the wire
    model's provider-validity predicates, one home for the audit and the serializer
    invariants (reference_impl/wire/validity.py, with the provider documentation of each)."""
    problems = (validity.messages_problems(req.body) if req.dialect == ANTHROPIC
                else validity.chat_problems(req.body))
    for problem in problems:
        key = _VALIDITY_KEYS.get(problem.rule)
        index = problem.pointer.split("/")[2:3]
        at = int(index[0]) if index and index[0].isdigit() else len(req.messages)
        message = req.messages[at] if at < len(req.messages) else None
        if isinstance(message, dict) and message.get("role") == "system":
            continue  # an empty system update is IHU-D004's (check_anthropic_system_placement)
        if key is not None:
            yield key, "/request/body" + problem.pointer, problem.message
