"""Canonical history -> OpenAI Chat Completions request body ``{messages, tools?}``.

Pure: plain JSON in, a fresh plain JSON object out; the input is never modified (BO-008).
Spec note 000 says Chat Completions already omits reasoning and tool-call blocks from user
input; this serializer does so for user and tool messages (BO-001..BO-004), so one vector pins
both wire formats. Where the note is silent the suite decides (BO-D002, BO-D004); the in-history
placement rules of the note are Messages rules and are not pinned here (vectors/block-omission/
README.md).
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
    """The Chat Completions request for ``history`` (canonical JSON) and optional ``tools``.

    Raises :class:`TckError` ``INVALID_HISTORY`` for malformed input and
    ``UNSUPPORTED_CONTENT`` for input Chat Completions cannot represent.
    """
    parsed = model.parse_history(history)
    return build(parsed, model.parse_tools(tools))


def build(history: model.History, tools: tuple[model.Tool, ...] | None) -> Json:
    messages: list[Json] = []
    head = ""
    for message in history.head:  # IHU-D005: the latest leading snapshot is the head
        head = model.system_text(message)
    if head:
        messages.append({"role": "system", "content": head})
    messages.extend(_messages(history.body))
    body: Json = {"messages": messages}
    if tools:
        body["tools"] = [_tool(t) for t in tools]
    return body


def _tool(tool: model.Tool) -> Json:
    function: Json = {"name": tool.name}
    if tool.description is not None:
        function["description"] = tool.description
    function["parameters"] = tool.input_schema()
    return {"type": "function", "function": function}


def _input_parts(message: Message, *, images: bool) -> list[Json]:
    out: list[Json] = []
    for block in message.content:
        match block:
            case Text(text=""):
                continue  # nothing to send
            case Text(text=text):
                out.append({"type": "text", "text": text})  # BO-007: as recorded
            case Reasoning() | ToolCall():
                # BO-001..BO-004: "Chat Completions and pi-ai omit these blocks from user input";
                # the same holds for tool messages here. Never flattened into text (BO-015).
                continue
            case Image(media_type=media_type, data=data) if images:
                # BO-D006: a user image becomes an image_url part with a data URL.
                out.append({"type": "image_url",
                            "image_url": {"url": f"data:{media_type};base64,{data}"}})
            case Image():
                raise TckError(UNSUPPORTED_CONTENT,
                               "Chat Completions tool messages cannot carry images",
                               block.pointer)
            case Other() | ToolChange():
                # BO-D004: the note leaves other blocks on Chat Completions open; like DSH's
                # Chat Completions adapter ("Plugin-added content block types are skipped") they
                # are omitted, never sent in any form.
                continue
    return out


def _tool_content(parts: list[Json]) -> str | list[Json]:
    if not parts:
        return ""
    if len(parts) == 1:
        return str(parts[0]["text"])
    return parts


def _assistant(message: Message) -> Json:
    texts: list[Json] = []
    calls: list[Json] = []
    reasoning: list[str] = []
    for block in message.content:
        match block:
            case Text(text=text):
                texts.append({"type": "text", "text": text})
            case Reasoning(text=text):
                # Not governed by any rule on Chat Completions; passed back DeepSeek-style.
                reasoning.append(text)
            case ToolCall(id=call_id, name=name, arguments=arguments):
                # BO-012: assistant tool calls are kept; arguments as recorded.
                calls.append({"id": call_id, "type": "function",
                              "function": {"name": name, "arguments": arguments}})
            case _:
                raise TckError(
                    UNSUPPORTED_CONTENT,
                    "Chat Completions cannot represent this block in assistant output",
                    block.pointer,
                )
    out: Json = {"role": "assistant"}
    if not texts:
        out["content"] = None
    elif len(texts) == 1:
        out["content"] = texts[0]["text"]
    else:
        out["content"] = texts
    if calls:
        out["tool_calls"] = calls
    if reasoning:
        out["reasoning_content"] = "".join(reasoning)
    return out


def _update(message: Message) -> Json | None:
    if message.role == "system":
        text = model.system_text(message)
        if text == "":
            raise TckError(UNSUPPORTED_CONTENT, "an in-history system update is empty",
                           message.pointer)
        return {"role": "system", "content": text}
    texts = []
    for block in message.content:
        if isinstance(block, Text):
            texts.append(block.text)
        else:
            raise TckError(UNSUPPORTED_CONTENT,
                           "Chat Completions has no form for this developer-message block",
                           block.pointer)
    text = "".join(texts)
    return {"role": "system", "content": text} if text else None


def _messages(body: tuple[Message, ...]) -> list[Json]:
    """Tool messages answer the assistant directly; the rest of a turn follows in order."""
    out: list[Json] = []
    tool_messages: list[Json] = []
    rest: list[Json] = []

    def close_turn() -> None:
        out.extend(tool_messages)
        out.extend(rest)
        tool_messages.clear()
        rest.clear()

    for message in body:
        if message.role in ("system", "developer"):
            update = _update(message)
            if update is not None:
                rest.append(update)
        elif message.role == "assistant":
            close_turn()
            out.append(_assistant(message))
        elif message.role == "tool":
            # The tool message stays, with its call id, whatever is left of its content.
            tool_messages.append({"role": "tool", "tool_call_id": message.tool_call_id,
                                  "content": _tool_content(_input_parts(message, images=False))})
        else:
            parts = _input_parts(message, images=True)
            if not parts:
                continue  # BO-D002: a user message with nothing left to send is skipped
            if rest and rest[-1]["role"] == "user":
                rest[-1]["content"].extend(parts)
            else:
                rest.append({"role": "user", "content": parts})
    close_turn()
    return out
