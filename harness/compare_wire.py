"""Wire comparison: normalize a request body to the form the provider sees.

Two bodies a provider treats as the same request must compare equal (a false failure is as bad
as a false pass); anything a rule constrains must survive normalization. Both functions are
pure: they return new values and never modify their argument. Documented for implementers in
vectors/block-omission/README.md ("Wire comparison").

Equal after normalization (Anthropic Messages, mode ``anthropic-messages``):

* key order (the comparison is JSON equality);
* a string ``content`` and a list holding one text block with that string;
* consecutive ``user`` turns, and consecutive ``assistant`` turns, combined into one turn (the
  provider combines them) - but a turn with empty content is never merged away;
* top-level ``system`` as a string, a list of text blocks, or absent when empty;
* tool_use ``input`` given as a JSON string and as the parsed value;
* tool_result ``content`` absent, ``""`` and ``[]``; ``is_error`` absent and ``false``;
* ``cache_control`` anywhere (a caching hint, not input);
* ``tools`` absent and ``[]``; top-level members other than system/messages/tools (``model``,
  ``max_tokens``, ...: not part of the operation's output) are ignored.

Equal after normalization (Chat Completions, mode ``openai-chat``):

* key order; members whose value is ``null``;
* a string ``content`` and a list holding one text part with that string; an assistant's
  ``content`` ``null``, ``""``, ``[]`` and absent;
* consecutive ``user`` messages combined (never merging away an empty one);
* ``tool_calls`` absent and ``[]``; a tool call's ``type`` absent and ``"function"``; its
  ``function.arguments`` compared as parsed JSON;
* a tool message's ``content`` ``""`` and ``[]``;
* assistant reasoning (``reasoning_content``, ``reasoning``, ``reasoning_details``, ``thinking``
  members and reasoning/thinking parts of an assistant message): no rule governs how assistant
  reasoning travels on Chat Completions input, so it never decides a verdict. Only assistant
  messages are stripped: reasoning that shows up in a user or tool message is compared;
* ``tools`` absent and ``[]``; top-level members other than messages/tools are ignored.

Never normalized: an omitted block's presence, an empty user message, the position of a system
update, block order inside a turn (tool_result-first is a rule), text split into several blocks
versus joined.
"""

from __future__ import annotations

import json
from typing import Any

Json = Any

_REASONING_KEYS = frozenset(
    {"reasoning_content", "reasoning", "reasoning_details", "reasoning_text", "thinking",
     "thinking_blocks"}
)
_REASONING_PARTS = frozenset({"reasoning", "thinking", "redacted_thinking"})


class NotARequest(ValueError):
    """The value is not shaped like a request body of the format."""


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise NotARequest(message)


def _strip_cache_control(value: Json) -> Json:
    if isinstance(value, dict):
        return {k: _strip_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_strip_cache_control(v) for v in value]
    return value


def _without_default_defer(tool: Json) -> Json:
    """``defer_loading: false`` is the provider's default: the same as leaving it out."""
    if isinstance(tool, dict) and tool.get("defer_loading") is False:
        return {k: v for k, v in tool.items() if k != "defer_loading"}
    return tool


