"""What is derived from a durable log: the loaded transcript, the resume history, and the durable
view the recorder vectors compare.

All three read ``assistant/message`` (and, for recovery, ``assistant/attempt``) as complete
content blocks. None of them reads stream chunks or the optional embedded raw-stream record
(``data.stream``, CFP-D002): "session/load renders completed assistant messages from
assistant/message" (CFP-021) and that event is what "deriveMessages() uses for the next model
request" (CFP-026).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any, Final

from agent_tck.reference_impl.session_log import format as sl

# --- session/load: the transcript a client shows ----------------------------------------------


def _data(event: sl.Event) -> Mapping[str, Any]:
    data: Mapping[str, Any] = event.value["data"]
    return data


def _content(message: Any) -> list[Any]:
    if isinstance(message, Mapping) and isinstance(message.get("content"), list):
        return list(message["content"])
    return []


def stream_content(stream: Any) -> list[dict[str, Any]]:
    """The partial output a failed attempt's compact stream holds, as content blocks.

    The source runtime's v4 ``assistant/attempt`` is ``{turn, step, stream}``: no message, the
    partial output only in the stream (CFP-D002, CFP-D007). Entries ``{type: "chunk", chunk}``
    are read by block index: a ``block-end`` chunk's ``block`` is the complete block; a block
    with a ``block-start`` (``blockType``) and text deltas but no end is its text so far
    (session-format-v3-to-v4/src/retired-syntax.ts names block-start/block-end). Other entries
    are skipped. Used only where no assembled message exists (CFP-019: recoverable output).
    """
    if not isinstance(stream, list):
        return []
    started: dict[Any, dict[str, Any]] = {}
    ended: dict[Any, dict[str, Any]] = {}
    order: list[Any] = []
    for entry in stream:
        chunk = entry.get("chunk") if isinstance(entry, Mapping) else None
        if not isinstance(chunk, Mapping):
            continue
        index, kind = chunk.get("index"), chunk.get("type")
        if index not in started and index not in ended:
            order.append(index)
        if kind == "block-start" and isinstance(chunk.get("blockType"), str):
            started[index] = {"type": chunk["blockType"], "text": ""}
        elif kind == "block-end" and isinstance(chunk.get("block"), Mapping):
            ended[index] = dict(chunk["block"])
        elif isinstance(chunk.get("text"), str) and index in started:
            started[index]["text"] += chunk["text"]
    out = []
    for index in order:
        if index in ended:
            out.append(ended[index])
        elif index in started and started[index]["text"] and started[index]["type"] in (
                "text", "reasoning"):
            out.append(started[index])
    return out


def transcript(log: sl.Log) -> list[dict[str, Any]]:
    """CFP-021/022/019, CFP-D008: the loaded transcript, one entry per visible message.

    * ``user/message`` -> ``{"role":"user","content"}``;
    * ``assistant/message`` -> ``{"role":"assistant","content","status":"complete"}``, or
      ``"interrupted"`` when the stream was aborted;
    * ``assistant/attempt`` with partial content -> ``{"role":"assistant","content",
      "status":"failed"}`` (CFP-019: partial output stays visible for recovery); the content
      is the attempt's message, or, for a v4 attempt with only a stream, :func:`stream_content`;
    * ``tool/result`` -> ``{"role":"tool","toolCallId","isError","content"}``.

    An assistant record without content shows nothing (CFP-020, CFP-D008). Every other event
    (boundaries, headers, system and developer messages) is not part of the transcript.
    """
    out: list[dict[str, Any]] = []
    for event in log.events:
        kind = event.type
        if kind == "user/message":
            out.append({"role": "user", "content": _content(_data(event))})
        elif kind in ("assistant/message", "assistant/attempt"):
            data = _data(event)
            content = _content(data.get("message"))
            if kind == "assistant/attempt" and "message" not in data:
                content = stream_content(data.get("stream"))  # a v4 attempt: {turn, step, stream}
            if not content:
                continue
            if kind == "assistant/attempt":
                status = "failed"
            else:
                status = "interrupted" if data.get("interrupted") is True else "complete"
            out.append({"role": "assistant", "content": content, "status": status})
        elif kind == "tool/result":
            message = _data(event)["message"]
            out.append({"role": "tool", "toolCallId": message["toolCallId"],
                        "isError": message.get("isError") is True,
                        "content": _content(message)})
    return out


# --- resume: the next provider request's history ----------------------------------------------


def _tool(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A request header's tool (DSH ``ToolSchema``: name, description, parameters) in the
    canonical history's form (``name``, ``description``, ``inputSchema``)."""
    out: dict[str, Any] = {"name": schema["name"]}
    if isinstance(schema.get("description"), str):
        out["description"] = schema["description"]
    parameters = schema.get("parameters", schema.get("inputSchema"))
    out["inputSchema"] = dict(parameters) if isinstance(parameters, Mapping) else {}
    return out


