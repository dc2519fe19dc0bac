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
  rejected it; BO-D007 judges that); an output that is not a request body cannot be checked
  (:class:`CannotCheck`: the check is ``errored``, the comparison fails the output);
* a predicate is suspended when the input history already has the defect an output passing it
  through would repeat (:func:`history_defects`, keys of
  :data:`reference_impl.wire.validity.SUSPENSIONS`): tool calls and results that do not pair
  up before the next assistant message (for the ids concerned only, while the output keeps the
  input's ids: :func:`suspensions`), an assistant message without blocks (or with empty text
  blocks only), with an empty text block, or with neither text nor a tool call, an in-history
  system update without text (IHU-D004's defect, judged by the case), no message the wire must
  carry (a request without messages repeats it). Defects the serializer must remove itself (an
  empty or emptied user message, BO-D001; an empty text block in user or tool-result input,
  BO-D008; tool results after other blocks of their turn, BO-D005) suspend nothing.

So a serializer can fail these checks only by making an invalid request out of a valid history.
"""

from __future__ import annotations

from typing import Any, Final

from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.serialize import model
from agent_tck.reference_impl.serialize.model import Reasoning, Text, ToolCall
from agent_tck.reference_impl.wire import validity
from agent_tck.reference_impl.wire.dialects import ANTHROPIC, OPENAI

#: (rule_id, check_name, message), the shape of an invariant's finding
Finding = tuple[str, str, str]
CHECK_PREFIX: Final = "invariant:"


class CannotCheck(Exception):
    """The output is not something the invariant can judge (not a request body, not a history
    at all): harness/run/invariants.py reports the check ``errored``, "cannot check the
    output", never passed and never a failure of the rule (the comparison judges the shape)."""


def judged(dialect: str, body: Any) -> Any:
    """``body``, when the predicates can read it (else :class:`CannotCheck`)."""
    if not validity.readable(dialect, body):
        raise CannotCheck(f"not a {dialect} request body (no messages list of readable messages)")
    return body


def _unpaired_ids(messages: tuple[model.Message, ...]) -> set[str]:
    """The tool call ids whose calls and results do not pair up in ``messages``: a call left
    unanswered before the next assistant message, a result answering no call of the latest
    assistant message (or answering it twice), an id repeated in one message."""
    offered: set[str] | None = None
    answered: set[str] = set()
    bad: set[str] = set()
    for message in messages:
        if message.role == "assistant":
            if offered is not None:
                bad |= offered - answered
            ids = [b.id for b in message.content if isinstance(b, ToolCall)]
            bad |= {i for i in ids if ids.count(i) > 1}
            offered, answered = set(ids), set()
        elif message.role == "tool":
            call_id = message.tool_call_id or ""
            if offered is None or call_id not in offered or call_id in answered:
                bad.add(call_id)
            answered.add(call_id)
    return bad | (offered - answered if offered is not None else set())


def _sendable(message: model.Message, dialect: str) -> bool:
    """Must the wire carry ``message`` as a message, on every reading? Generous: a block some
    reading may leave out (an image, BO-D006, a SHOULD; a plugin block; user reasoning and tool
    calls, BO-001/BO-002; whitespace-only text, which the Messages API refuses when alone) does
    not count, nor does a system or developer message on Messages (an update needs a turn
    before it; the head is the top-level system prompt)."""
    if message.role == "tool":
        return True
    texts = [b.text for b in message.content if isinstance(b, Text) and b.text.strip()]
    if message.role in {"system", "developer"}:
        return dialect == OPENAI and bool(texts)
    if texts:
        return True
    for block in message.content:
        if message.role == "assistant" and (isinstance(block, ToolCall) or (
                isinstance(block, Reasoning) and dialect == ANTHROPIC)):
            return True
    return False


def _nothing_to_send(history: model.History, dialect: str) -> bool:
    """Has the history no message the wire must carry (review Task 2 C)?"""
    return not any(_sendable(m, dialect) for m in (*history.head, *history.body))


def history_defects(history: model.History) -> frozenset[str]:
    """The suspensions (validity.SUSPENSIONS) an input history calls for; a pairing defect as
    ``tool-pairing:<id>``, one per id concerned."""
    defects = {f"tool-pairing:{i}" for i in _unpaired_ids(history.body)}
    if _nothing_to_send(history, ANTHROPIC):
        defects.add("no-messages-turn")
    if _nothing_to_send(history, OPENAI):
        defects.add("no-chat-message")
    for message in history.body:
        if message.role == "system" and not any(
                isinstance(b, Text) and b.text for b in message.content):
            defects.add("system-update-empty")
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


def suspensions(defects: frozenset[str], history: model.History, dialect: str,
                body: Any) -> frozenset[str]:
    """``defects`` as the suspensions for judging ``body``: a pairing defect narrowed to its
    ids (review Task 2 E) holds only while ``body`` names no tool call id the history does not
    (a serializer that renames ids cannot be matched id by id: the whole request's pairing is
    suspended then, as before)."""
    narrowed = {d for d in defects if d.startswith("tool-pairing:")}
    if not narrowed:
        return defects
    known = {b.id for m in history.body for b in m.content if isinstance(b, ToolCall)}
    known |= {m.tool_call_id or "" for m in history.body if m.role == "tool"}
    if validity.tool_ids(dialect, body) <= known:
        return defects
    return frozenset(defects - narrowed | {"tool-pairing"})


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
    suspend = suspensions(history_defects(request.history), request.history, dialect, output)
    return findings(validity.problems(dialect, judged(dialect, output), suspend))


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
