"""Provider acceptance of a request body: pure checks of what the providers really refuse.

:func:`messages_problems` (Anthropic Messages) and :func:`chat_problems` (OpenAI Chat
Completions) take a serialized request body and return its :class:`Problem` values: the rule,
a JSON pointer into the body, a message and the predicate's key. Each predicate is a row of
:data:`PREDICATES` with the rule it is charged to and the provider documentation it comes
from; the catalogue entry of each rule (vectors/rules/) holds the full reason and review.

The Messages checks run on the turns the provider sees: each message in the wire model's normal
form (:func:`reference_impl.wire.normal_form.normal_message`, purpose ``compare``) and
consecutive turns combined exactly where :func:`reference_impl.wire.normal_form.merges` says
the provider combines them (equivalence ``merge-turns``), so a request split into more
same-role messages than needed is never refused here.

A body that is not shaped like a request at all gives no problem: the output comparison of a
vector judges shape; these predicates judge a readable request (:func:`readable` tells a
caller, whose invariant then reports that it cannot check the output, never a pass).

*When a predicate applies* is the caller's business: a serializer is not obliged to repair an
input history that is itself invalid (note 000: "This does not promise lossless provider input
or compatibility for every historical message sequence"). A caller names the predicates that
do not apply in ``suspend`` (keys of :data:`SUSPENSIONS`; ``tool-pairing:<id>`` narrows the
pairing suspension to one tool call id, the one the input's defect is about);
:mod:`reference_impl.serialize.invariants` and :mod:`reference_impl.session_log.invariants`
decide them from the operation's input.

Whitespace-only text is not judged (review Task 2 F, a decision): the Messages API's documented
refusal is for *empty* text ("text content blocks must be non-empty"); refusals of a message
whose text is whitespace only ("text content blocks must contain non-whitespace text") and of a
final assistant message ending in whitespace ("final assistant content cannot end with trailing
whitespace") are reported in issue threads (LibreChat-AI/agents#124, which measured that
``[" ", "real"]`` is accepted; anomalyco/opencode#1295), not documented, and the source
runtime's serializer sends such text as recorded (user and tool-result text kept when
``block.text`` is truthy, assistant text as recorded, an update refused only when its joined
text is empty: packages/llm/llm-deepseek/src/serialize.ts), as BO-007 requires of retained
input ("same characters (no trimming ...)"). So no reading forces a MUST, and a SHOULD would
need a rule of its own; whitespace text is accepted.

Pure: nothing here reads files, sockets or clocks, and no argument is modified.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Final, NamedTuple

from agent_tck.reference_impl.wire.dialects import ANTHROPIC, OPENAI
from agent_tck.reference_impl.wire.normal_form import NotARequest, merge_key, normal_message


class Problem(NamedTuple):
    """One reason the provider refuses the request."""

    rule: str  # the catalogue rule the problem is charged to
    pointer: str  # JSON pointer into the request body
    message: str
    check: str  # the predicate's key (PREDICATES)


@dataclass(frozen=True)
class Predicate:
    key: str
    dialect: str
    rule: str
    summary: str
    source: str  # the provider documentation the refusal is stated in


_TOOL_USE_DOC: Final = "https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls"
_MESSAGES_DOC: Final = "https://docs.claude.com/en/api/messages"
_CHAT_DOC: Final = "https://platform.openai.com/docs/api-reference/chat/create"
_CHAT_TOOLS_DOC: Final = "https://platform.openai.com/docs/guides/function-calling"

PREDICATES: Final[tuple[Predicate, ...]] = (
    Predicate("messages-tool-result-answers-call", ANTHROPIC, "WA-D001",
              "each tool_result answers a tool_use of the directly preceding assistant turn, "
              "once", _TOOL_USE_DOC),
    Predicate("messages-tool-call-answered", ANTHROPIC, "WA-D002",
              "each tool_use of an assistant turn that is followed by another turn is answered "
              "by a tool_result in the next user turn", _TOOL_USE_DOC),
    Predicate("messages-tool-result-first", ANTHROPIC, "BO-D005",
              "the tool_result blocks of a user turn come before its other blocks",
              _TOOL_USE_DOC),
    Predicate("messages-empty-user", ANTHROPIC, "BO-D001",
              "no user turn with empty content", _MESSAGES_DOC),
    Predicate("messages-not-empty", ANTHROPIC, "BO-D009",
              "the request has at least one message (the API: \"messages: at least one message "
              "is required\")", _MESSAGES_DOC),
    Predicate("messages-empty-turn", ANTHROPIC, "BO-D009",
              "no assistant turn (but the last message) or system message with empty content",
              _MESSAGES_DOC),
    Predicate("messages-empty-input-text", ANTHROPIC, "BO-D008",
              "no empty text block in user or tool_result content", _MESSAGES_DOC),
    Predicate("messages-empty-text", ANTHROPIC, "BO-D010",
              "no empty text block in assistant or system content", _MESSAGES_DOC),
    Predicate("chat-tool-result-answers-call", OPENAI, "WA-D001",
              "each tool message answers a tool call of the assistant message its run of tool "
              "messages directly follows, once", _CHAT_TOOLS_DOC),
    Predicate("chat-tool-call-answered", OPENAI, "WA-D002",
              "each tool call of an assistant message that is followed by another message is "
              "answered by a tool message before any message of another role", _CHAT_TOOLS_DOC),
    Predicate("chat-not-empty", OPENAI, "BO-D011",
              "the request has at least one message (the API: \"Invalid 'messages': empty "
              "array. Expected an array with minimum length 1\")", _CHAT_DOC),
    Predicate("chat-assistant-content", OPENAI, "BO-D011",
              "an assistant message has content or tool_calls", _CHAT_DOC),
)
BY_KEY: Final = {p.key: p for p in PREDICATES}

#: What a caller may suspend, and the predicates each suspension turns off. A suspension names
#: a defect of the *input* that an output passing it through would repeat.
SUSPENSIONS: Final[Mapping[str, tuple[str, ...]]] = {
    # the input's tool calls and results do not pair up (a call unanswered before the next
    # assistant message, a result without its call, a duplicate id); ``tool-pairing:<id>``
    # turns the predicates off for that id alone (review Task 2 E: another pair a serializer
    # breaks is still caught)
    "tool-pairing": ("messages-tool-result-answers-call", "messages-tool-call-answered",
                     "chat-tool-result-answers-call", "chat-tool-call-answered"),
    # the input has no message the wire must carry (nothing but system messages, omitted
    # blocks, empty text, assistant messages with nothing to send): a request without messages
    # repeats it (review Task 2 C)
    "no-messages-turn": ("messages-not-empty",),
    "no-chat-message": ("chat-not-empty",),
    # an input in-history system update without text: sending it is IHU-D004's defect, which
    # the case's own checks judge (review Task 2, one defect, one rule; the audit, too, leaves
    # an empty system message to IHU-D004)
    "system-update-empty": ("messages-empty-turn:system", "messages-empty-text:system"),
    # an input assistant message without blocks, or with empty text blocks only
    "assistant-empty": ("messages-empty-turn:assistant", "chat-assistant-content"),
    # an input assistant message holding an empty text block
    "assistant-empty-text": ("messages-empty-text:assistant",),
    # an input assistant message with neither non-empty text nor a tool call (reasoning only)
    "assistant-no-text-or-call": ("chat-assistant-content",),
}


_NOTHING_OFF: Final[frozenset[str]] = frozenset()


def _off(suspend: frozenset[str]) -> frozenset[str]:
    """The predicate keys ``suspend`` turns off: ``key`` for the whole request, ``key:<id>``
    for one tool call id (a suspension named ``tool-pairing:<id>``)."""
    if not suspend:
        return _NOTHING_OFF  # the usual call
    split = [s.partition(":") for s in suspend]
    unknown = {name for name, _, _ in split if name not in SUSPENSIONS}
    if unknown:
        raise ValueError(f"unknown suspension(s): {', '.join(sorted(unknown))}")
    return frozenset(f"{k}:{arg}" if sep else k
                     for name, sep, arg in split for k in SUSPENSIONS[name])


def _on(off: frozenset[str], key: str, call_id: Any) -> bool:
    """Does predicate ``key`` judge the pair of ``call_id``?"""
    return key not in off and f"{key}:{call_id}" not in off


def _problem(key: str, pointer: str, message: str) -> Problem:
    return Problem(BY_KEY[key].rule, pointer, message, key)


def _messages_list(body: Any) -> list[Any] | None:
    if (type(body) is dict or isinstance(body, Mapping)) and isinstance(body.get("messages"), list):
        return list(body["messages"])
    return None


# --- Anthropic Messages -----------------------------------------------------------------------


class _Block(NamedTuple):
    """A block of a turn in normal form, where it was sent: the index of its ``message``, its
    ``slot`` in a list content (None: a string content, one text block without a pointer of
    its own)."""

    message: int
    slot: int | None
    value: Any

    @property
    def pointer(self) -> str:  # made only for a problem
        base = f"/messages/{self.message}/content"
        return base if self.slot is None else f"{base}/{self.slot}"


@dataclass
class _Turn:
    """One turn the provider sees: consecutive messages it combines, blocks with pointers."""

    role: str
    index: int  # its first message
    has_content: bool  # ... has a content member
    blocks: list[_Block]

    @property
    def pointer(self) -> str:
        """The first message's content (or the message, without content)."""
        return f"/messages/{self.index}/content" if self.has_content else f"/messages/{self.index}"


