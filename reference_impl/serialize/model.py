"""The canonical session history (vectors/schema/history.schema.json) as frozen values.

Both wire serializers read a history through :func:`parse_history`, which checks the shape and
turns plain JSON into immutable dataclasses. Nothing here knows a wire format; nothing here
mutates or keeps a reference to its input (every string is copied by value, every JSON object a
tool schema carries is kept as canonical JSON text and decoded afresh on use).

Shapes follow the source runtime (DSH) where they are known:

* blocks: ``{type:'text', text}``, ``{type:'reasoning', text, signature?}``,
  ``{type:'tool-call', id, name, arguments}`` (arguments: the raw JSON string),
  ``{type:'image', attachment:{mediaType, data}}``, ``{type:'tool-addition'|'tool-removal',
  toolName}`` (developer messages only) and any other ``type`` (plugin blocks, kept opaque);
* messages: ``{role:'system'|'user'|'assistant'|'developer', content:[blocks]}`` and a tool
  result ``{role:'tool', toolCallId, isError?, content:[blocks]}``; optional metadata ``id``,
  ``source`` and ``createdAt`` is accepted and never read (BO-009: omission does not depend on it);
* the leading system message(s) are the system head; a system message after the first
  non-system message is an in-history update.

Malformed input is rejected with ``INVALID_HISTORY`` and the JSON pointer of the problem
(suite decision BO-D007). Whether a well-formed block can be *sent* is the serializers' business
(``UNSUPPORTED_CONTENT``), not the model's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from agent_tck.reference_impl.errors import TckError

INVALID_HISTORY: Final = "INVALID_HISTORY"
UNSUPPORTED_CONTENT: Final = "UNSUPPORTED_CONTENT"

ROLES: Final = ("system", "user", "assistant", "tool", "developer")
#: Metadata a message may carry; accepted, never read.
METADATA_KEYS: Final = frozenset({"id", "source", "createdAt"})


# --- blocks -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Text:
    text: str
    pointer: str


@dataclass(frozen=True)
class Reasoning:
    text: str
    signature: str | None
    pointer: str


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # the raw JSON text, exactly as recorded
    pointer: str


@dataclass(frozen=True)
class Image:
    media_type: str
    data: str  # base64
    pointer: str


@dataclass(frozen=True)
class ToolChange:
    kind: str  # "tool-addition" | "tool-removal"
    tool_name: str
    pointer: str


@dataclass(frozen=True)
class Other:
    """A block of a type this model does not define (a plugin block): opaque, never interpreted."""

    type: str
    pointer: str


Block = Text | Reasoning | ToolCall | Image | ToolChange | Other


# --- messages and history ---------------------------------------------------------------------


@dataclass(frozen=True)
class Message:
    role: str
    content: tuple[Block, ...]
    pointer: str
    tool_call_id: str | None = None
    is_error: bool | None = None


@dataclass(frozen=True)
class History:
    """``head``: the leading system messages; ``body``: everything from the first other message."""

    head: tuple[Message, ...]
    body: tuple[Message, ...]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str | None
    schema_json: str  # canonical JSON text of inputSchema; decode with :meth:`input_schema`
    defer_loading: bool = False  # ToolSchema.deferLoading (developer-messages family, DM rules)

    def input_schema(self) -> Any:
        return json.loads(self.schema_json)


@dataclass(frozen=True)
class SerializeInput:
    history: History
    tools: tuple[Tool, ...] | None


# --- parsing ----------------------------------------------------------------------------------


def _invalid(message: str, pointer: str) -> TckError:
    return TckError(INVALID_HISTORY, message, pointer)


def _describe(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _string(obj: Mapping[str, Any], key: str, pointer: str, *, required: bool = True) -> Any:
    if key not in obj:
        if required:
            raise _invalid(f"missing required string member {key!r}", pointer)
        return None
    value = obj[key]
    if not isinstance(value, str):
        raise _invalid(f"{key!r} must be a string, not {_describe(value)}", f"{pointer}/{key}")
    return value


def parse_block(raw: Any, pointer: str) -> Block:
    if not isinstance(raw, Mapping):
        raise _invalid(f"a content block must be an object, not {_describe(raw)}", pointer)
    kind = _string(raw, "type", pointer)
    if kind == "":
        raise _invalid("a block type must not be empty", f"{pointer}/type")
    if kind == "text":
        return Text(_string(raw, "text", pointer), pointer)
    if kind == "reasoning":
        return Reasoning(
            _string(raw, "text", pointer), _string(raw, "signature", pointer, required=False),
            pointer,
        )
    if kind == "tool-call":
        return ToolCall(
            _string(raw, "id", pointer), _string(raw, "name", pointer),
            _string(raw, "arguments", pointer), pointer,
        )
    if kind == "image":
        attachment = raw.get("attachment")
        where = f"{pointer}/attachment"
        if not isinstance(attachment, Mapping):
            raise _invalid("an image block needs an 'attachment' object", where)
        return Image(_string(attachment, "mediaType", where), _string(attachment, "data", where),
                     pointer)
    if kind in ("tool-addition", "tool-removal"):
        return ToolChange(kind, _string(raw, "toolName", pointer), pointer)
    return Other(kind, pointer)


def parse_message(raw: Any, pointer: str) -> Message:
    if not isinstance(raw, Mapping):
        raise _invalid(f"a message must be an object, not {_describe(raw)}", pointer)
    role = _string(raw, "role", pointer)
    if role not in ROLES:
        raise _invalid(f"unknown role {role!r} (expected one of {', '.join(ROLES)})",
                       f"{pointer}/role")
    allowed = {"role", "content"} | METADATA_KEYS
    if role == "tool":
        allowed |= {"toolCallId", "isError"}
    for key in raw:
        if key not in allowed:
            raise _invalid(f"unexpected member {key!r} on a {role} message", f"{pointer}/{key}")
    content = raw.get("content")
    if not isinstance(content, Sequence) or isinstance(content, str | bytes):
        raise _invalid(f"'content' must be an array of blocks, not {_describe(content)}",
                       f"{pointer}/content")
    blocks = tuple(parse_block(b, f"{pointer}/content/{i}") for i, b in enumerate(content))
    if role != "tool":
        return Message(role, blocks, pointer)
    call_id = _string(raw, "toolCallId", pointer)
    if call_id == "":
        raise _invalid("'toolCallId' must not be empty", f"{pointer}/toolCallId")
    is_error = raw.get("isError")
    if "isError" in raw and not isinstance(is_error, bool):
        raise _invalid(f"'isError' must be a boolean, not {_describe(is_error)}",
                       f"{pointer}/isError")
    return Message(role, blocks, pointer, call_id, is_error)


def parse_history(raw: Any, pointer: str = "/history") -> History:
    """Plain JSON history -> :class:`History`; ``INVALID_HISTORY`` names the first problem."""
    if not isinstance(raw, Sequence) or isinstance(raw, str | bytes):
        raise _invalid(f"the history must be an array of messages, not {_describe(raw)}", pointer)
    messages = tuple(parse_message(m, f"{pointer}/{i}") for i, m in enumerate(raw))
    # DM-046: "Empty developer content retains its surface position without adding a model
    # message or shadowing the protected system head": an empty developer message among the
    # leading messages neither ends the system head nor reaches the wire.
    split = next(
        (i for i, m in enumerate(messages) if m.role != "system" and not _empty_developer(m)),
        len(messages),
    )
    head = tuple(m for m in messages[:split] if m.role == "system")
    return History(head, messages[split:])


def _empty_developer(message: Message) -> bool:
    return message.role == "developer" and all(
        isinstance(b, Text) and b.text == "" for b in message.content
    )


def parse_tools(raw: Any, pointer: str = "/tools") -> tuple[Tool, ...] | None:
    if raw is None:
        return None
    if not isinstance(raw, Sequence) or isinstance(raw, str | bytes):
        raise _invalid(f"'tools' must be an array, not {_describe(raw)}", pointer)
    tools = []
    for i, entry in enumerate(raw):
        where = f"{pointer}/{i}"
        if not isinstance(entry, Mapping):
            raise _invalid(f"a tool must be an object, not {_describe(entry)}", where)
        for key in entry:
            if key not in ("name", "description", "inputSchema", "deferLoading"):
                raise _invalid(f"unexpected member {key!r} on a tool", f"{where}/{key}")
        name = _string(entry, "name", where)
        description = _string(entry, "description", where, required=False)
        schema = entry.get("inputSchema")
        if not isinstance(schema, Mapping):
            raise _invalid("a tool needs an 'inputSchema' object", f"{where}/inputSchema")
        defer = entry.get("deferLoading", False)
        if not isinstance(defer, bool):
            raise _invalid(f"'deferLoading' must be a boolean, not {_describe(defer)}",
                           f"{where}/deferLoading")
        tools.append(Tool(name, description, json.dumps(schema, sort_keys=True), defer))
    return tuple(tools)


def parse_serialize_input(payload: Any) -> SerializeInput:
    """The operation input ``{"history": [...], "tools": [...]?}``."""
    if not isinstance(payload, Mapping):
        raise _invalid(f"the input must be an object, not {_describe(payload)}", "")
    for key in payload:
        if key not in ("history", "tools"):
            raise _invalid(f"unexpected member {key!r} in the input", f"/{key}")
    if "history" not in payload:
        raise _invalid("missing required member 'history'", "")
    return SerializeInput(parse_history(payload["history"]), parse_tools(payload.get("tools")))


def system_text(message: Message) -> str:
    """A system message's prompt: its text blocks joined (DSH joins within one snapshot).

    Any other block in a system message has no wire form: ``UNSUPPORTED_CONTENT``.
    """
    parts = []
    for block in message.content:
        if not isinstance(block, Text):
            raise TckError(UNSUPPORTED_CONTENT,
                           "a system message may only hold text blocks", block.pointer)
        parts.append(block.text)
    return "".join(parts)


def tool_input(arguments: str) -> dict[str, Any]:
    """Recorded tool-call arguments as a JSON object for a wire that needs one.

    Arguments that are not a JSON object have no object form; they become ``{}`` (as in DSH) and
    the recorded text itself is left as it is.
    """
    try:
        value = json.loads(arguments)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
