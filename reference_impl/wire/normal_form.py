"""The one normal form of a provider request: what the provider sees, nothing else.

Used by vector comparison (``harness.run.compare``, purpose ``compare``) and by the audit's
conversation tracker (:mod:`harness.audit.tracker`, purpose ``track``). Every
equivalence applied here is a row of :mod:`reference_impl.wire.equivalences` (its reason is
there), marked ``# EQ <key>`` where it is applied. All functions are pure: they return new
values and never modify their argument; a value not shaped like a request raises
:class:`NotARequest`.

* :func:`normalize_anthropic_messages`, :func:`normalize_openai_chat`: a whole body ->
  ``{"system", "messages", "tools"}`` / ``{"messages", "tools"}``;
* :func:`normal_message`, :func:`normal_head`, :func:`merges`: the same, a message at a time
  (the tracker normalizes only what a request adds);
* :func:`align_openai_chat`: the two-sided text-part alignment (compare only).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final, Literal

from agent_tck.reference_impl.wire.dialects import ANTHROPIC, OPENAI

Json = Any
Purpose = Literal["compare", "track"]
COMPARE: Final = "compare"
TRACK: Final = "track"

_REASONING_KEYS = frozenset(
    {"reasoning_content", "reasoning", "reasoning_details", "reasoning_text", "thinking",
     "thinking_blocks"}
)
_REASONING_PARTS = frozenset({"reasoning", "thinking", "redacted_thinking"})
_THINKING_BLOCKS = frozenset({"thinking", "redacted_thinking"})
#: what the model sees again of an echoed assistant block
_ASSISTANT_KEEP = {"text": ("type", "text"), "tool_use": ("type", "id", "name", "input")}
#: what the model sees again of an echoed Chat Completions assistant message (reasoning members
#: are the reasoning equivalence's business, so they pass here and go there)
_CHAT_ASSISTANT_KEEP = frozenset({"role", "content", "tool_calls", "name"}) | _REASONING_KEYS
#: roles whose consecutive turns the provider combines
_MERGED_ROLES = {ANTHROPIC: frozenset({"user", "assistant", "system"}),
                 OPENAI: frozenset({"user"})}


# EQ key-order: nothing to rewrite - normal forms are compared as JSON values (harness.run.compare)
# or fingerprinted with members sorted by key (harness.audit.conversation_state.fingerprint).


class NotARequest(ValueError):
    """The value is not shaped like a request body of the format."""


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise NotARequest(message)


def _clean(value: Json) -> Json:
    """An object without its cache_control and null members (this level only: a tool input
    or a schema keeps what it holds)."""
    if isinstance(value, dict):
        return {k: v for k, v in value.items()
                if k != "cache_control"  # EQ cache-control
                and v is not None}  # EQ null-member
    return value


def _same_but_marks(one: dict[str, Any], other: dict[str, Any], *, nested: bool) -> bool:
    """Equal but for a cache_control member; with ``nested``, content blocks compared alike."""
    if one.keys() - {"cache_control"} != other.keys() - {"cache_control"}:
        return False
    for key, value in one.items():
        if key == "cache_control" or value == other[key]:
            continue
        if not (nested and key == "content" and _same_blocks(value, other[key])):
            return False
    return True


def _same_blocks(one: Json, other: Json) -> bool:
    return (type(one) is list and type(other) is list and len(one) == len(other)
            and all(a == b or (type(a) is dict and type(b) is dict and _same_but_marks(
                a, b, nested=a.get("type") == "tool_result"))  # a tool_result's blocks too
                for a, b in zip(one, other, strict=True)))


def same_but_cache_control(message: Json, other: Json) -> bool:
    """True when two Messages messages differ at most in cache_control members where the normal
    form drops them (the message, its blocks, a tool_result's blocks), so they have one
    normal form (``==`` aside: ``1`` equals ``true``). A moved prompt-cache breakpoint leaves
    the message it left as it was.  # EQ cache-control"""
    return (type(message) is dict and type(other) is dict
            and _same_but_marks(message, other, nested=True))


def _parsed_json(value: Json) -> Json:
    """A JSON text as its value (text that is not JSON stays the text)."""  # EQ tool-arguments-json
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _text_blocks(content: Json, *, where: str) -> list[Json]:
    if content is None:
        return []
    if isinstance(content, str):  # EQ string-content
        return [{"type": "text", "text": content}] if content != "" else []
    _require(isinstance(content, list), f"{where} content must be a string or a list")
    return list(content)


def merge_key(dialect: str, message: Mapping[str, Any]) -> str | None:
    """The role under which the provider combines ``message`` with a neighbour of the same
    key, or None when it never does (a role it keeps apart, empty content, or members other
    than role and content: an empty turn is never merged away, a rule may constrain it)."""
    role = message.get("role")
    if (role in _MERGED_ROLES[dialect] and bool(message.get("content"))
            and set(message) == {"role", "content"}):
        return str(role)
    return None


def merges(dialect: str, previous: Mapping[str, Any], current: Mapping[str, Any]) -> bool:
    """Does the provider combine ``current`` into the turn before it?  # EQ merge-turns"""
    key = merge_key(dialect, current)
    return key is not None and merge_key(dialect, previous) == key


def _merge(dialect: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        if out and merges(dialect, out[-1], message):
            out[-1] = {**out[-1], "content": out[-1]["content"] + message["content"]}
        else:
            out.append(message)
    return out


# --- Anthropic Messages -----------------------------------------------------------------------


def _anthropic_block(block: Json, *, assistant: bool, purpose: str) -> Json | None:
    _require(isinstance(block, dict), "a content block must be an object")
    kind = block.get("type")
    if assistant and purpose == TRACK and kind in _THINKING_BLOCKS:
        return None  # EQ assistant-reasoning-messages
    out = _clean(block)
    if kind == "tool_result":  # EQ tool-result-defaults
        content = out.get("content")
        if isinstance(content, list):
            out["content"] = [b for b in (_anthropic_block(c, assistant=False, purpose=purpose)
                                          for c in content) if b is not None]
        else:
            out["content"] = _text_blocks(content, where="tool_result")
        out.setdefault("is_error", False)
    elif kind == "tool_use":
        out["input"] = _parsed_json(out.get("input"))  # EQ tool-arguments-json
    if assistant and purpose == TRACK and kind in _ASSISTANT_KEEP:
        out = {k: out[k] for k in _ASSISTANT_KEEP[kind] if k in out}  # EQ assistant-echo-members
    return out


def _anthropic_content(content: Json, *, assistant: bool, purpose: str) -> list[Json]:
    if isinstance(content, str):  # EQ string-content
        # "" is no block (the provider would refuse an empty text block: kept visible as [])
        return [{"type": "text", "text": content}] if content != "" else []
    _require(isinstance(content, list), "message content must be a string or a list")
    blocks = (_anthropic_block(b, assistant=assistant, purpose=purpose) for b in content)
    return [b for b in blocks if b is not None]


def _anthropic_message(message: Json, purpose: str) -> dict[str, Any]:
    _require(isinstance(message, dict), "a message must be an object")
    role = message.get("role")
    _require(isinstance(role, str), "a message needs a role")
    out = {k: v for k, v in _clean(message).items() if k != "content"}
    out["content"] = _anthropic_content(message.get("content"), assistant=role == "assistant",
                                        purpose=purpose)
    return out


def _anthropic_system(system: Json) -> list[Json]:
    if system is None or system == "":  # EQ system-forms
        return []
    if isinstance(system, str):
        return [{"type": "text", "text": system}]
    _require(isinstance(system, list), "system must be a string or a list of blocks")
    return [b for b in (_clean(b) for b in system)
            if not (isinstance(b, dict) and b.get("type") == "text" and b.get("text") == "")]


def _anthropic_tool(tool: Json) -> Json:
    out = _clean(tool)
    if isinstance(out, dict) and out.get("defer_loading") is False:  # EQ tool-defaults
        del out["defer_loading"]
    return out


def _tools(dialect: str, body: Mapping[str, Any]) -> list[Json]:
    tools = body.get("tools")
    if tools is None:  # EQ tool-defaults
        tools = []
    _require(isinstance(tools, list), "tools must be a list")
    if dialect == ANTHROPIC:
        return [_anthropic_tool(t) for t in tools]
    out = []
    for tool in tools:
        _require(isinstance(tool, dict), "a tool must be an object")
        entry = _clean(tool)
        entry.setdefault("type", "function")  # EQ tool-defaults
        out.append(entry)
    return out


def normalize_anthropic_messages(body: Json, purpose: Purpose = "compare") -> Json:
    """A Messages request body in the form the provider sees. Top-level members other than
    system, messages and tools are left out.  # EQ other-top-level"""
    _require(isinstance(body, dict), "a Messages request body is an object")
    messages = body.get("messages")
    _require(isinstance(messages, list), "messages must be a list")
    return {
        "system": _anthropic_system(body.get("system")),
        "messages": _merge(ANTHROPIC, [_anthropic_message(m, purpose) for m in messages]),
        "tools": _tools(ANTHROPIC, body),
    }


# --- OpenAI Chat Completions ------------------------------------------------------------------


def _openai_part(part: Json) -> Json:
    out = _clean(part)
    if isinstance(out, dict) and out.get("type") == "image_url":
        image = out.get("image_url")
        if isinstance(image, dict) and image.get("detail") == "auto":  # EQ image-detail-auto
            out["image_url"] = {k: v for k, v in image.items() if k != "detail"}
    return out


def _openai_parts(content: Json, *, where: str) -> list[Json]:
    if isinstance(content, str) or content is None:  # EQ assistant-empty-content
        return _text_blocks(content, where=where)
    _require(isinstance(content, list), f"{where} content must be a string or a list")
    return [_openai_part(p) for p in content]


def _openai_call(call: Json, purpose: str) -> Json:
    _require(isinstance(call, dict), "a tool call must be an object")
    out = _clean(call)
    if purpose == TRACK:
        out.pop("index", None)  # EQ assistant-echo-members
    out.setdefault("type", "function")  # EQ tool-defaults
    function = out.get("function")
    if isinstance(function, dict):
        function = _clean(function)
        if "arguments" in function:
            function["arguments"] = _parsed_json(function["arguments"])
        out["function"] = function
    return out


def _openai_message(message: Json, purpose: str) -> dict[str, Any]:
    _require(isinstance(message, dict), "a message must be an object")
    role = message.get("role")
    _require(isinstance(role, str), "a message needs a role")
    out = {k: v for k, v in _clean(message).items() if k != "content"}
    content = message.get("content")
    if role == "assistant":
        for key in _REASONING_KEYS:  # EQ assistant-reasoning-chat
            out.pop(key, None)
        parts = _openai_parts(content, where="assistant")
        out["content"] = [p for p in parts
                          if not (isinstance(p, dict) and p.get("type") in _REASONING_PARTS)]
        calls = out.pop("tool_calls", [])  # EQ tool-defaults
        _require(isinstance(calls, list), "tool_calls must be a list")
        out["tool_calls"] = [_openai_call(c, purpose) for c in calls]
        if purpose == TRACK:  # EQ assistant-echo-members
            out = {k: v for k, v in out.items() if k in _CHAT_ASSISTANT_KEEP}
    elif role == "user":
        if isinstance(content, str):  # EQ string-content
            # "" stays an (empty) user message; it is never merged away
            out["content"] = [{"type": "text", "text": content}] if content != "" else []
        else:
            _require(isinstance(content, list), "user content must be a string or a list")
            out["content"] = [_openai_part(p) for p in content]
    else:  # system, developer, tool
        out["content"] = _openai_parts(content, where=role)
    return out


def normalize_openai_chat(body: Json, purpose: Purpose = "compare") -> Json:
    """A Chat Completions request body in the form the provider sees. Top-level members
    other than messages and tools are left out.  # EQ other-top-level"""
    _require(isinstance(body, dict), "a Chat Completions request body is an object")
    messages = body.get("messages")
    _require(isinstance(messages, list), "messages must be a list")
    return {"messages": _merge(OPENAI, [_openai_message(m, purpose) for m in messages]),
            "tools": _tools(OPENAI, body)}


# --- a message at a time (the tracker) --------------------------------------------------------


def normal_message(dialect: str, message: Json, purpose: Purpose = "track") -> dict[str, Any]:
    """One message in normal form, before turns are merged (:func:`merges` says when)."""
    if dialect == ANTHROPIC:
        return _anthropic_message(message, purpose)
    return _openai_message(message, purpose)


def track_from_compare(dialect: str, normal: dict[str, Any]) -> dict[str, Any]:
    """``normal_message(dialect, m, "track")`` from ``normal_message(dialect, m, "compare")``
    (cheaply: the track form only drops what the compare form keeps; a property test holds
    them equal). A message other than an assistant one is the same object."""
    if normal.get("role") != "assistant":
        return normal
    if dialect == ANTHROPIC:
        blocks = []
        for block in normal["content"]:
            kind = block.get("type")
            if kind in _THINKING_BLOCKS:
                continue  # EQ assistant-reasoning-messages
            keep = _ASSISTANT_KEEP.get(kind)  # EQ assistant-echo-members
            blocks.append(block if keep is None else {k: block[k] for k in keep if k in block})
        return {**normal, "content": blocks}
    calls = [{k: v for k, v in c.items() if k != "index"} for c in normal["tool_calls"]]
    return {k: calls if k == "tool_calls" else v for k, v in normal.items()
            if k in _CHAT_ASSISTANT_KEEP}  # EQ assistant-echo-members


def normal_head(dialect: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """``{"system", "tools"}`` (Anthropic) or ``{"tools"}`` (Chat Completions, whose system
    prompt is a message) in normal form."""
    if dialect == OPENAI:
        return {"tools": _tools(OPENAI, body)}
    return {"system": _anthropic_system(body.get("system")), "tools": _tools(ANTHROPIC, body)}


# --- Chat Completions text parts (compare only) -----------------------------------------------

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
    """  # EQ text-part-joins
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

    Only how text is cut into parts is aligned: every other difference, and the text itself,
    is left for the comparison to see. Pure: returns a new value.
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