def _turns(messages: Sequence[Any],
           known: Mapping[int, Mapping[str, Any]] | None = None) -> list[_Turn] | None:
    turns: list[_Turn] = []
    previous: str | None = None  # the merge key of the message before (normal_form.merges)
    for i, raw in enumerate(messages):
        try:
            normal = known.get(i) if known is not None else None
            if normal is None:
                normal = normal_message(ANTHROPIC, raw, "compare")
        except NotARequest:
            return None
        content = normal["content"]
        listed = isinstance(raw.get("content"), list)
        blocks = [_Block(i, j if listed else None, b) for j, b in enumerate(content)]
        key = merge_key(ANTHROPIC, normal)
        if turns and key is not None and key == previous:  # EQ merge-turns (merges, by key)
            turns[-1].blocks.extend(blocks)
        else:
            turns.append(_Turn(str(normal["role"]), i, "content" in raw, blocks))
        previous = key
    return turns


def _kind(value: Any) -> Any:
    return value.get("type") if type(value) is dict or isinstance(value, Mapping) else None


def _is_empty_text(value: Any) -> bool:
    return _kind(value) == "text" and value.get("text") in ("", None)


def _empty_content(turns: list[_Turn], off: frozenset[str]) -> Iterator[Problem]:
    # "all messages must have non-empty content except for the optional final assistant
    # message" (the Messages API's refusal); BO-D001 for user turns.
    for n, turn in enumerate(turns):
        if turn.blocks:
            continue
        if turn.role == "user":
            yield _problem("messages-empty-user", turn.pointer, "a user turn with empty content")
        elif turn.role == "system" and "messages-empty-turn:system" not in off:
            yield _problem("messages-empty-turn", turn.pointer,
                           "a system message with empty content")
        elif (turn.role == "assistant" and n < len(turns) - 1
              and "messages-empty-turn:assistant" not in off):
            yield _problem("messages-empty-turn", turn.pointer,
                           "an assistant turn with empty content that is not the last message")


