"""harness.audit.capture: decoding captured bytes into the exchange the rules read."""

from __future__ import annotations

import gzip
import json
import zlib

import brotli
import pytest

from agent_tck.harness.audit.capture import (
    BodyProblem,
    RawExchange,
    RawMessage,
    RawResponse,
    decode_body,
    headers_from,
    to_exchange,
)

try:
    from compression import zstd  # type: ignore[import-not-found]
except ImportError:
    from backports import zstd  # type: ignore[import-not-found,no-redef]

URL = "http://127.0.0.1:9/v1/messages"
BODY = {"model": "m", "messages": [{"role": "user", "content": [
    {"type": "text", "text": "hi"}, {"type": "thinking", "thinking": "t"}]}]}
PAYLOAD = json.dumps(BODY).encode()


def raw(body: bytes | None, encoding: str | None = None, **kw: object) -> RawExchange:
    headers = [("content-type", "application/json")]
    if encoding:
        headers.append(("content-encoding", encoding))
    return RawExchange("t", "POST", URL, RawMessage(tuple(headers), body, **kw))  # type: ignore[arg-type]


@pytest.mark.parametrize(("encoding", "encode"), [
    ("gzip", gzip.compress),
    ("x-gzip", gzip.compress),
    ("deflate", zlib.compress),
    ("deflate", lambda b: zlib.compress(b)[2:-4]),  # raw deflate, as some servers send it
    ("br", brotli.compress),
    ("zstd", zstd.compress),
    ("identity", lambda b: b),
    ("gzip, br", lambda b: brotli.compress(gzip.compress(b))),
    ("GZIP", gzip.compress),
])
def test_every_content_encoding_is_undone(encoding: str, encode: object) -> None:
    decoded = to_exchange(raw(encode(PAYLOAD), encoding))  # type: ignore[operator]
    assert decoded.exchange is not None
    assert decoded.exchange["request"]["body"] == BODY
    assert decoded.notes == ()


@pytest.mark.parametrize(("body", "encoding", "code"), [
    (b"\x1f\x8b garbage", "gzip", "undecodable"),
    # cut; mtime=0: a test id holding the compression time differs between two xdist workers
    # collecting in different seconds, which fails the whole run ("Different tests were collected")
    (gzip.compress(PAYLOAD, mtime=0)[:-12], "gzip", "undecodable"),
    (b"whatever", "compress", "undecodable"),
    (b"not json at all", None, "not-json"),
    (b'{"model": "m", "messages": [', None, "not-json"),
    (b"\xff\xfe{}", None, "not-utf8"),
    (b"   ", None, "empty"),
])
def test_a_body_the_agent_made_unreadable_is_a_body_error(body: bytes, encoding: str | None,
                                                          code: str) -> None:
    decoded = to_exchange(raw(body, encoding))
    assert decoded.exchange is not None
    assert decoded.exchange["request"]["body_error"].startswith(code)
    assert "body" not in decoded.exchange["request"]


def test_an_incomplete_capture_is_a_note_not_a_finding() -> None:
    for exchange in (raw(PAYLOAD, truncated=True), raw(None)):
        decoded = to_exchange(exchange)
        assert decoded.exchange is None
        assert decoded.notes and "not audited" in decoded.notes[0]


@pytest.mark.parametrize("encoding", ["gzip", "br", "zstd", "deflate"])
def test_a_compression_bomb_stops_at_the_limit(encoding: str) -> None:
    bomb = b"0" * (8 * 1024 * 1024)
    encoded = {"gzip": gzip.compress, "br": brotli.compress, "zstd": zstd.compress,
               "deflate": zlib.compress}[encoding](bomb)
    assert len(encoded) < 100_000
    with pytest.raises(BodyProblem) as info:
        decode_body(RawMessage((("content-encoding", encoding),), encoded), limit=1024 * 1024)
    assert info.value.code == "too-large" and info.value.capture
    decoded = to_exchange(raw(encoded, encoding), limit=1024 * 1024)
    assert decoded.exchange is None and "exceeds" in decoded.notes[0]


def test_a_plain_body_over_the_limit_is_noted() -> None:
    decoded = to_exchange(raw(PAYLOAD), limit=10)
    assert decoded.exchange is None and "limit" in decoded.notes[0]


def test_responses_are_decoded_as_json_or_events() -> None:
    sse = b"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
    exchange = RawExchange("t", "POST", URL, RawMessage((), PAYLOAD),
                           RawResponse((("Content-Type", "text/event-stream; charset=utf-8"),
                                        ("content-encoding", "gzip")),
                                       gzip.compress(sse), status=200))
    decoded = to_exchange(exchange)
    assert decoded.exchange is not None
    assert decoded.exchange["response"]["events"] == [
        {"event": "message_stop", "data": '{"type":"message_stop"}'}]
    broken = RawExchange("t", "POST", URL, RawMessage((), PAYLOAD),
                         RawResponse((), b"{cut", status=200))
    assert to_exchange(broken).exchange["response"]["body_error"] == "not-json"  # type: ignore[index]


def test_a_transport_error_is_kept_and_noted() -> None:
    exchange = RawExchange("t", "POST", URL, RawMessage((), PAYLOAD), None,
                           "Server connection to ('127.0.0.1', 9) failed")
    decoded = to_exchange(exchange)
    assert decoded.exchange is not None and decoded.exchange["response"] is None
    assert decoded.exchange["error"].startswith("Server connection")
    assert decoded.notes == ("transport error: Server connection to ('127.0.0.1', 9) failed",)


def test_credential_headers_never_enter_the_exchange() -> None:
    exchange = RawExchange("t", "POST", URL, RawMessage((
        ("Authorization", "Bearer sk-secret-000000000"), ("x-api-key", "sk-ant-000000000"),
        ("api-key", "k"), ("Cookie", "a=b"), ("anthropic-beta", "x")), PAYLOAD))
    decoded = to_exchange(exchange)
    assert decoded.exchange is not None
    assert decoded.exchange["request"]["headers"] == {"anthropic-beta": "x"}


def test_headers_from_every_shape() -> None:
    assert headers_from([["a", "1"], {"name": "b", "value": "2"}, ("c", 3), "junk",
                         {"name": 1, "value": "x"}]) == (("a", "1"), ("b", "2"), ("c", "3"))
    assert headers_from({"a": "1"}) == (("a", "1"),)
    assert headers_from(None) == ()
