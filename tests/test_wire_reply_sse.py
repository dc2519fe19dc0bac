"""reference_impl.wire.sse and .reply: SSE framing, assembling the reply of a response."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tck.reference_impl.wire.dialects import ANTHROPIC, OPENAI
from agent_tck.reference_impl.wire.reply import assistant_reply
from agent_tck.reference_impl.wire.sse import (
    SseEvent,
    decode_sse,
    encode_sse,
    events_to_json,
    parse_sse,
)


def test_sse_framing_follows_the_specification() -> None:
    text = (": a comment\r\n"
            "event: one\r\ndata: {\"a\":\r\ndata:1}\r\n\r\n"      # two data lines joined by LF
            "data:no space\n\n"                                   # default event name
            "event: nodata\n\n"                                   # no data: not dispatched
            "event: three\rdata: x\r\r"                           # CR line ends
            "event: cut\ndata: never dispatched\n")               # no blank line: stream cut
    assert parse_sse(text) == (
        SseEvent("one", '{"a":\n1}'),
        SseEvent("message", "no space"),
        SseEvent("three", "x"),
    )


@settings(max_examples=200, deadline=None)
@given(event=st.one_of(st.none(), st.text("abc_", min_size=1)),
       data=st.text(st.characters(blacklist_categories=("Cs",))))
def test_encoding_then_decoding_gives_the_event_back(event: str | None, data: str) -> None:
    # one codec, both directions: CR and CRLF in data are line ends, read back as LF
    want = data.replace("\r\n", "\n").replace("\r", "\n")
    assert decode_sse(encode_sse(event, data)) == (SseEvent(event or "message", want),)


def test_events_round_trip_through_json() -> None:
    events = parse_sse("event: e\ndata: d\n\n")
    assert events_to_json(events) == [{"event": "e", "data": "d"}]


# --- Anthropic -----------------------------------------------------------------------------------


def _chunks(text: str, size: int) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def anthropic_events(blocks: list[dict[str, Any]], size: int, *, finish: bool = True
                     ) -> list[dict[str, str]]:
    """Render blocks as a Messages stream, deltas of ``size`` characters."""
    out = [("message_start", {"type": "message_start", "message": {"content": []}}),
           ("ping", {"type": "ping"})]
    for i, block in enumerate(blocks):
        kind = block["type"]
        start = {"text": {"type": "text", "text": ""},
                 "thinking": {"type": "thinking", "thinking": "", "signature": ""},
                 "tool_use": {"type": "tool_use", "id": block.get("id"),
                              "name": block.get("name"), "input": {}}}[kind]
        out.append(("content_block_start", {"type": "content_block_start", "index": i,
                                            "content_block": start}))
        if kind == "text":
            deltas = [{"type": "text_delta", "text": c} for c in _chunks(block["text"], size)]
        elif kind == "thinking":
            deltas = [{"type": "thinking_delta", "thinking": c}
                      for c in _chunks(block["thinking"], size)]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        else:
            deltas = [{"type": "input_json_delta", "partial_json": c}
                      for c in _chunks(json.dumps(block["input"]), size)]
        for d in deltas:
            out.append(("content_block_delta", {"type": "content_block_delta", "index": i,
                                                "delta": d}))
        out.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    out.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}))
    if finish:
        out.append(("message_stop", {"type": "message_stop"}))
    return [{"event": e, "data": json.dumps(d)} for e, d in out]


texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
anthropic_blocks = st.lists(st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, texts),
    st.builds(lambda t, s: {"type": "thinking", "thinking": t, "signature": s}, texts,
              st.text("abc", min_size=1, max_size=5)),
    st.builds(lambda n, i: {"type": "tool_use", "id": f"toolu_{n}", "name": "lookup",
                            "input": i},
              st.integers(0, 9), st.dictionaries(st.text("xyz", max_size=3),
                                                 st.one_of(st.integers(), texts), max_size=3)),
), max_size=4)


@settings(max_examples=150, deadline=None)
@given(blocks=anthropic_blocks, size=st.integers(1, 7))
def test_a_messages_stream_assembles_into_its_blocks(blocks: list[dict[str, Any]],
                                                     size: int) -> None:
    response = {"status": 200, "events": anthropic_events(blocks, size)}
    assert assistant_reply(ANTHROPIC, response) == {"role": "assistant", "content": blocks}


def test_a_messages_stream_without_message_stop_has_no_reply() -> None:
    blocks = [{"type": "text", "text": "partial"}]
    assert assistant_reply(ANTHROPIC, {"status": 200, "events": anthropic_events(
        blocks, 3, finish=False)}) is None


def test_an_error_event_or_a_failed_status_has_no_reply() -> None:
    events = anthropic_events([{"type": "text", "text": "x"}], 3)
    errored = [*events[:3], {"event": "error", "data": json.dumps(
        {"type": "error", "error": {"type": "overloaded_error"}})}, *events[3:]]
    assert assistant_reply(ANTHROPIC, {"status": 200, "events": errored}) is None
    assert assistant_reply(ANTHROPIC, {"status": 529, "events": events}) is None
    assert assistant_reply(ANTHROPIC, None) is None
    assert assistant_reply(ANTHROPIC, {"status": 200, "body": {"type": "error"}}) is None


def test_a_messages_json_body_is_the_reply() -> None:
    body = {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "hi"}]}
    assert assistant_reply(ANTHROPIC, {"status": 200, "body": body}) == {
        "role": "assistant", "content": [{"type": "text", "text": "hi"}]}


def test_malformed_stream_data_is_skipped_not_fatal() -> None:
    events = anthropic_events([{"type": "text", "text": "abc"}], 1)
    events.insert(3, {"event": "content_block_delta", "data": "{not json"})
    assert assistant_reply(ANTHROPIC, {"status": 200, "events": events}) == {
        "role": "assistant", "content": [{"type": "text", "text": "abc"}]}


# --- OpenAI --------------------------------------------------------------------------------------


def openai_events(text: str, reasoning: str, calls: list[tuple[str, str]], size: int,
                  *, finish: bool = True) -> list[dict[str, str]]:
    chunks: list[dict[str, Any]] = [{"role": "assistant", "content": None}]
    chunks += [{"reasoning_content": c} for c in _chunks(reasoning, size) if reasoning]
    chunks += [{"content": c} for c in _chunks(text, size) if text]
    for i, (name, args) in enumerate(calls):
        chunks.append({"tool_calls": [{"index": i, "id": f"call_{i}", "type": "function",
                                       "function": {"name": name, "arguments": ""}}]})
        chunks += [{"tool_calls": [{"index": i, "id": "", "function": {"name": None,
                                                                        "arguments": c}}]}
                   for c in _chunks(args, size)]
    frames = [{"choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in chunks]
    if finish:
        frames.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    out = [{"event": "message", "data": json.dumps(f)} for f in frames]
    if finish:
        out.append({"event": "message", "data": "[DONE]"})
    return out


@settings(max_examples=150, deadline=None)
@given(text=texts, reasoning=texts, size=st.integers(1, 6),
       calls=st.lists(st.tuples(st.sampled_from(["a", "b"]), texts), max_size=3))
def test_a_chat_stream_assembles_into_its_message(text: str, reasoning: str, size: int,
                                                  calls: list[tuple[str, str]]) -> None:
    reply = assistant_reply(OPENAI, {"status": 200,
                                     "events": openai_events(text, reasoning, calls, size)})
    expected: dict[str, Any] = {"role": "assistant", "content": text or None}
    if reasoning:
        expected["reasoning_content"] = reasoning
    if calls:
        expected["tool_calls"] = [
            {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
            for i, (n, a) in enumerate(calls)]
    assert reply == expected


def test_a_chat_stream_cut_before_its_end_has_no_reply() -> None:
    assert assistant_reply(OPENAI, {"status": 200, "events": openai_events(
        "partial", "", [], 2, finish=False)}) is None


def test_a_chat_error_chunk_has_no_reply() -> None:
    events = [{"event": "message", "data": json.dumps({"error": {"message": "x"}})},
              {"event": "message", "data": "[DONE]"}]
    assert assistant_reply(OPENAI, {"status": 200, "events": events}) is None


def test_a_chat_json_body_is_its_first_choice() -> None:
    message = {"role": "assistant", "content": "hi", "refusal": None}
    body = {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    assert assistant_reply(OPENAI, {"status": 200, "body": body}) == message
    assert assistant_reply(OPENAI, {"status": 200, "body": {"choices": []}}) is None
    assert assistant_reply("other", {"status": 200, "body": body}) is None
