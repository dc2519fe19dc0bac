"""Wire comparison: normalize a request body to the form the provider sees.

Two bodies a provider treats as the same request must compare equal (a false failure is as bad
as a false pass); anything a rule constrains must survive normalization. Both functions are
pure: they return new values and never modify their argument. Documented for implementers in
vectors/block-omission/README.md ("Wire comparison").

Equal after normalization (Anthropic Messages, mode ``anthropic-messages``):

* key order (the comparison is JSON equality);
* a string ``content`` and a list holding one text block with that string;
* consecutive ``user`` turns, consecutive ``assistant`` turns, and consecutive mid-conversation
  ``system`` messages combined into one (the provider combines them; block order is kept) - but a
  turn with empty content is never merged away;
* an assistant ``thinking`` block without a signature (absent, ``null`` or ``""``) and no block:
  the provider refuses thinking without a signature and ignores thinking in earlier assistant
  turns, so dropping it and sending it unsigned are the same request. A signed thinking block is
  compared, signature included (BO-011); thinking outside assistant turns is always compared;
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
* a run of consecutive non-empty text parts in a message and one text part holding their texts
  joined by ``""``, ``"\n"`` or ``"\n\n"`` (many endpoints take string content only). This is
  two-sided, so it is not done by :func:`normalize_openai_chat` but by
  :func:`align_openai_chat` on two normalized bodies (``harness.compare`` calls it); the texts
  themselves still compare exactly (BO-007);
* an ``image_url`` part's ``detail`` absent and ``"auto"`` (the provider default);
* consecutive ``user`` messages combined (never merging away an empty one);
* ``tool_calls`` absent and ``[]``; a tool call's ``type`` absent and ``"function"``; its
  ``function.arguments`` compared as parsed JSON;
* a tool message's ``content`` ``""`` and ``[]``;
* assistant reasoning (``reasoning_content``, ``reasoning``, ``reasoning_details``, ``thinking``
  members and reasoning/thinking parts of an assistant message): no rule governs how assistant
  reasoning travels on Chat Completions input, so it never decides a verdict. Only assistant
  messages are stripped: reasoning that shows up in a user or tool message is compared;
* ``tools`` absent and ``[]``; top-level members other than messages/tools are ignored.

Never normalized: an omitted block's presence, an empty user message or text block, the
position of a system update, block order inside a turn (tool_result-first is a rule), text split
into several blocks versus joined on the Messages wire, text joined with any other separator or
changed in any way on Chat Completions.
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


def _unsigned_thinking(block: Json) -> bool:
    """A thinking block the provider would not take back: no signature, or an empty one."""
    return (isinstance(block, dict) and block.get("type") == "thinking"
            and block.get("signature") in (None, ""))


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
        # the provider combines consecutive turns of one role; a system update's place is
        # still compared, since only neighbouring system messages fold (IHU-D001: order kept)
        if (previous is not None and normalized["role"] in ("user", "assistant", "system")
                and previous["role"] == normalized["role"]
                and previous["content"] and normalized["content"]
                and set(previous) == set(normalized) == {"role", "content"}):
            previous["content"] = previous["content"] + normalized["content"]
        else:
            out_messages.append(normalized)
    for turn in out_messages:
        if turn["role"] == "assistant":
            # unsigned thinking: refused or ignored by the provider, so the same as no block.
            # Set aside after turns combine, as the provider combines them first.
            turn["content"] = [b for b in turn["content"] if not _unsigned_thinking(b)]
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


def _openai_part(part: Json) -> Json:
    out = _strip_cache_control(part)
    if isinstance(out, dict) and out.get("type") == "image_url":
        image = out.get("image_url")
        if isinstance(image, dict) and image.get("detail") == "auto":
            # "auto" is the provider's default detail: the same as leaving it out
            out["image_url"] = {k: v for k, v in image.items() if k != "detail"}
    return out


def _openai_parts(content: Json, *, where: str) -> list[Json]:
    if isinstance(content, str) or content is None:
        return _text_blocks(content, where=where)
    _require(isinstance(content, list), f"{where} content must be a string or a list")
    return [_openai_part(p) for p in content]


def _openai_user_parts(content: Json) -> list[Json]:
    if isinstance(content, str):
        # "" stays an (empty) user message; it is never merged away
        return [{"type": "text", "text": content}] if content != "" else []
    _require(isinstance(content, list), "user content must be a string or a list")
    return [_openai_part(p) for p in content]


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


#: Separators a runtime that sends string content plausibly joins a message's text parts with.
TEXT_JOINS = ("", "\n", "\n\n")


def _plain_text(part: Json) -> str | None:
    """The text of a plain, non-empty text part (nothing else on it), else None."""
    if (isinstance(part, dict) and set(part) == {"type", "text"} and part["type"] == "text"
            and isinstance(part["text"], str) and part["text"] != ""):
        return str(part["text"])
    return None


def _joins_to(run: list[Json], text: str) -> bool:
    texts: list[str] = []
    for part in run:
        plain = _plain_text(part)
        if plain is None:
            return False
        texts.append(plain)
    return any(sep.join(texts) == text for sep in TEXT_JOINS)


def same_openai_content(one: Json, other: Json) -> bool:
    """Two normalized Chat Completions contents the provider reads as the same text.

    Equal, or equal once each run of two or more consecutive plain text parts on one side is
    matched by one text part on the other holding their texts joined by ``""``, ``"\n"`` or
    ``"\n\n"`` (BO-007: "Retained input is sent exactly as recorded" - the characters still
    compare exactly; only where the parts were cut is not pinned). Empty text parts never join.
    """
    if one == other:
        return True
    if not (isinstance(one, list) and isinstance(other, list)):
        return False
    seen: set[tuple[int, int]] = set()

    def match(i: int, j: int) -> bool:
        if (i, j) in seen:
            return False
        seen.add((i, j))
        if i == len(one) or j == len(other):
            return i == len(one) and j == len(other)
        if one[i] == other[j] and match(i + 1, j + 1):
            return True
        text = _plain_text(one[i])  # one part here, a run of parts there
        if text is not None:
            for n in range(2, len(other) - j + 1):
                if _joins_to(other[j:j + n], text) and match(i + 1, j + n):
                    return True
        text = _plain_text(other[j])  # and the other way round
        if text is not None:
            for n in range(2, len(one) - i + 1):
                if _joins_to(one[i:i + n], text) and match(i + n, j + 1):
                    return True
        return False

    return match(0, 0)


def align_openai_chat(expected: Json, actual: Json) -> Json:
    """``actual`` (normalized) with each message content that :func:`same_openai_content`
    finds equal to the expected message's (same index, same role) written in the expected form.

    Both arguments are normalized bodies (:func:`normalize_openai_chat`). Only how text is cut
    into parts is aligned: every other difference, and the text itself, is left for the
    comparison to see. Pure: returns a new value.
    """
    if not (isinstance(expected, dict) and isinstance(actual, dict)):
        return actual
    wanted, got = expected.get("messages"), actual.get("messages")
    if not (isinstance(wanted, list) and isinstance(got, list)):
        return actual
    aligned = []
    for index, message in enumerate(got):
        target = wanted[index] if index < len(wanted) else None
        if (isinstance(target, dict) and isinstance(message, dict)
                and target.get("role") == message.get("role")
                and "content" in target and "content" in message
                and target["content"] != message["content"]
                and same_openai_content(target["content"], message["content"])):
            aligned.append({**message, "content": target["content"]})
        else:
            aligned.append(message)
    return {**actual, "messages": aligned}


# --- canonical history (mode ``canonical-history``; chunk-free-persistence) --------------------
#
# ``session.resume`` returns ``{"history": [message, ...], "tools": [tool, ...] | null}`` in the
# canonical history of vectors/schema/history.schema.json. Equal after normalization:
#
# * a message's metadata ``id``, ``source`` and ``createdAt`` present or absent (the schema's
#   ``metadata``: "accepted on every message and never read");
# * a tool message's ``isError`` absent and ``false`` (only ``true`` marks an error result);
# * ``tools`` absent, ``null`` and ``[]`` (no tools to offer).
#
# Never normalized: a message's presence, order or role, content blocks (types, text, order,
# tool-call ids and raw arguments), ``toolCallId``, ``isError: true``, and each tool.

_HISTORY_METADATA = frozenset({"id", "source", "createdAt"})


def _canonical_history_message(message: Json) -> Json:
    if not isinstance(message, dict):
        return message
    out = {key: value for key, value in message.items() if key not in _HISTORY_METADATA}
    if out.get("role") == "tool" and out.get("isError") is False:
        del out["isError"]
    return out


def normalize_canonical_history(body: Json) -> Json:
    """``body`` (a ``{"history", "tools"}`` object) in the form where the equivalences above
    compare equal. Anything not recognizably a history is returned unchanged, for the JSON
    comparison to report. Pure: returns a new value."""
    if not isinstance(body, dict):
        return body
    out = dict(body)
    history = out.get("history")
    if isinstance(history, list):
        out["history"] = [_canonical_history_message(m) for m in history]
    if out.get("tools") == []:
        out["tools"] = None
    out.setdefault("tools", None)
    return out
