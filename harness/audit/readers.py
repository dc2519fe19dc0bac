"""Offline captures: mitmproxy flow files, HAR files and the JSONL capture format.

:func:`read_capture` detects the format from the first bytes and yields
:class:`~harness.audit.capture.RawExchange` values lazily (flow files and JSONL are streamed).
A damaged record is a note (a :class:`CaptureNote` value in the stream), never an exception
that ends the audit; a file that is not a capture at all is a :class:`HarnessError`.

The JSONL capture format (docs/AUDIT.md, "agent-tck-capture/1") is one JSON object per line::

    {"type": "capture", "format": "agent-tck-capture/1"}            (optional first line)
    {"method": "POST", "url": "https://api.anthropic.com/v1/messages",
     "time": "2026-07-01T12:00:00Z",
     "request": {"headers": [["content-type", "application/json"]], "body": {...}},
     "response": {"status": 200, "headers": {...}, "body_text": "event: ...\\n\\n"},
     "error": null}

A message body is given as exactly one of ``body`` (the JSON value itself), ``body_text``
(the payload as text: an SSE stream, non-JSON) or ``body_base64`` (the bytes as they crossed
the wire, still content-encoded); ``truncated: true`` marks a partial body.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from harness.audit.capture import RawExchange, RawMessage, RawResponse, headers_from
from harness.errors import HarnessError

CAPTURE_FORMAT = "agent-tck-capture/1"


@dataclass(frozen=True)
class CaptureNote:
    """Something in a capture that could not be read as an exchange."""

    ref: str
    message: str


Item = RawExchange | CaptureNote


def _time(value: Any) -> float | None:
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


# ---------------------------------------------------------------------------------------------
# JSONL capture format


def _jsonl_message(obj: Any, *, response: bool) -> RawMessage:
    if not isinstance(obj, Mapping):
        raise ValueError("a request or response must be an object")
    headers = headers_from(obj.get("headers"))
    truncated = bool(obj.get("truncated", False))
    given = [k for k in ("body", "body_text", "body_base64") if k in obj]
    if len(given) > 1:
        raise ValueError(f"give one of body, body_text, body_base64 (got {', '.join(given)})")
    body: bytes | None = None
    decoded = True
    if "body" in obj:
        body = json.dumps(obj["body"], ensure_ascii=False).encode("utf-8")
    elif "body_text" in obj:
        if not isinstance(obj["body_text"], str):
            raise ValueError("body_text must be a string")
        body = obj["body_text"].encode("utf-8", "surrogatepass")
    elif "body_base64" in obj:
        body = base64.b64decode(str(obj["body_base64"]), validate=True)
        decoded = False
    if response:
        status = obj.get("status")
        if not isinstance(status, int):
            raise ValueError("a response needs an integer status")
        return RawResponse(headers, body, truncated, decoded, status)
    return RawMessage(headers, body, truncated, decoded)


def _jsonl_exchange(record: Mapping[str, Any], ref: str) -> RawExchange:
    method, url = record.get("method"), record.get("url")
    if not isinstance(method, str) or not isinstance(url, str):
        raise ValueError("an exchange needs string method and url")
    request = _jsonl_message(record.get("request", {}), response=False)
    raw_response = record.get("response")
    response = None
    if raw_response is not None:
        built = _jsonl_message(raw_response, response=True)
        assert isinstance(built, RawResponse)
        response = built
    error = record.get("error")
    return RawExchange(ref, method, url, request, response,
                       str(error) if error else None, _time(record.get("time")))


def read_jsonl(handle: IO[bytes], name: str) -> Iterator[Item]:
    for number, line in enumerate(handle, start=1):
        ref = f"{name}:{number}"
        text = line.strip()
        if not text:
            continue
        try:
            record = json.loads(text)
        except (ValueError, UnicodeDecodeError) as exc:
            yield CaptureNote(ref, f"not a JSON line ({exc})")
            continue
        if not isinstance(record, Mapping):
            yield CaptureNote(ref, "a capture line must be a JSON object")
            continue
        if record.get("type") == "capture":
            if record.get("format") != CAPTURE_FORMAT:
                yield CaptureNote(ref, f"unknown capture format {record.get('format')!r}; "
                                       f"read as {CAPTURE_FORMAT}")
            continue
        try:
            yield _jsonl_exchange(record, ref)
        except (ValueError, TypeError) as exc:
            yield CaptureNote(ref, f"not an exchange: {exc}")


# ---------------------------------------------------------------------------------------------
# HAR 1.2 (content is stored decoded: content-encoding is not applied again)


def _har_text(content: Any) -> tuple[bytes | None, bool]:
    """(body bytes, decoded?) of a HAR postData or content object."""
    if not isinstance(content, Mapping) or "text" not in content:
        return None, True
    text = content.get("text")
    if not isinstance(text, str):
        return None, True
    if content.get("encoding") == "base64":
        return base64.b64decode(text), True
    return text.encode("utf-8", "surrogatepass"), True


def read_har(doc: Any, name: str) -> Iterator[Item]:
    entries = doc.get("log", {}).get("entries") if isinstance(doc, Mapping) else None
    if not isinstance(entries, list):
        raise HarnessError("CAPTURE_INVALID", "a HAR file needs log.entries", name)
    for i, entry in enumerate(entries):
        ref = f"{name}#{i}"
        try:
            req = entry["request"]
            body, decoded = _har_text(req.get("postData"))
            request = RawMessage(headers_from(req.get("headers")), body, False, decoded)
            resp = entry.get("response") or {}
            status = resp.get("status")
            response = None
            error = None
            if isinstance(status, int) and status > 0:
                rbody, rdecoded = _har_text(resp.get("content"))
                response = RawResponse(headers_from(resp.get("headers")), rbody, False,
                                       rdecoded, status)
            else:
                error = str(resp.get("_error") or entry.get("_error") or "no response")
            yield RawExchange(ref, str(req["method"]), str(req["url"]), request, response,
                              error, _time(entry.get("startedDateTime")))
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            yield CaptureNote(ref, f"not a HAR entry: {type(exc).__name__}: {exc}")


# ---------------------------------------------------------------------------------------------
# mitmproxy flow files (needs mitmproxy: the "proxy" extra)


def read_flows(handle: IO[bytes], name: str) -> Iterator[Item]:
    try:
        from mitmproxy import http, io
        from mitmproxy.exceptions import FlowReadException
    except ImportError as exc:
        raise HarnessError("AUDIT_NEEDS_MITMPROXY", "reading mitmproxy flow files needs "
                           "mitmproxy (pip install 'agent-tck[proxy]')", name) from exc
    reader = io.FlowReader(handle)
    index = 0
    try:
        for flow in reader.stream():
            index += 1
            ref = f"{name}#{index}"
            if not isinstance(flow, http.HTTPFlow):
                continue
            yield flow_to_raw(flow, ref)
    except FlowReadException as exc:
        yield CaptureNote(f"{name}#{index + 1}", f"the flow file is damaged here: {exc}")


def _fields(headers: Any) -> tuple[tuple[str, str], ...]:
    return tuple(
        (k.decode("latin-1"), v.decode("latin-1")) for k, v in headers.fields
    )


def flow_to_raw(flow: Any, ref: str, stream_body: bytes | None = None,
                stream_truncated: bool = False) -> RawExchange:
    """A mitmproxy HTTPFlow as a :class:`RawExchange` (the addon passes the teed body of a
    streamed response as ``stream_body``)."""
    req = flow.request
    request = RawMessage(_fields(req.headers), req.raw_content)
    response = None
    if flow.response is not None:
        resp = flow.response
        body = resp.raw_content
        truncated = False
        if body is None and stream_body is not None:
            body, truncated = stream_body, stream_truncated
        response = RawResponse(_fields(resp.headers), body, truncated, False, resp.status_code)
    error = flow.error.msg if flow.error is not None else None
    return RawExchange(ref, req.method, req.url, request, response, error,
                       req.timestamp_start)


# ---------------------------------------------------------------------------------------------


def detect(head: bytes) -> str:
    """``har``, ``jsonl`` or ``flows`` from a file's first bytes (or ``unknown``)."""
    text = head.lstrip()
    if text[:1].isdigit() and b":" in text[:12]:
        return "flows"  # tnetstring: "<length>:<payload><type>"
    if text.startswith(b"{"):
        return "json"
    return "unknown"