def _parsed_json(value: Json) -> Json:
    """A JSON text as its value (text that is not JSON stays the text)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _text_blocks(content: Json, *, where: str) -> list[Json]:
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content != "" else []
    _require(isinstance(content, list), f"{where} content must be a string or a list")
    return list(content)


# --- Anthropic Messages -----------------------------------------------------------------------


def _anthropic_block(block: Json) -> Json:
    _require(isinstance(block, dict), "a content block must be an object")
    out = _strip_cache_control(block)
    kind = out.get("type")
    if kind == "tool_result":
        content = out.get("content")
        if isinstance(content, list):
            out["content"] = [_anthropic_block(b) for b in content]
        else:
            out["content"] = _text_blocks(content, where="tool_result")
        if out.get("is_error") is None:
            out["is_error"] = False  # the provider's default
    elif kind == "tool_use":
        out["input"] = _parsed_json(out.get("input"))
    return out


def _anthropic_content(content: Json) -> list[Json]:
    if isinstance(content, str):
        # a string is one text block, even "" (which the provider would refuse: kept visible)
        return [{"type": "text", "text": content}] if content != "" else []
    _require(isinstance(content, list), "message content must be a string or a list")
    return [_anthropic_block(b) for b in content]


def normalize_anthropic_messages(body: Json) -> Json:
    """A Messages request body in the form the provider sees (see the module docstring)."""
    _require(isinstance(body, dict), "a Messages request body is an object")
    system = body.get("system")
    if system is None or system == "":
        system_blocks: list[Json] = []
    elif isinstance(system, str):
        system_blocks = [{"type": "text", "text": system}]
    else:
        _require(isinstance(system, list), "system must be a string or a list of blocks")
        system_blocks = [_strip_cache_control(b) for b in system]
        system_blocks = [b for b in system_blocks
                         if not (isinstance(b, dict) and b.get("type") == "text"
                                 and b.get("text") == "")]
    messages = body.get("messages")
    _require(isinstance(messages, list), "messages must be a list")
    out_messages: list[Json] = []
    for message in messages:
        _require(isinstance(message, dict), "a message must be an object")
        _require(isinstance(message.get("role"), str), "a message needs a role")
        normalized = {k: _strip_cache_control(v) for k, v in message.items()
                      if k not in ("content", "cache_control")}
        normalized["content"] = _anthropic_content(message.get("content"))
        previous = out_messages[-1] if out_messages else None
        if (previous is not None and normalized["role"] in ("user", "assistant")
                and previous["role"] == normalized["role"]
                and previous["content"] and normalized["content"]
                and set(previous) == set(normalized) == {"role", "content"}):
            previous["content"] = previous["content"] + normalized["content"]
        else:
            out_messages.append(normalized)
    tools = body.get("tools")
    if tools is None:
        tools = []
    _require(isinstance(tools, list), "tools must be a list")
    return {
        "system": system_blocks,
        "messages": out_messages,
        "tools": [_without_default_defer(_strip_cache_control(t)) for t in tools],
    }


# --- OpenAI Chat Completions ------------------------------------------------------------------


def _openai_parts(content: Json, *, where: str) -> list[Json]:
    if isinstance(content, str) or content is None:
        return _text_blocks(content, where=where)
    _require(isinstance(content, list), f"{where} content must be a string or a list")
    return [_strip_cache_control(p) for p in content]


def _openai_user_parts(content: Json) -> list[Json]:
    if isinstance(content, str):
        # "" stays an (empty) user message; it is never merged away
        return [{"type": "text", "text": content}] if content != "" else []
    _require(isinstance(content, list), "user content must be a string or a list")
    return [_strip_cache_control(p) for p in content]


def _openai_call(call: Json) -> Json:
    _require(isinstance(call, dict), "a tool call must be an object")
    out = {k: v for k, v in call.items() if v is not None}
    out.setdefault("type", "function")
    function = out.get("function")
    if isinstance(function, dict):
        function = {k: v for k, v in function.items() if v is not None}
        if "arguments" in function:
            function["arguments"] = _parsed_json(function["arguments"])
        out["function"] = function
    return out


def _openai_message(message: Json) -> Json:
    _require(isinstance(message, dict), "a message must be an object")
    role = message.get("role")
    _require(isinstance(role, str), "a message needs a role")
    out = {k: v for k, v in message.items() if v is not None and k != "content"}
    content = message.get("content")
    if role == "assistant":
        for key in _REASONING_KEYS:
            out.pop(key, None)
        parts = _openai_parts(content, where="assistant")
        out["content"] = [p for p in parts
                          if not (isinstance(p, dict) and p.get("type") in _REASONING_PARTS)]
        calls = out.pop("tool_calls", [])
        _require(isinstance(calls, list), "tool_calls must be a list")
        out["tool_calls"] = [_openai_call(c) for c in calls]
    elif role == "user":
        out["content"] = _openai_user_parts(content)
    else:  # system, developer, tool
        out["content"] = _openai_parts(content, where=role)
    return out


def normalize_openai_chat(body: Json) -> Json:
    """A Chat Completions request body in the form the provider sees (module docstring)."""
    _require(isinstance(body, dict), "a Chat Completions request body is an object")
    messages = body.get("messages")
    _require(isinstance(messages, list), "messages must be a list")
    out_messages: list[Json] = []
    for message in messages:
        normalized = _openai_message(message)
        previous = out_messages[-1] if out_messages else None
        if (previous is not None and normalized["role"] == "user" == previous["role"]
                and previous["content"] and normalized["content"]
                and set(previous) == set(normalized) == {"role", "content"}):
            previous["content"] = previous["content"] + normalized["content"]
        else:
            out_messages.append(normalized)
    tools = body.get("tools")
    if tools is None:
        tools = []
    _require(isinstance(tools, list), "tools must be a list")
    normalized_tools = []
    for tool in tools:
        _require(isinstance(tool, dict), "a tool must be an object")
        entry = {k: v for k, v in tool.items() if v is not None}
        entry.setdefault("type", "function")
        normalized_tools.append(entry)
    return {"messages": out_messages, "tools": normalized_tools}
