"""Offline captures: mitmproxy flow files, HAR files and the JSONL capture format.

:func:`read_capture` detects the format from the first bytes and yields
:class:`~harness.audit.capture.RawExchange` values lazily (flow files and JSONL are streamed).
A damaged record is a note (a :class:`CaptureNote` value in the stream), never an exception
that ends the audit; a file that is not a capture at all is a :class:`HarnessError`.

Every JSON text goes through :func:`reference_impl.strict_json.loads` (no NaN, duplicate keys,
lone surrogates, nesting over 200 levels or oversized numbers), a JSONL line longer than
:data:`MAX_LINE` bytes is skipped with a note without being held in memory, and a flow-file
record may not claim more bytes than the file has left (a ``99999999999:`` length prefix is a
note, not a 100 GB allocation).

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
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from agent_tck.harness.audit.capture import RawExchange, RawMessage, RawResponse, headers_from
from agent_tck.harness.common.errors import HarnessError
from agent_tck.reference_impl.strict_json import StrictJSONError, loads

CAPTURE_FORMAT = "agent-tck-capture/1"

#: longest JSONL capture line read, in bytes (a body at the audit's 64 MiB limit, base64-encoded,
#: fits); a longer line is skipped with a note
MAX_LINE = 128 * 1024 * 1024


@dataclass(frozen=True)
class CaptureNote:
    """Something in a capture that could not be read as an exchange."""

    ref: str
    message: str


Item = RawExchange | CaptureNote


def _time(value: Any) -> tuple[float | None, tuple[str, ...]]:
    """(seconds since the epoch, notes) from a number or an ISO 8601 string. The auditor
    checks the range (harness.audit.engine.valid_time): 1e300 is a note there, not a crash."""
    if value is None:
        return None, ()
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return float(value), ()
        except OverflowError:  # an integer too big for a float
            return float("inf"), ()
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp(), ()
        except (ValueError, OverflowError, OSError):
            pass
    return None, (f"the capture's start time {str(value)[:40]!r} is not a time; ignored",)


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
        body = json.dumps(obj["body"], ensure_ascii=False).encode("utf-8", "surrogatepass")
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
    started, notes = _time(record.get("time"))
    return RawExchange(ref, method, url, request, response,
                       str(error) if error else None, started, notes)


def _lines(handle: IO[bytes], limit: int) -> Iterator[bytes | None]:
    """The file's lines; ``None`` for a line longer than ``limit`` (read past in chunks)."""
    while True:
        line = handle.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):
                line = handle.readline(1 << 20)
            yield None
            continue
        yield line


def read_jsonl(handle: IO[bytes], name: str, *, max_line: int | None = None) -> Iterator[Item]:
    limit = MAX_LINE if max_line is None else max_line
    for number, line in enumerate(_lines(handle, limit), start=1):
        ref = f"{name}:{number}"
        if line is None:
            yield CaptureNote(ref, f"a line longer than {limit} bytes; not read")
            continue
        text = line.strip()
        if not text:
            continue
        try:
            record = loads(text)
        except StrictJSONError as exc:
            yield CaptureNote(ref, f"not a JSON line: {exc}")
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
        except (ValueError, TypeError, UnicodeError) as exc:
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
        return base64.b64decode(text, validate=True), True
    return text.encode("utf-8", "surrogatepass"), True


def read_har(handle: IO[bytes], path: Path, *, max_entry: int | None = None) -> Iterator[Item]:
    """Every entry of a HAR file, streamed (:mod:`harness.audit.har_stream`): memory follows
    the largest entry, never the file."""
    from agent_tck.harness.audit.har_stream import HarDamage, har_entries

    name = path.name
    index = -1
    try:
        for entry in har_entries(handle, max_entry=MAX_LINE if max_entry is None else max_entry):
            index = entry.index
            if entry.error is not None:
                yield CaptureNote(f"{name}#{index}", f"not a HAR entry: {entry.error}")
            else:
                yield har_entry(entry.value, f"{name}#{index}", index)
    except (HarDamage, UnicodeDecodeError) as exc:
        reason, where = ((exc.reason, f"{path}:{exc.where}") if isinstance(exc, HarDamage)
                         else (f"not UTF-8 ({exc.reason})", str(path)))
        if index < 0:
            raise HarnessError("CAPTURE_INVALID", f"not valid JSON (HAR): {reason}",
                               where) from None
        yield CaptureNote(f"{name}#{index + 1}", f"the HAR file is damaged here ({where}): "
                          f"{reason}; the entries before it were read")
    except ValueError:
        raise HarnessError("CAPTURE_INVALID", "a HAR file needs an object at /log with a list "
                           "at /log/entries", str(path)) from None


