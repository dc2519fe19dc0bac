"""Canonical history -> Anthropic Messages request body ``{system?, messages, tools?}``.

Pure: plain JSON in, a fresh plain JSON object out; the input is never modified (BO-008).
Rules of spec note 000 (block omission, in-history updates) are quoted beside their checks.
"""

from __future__ import annotations

from typing import Any

from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.serialize import model
from agent_tck.reference_impl.serialize.model import (
    UNSUPPORTED_CONTENT,
    Image,
    Message,
    Other,
    Reasoning,
    Text,
    ToolCall,
    ToolChange,
)

Json = dict[str, Any]


def serialize(history: Any, tools: Any = None) -> Json:
    """The Messages request for ``history`` (canonical JSON) and optional ``tools``.

    Raises :class:`TckError` ``INVALID_HISTORY`` for malformed input and
    ``UNSUPPORTED_CONTENT`` for input Messages cannot represent.
    """
    parsed = model.parse_history(history)
    return build(parsed, model.parse_tools(tools))


def build(history: model.History, tools: tuple[model.Tool, ...] | None) -> Json:
    body: Json = {}
    head = _head(history.head)
    if head:
        body["system"] = head
    body["messages"] = _messages(history.body)
    if tools:
        body["tools"] = [_tool(t) for t in tools]
    return body


def _head(head: tuple[Message, ...]) -> str:
    # IHU-D005: the leading system messages are the system head, sent as top-level `system`.
    # Each system message is a complete snapshot, so the latest leading one is the head (DSH);
    # every one must still be representable. An empty head sends no `system`.
    text = ""
    for message in head:
        text = model.system_text(message)
    return text


def _tool(tool: model.Tool) -> Json:
    out: Json = {"name": tool.name}
    if tool.description is not None:
        out["description"] = tool.description
    out["input_schema"] = tool.input_schema()
    if tool.defer_loading:  # "deferLoading ... prompt assembly preserve the marker"
        out["defer_loading"] = True
    return out


# --- user and tool-result input ---------------------------------------------------------------


def _input_blocks(message: Message) -> list[Json]:
    """Blocks of a user message or of a tool result's content, as Messages input."""
    out: list[Json] = []
    for block in message.content:
        match block:
            case Text(text=""):
                # BO-D008: an empty text block is not sent (Messages rejects empty text blocks).
                continue
            case Text(text=text):
                # BO-007: retained text is sent exactly as recorded ("Request-only omission
                # preserves the durable record and existing input semantics").
                out.append({"type": "text", "text": text})
            case Reasoning() | ToolCall():
                # BO-001..BO-004: "The Messages serializer omits reasoning and tool-call blocks
                # from user and tool-result input." Decided by role and block type alone
                # (BO-009), never turned into user text (BO-015), never an error (BO-014).
                continue
            case Image(media_type=media_type, data=data):
                # BO-D006: images are supported input, kept as image blocks.
                out.append({"type": "image", "source": {
                    "type": "base64", "media_type": media_type, "data": data}})
            case Other() | ToolChange():
                # BO-005 / BO-006: "rejection of other unsupported blocks"; "Unknown plugin
                # content has no Messages representation defined here."
                where = "tool-result" if message.role == "tool" else "user"
                raise TckError(
                    UNSUPPORTED_CONTENT,
                    f"Messages cannot represent a {_type(block)!r} block in {where} input",
                    block.pointer,
                )
    return out


def _type(block: model.Block) -> str:
    match block:
        case Other(type=kind):
            return kind
        case ToolChange(kind=kind):
            return kind
        case _:
            return type(block).__name__.lower()


# --- assistant output -------------------------------------------------------------------------


def _assistant_blocks(message: Message) -> list[Json]:
    out: list[Json] = []
    for block in message.content:
        match block:
            case Text(text=text):
                out.append({"type": "text", "text": text})
            case Reasoning(text=text, signature=signature):
                # BO-011: "ordinary assistant reasoning and tool calls remain available to their
                # existing consumers": assistant reasoning is kept, as a thinking block.
                thinking: Json = {"type": "thinking", "thinking": text}
                if signature is not None:
                    thinking["signature"] = signature
                out.append(thinking)
            case ToolCall(id=call_id, name=name, arguments=arguments):
                # BO-012: assistant tool calls are kept, as tool_use blocks.
                out.append({"type": "tool_use", "id": call_id, "name": name,
                            "input": model.tool_input(arguments)})
            case _:
                raise TckError(
                    UNSUPPORTED_CONTENT,
                    f"Messages cannot represent a {_type(block)!r} block in assistant output",
                    block.pointer,
                )
    return out


