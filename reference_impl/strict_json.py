"""One strict JSON reader for every untrusted input: adapter replies, logs, captures, vectors.

``json.loads`` is lenient where an untrusted input must not be: it accepts ``NaN`` and
``Infinity`` (not JSON, RFC 8259 section 6), keeps the last of two duplicate keys (so
``{"type": "assistant/chunk", "type": "turn/start"}`` reads as a turn start), decodes lone UTF-16
surrogates (``"\\ud800"``) into strings no UTF-8 writer can encode, turns ``1e400`` into infinity,
raises ``RecursionError`` on deep nesting and a bare ``ValueError`` on integers of more than 4,300
digits. :func:`loads` refuses each with a :class:`StrictJSONError` that says what and where.

Cost: valid input pays one pass of the C scanner (without ``JSONDecoder.decode``'s wrappers) plus
an ``object_pairs_hook`` per object and two ``str.count`` scans (none for a text too short to nest
too deep); the depth scan and the surrogate walk run only when those scans say the input could hold
the defect. Pure: no file, socket or clock.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

#: Deepest nesting of arrays and objects accepted. Far above any real request, log line or vector
#: (they stay under 20), far below the interpreter's recursion limit, so every later walker is safe.
MAX_DEPTH = 200

#: Longest integer literal accepted, in digits (Python's own limit is 4,300; JSON numbers that long
#: are never data a provider or a session log holds).
MAX_INT_DIGITS = 1000

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


@dataclass(frozen=True, eq=False)
class StrictJSONError(ValueError):
    """The input is not strict JSON. ``line`` and ``column`` are 1-based where they are known."""

    reason: str
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        if self.line is None:
            return self.reason
        return f"{self.reason} (line {self.line}, column {self.column})"


class _Refused(Exception):
    """Raised inside the decoder's hooks; turned into a StrictJSONError by loads()."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused(f"duplicate key {key!r} in one object")
            seen.add(key)
    return obj


def _constant(name: str) -> Any:
    raise _Refused(f"{name} is not JSON (only finite numbers are)")


def _float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _Refused(f"number {text[:40]} is out of range")
    return value


def _int(text: str) -> int:
    if len(text) > MAX_INT_DIGITS:
        raise _Refused(f"integer of {len(text)} digits (at most {MAX_INT_DIGITS})")
    return int(text)


# Built once: json.loads(text, **hooks) builds a decoder per call, which costs more than the parse.
_DECODER = json.JSONDecoder(
    object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_float, parse_int=_int
)
# The same without the per-integer hook, for a text too short to hold an over-long integer (a
# typical log line): integers are the commonest token, and the hook cost one call each.
_SHORT_DECODER = json.JSONDecoder(
    object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_float
)


_SCAN = _DECODER.scan_once
_SCAN_SHORT = _SHORT_DECODER.scan_once
_WHITESPACE = json.decoder.WHITESPACE.match  # the decoder's own notion of blank: " \t\n\r"
_BLANK = " \t\n\r"  # "" is in it too: an empty text goes through the match (and fails)


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _too_deep(text: str, max_depth: int) -> int | None:
    """Index of the bracket that opens level ``max_depth + 1``, or None."""
    if text.count("[") + text.count("{") <= max_depth:
        return None
    depth = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > max_depth:
                return match.start()
        elif token in "]}":
            depth -= 1
    return None


def _lone_surrogate(value: Any) -> str | None:
    """JSON pointer of the first string (key or value) holding an unpaired surrogate."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        pointer, item = stack.pop()
        if isinstance(item, str):
            if not _encodable(item):
                return pointer or "/"
        elif isinstance(item, dict):
            for key, sub in item.items():
                escaped = key.replace("~", "~0").replace("/", "~1")
                if not _encodable(key):
                    return f"{pointer}/{escaped}"
                stack.append((f"{pointer}/{escaped}", sub))
        elif isinstance(item, list):
            stack.extend((f"{pointer}/{i}", sub) for i, sub in enumerate(item))
    return None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def loads(data: str | bytes, *, max_depth: int = MAX_DEPTH, lone_surrogates: bool = False) -> Any:
    """Parse one JSON text strictly; raise :class:`StrictJSONError` for anything not plain JSON.

    ``lone_surrogates=True`` admits ``\\udXXX`` escapes that pair with nothing: only for a
    stream this kit wrote itself (``results.jsonl`` keeps an adapter's lone surrogates escaped).
    """
    # type() first: the log reader hands in a str per line, and isinstance against a union costs
    # several times the parse of a short line's envelope
    from_bytes = type(data) is not str and isinstance(data, (bytes, bytearray))
    if from_bytes:
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise StrictJSONError(f"not UTF-8: byte {exc.start} cannot be decoded") from None
    else:
        text = data
    size = len(text)
    # A text of at most max_depth characters cannot open max_depth + 1 levels: no scan.
    if size > max_depth and (deep_at := _too_deep(text, max_depth)) is not None:
        line, column = _position(text, deep_at)
        raise StrictJSONError(f"nested deeper than {max_depth} levels", line, column)
    scan = _SCAN_SHORT if size <= MAX_INT_DIGITS else _SCAN
    try:
        # JSONDecoder.decode without its two Python wrappers (same errors, same positions): the
        # C scanner from the first non-blank character, then only whitespace may follow.
        start = 0 if text[:1] not in _BLANK else _WHITESPACE(text, 0).end()
        try:
            value, end = scan(text, start)
        except StopIteration as stop:
            raise json.JSONDecodeError("Expecting value", text, stop.value) from None
        if end != size and (end != size - 1 or text[end] != "\n") and (
                _WHITESPACE(text, end).end() != size):
            raise json.JSONDecodeError("Extra data", text, _WHITESPACE(text, end).end())
    except json.JSONDecodeError as exc:
        raise StrictJSONError(f"not JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except _Refused as exc:
        raise StrictJSONError(str(exc)) from None
    except (ValueError, RecursionError) as exc:  # defensive: the checks above should precede these
        raise StrictJSONError(f"not JSON: {exc}") from None
    if lone_surrogates:
        return value
    # UTF-8 bytes decode to no raw surrogate; a str handed in directly might hold one
    if ("\\u" in text and _SURROGATE_ESCAPE.search(text)) or not (
            from_bytes or text.isascii() or _encodable(text)):
        pointer = _lone_surrogate(value)
        if pointer is not None:
            shown = pointer.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace")
            raise StrictJSONError(f"string at {shown} holds an unpaired UTF-16 surrogate")
    return value