def _looks_like_jsonl(handle: IO[bytes], lines: int = 5) -> bool:
    """One of the first non-empty lines is a whole JSON object that is not a HAR document
    (a pretty-printed HAR has no such line; a one-line HAR has a "log" member)."""
    seen = 0
    for raw in handle:
        if not raw.strip():
            continue
        seen += 1
        try:
            obj = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            obj = None
        if isinstance(obj, Mapping):
            return "log" not in obj
        if seen >= lines:
            break
    return False


def read_capture(path: Path) -> Iterator[Item]:
    """Every exchange of one capture file, in file order."""
    name = path.name
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise HarnessError("CAPTURE_UNREADABLE", exc.strerror or str(exc), str(path)) from None
    with handle:
        kind = detect(handle.read(64))
        handle.seek(0)
        if kind == "flows":
            yield from read_flows(handle, name)
            return
        if kind == "unknown":
            raise HarnessError("CAPTURE_UNKNOWN_FORMAT", "not a mitmproxy flow file, HAR file "
                               "or JSONL capture (docs/AUDIT.md)", str(path))
        if _looks_like_jsonl(handle):
            handle.seek(0)
            yield from read_jsonl(handle, name)
            return
        handle.seek(0)
        try:
            doc = json.load(handle)
        except ValueError as exc:
            raise HarnessError("CAPTURE_INVALID", f"not valid JSON (HAR): {exc}",
                               str(path)) from None
        yield from read_har(doc, name)