def resume(
    log: sl.Log, user: Sequence[Any] | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
    """CFP-024/025/026, CFP-D009: the canonical history (and tools) the next request starts from.

    * system messages with content, user messages and tool results in log order;
    * every ``assistant/message``, complete or interrupted, as its complete content blocks;
      never ``assistant/attempt`` (a failed attempt is recovery material, not conversation) and
      never a chunk;
    * a tool call is kept only when the log holds its result, and a result only when its call
      was kept, so the history is one a provider accepts; an assistant message left empty is
      dropped;
    * ``tools``: the latest ``request/header``'s tools; ``user``: an optional next user message.

    ``developer/message`` events are left to the developer-messages family's projection.
    """
    results = {
        _data(e)["message"]["toolCallId"] for e in log.events if e.type == "tool/result"
    }
    kept_calls: set[str] = set()
    history: list[dict[str, Any]] = []
    tools: list[dict[str, Any]] | None = None
    for event in log.events:
        kind = event.type
        data = _data(event)
        if kind == "request/header":
            header_tools = data["header"].get("tools")
            tools = None if header_tools is None else [_tool(t) for t in header_tools]
        elif kind == "system/message":
            if content := _content(data["message"]):
                history.append({"role": "system", "content": content})
        elif kind == "user/message":
            history.append({"role": "user", "content": _content(data)})
        elif kind == "assistant/message":
            content = []
            for block in _content(data["message"]):
                if isinstance(block, Mapping) and block.get("type") == "tool-call":
                    if block.get("id") not in results:
                        continue
                    kept_calls.add(block["id"])
                content.append(block)
            if content:
                history.append({"role": "assistant", "content": content})
        elif kind == "tool/result":
            message = data["message"]
            if message["toolCallId"] in kept_calls:
                entry = {"role": "tool", "toolCallId": message["toolCallId"],
                         "content": _content(message)}
                if message.get("isError") is True:  # absent and false mean the same
                    entry["isError"] = True
                history.append(entry)
    if user is not None:
        history.append({"role": "user", "content": list(user)})
    return history, tools


# --- the durable view: what the recorder vectors compare --------------------------------------

#: Event types the durable view keeps; any other type an implementation adds is not compared.
VIEW_TYPES: Final = frozenset({
    "turn/start", "turn/end", "step/start", "step/end", "request/header", "system/message",
    "user/message", "developer/message", "tool/call", "tool/result",
    "assistant/message", "assistant/attempt", sl.CHUNK_TYPE,
})


def durable_view(log: sl.Log) -> dict[str, Any]:
    """The rule-relevant projection of a durable log (CFP-D010).

    ``{"version", "seqContiguous", "events": [...]}`` where ``seqContiguous`` says every event's
    seq is the previous one's plus one, and ``events`` lists, in log order:

    * ``{"type":"assistant/message","turn","step","content"}`` for a complete assistant message;
    * ``{"type":"assistant/partial","turn","step","content"}`` for partial output kept from a
      failed or aborted stream, whether recorded as an ``assistant/attempt`` (its message, or
      a v4 attempt's :func:`stream_content`) or as an interrupted ``assistant/message``
      (CFP-D007);
    * ``{"type": t, "data": d}`` for the other types of :data:`VIEW_TYPES` (a persisted
      ``assistant/chunk`` shows up here and fails the comparison: CFP-001).

    Not compared, because no rule constrains them: ``time``, the first seq (CFP-D003), envelope
    members besides type/seq/data, ``data.stream`` (CFP-D002), ``data.usage`` (CFP-007),
    ``data.failure``, message ids and sources, assistant records without content (CFP-020), and
    event types outside :data:`VIEW_TYPES`.
    """
    events = log.events
    contiguous = all(b.seq == a.seq + 1 for a, b in pairwise(events))
    out: list[dict[str, Any]] = []
    for event in events:
        kind = event.type
        if kind not in VIEW_TYPES:
            continue
        data = event.value.get("data")
        if kind in ("assistant/message", "assistant/attempt"):
            if not isinstance(data, Mapping):
                continue
            content = _content(data.get("message"))
            if kind == "assistant/attempt" and "message" not in data:
                content = stream_content(data.get("stream"))  # v4 {turn, step, stream}
            if not content:
                continue
            partial = kind == "assistant/attempt" or data.get("interrupted") is True
            out.append({"type": "assistant/partial" if partial else "assistant/message",
                        "turn": data.get("turn"), "step": data.get("step"),
                        "content": content})
        else:
            out.append({"type": kind, "data": data})
    return {"version": log.header.value.get("version"), "seqContiguous": contiguous,
            "events": out}