def _empty_text(turns: list[_Turn], off: frozenset[str]) -> Iterator[Problem]:
    # "text content blocks must be non-empty" (the Messages API's refusal)
    for turn in turns:
        for block in turn.blocks:
            if turn.role == "user" and _kind(block.value) == "tool_result":
                inner = block.value.get("content")
                for k, item in enumerate(inner if isinstance(inner, list) else []):
                    if _is_empty_text(item):
                        yield _problem("messages-empty-input-text", f"{block.pointer}/content/{k}",
                                       "an empty text block in tool_result content")
            elif not _is_empty_text(block.value):
                continue
            elif turn.role == "user":
                yield _problem("messages-empty-input-text", block.pointer,
                               "an empty text block in user content")
            elif f"messages-empty-text:{turn.role}" not in off:
                yield _problem("messages-empty-text", block.pointer,
                               f"an empty text block in {turn.role} content")


def _tool_use_ids(turn: _Turn | None) -> list[str]:
    if turn is None or turn.role != "assistant":
        return []
    return [str(b.value.get("id")) for b in turn.blocks if _kind(b.value) == "tool_use"]


def _tool_results(turns: list[_Turn], off: frozenset[str]) -> Iterator[Problem]:
    # "tool_result blocks must come FIRST in the content array" and each answers "a
    # corresponding tool_use block in the previous message" (the tool-use guide)
    offered: set[str] = set()
    for turn in turns:
        if turn.role == "system":
            continue  # placement is the in-history rules' business; the call still pairs
        if turn.role == "assistant":
            offered = set(_tool_use_ids(turn))
            continue
        seen: set[str] = set()
        other = False
        for block in turn.blocks:
            if _kind(block.value) != "tool_result":
                other = True
                continue
            if other:
                yield _problem("messages-tool-result-first", block.pointer,
                               "a tool_result after another block of its user turn")
            use_id = str(block.value.get("tool_use_id"))
            if not _on(off, "messages-tool-result-answers-call", use_id):
                seen.add(use_id)
                continue
            if use_id in seen:
                yield _problem("messages-tool-result-answers-call", block.pointer,
                               f"tool_use {use_id!r} is answered twice")
            elif use_id not in offered:
                yield _problem("messages-tool-result-answers-call", block.pointer,
                               f"tool_result {use_id!r} answers no tool_use of the directly "
                               "preceding assistant turn")
            seen.add(use_id)
        offered = set()


