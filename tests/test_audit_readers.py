"""harness.audit.readers: mitmproxy flow files, HAR and the JSONL capture format."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from lazy_import import lazy

from agent_tck.harness.audit.capture import RawExchange, to_exchange
from agent_tck.harness.audit.readers import CaptureNote, detect, read_capture
from agent_tck.harness.common.errors import HarnessError

# mitmproxy's test helpers imported on first use, not at collection (tests/lazy_import.py)
http = lazy("mitmproxy.http")
io = lazy("mitmproxy.io")
tflow = lazy("mitmproxy.test.tflow")

BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
SSE = "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"


def items(path: Path) -> tuple[list[RawExchange], list[CaptureNote]]:
    exchanges, notes = [], []
    for item in read_capture(path):
        (notes if isinstance(item, CaptureNote) else exchanges).append(item)
    return exchanges, notes  # type: ignore[return-value]


def test_jsonl_capture_with_every_body_form(tmp_path: Path) -> None:
    lines = [
        {"type": "capture", "format": "agent-tck-capture/1"},
        {"method": "POST", "url": "https://api.anthropic.com/v1/messages",
         "time": "2026-07-01T12:00:00Z",
         "request": {"headers": [["content-type", "application/json"]], "body": BODY},
         "response": {"status": 200, "headers": {"content-type": "text/event-stream"},
                      "body_text": SSE}},
        {"method": "POST", "url": "https://api.openai.com/v1/chat/completions",
         "request": {"headers": {"content-encoding": "gzip"},
                     "body_base64": base64.b64encode(gzip.compress(json.dumps(BODY).encode()))
                     .decode()},
         "response": None, "error": "connection refused"},
        {"method": "POST", "url": "https://x/v1/messages", "request": {"body": BODY,
                                                                        "body_text": "x"}},
        {"method": "GET"},
        [1, 2],
    ]
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n{broken\n")
    exchanges, notes = items(path)
    assert [x.ref for x in exchanges] == ["c.jsonl:2", "c.jsonl:3"]
    first = to_exchange(exchanges[0]).exchange
    assert first is not None and first["request"]["body"] == BODY
    assert first["response"]["events"][0]["event"] == "message_stop"
    assert exchanges[0].started == pytest.approx(1782907200.0)
    second = to_exchange(exchanges[1]).exchange
    assert second is not None and second["request"]["body"] == BODY
    assert second["error"] == "connection refused"
    assert [n.ref for n in notes] == ["c.jsonl:4", "c.jsonl:5", "c.jsonl:6", "c.jsonl:8"]


def test_a_truncated_jsonl_body_is_noted(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"method": "POST", "url": "https://x/v1/messages",
                                "request": {"body_text": '{"model":', "truncated": True}}))
    (exchange,), _ = items(path)
    decoded = to_exchange(exchange)
    assert decoded.exchange is None and "part of the body" in decoded.notes[0]


def har(entries: list[dict[str, Any]]) -> dict[str, Any]:
    return {"log": {"version": "1.2", "creator": {"name": "t", "version": "1"},
                    "entries": entries}}


def test_har_content_is_read_decoded(tmp_path: Path) -> None:
    entries = [
        {"startedDateTime": "2026-07-01T12:00:00.000Z", "request": {
            "method": "POST", "url": "https://api.anthropic.com/v1/messages",
            "headers": [{"name": "content-encoding", "value": "gzip"},
                        {"name": "content-type", "value": "application/json"}],
            "postData": {"mimeType": "application/json", "text": json.dumps(BODY)}},
         "response": {"status": 200, "headers": [{"name": "content-type",
                                                   "value": "text/event-stream"}],
                      "content": {"mimeType": "text/event-stream",
                                  "text": base64.b64encode(SSE.encode()).decode(),
                                  "encoding": "base64"}}},
        {"request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages",
                     "headers": [], "postData": {"text": json.dumps(BODY)}},
         "response": {"status": 0, "_error": "net::ERR_CONNECTION_REFUSED"}},
        {"request": "nonsense"},
    ]
    path = tmp_path / "x.har"
    path.write_text(json.dumps(har(entries), indent=2))
    exchanges, notes = items(path)
    assert len(exchanges) == 2 and [n.ref for n in notes] == ["x.har#2"]
    first = to_exchange(exchanges[0]).exchange  # HAR text is decoded: no gunzip attempted
    assert first is not None and first["request"]["body"] == BODY
    assert first["response"]["events"][0]["event"] == "message_stop"
    assert exchanges[1].response is None
    assert exchanges[1].error == "net::ERR_CONNECTION_REFUSED"


def test_a_one_line_har_is_still_har(tmp_path: Path) -> None:
    path = tmp_path / "min.har"
    path.write_text(json.dumps(har([])))
    assert items(path) == ([], [])


def test_mitmproxy_flow_files_are_read(tmp_path: Path) -> None:
    path = tmp_path / "dump.flows"
    with path.open("wb") as fh:
        writer = io.FlowWriter(fh)
        f = tflow.tflow(resp=True)
        f.request = http.Request.make("POST", "https://api.anthropic.com/v1/messages",
                                      json.dumps(BODY), {"content-type": "application/json"})
        f.response = http.Response.make(200, SSE, {"content-type": "text/event-stream"})
        writer.add(f)
        failed = tflow.tflow(err=True)
        failed.request = http.Request.make("POST", "http://127.0.0.1:9/v1/messages", b"{}")
        writer.add(failed)
        writer.add(tflow.ttcpflow())
    exchanges, notes = items(path)
    assert notes == []
    assert [x.url for x in exchanges] == ["https://api.anthropic.com/v1/messages",
                                          "http://127.0.0.1:9/v1/messages"]
    first = to_exchange(exchanges[0]).exchange
    assert first is not None and first["request"]["body"] == BODY
    assert first["response"]["status"] == 200
    assert exchanges[1].error == "error"


def test_a_damaged_flow_file_gives_a_note(tmp_path: Path) -> None:
    path = tmp_path / "bad.flows"
    path.write_bytes(b"12:not a flow,")
    exchanges, notes = items(path)
    assert exchanges == [] and "damaged" in notes[0].message


def test_format_detection_and_unknown_files(tmp_path: Path) -> None:
    assert detect(b"  1234:abc") == "flows"
    assert detect(b"\n{") == "json"
    assert detect(b"GET / HTTP/1.1") == "unknown"
    path = tmp_path / "x.txt"
    path.write_text("hello")
    with pytest.raises(HarnessError) as info:
        list(read_capture(path))
    assert info.value.code == "CAPTURE_UNKNOWN_FORMAT"
    with pytest.raises(HarnessError) as info:
        list(read_capture(tmp_path / "missing.har"))
    assert info.value.code == "CAPTURE_UNREADABLE"
    broken = tmp_path / "broken.har"
    broken.write_text('{\n "log": [')
    with pytest.raises(HarnessError) as info:
        list(read_capture(broken))
    assert info.value.code == "CAPTURE_INVALID"
