"""Provider validity as an invariant of every ``anthropic.serialize`` / ``openai.serialize`` output.

Each function here has the invariant shape ``(given_input, output) -> [(rule_id, check_name,
message)]``: the problems :mod:`reference_impl.wire.validity` finds in the request a serializer
returned, each charged to the predicate's own rule (never to the rules the case cites). An
empty list means no problem was found (or the invariant does not apply, below).

When it applies (a serializer is not obliged to repair an input history that is itself
invalid: note 000, "This does not promise lossless provider input or compatibility for every
historical message sequence"; the source runtime's serializer refuses such a history rather
than repairing it, packages/llm/llm-deepseek/src/serialize.ts):

* not at all when the input is not a canonical serialize input (the implementation should have
  rejected it; BO-D007 judges that);
* a predicate is suspended when the input history already has the defect an output passing it
  through would repeat (:func:`history_defects`, keys of
  :data:`reference_impl.wire.validity.SUSPENSIONS`): tool calls and results that do not pair
  up before the next assistant message, an assistant message without blocks (or with empty
  text blocks only), with an empty text block, or with neither text nor a tool call. Defects
  the serializer must remove itself (an empty or emptied user message, BO-D001; an empty text
  block in user or tool-result input, BO-D008; tool results after other blocks of their turn,
  BO-D005) suspend nothing.

So a serializer can fail these checks only by making an invalid request out of a valid history.
"""

from __future__ import annotations

from typing import Any, Final

from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.serialize import model
from agent_tck.reference_impl.serialize.model import Text, ToolCall
from agent_tck.reference_impl.wire import validity
from agent_tck.reference_impl.wire.dialects import ANTHROPIC, OPENAI

#: (rule_id, check_name, message), the shape of an invariant's finding
Finding = tuple[str, str, str]
CHECK_PREFIX: Final = "invariant:"


def _pairing_broken(messages: tuple[model.Message, ...]) -> bool:
    """Do the tool calls and results of ``messages`` fail to pair up? A call is answered by a
    tool message before the next assistant message; a result answers a call of the latest
    assistant message, once; ids are unique in their message; no result precedes every call."""
    offered: set[str] | None = None
    answered: set[str] = set()
    for message in messages:
        if message.role == "assistant":
            if offered is not None and offered - answered:
                return True
            ids = [b.id for b in message.content if isinstance(b, ToolCall)]
            if len(set(ids)) != len(ids):
                return True
            offered, answered = set(ids), set()
        elif message.role == "tool":
            call_id = message.tool_call_id or ""
            if offered is None or call_id not in offered or call_id in answered:
                return True
            answered.add(call_id)
    return offered is not None and bool(offered - answered)


def history_defects(history: model.History) -> frozenset[str]:
    """The suspensions (validity.SUSPENSIONS) an input history calls for."""
    defects: set[str] = set()
    if _pairing_broken(history.body):
        defects.add("tool-pairing")
    for message in history.body:
        if message.role != "assistant":
            continue
        # without blocks, or with empty text blocks only: cleaning those leaves it without
        # blocks, as passing them through repeats the empty text (review Task 2 D)
        if all(isinstance(b, Text) and b.text == "" for b in message.content):
            defects.add("assistant-empty")
        if any(isinstance(b, Text) and b.text == "" for b in message.content):
            defects.add("assistant-empty-text")
        if not any((isinstance(b, Text) and b.text) or isinstance(b, ToolCall)
                   for b in message.content):
            defects.add("assistant-no-text-or-call")
    return frozenset(defects)


def findings(problems: list[validity.Problem], *, rule: str | None = None,
             where: str = "") -> list[Finding]:
    """Problems as invariant findings: each charged to its predicate's rule, or to ``rule``."""
    return [(rule or p.rule, f"{CHECK_PREFIX}{p.check}", f"{where}{p.pointer}: {p.message}")
            for p in problems]


def _serialize_invariant(dialect: str, given_input: Any, output: Any) -> list[Finding]:
    try:
        request = model.parse_serialize_input(given_input)
    except TckError:
        return []  # not a canonical input: the invariant does not apply
    suspend = history_defects(request.history)
    return findings(validity.problems(dialect, output, suspend))


def anthropic_serialize(given_input: Any, output: Any) -> list[Finding]:
    """Invariant of ``anthropic.serialize``: the request is one the Messages API accepts."""
    return _serialize_invariant(ANTHROPIC, given_input, output)


def openai_serialize(given_input: Any, output: Any) -> list[Finding]:
    """Invariant of ``openai.serialize``: the request is one Chat Completions accepts."""
    return _serialize_invariant(OPENAI, given_input, output)


#: operation -> invariant (for harness.run.invariants)
INVARIANTS: Final = {
    "anthropic.serialize": anthropic_serialize,
    "openai.serialize": openai_serialize,
}