def _calls_answered(turns: list[_Turn], off: frozenset[str]) -> Iterator[Problem]:
    # "Each `tool_use` block must have a corresponding `tool_result` block in the next
    # message" (the Messages API's refusal); an assistant turn that ends the request is not
    # judged (the provider continues it).
    if "messages-tool-call-answered" in off:
        return
    key = "messages-tool-call-answered"
    others = [t for t in turns if t.role != "system"]
    for turn, reply in pairwise(others):
        if turn.role != "assistant":
            continue
        answered = {str(b.value.get("tool_use_id")) for b in reply.blocks
                    if reply.role == "user" and _kind(b.value) == "tool_result"}
        for block in turn.blocks:
            call_id = str(block.value.get("id"))
            if _kind(block.value) == "tool_use" and call_id not in answered and (
                    _on(off, key, call_id)):
                yield _problem("messages-tool-call-answered", block.pointer,
                               f"tool_use {block.value.get('id')!r} has no tool_result in the "
                               "next user turn")


#: the Messages predicates over turns, in the order their problems are listed, with the
#: rules each can report (from the keys it yields)
_TURN_PREDICATES: Final = tuple(
    (fn, frozenset(BY_KEY[key].rule for key in keys)) for fn, keys in (
        (_empty_content, ("messages-empty-user", "messages-empty-turn")),
        (_empty_text, ("messages-empty-input-text", "messages-empty-text")),
        (_tool_results, ("messages-tool-result-first", "messages-tool-result-answers-call")),
        (_calls_answered, ("messages-tool-call-answered",))))


#: the predicates that judge only empty content and empty text blocks (see :func:`_no_empty`)
_EMPTY_PREDICATES: Final = frozenset({_empty_content, _empty_text})


def _no_empty(messages: Sequence[Any], normal: Mapping[int, Mapping[str, Any]]) -> bool:
    """Do ``_empty_content`` and ``_empty_text`` find nothing, without building turns? They
    judge only a turn without blocks and an empty text block (inside a tool_result too): none
    exists when every message's normal form is known and has blocks (a combined turn has its
    messages' blocks), none of them an empty text or a tool_result holding one."""
    for i in range(len(messages)):
        form = normal.get(i)
        content = form.get("content") if form is not None else None
        if type(content) is not list or not content:
            return False
        for block in content:
            if _is_empty_text(block):
                return False
            if _kind(block) == "tool_result":
                inner = block.get("content")
                if isinstance(inner, list):
                    for item in inner:
                        if _is_empty_text(item):
                            return False
    return True


def _only_empty(rules: frozenset[str]) -> bool:
    """Do the predicates reporting any of ``rules`` all judge emptiness only (made once per
    set of rules)?"""
    found = _ONLY_EMPTY.get(rules)
    if found is None:
        found = _ONLY_EMPTY[rules] = all(
            predicate in _EMPTY_PREDICATES for predicate, reports in _TURN_PREDICATES
            if not reports.isdisjoint(rules))
    return found


_ONLY_EMPTY: dict[frozenset[str], bool] = {}


def messages_problems(body: Any, suspend: frozenset[str] = frozenset(),
                      normal: Mapping[int, Mapping[str, Any]] | None = None,
                      rules: frozenset[str] | None = None) -> list[Problem]:
    """Why the Messages API would refuse ``body`` (``[]``: it would not, as far as checked).
    ``normal``: messages the caller already has in normal form (index in ``body["messages"]``
    -> ``normal_message(ANTHROPIC, message, "compare")``), not normalized again; the rest are.
    ``rules``: the rules the caller reports (None: all); a predicate that reports none of them
    is not run (the others' problems, of any rule, are listed as without it).
    """
    off = _off(suspend)
    messages = _messages_list(body)
    if messages and normal is not None and rules is not None and _only_empty(
            frozenset(rules)) and _no_empty(messages, normal):
        return []  # the only predicates asked for find nothing here (the audit's usual call)
    turns = _turns(messages, normal) if messages is not None else None
    if turns is None:
        return []
    if not turns and "messages-not-empty" not in off:
        return [_problem("messages-not-empty", "/messages", "a request without messages")]
    return [problem for predicate, reports in _TURN_PREDICATES
            if rules is None or not reports.isdisjoint(rules)
            for problem in predicate(turns, off)]


# --- OpenAI Chat Completions ------------------------------------------------------------------


