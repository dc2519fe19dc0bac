"""A captured exchange as bytes, and its decoding into the JSON exchange the rules read.

:class:`RawExchange` is what every source produces (the mitmproxy addon, flow files, HAR, the
JSONL capture format). :func:`to_exchange` decodes it: content-encoding (gzip, deflate, br,
zstd, several in a row), UTF-8, JSON for request bodies and JSON or Server-Sent Events for
responses. Nothing here raises on bad input: a body that cannot be read becomes a
``body_error`` (the request was malformed: a WA-D004 finding) or a *note* (the capture is
incomplete or over the size limit: the request is not audited and the report says why).

Credential headers never enter the decoded exchange (defence in depth: the rules only read
``anthropic-beta``; see harness/audit/redact.py for what artifacts do).
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_tck.reference_impl.strict_json import StrictJSONError, loads
from agent_tck.reference_impl.wire.sse import events_to_json, parse_sse

#: default ceiling on a decoded body the audit reads (bigger ones are noted, not audited)
DEFAULT_MAX_BODY = 64 * 1024 * 1024

_SECRET_HEADERS = frozenset({
    "authorization", "proxy-authorization", "x-api-key", "api-key", "cookie", "set-cookie",
})


@dataclass(frozen=True)
class RawMessage:
    """Headers and body bytes of one request or response, as captured.

    ``body`` is the payload as it crossed the wire (still content-encoded) unless ``decoded``
    says the capture stored it decoded (HAR does). ``None``: the capture holds no body.
    ``truncated``: the capture holds only the start of the body.
    """

    headers: tuple[tuple[str, str], ...] = ()
    body: bytes | None = None
    truncated: bool = False
    decoded: bool = False

    def header(self, name: str) -> str | None:
        values = [v for k, v in self.headers if k.lower() == name]
        return ", ".join(values) if values else None


@dataclass(frozen=True)
class RawResponse(RawMessage):
    status: int = 0


@dataclass(frozen=True)
class RawExchange:
    """One request and what came back (or the transport error instead)."""

    ref: str  # where it came from: "capture.har#3", "flow 7"
    method: str
    url: str
    request: RawMessage
    response: RawResponse | None = None
    error: str | None = None
    started: float | None = None  # seconds since the epoch
    notes: tuple[str, ...] = field(default_factory=tuple)


class Unauditable(Exception):
    """A body that is JSON to a lenient reader but that the audit will not read (nested over
    200 levels, an integer of over 1,000 digits, NaN, a duplicate key, a lone surrogate): not
    the agent's fault for certain, so neither a finding nor a pass: the exchange is *errored*
    and the audit exits non-zero."""


class BodyProblem(Exception):
    """Why a body cannot be read: ``code`` is a stable word, ``capture`` says whose fault."""

    def __init__(self, code: str, message: str, *, capture: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.capture = capture


# ---------------------------------------------------------------------------------------------
# content-encoding


def _bounded(chunks: Sequence[bytes], limit: int, coding: str) -> bytes:
    total = sum(len(c) for c in chunks)
    if total > limit:
        raise BodyProblem("too-large", f"the {coding}-decoded body exceeds {limit} bytes",
                          capture=True)
    return b"".join(chunks)


def _zlib(data: bytes, wbits: int, limit: int, coding: str) -> bytes:
    d = zlib.decompressobj(wbits)
    out = [d.decompress(data, limit + 1)]
    if len(out[0]) > limit:
        raise BodyProblem("too-large", f"the {coding}-decoded body exceeds {limit} bytes",
                          capture=True)
    if not d.eof:
        raise BodyProblem("undecodable", f"the {coding} stream is incomplete")
    return out[0]


def _decode_one(data: bytes, coding: str, limit: int) -> bytes:
    if coding in ("gzip", "x-gzip"):
        return _zlib(data, 31, limit, coding)
    if coding == "deflate":
        try:
            return _zlib(data, 15, limit, coding)
        except (zlib.error, BodyProblem) as exc:
            if isinstance(exc, BodyProblem) and exc.code == "too-large":
                raise
            return _zlib(data, -15, limit, coding)  # raw deflate, as some servers send
    if coding == "br":
        import brotli  # type: ignore[import-untyped]  # no stubs; an optional extra

        dec = brotli.Decompressor()
        out = [dec.process(data, output_buffer_limit=limit + 1)]
        if len(out[0]) > limit:
            raise BodyProblem("too-large", f"the br-decoded body exceeds {limit} bytes",
                              capture=True)
        if not dec.is_finished():
            raise BodyProblem("undecodable", "the br stream is incomplete")
        return _bounded(out, limit, coding)
    if coding == "zstd":
        try:
            from compression import zstd  # type: ignore[import-not-found]
        except ImportError:
            from backports import zstd  # type: ignore[import-not-found,no-redef]
        zdec = zstd.ZstdDecompressor()
        out_z = zdec.decompress(data, max_length=limit + 1)
        if len(out_z) > limit:
            raise BodyProblem("too-large", f"the zstd-decoded body exceeds {limit} bytes",
                              capture=True)
        if not zdec.eof:
            raise BodyProblem("undecodable", "the zstd stream is incomplete")
        return out_z
    if coding in ("identity", ""):
        return data
    raise BodyProblem("undecodable", f"unknown content-encoding {coding!r}")


def decode_body(message: RawMessage, limit: int = DEFAULT_MAX_BODY) -> bytes:
    """The payload bytes of ``message`` with every content-encoding undone (last one first)."""
    if message.body is None:
        raise BodyProblem("not-captured", "the capture holds no body", capture=True)
    if message.truncated:
        raise BodyProblem("truncated", "the capture holds only part of the body", capture=True)
    data = message.body
    encoding = None if message.decoded else message.header("content-encoding")
    if encoding:
        for coding in reversed([c.strip().lower() for c in encoding.split(",") if c.strip()]):
            try:
                data = _decode_one(data, coding, limit)
            except BodyProblem:
                raise
            except Exception as exc:  # zlib.error, brotli.error, ZstdError...
                raise BodyProblem("undecodable", f"{coding}: {type(exc).__name__}: {exc}") from exc
    if len(data) > limit:
        raise BodyProblem("too-large", f"the body is {len(data)} bytes, over the audit's "
                                       f"limit of {limit}", capture=True)
    return data


def _json(data: bytes) -> Any:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BodyProblem("not-utf8", f"not UTF-8 at byte {exc.start}") from exc
    if not text.strip():
        raise BodyProblem("empty", "the body is empty")
    try:
        return loads(data)  # the bytes: the native parser reads them without a copy
    except StrictJSONError as exc:
        if exc.reason.startswith(("not JSON", "not UTF-8")):
            raise BodyProblem("not-json", str(exc)) from None
        raise Unauditable(f"body not audited: {exc}") from None


# ---------------------------------------------------------------------------------------------
# the exchange the rules read


def _headers_json(headers: Sequence[tuple[str, str]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in headers:
        key = name.lower()
        if key in _SECRET_HEADERS:
            continue
        out[key] = f"{out[key]}, {value}" if key in out else value
    return out


def _response_json(response: RawResponse, limit: int) -> dict[str, Any]:
    out: dict[str, Any] = {"status": response.status,
                           "headers": _headers_json(response.headers)}
    try:
        data = decode_body(response, limit)
    except BodyProblem as problem:
        out["body_error"] = problem.code
        return out
    ctype = (response.header("content-type") or "").lower()
    if "text/event-stream" in ctype:
        out["events"] = events_to_json(parse_sse(data.decode("utf-8", "replace")))
        return out
    try:
        out["body"] = _json(data)
    except BodyProblem as problem:
        out["body_error"] = problem.code
    return out


@dataclass(frozen=True)
class Decoded:
    """The JSON exchange (``None`` when the request could not be audited) and notes."""

    exchange: dict[str, Any] | None
    notes: tuple[str, ...] = ()


def to_exchange(raw: RawExchange, limit: int = DEFAULT_MAX_BODY) -> Decoded:
    """Decode ``raw`` into the exchange shape of vectors/wire-audit/README.md."""
    notes = list(raw.notes)
    request: dict[str, Any] = {"headers": _headers_json(raw.request.headers)}
    try:
        request["body"] = _json(decode_body(raw.request, limit))
    except BodyProblem as problem:
        if problem.capture:
            notes.append(f"request body not audited: {problem.message}")
            return Decoded(None, tuple(notes))
        request["body_error"] = f"{problem.code}: {problem.message}"
    exchange: dict[str, Any] = {"method": raw.method.upper(), "url": raw.url,
                                "request": request, "response": None}
    if raw.response is not None:
        exchange["response"] = _response_json(raw.response, limit)
        if "body_error" in exchange["response"] and exchange["response"]["body_error"] in (
            "truncated", "too-large", "not-captured"
        ):
            notes.append(f"response body not read: {exchange['response']['body_error']}")
    if raw.error:
        exchange["error"] = raw.error
        notes.append(f"transport error: {raw.error}")
    return Decoded(exchange, tuple(notes))


def headers_from(pairs: Any) -> tuple[tuple[str, str], ...]:
    """Headers from ``[[name, value], ...]``, ``[{"name", "value"}]`` (HAR) or a mapping."""
    out: list[tuple[str, str]] = []
    if isinstance(pairs, Mapping):
        items: list[Any] = list(pairs.items())
    elif isinstance(pairs, list):
        items = pairs
    else:
        return ()
    for item in items:
        if isinstance(item, Mapping):
            name, value = item.get("name"), item.get("value")
        elif isinstance(item, list | tuple) and len(item) == 2:
            name, value = item
        else:
            continue
        if isinstance(name, str) and isinstance(value, str | int | float):
            out.append((name, str(value)))
    return tuple(out)