def har_entry(entry: Any, ref: str, i: int) -> Item:
    """One HAR entry as an exchange (or a note saying why it is not one)."""
    if not isinstance(entry, Mapping) or not isinstance(entry.get("request"), Mapping):
        return CaptureNote(ref, f"not a HAR entry: /log/entries/{i} needs a request object")
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
        started, notes = _time(entry.get("startedDateTime"))
        return RawExchange(ref, str(req["method"]), str(req["url"]), request, response,
                           error, started, notes)
    except (KeyError, TypeError, AttributeError, ValueError, UnicodeError) as exc:
        return CaptureNote(ref, f"not a HAR entry: {type(exc).__name__}: {exc}")


# ---------------------------------------------------------------------------------------------
# mitmproxy flow files (needs mitmproxy: the "proxy" extra)


def read_flows(handle: IO[bytes], name: str) -> Iterator[Item]:
    try:
        from mitmproxy import http, io
        from mitmproxy.exceptions import FlowReadException
    except ImportError as exc:
        raise HarnessError("AUDIT_NEEDS_MITMPROXY", "reading mitmproxy flow files needs "
                           "mitmproxy (pip install 'agent-tck[proxy]')", name) from exc
    sized = _SizedReader(handle)
    reader = io.FlowReader(sized)  # type: ignore[arg-type]
    index = 0
    flows = iter(reader.stream())
    while True:
        try:
            flow = next(flows)
        except StopIteration:
            return
        except RecursionError:
            yield CaptureNote(f"{name}#{index + 1}", "the flow file is damaged here: a record "
                              "is nested too deep to read")
            return
        except (FlowReadException, Exception) as exc:  # mitmproxy lets KeyError... through
            why = sized.refused or f"{type(exc).__name__}: {exc}"
            yield CaptureNote(f"{name}#{index + 1}", f"the flow file is damaged here: {why}")
            return
        index += 1
        ref = f"{name}#{index}"
        if not isinstance(flow, http.HTTPFlow):
            continue
        try:
            yield flow_to_raw(flow, ref)
        except Exception as exc:  # a flow whose fields are not what mitmproxy writes
            yield CaptureNote(ref, f"not an HTTP flow: {type(exc).__name__}: {exc}")


class _SizedReader:
    """A binary file whose ``read(n)`` refuses ``n`` beyond what the file has left, so a
    damaged length prefix (``99999999999:``) is a ValueError the flow reader reports instead
    of a 100 GB allocation (mitmproxy's tnetstring reads ``file.read(length)``)."""

    def __init__(self, handle: IO[bytes]) -> None:
        self.handle = handle
        try:
            self.size: int | None = os.fstat(handle.fileno()).st_size
        except (OSError, AttributeError, ValueError):
            self.size = None
        self.refused: str | None = None

    def read(self, n: int | None = -1) -> bytes:
        if n is not None and n > 0 and self.size is not None:
            left = self.size - self.handle.tell()
            if n > left + 1:  # read(1) at the end is how the reader finds the end
                self.refused = (f"a record claims {n} bytes at offset {self.handle.tell()}, "
                                f"but the file has {max(left, 0)} left")
                raise ValueError(self.refused)
        return self.handle.read(-1 if n is None else n)

    def peek(self, n: int) -> bytes:
        pos = self.handle.tell()
        data = self.handle.read(n)
        self.handle.seek(pos)
        return data

    def tell(self) -> int:
        return self.handle.tell()

    def seek(self, offset: int, whence: int = 0) -> int:
        return self.handle.seek(offset, whence)


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
    for raw in _lines(handle, MAX_LINE):
        if raw is None or not raw.strip():
            continue
        seen += 1
        try:
            obj = loads(raw)
        except StrictJSONError:
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
        suffix = path.suffix.lower()
        if suffix in (".jsonl", ".ndjson") or (suffix != ".har" and _looks_like_jsonl(handle)):
            handle.seek(0)
            yield from read_jsonl(handle, name)
            return
        handle.seek(0)
        yield from read_har(handle, path)
