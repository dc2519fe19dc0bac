"""The one server-sent-events codec: the mock provider writes with it, the audit reads with it.

Decoding follows the WHATWG event-stream rules: lines end with CRLF, LF or CR; a line starting
with ``:`` is a comment; a field name is what precedes the first ``:`` and one leading space of
the value is dropped; ``data`` lines of one event are joined with LF; an event is dispatched at
a blank line *only when it has data* (a frame with an ``event:`` line but no ``data:`` line is
not dispatched, as the specification says: browsers and the provider SDKs skip it too); an
event without an ``event:`` line is named ``message``; a trailing event without its blank line
is not dispatched (the stream was cut). ``id`` and ``retry`` are ignored.

Encoding writes one frame per event: an optional ``event:`` line, one ``data:`` line per line
of the data, a blank line. ``decode_sse(encode_sse(e, d)) == (SseEvent(e or "message", d),)``
for any data (a property test holds it). Pure functions, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple


class SseEvent(NamedTuple):
    """One dispatched server-sent event (a pair: ``event, data = ev`` works)."""

    event: str
    data: str

    def to_json(self) -> dict[str, str]:
        return {"event": self.event, "data": self.data}


def parse_sse(text: str) -> tuple[SseEvent, ...]:
    """Split an event stream (text) into its dispatched events (module docstring)."""
    events: list[SseEvent] = []
    name = ""
    data: list[str] = []
    has_data = False
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")[:-1]:
        if line == "":
            if has_data:
                events.append(SseEvent(name or "message", "\n".join(data)))
            name, data, has_data = "", [], False
            continue
        if line.startswith(":"):
            continue
        field, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if field == "event":
            name = value
        elif field == "data":
            data.append(value)
            has_data = True
    return tuple(events)


def decode_sse(raw: bytes) -> tuple[SseEvent, ...]:
    """:func:`parse_sse` of a UTF-8 byte stream (undecodable bytes become U+FFFD)."""
    return parse_sse(raw.decode("utf-8", "replace"))


def encode_sse(event: str | None, data: str) -> bytes:
    """One frame: ``event: <event>`` (when given), one ``data:`` line per line of ``data``."""
    lines = [f"event: {event}"] if event is not None else []
    lines += [f"data: {line}" for line in data.replace("\r\n", "\n").replace("\r", "\n")
              .split("\n")]
    return ("\n".join(lines) + "\n\n").encode("utf-8")


def events_from_json(raw: Any) -> tuple[SseEvent, ...]:
    """The ``events`` member of a captured response (``[{"event", "data"}]``) as values."""
    out: list[SseEvent] = []
    if isinstance(raw, list):
        for item in raw:
            if isinstance(item, Mapping) and isinstance(item.get("data"), str):
                out.append(SseEvent(str(item.get("event") or "message"), item["data"]))
    return tuple(out)


def events_to_json(events: Iterable[SseEvent]) -> list[dict[str, str]]:
    return [ev.to_json() for ev in events]