# --- in-history updates -----------------------------------------------------------------------


def _update(message: Message) -> Json | None:
    """The wire form of an in-history system or developer message (None: nothing to send)."""
    if message.role == "system":
        text = model.system_text(message)
        if text == "":
            # IHU-D004: an empty in-history update has no meaning on the wire and is rejected.
            raise TckError(UNSUPPORTED_CONTENT, "an in-history system update is empty",
                           message.pointer)
        return {"role": "system", "content": [{"type": "text", "text": text}]}
    # developer message (its own family's rules): text and tool changes become a system update.
    content: list[Json] = []
    for block in message.content:
        match block:
            case Text(text=""):
                continue
            case Text(text=text):
                content.append({"type": "text", "text": text})
            case ToolChange(kind=kind, tool_name=name):
                wire = "tool_addition" if kind == "tool-addition" else "tool_removal"
                content.append({"type": wire, "tool": {"type": "tool_reference", "name": name}})
            case _:
                raise TckError(
                    UNSUPPORTED_CONTENT,
                    f"Messages cannot represent a {_type(block)!r} block in a developer message",
                    block.pointer,
                )
    return {"role": "system", "content": content} if content else None


class _Wire:
    """The messages being built, with in-history updates waiting for their turn to close."""

    def __init__(self) -> None:
        self.messages: list[Json] = []
        self.pending: list[tuple[Json, str]] = []

    def add(self, role: str, blocks: list[Json]) -> None:
        # BO-D005: consecutive same-role turns are one turn (a tool result is a user turn).
        last = self.messages[-1] if self.messages else None
        if last is not None and last["role"] == role:
            last["content"].extend(blocks)
        else:
            self.messages.append({"role": role, "content": blocks})

    def flush(self) -> None:
        """Place waiting updates: before the next assistant turn, or at the end of the request.

        IHU-D001 / IHU-D002: an update directly follows the user turn (tool results count) that
        closes after it, and precedes the next assistant turn or ends the request.
        """
        if not self.pending:
            return
        previous = self.messages[-1]["role"] if self.messages else None
        if previous != "user":
            first_pointer = self.pending[0][1]
            if previous is None:
                # IHU-D003: a system message is never first on the wire.
                why = "no user or tool-result turn precedes it on the wire"
            else:
                # IHU-001 / IHU-002: "rejection of an in-history update when its user input is
                # entirely omitted, both before another assistant and at request end".
                # IHU-005 / IHU-006: "rather than inventing a user message or relocating the
                # update": no earlier turn is used and no user message is made up.
                why = "all user input after it was omitted, so an assistant turn precedes it"
            raise TckError(
                UNSUPPORTED_CONTENT,
                f"Messages cannot place this in-history system update: {why}",
                first_pointer,
            )
        self.messages.extend(update for update, _ in self.pending)
        self.pending = []


def _messages(body: tuple[Message, ...]) -> list[Json]:
    wire = _Wire()
    for message in body:
        if message.role in ("system", "developer"):
            update = _update(message)
            if update is not None:
                wire.pending.append((update, message.pointer))
        elif message.role == "assistant":
            wire.flush()
            wire.add("assistant", _assistant_blocks(message))
        elif message.role == "tool":
            # BO-D003: a tool result is kept with its call id and error flag even when nothing
            # of its content is left ("empty tool results retain their call ids"); no text is
            # invented for it.
            result: Json = {"type": "tool_result", "tool_use_id": message.tool_call_id,
                            "content": _input_blocks(message)}
            if message.is_error is not None:
                result["is_error"] = message.is_error
            wire.add("user", [result])
        else:
            blocks = _input_blocks(message)
            if not blocks:
                # BO-D001: a user message with nothing left to send is skipped.
                continue
            wire.add("user", blocks)
    wire.flush()
    for turn in wire.messages:
        if turn["role"] == "user":
            # BO-D005: in a user turn the tool_result blocks come first (Messages requires it).
            results = [b for b in turn["content"] if b["type"] == "tool_result"]
            others = [b for b in turn["content"] if b["type"] != "tool_result"]
            turn["content"] = results + others
    return wire.messages
