"""Rendering a scripted reply, as each provider renders it: a JSON body or a stream of events.

Anthropic Messages (``message`` objects and the ``message_start`` ... ``message_stop`` event
stream) and OpenAI Chat Completions (``chat.completion`` objects and ``chat.completion.chunk``
streams ending in ``[DONE]``); token counts are estimates, ids are derived from the request.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from agent_tck.harness.mock_provider.script import (
    Api,
    Part,
    RedactedThinkingPart,
    Reply,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from agent_tck.reference_impl.wire.dialects import ANTHROPIC, OPENAI
from agent_tck.reference_impl.wire.sse import encode_sse


# --------------------------------------------------------------------------------------------
# Rendering a reply: Anthropic Messages
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RenderContext:
    """Per-request values a reply is rendered with (all derived from the request and state)."""

    ordinal: int
    model: str
    input_tokens: int
    created: int
    include_usage: bool = False


def _chunks(text: str, size: int) -> Iterator[str]:
    for start in range(0, len(text), size):
        yield text[start : start + size]


def estimate_tokens(chars: int) -> int:
    return max(1, math.ceil(chars / 4))


def _output_tokens(reply: Reply) -> int:
    if reply.output_tokens is not None:
        return reply.output_tokens
    chars = 0
    for part in reply.content:
        if isinstance(part, TextPart):
            chars += len(part.text)
        elif isinstance(part, ThinkingPart):
            chars += len(part.thinking)
        elif isinstance(part, ToolCallPart):
            chars += len(part.name) + len(part.input_json)
    return estimate_tokens(chars)


def _signature(part: ThinkingPart) -> str:
    if part.signature is not None:
        return part.signature
    digest = hashlib.sha256(("mock-signature:" + part.thinking).encode("utf-8")).digest()
    return base64.b64encode(digest).decode("ascii")


def _tool_id(api: Api, part: ToolCallPart, ctx: RenderContext, k: int) -> str:
    if part.id is not None:
        return part.id
    prefix = "toolu_mock" if api == ANTHROPIC else "call_mock"
    return f"{prefix}_{ctx.ordinal:06d}_{k}"


def anthropic_message(reply: Reply, ctx: RenderContext) -> dict[str, Any]:
    """The non-streaming Messages response for a reply."""
    content: list[dict[str, Any]] = []
    for k, part in enumerate(reply.content):
        content.append(_anthropic_block(part, ctx, k, final=True))
    return {
        "id": f"msg_mock_{ctx.ordinal:06d}",
        "type": "message",
        "role": "assistant",
        "model": reply.model or ctx.model,
        "content": content,
        "stop_reason": reply.anthropic_stop_reason(),
        "stop_sequence": None,
        "usage": {
            "input_tokens": _input_tokens(reply, ctx),
            "output_tokens": _output_tokens(reply),
        },
    }


def _input_tokens(reply: Reply, ctx: RenderContext) -> int:
    return reply.input_tokens if reply.input_tokens is not None else ctx.input_tokens


def _anthropic_block(part: Part, ctx: RenderContext, k: int, *, final: bool) -> dict[str, Any]:
    """A content block: complete (``final``) or as content_block_start opens it."""
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text if final else ""}
    if isinstance(part, ThinkingPart):
        return {
            "type": "thinking",
            "thinking": part.thinking if final else "",
            "signature": _signature(part) if final else "",
        }
    if isinstance(part, RedactedThinkingPart):
        return {"type": "redacted_thinking", "data": part.data}
    return {
        "type": "tool_use",
        "id": _tool_id(ANTHROPIC, part, ctx, k),
        "name": part.name,
        "input": part.input if final else {},
    }


def anthropic_stream_events(
    reply: Reply, ctx: RenderContext, *, ping: bool
) -> list[dict[str, Any]]:
    """The Messages SSE events for a reply, in order (each is one ``event:``/``data:`` frame)."""
    message = anthropic_message(reply, ctx)
    start = dict(message, content=[], stop_reason=None, stop_sequence=None)
    start["usage"] = {"input_tokens": message["usage"]["input_tokens"], "output_tokens": 1}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    if ping:
        events.append({"type": "ping"})
    size = reply.chunk_chars
    for k, part in enumerate(reply.content):
        events.append(
            {
                "type": "content_block_start",
                "index": k,
                "content_block": _anthropic_block(part, ctx, k, final=False),
            }
        )
        deltas: list[dict[str, Any]] = []
        if isinstance(part, TextPart):
            deltas = [{"type": "text_delta", "text": c} for c in _chunks(part.text, size)]
        elif isinstance(part, ThinkingPart):
            deltas = [
                {"type": "thinking_delta", "thinking": c} for c in _chunks(part.thinking, size)
            ]
            deltas.append({"type": "signature_delta", "signature": _signature(part)})
        elif isinstance(part, ToolCallPart):
            # The real API opens a tool's input with an empty partial_json delta.
            deltas = [{"type": "input_json_delta", "partial_json": ""}]
            deltas += [
                {"type": "input_json_delta", "partial_json": c}
                for c in _chunks(part.input_json, size)
            ]
        events.extend({"type": "content_block_delta", "index": k, "delta": d} for d in deltas)
        events.append({"type": "content_block_stop", "index": k})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": message["usage"]["output_tokens"]},
        }
    )
    events.append({"type": "message_stop"})
    return events


def anthropic_frame(event: Mapping[str, Any]) -> bytes:
    # The event name always equals the data's type (clients such as DSH check that they agree).
    return encode_sse(str(event["type"]), json.dumps(event, ensure_ascii=False))


# --------------------------------------------------------------------------------------------
# Rendering a reply: OpenAI Chat Completions
# --------------------------------------------------------------------------------------------
def openai_completion(reply: Reply, ctx: RenderContext, reasoning_field: str) -> dict[str, Any]:
    """The non-streaming chat.completion object for a reply."""
    texts = [p.text for p in reply.content if isinstance(p, TextPart)]
    thoughts = [p.thinking for p in reply.content if isinstance(p, ThinkingPart)]
    message: dict[str, Any] = {
        "role": "assistant",
        "content": "".join(texts) if texts else None,
        "refusal": None,
    }
    if "".join(thoughts) and reasoning_field != "omit":  # as streamed: no deltas, no field
        message[reasoning_field] = "".join(thoughts)
    calls = [
        {
            "id": _tool_id(OPENAI, p, ctx, k),
            "type": "function",
            "function": {"name": p.name, "arguments": p.input_json},
        }
        for k, p in enumerate(reply.content)
        if isinstance(p, ToolCallPart)
    ]
    if calls:
        message["tool_calls"] = calls
    prompt, completion = _input_tokens(reply, ctx), _output_tokens(reply)
    return {
        "id": f"chatcmpl-mock-{ctx.ordinal:06d}",
        "object": "chat.completion",
        "created": ctx.created,
        "model": reply.model or ctx.model,
        "system_fingerprint": None,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": reply.openai_finish_reason(),
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


def openai_stream_chunks(
    reply: Reply, ctx: RenderContext, reasoning_field: str
) -> list[dict[str, Any]]:
    """The chat.completion.chunk objects for a reply, in order (``data: [DONE]`` follows)."""
    base = {
        "id": f"chatcmpl-mock-{ctx.ordinal:06d}",
        "object": "chat.completion.chunk",
        "created": ctx.created,
        "model": reply.model or ctx.model,
        "system_fingerprint": None,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return dict(base, choices=[choice])

    size = reply.chunk_chars
    # The opening delta carries the role; content starts as "" when text follows, else null.
    has_text = any(isinstance(p, TextPart) for p in reply.content)
    chunks = [chunk({"role": "assistant", "content": "" if has_text else None})]
    call_index = 0
    for k, part in enumerate(reply.content):
        if isinstance(part, TextPart):
            chunks += [chunk({"content": c}) for c in _chunks(part.text, size)]
        elif isinstance(part, ThinkingPart) and reasoning_field != "omit":
            chunks += [chunk({reasoning_field: c}) for c in _chunks(part.thinking, size)]
        elif isinstance(part, ToolCallPart):
            opening = {
                "index": call_index,
                "id": _tool_id(OPENAI, part, ctx, k),
                "type": "function",
                "function": {"name": part.name, "arguments": ""},
            }
            chunks.append(chunk({"tool_calls": [opening]}))
            chunks += [
                chunk({"tool_calls": [{"index": call_index, "function": {"arguments": c}}]})
                for c in _chunks(part.input_json, size)
            ]
            call_index += 1
    chunks.append(chunk({}, reply.openai_finish_reason()))
    if ctx.include_usage:
        prompt, completion = _input_tokens(reply, ctx), _output_tokens(reply)
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        chunks.append(dict(base, choices=[], usage=usage))
    return chunks


def openai_frame(chunk: Mapping[str, Any]) -> bytes:
    return encode_sse(None, json.dumps(chunk, ensure_ascii=False))


OPENAI_DONE: Final = encode_sse(None, "[DONE]")
