"""The assistant reply a captured response carries, JSON or streamed (pure functions).

The conversation tracker needs the assistant reply of each captured exchange: the next request
of a conversation must begin with the previous request's messages plus that reply. A reply is
read from a plain JSON response body or assembled from an SSE stream, for both dialects:

* Anthropic Messages: ``message_start``, ``content_block_start`` / ``_delta`` / ``_stop``,
  ``message_delta``, ``message_stop`` events;
* OpenAI Chat Completions: ``chat.completion.chunk`` objects (``choices[].delta``) ending with
  ``data: [DONE]``.

Only a *complete* reply counts: a failed status, an ``error`` event, a stream cut before its
end (no ``message_stop`` / ``finish_reason``) or an unreadable body give ``None``, and the
tracker then accepts whatever the agent sends next. Nothing here does I/O.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from agent_tck.reference_impl.wire.dialects import ANTHROPIC, OPENAI
from agent_tck.reference_impl.wire.sse import SseEvent, events_from_json


def _loads(data: str) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return None


# ---------------------------------------------------------------------------------------------
# Anthropic Messages


def _anthropic_from_events(events: Sequence[SseEvent]) -> dict[str, Any] | None:
    blocks: dict[int, dict[str, Any]] = {}
    partial_json: dict[int, list[str]] = {}
    finished = False
    for ev in events:
        payload = _loads(ev.data)
        if not isinstance(payload, Mapping):
            continue
        kind = payload.get("type", ev.event)
        if kind == "error":
            return None
        if kind == "content_block_start":
            index, block = payload.get("index"), payload.get("content_block")
            if isinstance(index, int) and isinstance(block, Mapping):
                blocks[index] = dict(block)
        elif kind == "content_block_delta":
            index, delta = payload.get("index"), payload.get("delta")
            if not isinstance(index, int) or not isinstance(delta, Mapping) or index not in blocks:
                continue
            block = blocks[index]
            dtype = delta.get("type")
            if dtype == "text_delta":
                block["text"] = str(block.get("text") or "") + str(delta.get("text") or "")
            elif dtype == "thinking_delta":
                block["thinking"] = str(block.get("thinking") or "") + str(
                    delta.get("thinking") or ""
                )
            elif dtype == "signature_delta":
                block["signature"] = str(block.get("signature") or "") + str(
                    delta.get("signature") or ""
                )
            elif dtype == "input_json_delta":
                partial_json.setdefault(index, []).append(str(delta.get("partial_json") or ""))
            elif dtype == "citations_delta" and isinstance(delta.get("citation"), Mapping):
                block["citations"] = [*(block.get("citations") or []), delta["citation"]]
        elif kind == "message_stop":
            finished = True
    if not finished:
        return None
    content = []
    for index in sorted(blocks):
        block = blocks[index]
        if index in partial_json:
            text = "".join(partial_json[index])
            parsed = _loads(text) if text.strip() else {}
            block["input"] = parsed if parsed is not None else text
        content.append(block)
    return {"role": "assistant", "content": content}


def _anthropic_from_body(body: Any) -> dict[str, Any] | None:
    if not isinstance(body, Mapping) or body.get("type") == "error":
        return None
    content = body.get("content")
    if not isinstance(content, list):
        return None
    return {"role": "assistant", "content": list(content)}


# ---------------------------------------------------------------------------------------------
# OpenAI Chat Completions


def _openai_from_events(events: Sequence[SseEvent]) -> dict[str, Any] | None:
    text: list[str] = []
    reasoning: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    finished = False
    for ev in events:
        if ev.data.strip() == "[DONE]":
            finished = True
            continue
        payload = _loads(ev.data)
        if not isinstance(payload, Mapping):
            continue
        if "error" in payload:
            return None
        choices = payload.get("choices")
        if not isinstance(choices, list):
            continue
        for choice in choices:
            if not isinstance(choice, Mapping) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta")
            if isinstance(delta, Mapping):
                if isinstance(delta.get("content"), str):
                    text.append(delta["content"])
                for key in ("reasoning_content", "reasoning"):
                    if isinstance(delta.get(key), str):
                        reasoning.append(delta[key])
                for call in delta.get("tool_calls") or ():
                    if not isinstance(call, Mapping):
                        continue
                    slot = calls.setdefault(
                        int(call.get("index", len(calls))),
                        {"id": None, "type": "function", "name": None, "arguments": []},
                    )
                    # id and name are identity: a later delta repeating them empty keeps them
                    if call.get("id"):
                        slot["id"] = call["id"]
                    if call.get("type"):
                        slot["type"] = call["type"]
                    function = call.get("function")
                    if isinstance(function, Mapping):
                        if function.get("name"):
                            slot["name"] = function["name"]
                        if isinstance(function.get("arguments"), str):
                            slot["arguments"].append(function["arguments"])
            if choice.get("finish_reason"):
                finished = True
    if not finished:
        return None
    message: dict[str, Any] = {"role": "assistant", "content": "".join(text) or None}
    if reasoning:
        message["reasoning_content"] = "".join(reasoning)
    if calls:
        message["tool_calls"] = [
            {
                "id": slot["id"],
                "type": slot["type"],
                "function": {"name": slot["name"], "arguments": "".join(slot["arguments"])},
            }
            for _, slot in sorted(calls.items())
        ]
    return message


def _openai_from_body(body: Any) -> dict[str, Any] | None:
    if not isinstance(body, Mapping):
        return None
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        return None
    message = choices[0].get("message")
    return dict(message) if isinstance(message, Mapping) else None


# ---------------------------------------------------------------------------------------------


def assistant_reply(dialect: str, response: Any) -> dict[str, Any] | None:
    """The complete assistant message a captured response carries, else ``None``.

    ``response`` is the exchange's ``response`` member: ``{"status", "headers", "body"}`` for
    a JSON answer or ``{"status", "headers", "events": [{"event", "data"}]}`` for a stream.
    """
    if not isinstance(response, Mapping):
        return None
    status = response.get("status")
    if not isinstance(status, int) or not 200 <= status < 300:
        return None
    events = events_from_json(response.get("events")) if "events" in response else ()
    if dialect == ANTHROPIC:
        return _anthropic_from_events(events) if events else _anthropic_from_body(
            response.get("body")
        )
    if dialect == OPENAI:
        return _openai_from_events(events) if events else _openai_from_body(response.get("body"))
    return None