def _id(value: Any) -> Any:
    """A tool call id as a key: a malformed (unhashable) id, a list or an object, is compared by
    its repr, so a request holding one is judged, never "cannot check the output"."""
    return value if value is None or isinstance(value, (str, int, float)) else repr(value)


def _call_ids(message: Mapping[str, Any]) -> list[tuple[int, Any]]:
    calls = message.get("tool_calls")
    if message.get("role") != "assistant" or not isinstance(calls, list):
        return []
    return [(k, _id(c.get("id")) if isinstance(c, Mapping) else None)
            for k, c in enumerate(calls)]


def _chat_tool_messages(messages: Sequence[Any], off: frozenset[str]) -> Iterator[Problem]:
    # "An assistant message with 'tool_calls' must be followed by tool messages responding to
    # each 'tool_call_id'" and "messages with role 'tool' must be a response to a preceding
    # message with 'tool_calls'" (the API's refusals)
    owner: int | None = None
    offered: dict[Any, int] = {}
    answered: set[Any] = set()
    for i, message in enumerate(messages):
        if not isinstance(message, Mapping):
            continue
        if message.get("role") == "tool":
            cid = _id(message.get("tool_call_id"))
            if not _on(off, "chat-tool-result-answers-call", cid):
                pass
            elif cid in answered:
                yield _problem("chat-tool-result-answers-call", f"/messages/{i}",
                               f"tool call {cid!r} is answered twice")
            elif cid not in offered:
                yield _problem("chat-tool-result-answers-call", f"/messages/{i}",
                               f"tool message {cid!r} answers no tool call of the assistant "
                               "message its run of tool messages follows")
            answered.add(cid)
            continue
        if owner is not None and "chat-tool-call-answered" not in off:
            for cid, k in offered.items():
                if cid not in answered and _on(off, "chat-tool-call-answered", cid):
                    yield _problem("chat-tool-call-answered", f"/messages/{owner}/tool_calls/{k}",
                                   f"tool call {cid!r} has no tool message before /messages/{i}")
        ids = _call_ids(message)
        owner = i if ids else None
        offered = {cid: k for k, cid in ids}
        answered = set()


def _chat_assistant_content(messages: Sequence[Any], off: frozenset[str]) -> Iterator[Problem]:
    # content: "Required unless tool_calls or function_call is specified" (the API reference)
    if "chat-assistant-content" in off:
        return
    for i, message in enumerate(messages):
        if not (isinstance(message, Mapping) and message.get("role") == "assistant"):
            continue
        if message.get("content") in (None, []) and not message.get("tool_calls") and (
                not message.get("function_call")):
            yield _problem("chat-assistant-content", f"/messages/{i}",
                           "an assistant message with neither content nor tool_calls")


def chat_problems(body: Any, suspend: frozenset[str] = frozenset()) -> list[Problem]:
    """Why Chat Completions would refuse ``body`` (``[]``: it would not, as far as checked)."""
    off = _off(suspend)
    messages = _messages_list(body)
    if messages is None:
        return []
    if not messages and "chat-not-empty" not in off:
        return [_problem("chat-not-empty", "/messages", "a request without messages")]
    return [*_chat_tool_messages(messages, off), *_chat_assistant_content(messages, off)]


def readable(dialect: str, body: Any) -> bool:
    """Is ``body`` a request these predicates can judge (a messages list of readable messages)?"""
    messages = _messages_list(body)
    return messages is not None and (dialect != ANTHROPIC or _turns(messages) is not None)


def problems(dialect: str, body: Any, suspend: frozenset[str] = frozenset()) -> list[Problem]:
    """:func:`messages_problems` or :func:`chat_problems` by dialect name."""
    if dialect == ANTHROPIC:
        return messages_problems(body, suspend)
    if dialect == OPENAI:
        return chat_problems(body, suspend)
    raise ValueError(f"unknown dialect {dialect!r}")


def tool_ids(dialect: str, body: Any) -> set[str]:
    """Every tool call id a request names (calls and results), as strings: a caller narrowing
    a pairing suspension to ids checks that the output kept the input's ids."""
    found: set[str] = set()
    for message in _messages_list(body) or []:
        if not isinstance(message, Mapping):
            continue
        if dialect == OPENAI:
            if message.get("role") == "tool":
                found.add(str(_id(message.get("tool_call_id"))))
            calls = message.get("tool_calls")
            found |= {str(_id(c.get("id"))) for c in calls if isinstance(c, Mapping)} if (
                isinstance(calls, list)) else set()
            continue
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if _kind(block) == "tool_use":
                found.add(str(block.get("id")))
            elif _kind(block) == "tool_result":
                found.add(str(block.get("tool_use_id")))
    return found
