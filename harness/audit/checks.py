"""The wire checks: pure functions over one request as the audit sees it (family wire-audit).

How an exchange is classified (:func:`dialect_of`, :func:`request_headers`), the block
vocabularies of both wire formats, the :class:`Request` the checks read, and one function per
check yielding ``(rule key, pointer, message)``. Which rules each check enforces, and running
them, is :mod:`harness.audit.rules`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from agent_tck.harness.audit.findings import body_pointer
from agent_tck.reference_impl.wire.dialects import ANTHROPIC, OPENAI

# ---------------------------------------------------------------------------------------------
# Classifying an exchange


def url_path(url: str) -> str:
    try:
        return urlsplit(url).path or "/"
    except ValueError:
        return "/"


def dialect_of(exchange: Mapping[str, Any]) -> str | None:
    """``anthropic`` for ``POST .../v1/messages``, ``openai`` for ``POST .../chat/completions``.

    DeepSeek's Anthropic-compatible path (``/anthropic/v1/messages``) and its OpenAI path
    without ``/v1`` match too. Anything else (``/v1/messages/count_tokens``, ``/v1/models``,
    non-LLM traffic) is not audited.
    """
    if str(exchange.get("method", "")).upper() != "POST":
        return None
    path = url_path(str(exchange.get("url", ""))).rstrip("/")
    if path.endswith("/v1/messages"):
        return ANTHROPIC
    if path.endswith("/chat/completions"):
        return OPENAI
    return None


def request_headers(exchange: Mapping[str, Any]) -> dict[str, str] | None:
    """Lower-cased request headers (values of repeated names joined by ", "), or ``None``
    when the capture has no headers at all (then header rules are not checked)."""
    request = exchange.get("request")
    raw = request.get("headers") if (  # a dict: no ABC check
        type(request) is dict or isinstance(request, Mapping)) else None
    if raw is None:
        return None
    out: dict[str, str] = {}
    pairs: list[Any]
    if isinstance(raw, Mapping):
        pairs = list(raw.items())
    elif isinstance(raw, list):
        pairs = [p for p in raw if isinstance(p, list | tuple) and len(p) == 2]
    else:
        return None
    for name, value in pairs:
        key = str(name).lower()
        out[key] = f"{out[key]}, {value}" if key in out else str(value)
    return out


# ---------------------------------------------------------------------------------------------
# Block vocabularies (Anthropic Messages, as of the beta API the SDK describes)

#: what a user turn can carry on the Messages wire
ANTHROPIC_USER_BLOCKS = frozenset({
    "text", "image", "document", "search_result", "tool_result", "container_upload",
})
#: what a tool_result's content can carry
ANTHROPIC_TOOL_RESULT_BLOCKS = frozenset({
    "text", "image", "document", "search_result", "tool_reference", "browser_state",
})
#: mid-conversation tool changes: only in a role "system" message (DM-043)
ANTHROPIC_TOOL_CHANGES = frozenset({"tool_addition", "tool_removal"})
#: known Messages block types a user turn cannot carry (assistant- or server-side only)
ANTHROPIC_NOT_USER = frozenset({
    "server_tool_use", "mcp_tool_use", "mcp_tool_result", "mcp_tool_listing",
    "web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result",
    "bash_code_execution_tool_result", "text_editor_code_execution_tool_result",
    "tool_search_tool_result", "advisor_tool_result", "compaction", "fallback",
})

# Chat Completions
OPENAI_REASONING_OR_CALL_FIELDS = ("reasoning_content", "reasoning", "tool_calls")
OPENAI_REASONING_PARTS = frozenset({"thinking", "redacted_thinking", "reasoning"})
OPENAI_TOOL_CALL_PARTS = frozenset({"tool_use", "tool_call", "function_call"})
#: standard Chat Completions parts: user content; tool content (text, and images, which
#: OpenAI-compatible providers take in tool results)
OPENAI_USER_PARTS = frozenset({"text", "image_url", "input_audio", "file"})
OPENAI_TOOL_PARTS = frozenset({"text", "image_url"})

_ANTHROPIC_ROLES = frozenset({"user", "assistant", "system"})
_OPENAI_ROLES = frozenset({"user", "assistant", "system", "developer", "tool", "function"})
SEND_MESSAGE_PROPERTIES = frozenset({"agent_id", "message"})
MID_CONVERSATION_BETA = re.compile(r"(?:^|,)\s*mid-conversation-tool-changes-[0-9-]+\s*(?:,|$)")


# ---------------------------------------------------------------------------------------------
# The request as the checks see it


@dataclass(frozen=True)
class Request:
    dialect: str
    body: Mapping[str, Any]
    messages: tuple[Any, ...]
    headers: Mapping[str, str] | None
    start: int = 0  # windowed checks report only at messages from here (see audit_exchange)
    #: every message in the wire normal form (False: one is not; None: unknown)
    readable: bool | None = None
    #: the first system message (an object with role system), None when there is none; by
    #: default 0, look from the start (audit_exchange carries it from request to request)
    system_at: int | None = 0
    #: messages already in the wire normal form, purpose compare (index -> normal form;
    #: :func:`harness.audit.provider_checks.readable_from` made them), not normalized again
    normals: Mapping[int, dict[str, Any]] = field(default_factory=dict)

    def window(self) -> Iterator[tuple[int, Any]]:
        """(index, message) from ``start`` on; checks still look back at the whole list."""
        messages = self.messages
        return ((i, messages[i]) for i in range(self.start, len(messages)))


Emit = Iterator[tuple[str, str, str]]  # (rule key, pointer, message)


def _member(i: int, msg: Mapping[str, Any], name: str) -> str:
    """The pointer of a message member, or of the message when the member is absent."""
    return body_pointer("messages", i, name) if name in msg else body_pointer("messages", i)


def _blocks(content: Any) -> Any:
    """The (index, block) pairs of a content value; a string content has none (it is one text
    block with no pointer of its own)."""
    return enumerate(content) if type(content) is list else ()


def _block_type(block: Any) -> str | None:
    if type(block) is dict:
        kind = block.get("type")
        if type(kind) is str:
            return kind
    return None


def _is_empty_text(block: Any) -> bool:
    return _block_type(block) == "text" and block.get("text") in ("", None)


# --- shape -----------------------------------------------------------------------------------


def check_shape(req: Request) -> Emit:
    """WA-D004: an audited body must be readable as the dialect's request (messages list of
    objects with a role); otherwise the other checks cannot speak for it."""
    messages = req.body.get("messages")
    if not isinstance(messages, list):
        yield ("unreadable-body", body_pointer("messages"),
               "the request has no messages list; nothing else was checked")
        return
    anthropic = req.dialect == ANTHROPIC
    roles = _ANTHROPIC_ROLES if anthropic else _OPENAI_ROLES
    for i, msg in req.window():
        if not isinstance(msg, dict):
            yield ("unreadable-body", body_pointer("messages", i), "a message is not an object")
        elif msg.get("role") not in roles:
            yield ("unreadable-body", _member(i, msg, "role"),
                   f"unknown role {msg.get('role')!r} for the {req.dialect} dialect")
        elif anthropic and not isinstance(msg.get("content"), (str, list)) and (
            msg.get("role") != "system"
        ):
            yield ("unreadable-body", _member(i, msg, "content"),
                   "content is neither a string nor a list of blocks")
        elif anthropic and type(content := msg.get("content")) is list:
            for j, block in enumerate(content):
                kind = block.get("type") if type(block) is dict else None  # _block_type
                if type(kind) is not str:
                    yield ("unreadable-body", body_pointer("messages", i, "content", j),
                           "a content block without a string type")


# --- Anthropic: user content ------------------------------------------------------------------

_REASONING_TYPES = frozenset({"thinking", "redacted_thinking"})


def check_anthropic_user_blocks(req: Request) -> Emit:
    """User content and tool_result content on the Messages wire.

    BO-001 / BO-002: no thinking, redacted_thinking (reasoning) or tool_use (tool call) in user
    content; BO-003 / BO-004: nor inside tool_result content ("omits reasoning and tool-call
    blocks from user and tool-result input"). BO-005 / BO-006 ("rejection of other unsupported
    blocks"): no known block type a user turn cannot carry; a tool-change block there is also
    DM-043 ("developer-only tool-change blocks"). BO-D008: no empty text block.
    WA-D003: an unknown block type is a warning (it may be newer than this suite).
    """
    for i, msg in req.window():
        if not isinstance(msg, dict) or msg.get("role") != "user":
            continue
        for j, block in _blocks(msg.get("content")):
            btype = block.get("type") if type(block) is dict else None  # _block_type, inline
            if type(btype) is not str or (btype == "text" and block.get("text")):
                continue  # the common case, decided without building a pointer
            if btype == "tool_result":  # a user block: only what it holds is judged
                yield from _tool_result_blocks(block, i, j)
                continue
            where = body_pointer("messages", i, "content", j)
            if btype in _REASONING_TYPES:
                yield ("user-reasoning", where,
                       f"a {btype} block in user content; reasoning is omitted from user input")
            elif btype == "tool_use":
                yield ("user-tool-call", where,
                       "a tool_use block in user content; tool calls are omitted from user input")
            elif btype in ANTHROPIC_TOOL_CHANGES:
                yield ("user-unsupported", where, f"a user turn cannot carry a {btype} block")
                yield ("tool-change-developer-only", where,
                       f"a {btype} block in user content; tool changes belong in a role "
                       "system message")
            elif btype in ANTHROPIC_NOT_USER:
                yield ("user-unsupported", where, f"a user turn cannot carry a {btype} block")
            elif btype not in ANTHROPIC_USER_BLOCKS:
                yield ("unknown-block", where, f"unknown block type {btype!r} in user content")
            elif _is_empty_text(block):
                yield ("empty-text-block", where, "an empty text block in user content")


def _tool_result_blocks(block: Mapping[str, Any], i: int, j: int) -> Emit:
    for k, inner in _blocks(block.get("content")):
        btype = _block_type(inner)
        if btype is None or (btype == "text" and inner.get("text")):
            continue
        where = body_pointer("messages", i, "content", j, "content", k)
        if btype in _REASONING_TYPES:
            yield ("tool-result-reasoning", where,
                   f"a {btype} block inside tool_result content; reasoning is omitted")
        elif btype == "tool_use":
            yield ("tool-result-tool-call", where,
                   "a tool_use block inside tool_result content; tool calls are omitted")
        elif btype in ANTHROPIC_TOOL_CHANGES:
            yield ("tool-result-unsupported", where,
                   f"tool_result content cannot carry a {btype} block")
            yield ("tool-change-developer-only", where,
                   f"a {btype} block inside tool_result content")
        elif btype in ANTHROPIC_NOT_USER or btype == "tool_result":
            yield ("tool-result-unsupported", where,
                   f"tool_result content cannot carry a {btype} block")
        elif btype not in ANTHROPIC_TOOL_RESULT_BLOCKS:
            yield ("unknown-block", where, f"unknown block type {btype!r} in tool_result content")
        elif _is_empty_text(inner):
            yield ("empty-text-block", where, "an empty text block in tool_result content")


def check_empty_user(req: Request) -> Emit:
    """BO-D001 (Messages) / BO-D002 (Chat Completions): a user message with nothing to send is
    left out, so no user message has empty content ("", [] or only empty text)."""
    key = "empty-user-messages" if req.dialect == ANTHROPIC else "empty-user-chat"
    for i, msg in req.window():
        if not isinstance(msg, dict) or msg.get("role") != "user":
            continue
        content = msg.get("content")
        if content is None and req.dialect == ANTHROPIC:
            continue  # not readable; check_shape reports it
        empty = (
            content in ("", None)
            or (isinstance(content, list) and all(_is_empty_text(b) for b in content))
        )
        if empty:
            yield (key, _member(i, msg, "content"),
                   "a user message with empty content; it must be left out")


def _previous_non_system(messages: Sequence[Any], i: int) -> tuple[int, Any] | None:
    j = i - 1
    while j >= 0:
        msg = messages[j]
        if not (isinstance(msg, dict) and msg.get("role") == "system"):
            return j, msg
        j -= 1
    return None


def _next_non_system(messages: Sequence[Any], i: int) -> tuple[int, Any] | None:
    j = i + 1
    while j < len(messages):
        msg = messages[j]
        if not (isinstance(msg, dict) and msg.get("role") == "system"):
            return j, msg
        j += 1
    return None


def _tool_use_ids(msg: Any) -> list[str]:
    if not isinstance(msg, dict) or msg.get("role") != "assistant":
        return []
    content = msg.get("content")  # the blocks typed inline, as _block_type does
    return [str(b.get("id")) for b in (content if type(content) is list else ())
            if type(b) is dict and type(kind := b.get("type")) is str and kind == "tool_use"]


def check_anthropic_tool_results(req: Request) -> Emit:
    """WA-D001: each tool_result answers a tool_use of the directly preceding assistant message
    (system messages between are the placement check's business), at most once;
    BO-D005: tool_result blocks come before the other blocks of their user turn;
    WA-D002: every tool_use of an assistant message that is not last is answered by the next
    message."""
    messages = req.messages
    for i, msg in req.window():
        if not isinstance(msg, dict) or msg.get("role") != "user":
            continue
        offered: set[str] | None = None  # the preceding assistant's calls, when a result asks
        seen: set[str] = set()
        other_seen = False
        for j, block in _blocks(msg.get("content")):
            btype = block.get("type") if type(block) is dict else None  # _block_type, inline
            if btype != "tool_result":
                if type(btype) is str:
                    other_seen = True
                continue
            if offered is None:
                prev = _previous_non_system(messages, i)
                offered = set(_tool_use_ids(prev[1])) if prev else set()
            use_id = str(block.get("tool_use_id"))
            if use_id not in offered:
                yield ("tool-result-answers-call", body_pointer("messages", i, "content", j),
                       f"tool_result {use_id!r} answers no tool_use of the directly preceding "
                       "assistant message")
            elif use_id in seen:
                yield ("tool-result-answers-call", body_pointer("messages", i, "content", j),
                       f"tool_use {use_id!r} is answered twice")
            seen.add(use_id)
            if other_seen:
                yield ("tool-result-first", body_pointer("messages", i, "content", j),
                       "a tool_result after another block; tool results come first")
    for i, msg in req.window():
        ids = _tool_use_ids(msg)
        if not ids:
            continue
        nxt = _next_non_system(messages, i)
        if nxt is None:
            continue
        j, reply = nxt
        answered = {
            str(b.get("tool_use_id"))
            for _, b in _blocks(reply.get("content") if isinstance(reply, dict) else None)
            if _block_type(b) == "tool_result"
        } if isinstance(reply, dict) and reply.get("role") == "user" else set()
        for k, block in _blocks(msg.get("content")):
            if _block_type(block) == "tool_use" and str(block.get("id")) not in answered:
                yield ("tool-call-answered", body_pointer("messages", i, "content", k),
                       f"tool_use {block.get('id')!r} has no tool_result in the next message "
                       f"(/messages/{j})")


# --- Anthropic: mid-conversation system messages ----------------------------------------------


def check_anthropic_system_placement(req: Request) -> Emit:
    """A role system message in ``messages`` (an in-history update, or a tool change):
    IHU-D001 / DM-D005 - directly after a user turn (a run of system messages is one update)
    and before an assistant turn or the end of the request; IHU-D003 / DM-D005 - never first;
    IHU-D004 - never without text (a tool-change message carries its blocks instead)."""
    if req.system_at is None:
        return  # no system message (the usual request): nothing to place
    messages = req.messages
    for i, msg in req.window():
        if not isinstance(msg, dict) or msg.get("role") != "system":
            continue
        blocks = _blocks(msg.get("content"))
        changes = any(_block_type(b) in ANTHROPIC_TOOL_CHANGES for _, b in blocks)
        placement = "tool-change-placement" if changes else "system-placement"
        first = "tool-change-placement" if changes else "system-first"
        prev = _previous_non_system(messages, i)
        nxt = _next_non_system(messages, i)
        where = body_pointer("messages", i)
        if prev is None:
            yield (first, where, "a mid-conversation system message with no user turn before "
                                 "it (it would be first)")
        elif not (isinstance(prev[1], dict) and prev[1].get("role") == "user"):
            role = prev[1].get("role") if isinstance(prev[1], dict) else "?"
            yield (placement, where, f"a mid-conversation system message after a {role} turn; "
                                     "it must directly follow a user turn")
        elif nxt is not None and not (
            isinstance(nxt[1], dict) and nxt[1].get("role") == "assistant"
        ):
            yield (placement, where, "a mid-conversation system message followed by a user "
                                     "turn; it must precede an assistant turn or end the request")
        content = msg.get("content")
        if not changes and (
            content in ("", None)
            or (isinstance(content, list) and all(_is_empty_text(b) for b in content))
        ) and not (content is None and msg.get("output_config") is not None):
            yield ("system-empty", _member(i, msg, "content"),
                   "an in-history system update without text")


def _tool_names(tools: Any, dialect: str) -> list[str]:
    names: list[str] = []
    if not isinstance(tools, list):
        return names
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        if dialect == OPENAI:
            fn = tool.get("function")
            if isinstance(fn, dict) and isinstance(fn.get("name"), str):
                names.append(fn["name"])
        elif isinstance(tool.get("name"), str):
            names.append(tool["name"])
    return names


def check_anthropic_tool_changes(req: Request) -> Emit:
    """DM-D006: tool_addition / tool_removal reference a tool declared in ``tools`` (or one
    an earlier tool_addition defined inline); DM-D004: they need the
    mid-conversation-tool-changes beta header (checked when the capture has headers)."""
    if req.system_at is None:
        return  # no system message: no tool change (the usual request)
    declared = set(_tool_names(req.body.get("tools"), ANTHROPIC))
    first_change: str | None = None
    for i in range(req.system_at, len(req.messages)):  # messages before it are not system
        msg = req.messages[i]
        if not isinstance(msg, dict) or msg.get("role") != "system":
            continue
        for j, block in _blocks(msg.get("content")):
            btype = _block_type(block)
            if btype not in ANTHROPIC_TOOL_CHANGES:
                continue
            where = body_pointer("messages", i, "content", j)
            first_change = first_change or where
            tool = block.get("tool")
            if not isinstance(tool, dict):
                yield ("tool-change-declared", where, f"a {btype} block without a tool reference")
                continue
            if tool.get("type") == "tool_definition":
                definition = tool.get("definition")
                if isinstance(definition, dict) and isinstance(definition.get("name"), str):
                    declared.add(definition["name"])
                continue
            if tool.get("type") != "tool_reference":
                continue  # MCP references name tools of a server, not of this request
            name = tool.get("name")
            if name not in declared:
                yield ("tool-change-declared", where + "/tool/name",
                       f"{btype} names {name!r}, which the request's tools do not declare")
    if first_change is not None and req.headers is not None:
        beta = req.headers.get("anthropic-beta", "")
        if not MID_CONVERSATION_BETA.search(beta):
            yield ("tool-change-beta", first_change,
                   "tool changes without the anthropic-beta mid-conversation-tool-changes value")


# --- tools (both dialects) --------------------------------------------------------------------


def _tool_schema(tool: Mapping[str, Any], dialect: str) -> tuple[str | None, Any, str]:
    """(name, parameters schema, pointer suffix of the schema, or of its parent when the
    schema is absent) of a tools entry."""
    if dialect == OPENAI:
        fn = tool.get("function")
        if isinstance(fn, dict):
            suffix = "/function/parameters" if "parameters" in fn else "/function"
            return fn.get("name"), fn.get("parameters"), suffix
        return None, None, ""
    if tool.get("type") not in (None, "custom"):
        return None, None, ""  # server tools (web_search_...) have no client schema
    return tool.get("name"), tool.get("input_schema"), (
        "/input_schema" if "input_schema" in tool else "")


def _send_message_problem(schema: Any) -> str | None:
    if not isinstance(schema, dict):
        return "it has no input schema object"
    if schema.get("type") != "object":
        return "its schema is not of type object"
    props = schema.get("properties")
    if not isinstance(props, dict):
        return "its schema declares no properties"
    if set(props) != SEND_MESSAGE_PROPERTIES:
        return f"its properties are {sorted(props)}, not exactly ['agent_id', 'message']"
    for name in sorted(SEND_MESSAGE_PROPERTIES):
        prop = props[name]
        if not isinstance(prop, dict) or prop.get("type") != "string":
            return f"property {name} is not a string"
    required = schema.get("required")
    if not isinstance(required, list) or set(required) != SEND_MESSAGE_PROPERTIES or len(
        required
    ) != 2:
        return "agent_id and message are not both required (and nothing else)"
    return None


def check_tools(req: Request) -> Emit:
    """WA-D005: a send_message tool has exactly {agent_id: string, message: string}, both
    required (a warning: 003 lets "a scoped replacement ... provide different semantics");
    SMA-051: the retired report({ output }) tool is absent."""
    tools = req.body.get("tools")
    if not isinstance(tools, list):
        return
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict):
            continue
        name, schema, suffix = _tool_schema(tool, req.dialect)
        if name == "send_message":
            problem = _send_message_problem(schema)
            if problem is not None:
                yield ("send-message-schema", body_pointer("tools", i) + suffix,
                       f"send_message does not have the one fixed schema: {problem}")
        elif name == "report":
            props = schema.get("properties") if isinstance(schema, dict) else None
            if isinstance(props, dict) and "output" in props:
                where = body_pointer("tools", i)
                yield ("retired-report-tool", where,
                       "the retired report({ output }) tool is offered to the model")


# --- OpenAI Chat Completions ------------------------------------------------------------------


def check_openai_user_tool(req: Request) -> Emit:
    """Chat Completions "omit these blocks from user input" (000): BO-001 / BO-002 no
    reasoning_content, reasoning or tool_calls on user messages, BO-003 / BO-004 nor on tool
    messages, nor reasoning or tool-call parts in their content; BO-D004: other parts that are
    not standard for the role are omitted (a warning: that rule is a SHOULD)."""
    for i, msg in req.window():
        if not isinstance(msg, dict) or msg.get("role") not in ("user", "tool"):
            continue
        role = msg["role"]
        reasoning_key = "user-reasoning" if role == "user" else "tool-result-reasoning"
        call_key = "user-tool-call" if role == "user" else "tool-result-tool-call"
        for field_name in OPENAI_REASONING_OR_CALL_FIELDS:
            if field_name in msg and msg[field_name] not in (None, "", []):
                key = call_key if field_name == "tool_calls" else reasoning_key
                yield (key, body_pointer("messages", i, field_name),
                       f"{field_name} on a {role} message; it is omitted from {role} input")
        allowed = OPENAI_USER_PARTS if role == "user" else OPENAI_TOOL_PARTS
        for j, part in _blocks(msg.get("content")):
            ptype = _block_type(part)
            if ptype in allowed:
                continue
            where = body_pointer("messages", i, "content", j)
            if ptype is None:
                yield ("unreadable-body", where, "a content part without a string type")
            elif ptype in OPENAI_REASONING_PARTS:
                yield (reasoning_key, where, f"a {ptype} part in {role} content; it is omitted")
            elif ptype in OPENAI_TOOL_CALL_PARTS:
                yield (call_key, where, f"a {ptype} part in {role} content; it is omitted")
            elif ptype not in allowed:
                yield ("chat-unsupported-part", where,
                       f"a non-standard {ptype!r} part in {role} content")


def check_openai_tool_messages(req: Request) -> Emit:
    """WA-D001: a tool message answers a tool call of the assistant message its run of tool
    messages directly follows, at most once; WA-D002: every tool call of an assistant message
    that is not last is answered before the next non-tool message."""
    messages = req.messages
    offered: set[Any] = set()  # ids as the request spells them (any JSON value)
    answered: set[Any] = set()
    owner: int | None = None

    def unanswered(at: int | None) -> Emit:
        if owner is None:
            return
        calls = messages[owner].get("tool_calls") or []
        for k, call in enumerate(calls if isinstance(calls, list) else []):
            cid = call.get("id") if isinstance(call, dict) else None
            if cid not in answered:
                yield ("tool-call-answered", body_pointer("messages", owner, "tool_calls", k),
                       f"tool call {cid!r} has no tool message before /messages/{at}")

    for i, msg in req.window():
        if not isinstance(msg, dict):
            continue
        role = msg.get("role")
        if role == "tool":
            cid = msg.get("tool_call_id")
            where = body_pointer("messages", i)
            if cid not in offered:
                yield ("tool-result-answers-call", where,
                       f"tool message {cid!r} answers no tool call of the directly preceding "
                       "assistant message")
            elif cid in answered:
                yield ("tool-result-answers-call", where, f"tool call {cid!r} is answered twice")
            answered.add(cid)
            continue
        yield from unanswered(i)
        owner, offered, answered = None, set(), set()
        calls = msg.get("tool_calls") if role == "assistant" else None
        if isinstance(calls, list) and calls:
            owner = i
            offered = {c.get("id") for c in calls if isinstance(c, dict)}

