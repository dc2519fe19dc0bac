"""One strict JSON reader for every untrusted input: adapter replies, logs, captures, vectors.

``json.loads`` is lenient where an untrusted input must not be: it accepts ``NaN`` and
``Infinity`` (not JSON, RFC 8259 section 6), keeps the last of two duplicate keys (so
``{"type": "assistant/chunk", "type": "turn/start"}`` reads as a turn start), decodes lone UTF-16
surrogates (``"\\ud800"``) into strings no UTF-8 writer can encode, turns ``1e400`` into infinity,
raises ``RecursionError`` on deep nesting and a bare ``ValueError`` on integers of more than 4,300
digits. :func:`loads` refuses each with a :class:`StrictJSONError` that says what and where.

Two paths, one contract. The fast path parses with msgspec's native decoder (measured beside
orjson and jiter in benchmarks/bench_strict_json.py: as fast as orjson, which turns integers past
64 bits into floats, and faster than jiter once jiter's own duplicate-key check is on), which
itself refuses NaN, Infinity, numbers out of range, lone surrogates, invalid UTF-8, a BOM and
trailing data. What it cannot see is checked without a second parse, by one native pass over the
text and one walk of the value (reference_impl/_strict_scan.c, compiled by hatch_build.py):

- duplicate keys: the native decoder keeps the last of two, so the value holds fewer pairs than
  the text has ``:`` outside its strings;
- an integer of over :data:`MAX_INT_DIGITS` digits: a longer run of digits outside strings;
- depth: the brackets outside strings.

Where no compiler built it, :func:`_vouch_in_python` makes the same checks with what Python has
in C: the value encoded again (a text written compactly by the same rules, a log line or a reply,
is that encoding itself; otherwise its colons are counted against the text's, the ``\\u003X``
escapes counted as if each were a colon), a sampled search for long digit runs, and the depth read
from the value one :func:`gc.get_referents` call per level.

Whatever the fast path refuses or cannot vouch for goes to the stdlib path (:func:`_slow`: the C
scanner without ``JSONDecoder.decode``'s wrappers, an ``object_pairs_hook`` per object), which
alone decides it and words every refusal: reasons, lines, columns and pointers are the stdlib
path's (tests/test_strict_json_differential.py holds the two paths to it). Pure: no file,
socket or clock.
"""

from __future__ import annotations

import gc
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

from agent_tck.reference_impl.json_pointer import escape

#: Deepest nesting of arrays and objects accepted. Far above any real request, log line or vector
#: (they stay under 20), far below the interpreter's recursion limit, so every later walker is safe.
MAX_DEPTH = 200

#: Longest integer literal accepted, in digits (Python's own limit is 4,300; JSON numbers that long
#: are never data a provider or a session log holds).
MAX_INT_DIGITS = 1000

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
# every digit a zero, every other byte a dot: two zeros side by side in a sample (every
# _SAMPLE_STEP-th character) are what a run of more than MAX_INT_DIGITS digits leaves in it
_DIGITS_ONLY = bytes(0x30 if 0x30 <= c <= 0x39 else 0x2E for c in range(256))
_SAMPLE_STEP = (MAX_INT_DIGITS + 1) // 2
_REFERENTS = gc.get_referents
# A text longer than this is walked for its depth without counting its brackets first (they
# outnumber any depth limit in a long text, and the count costs as much as the walk)
_COUNT_BRACKETS_UP_TO = 16_384
_NATIVE_DECODE = msgspec.json.decode
_NATIVE_ENCODE = msgspec.json.encode
_LONG_INT = b"0" * (MAX_INT_DIGITS + 1)
# A text this short holds neither an integer of too many digits nor 2 * (MAX_DEPTH + 1) brackets
_SHORT = min(MAX_INT_DIGITS, 2 * MAX_DEPTH + 1)


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
    digits = len(text) - (text[0] == "-")  # the sign is no digit (the fast path counts none)
    if digits > MAX_INT_DIGITS:
        raise _Refused(f"integer of {digits} digits (at most {MAX_INT_DIGITS})")
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


_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]
_SCAN_SHORT: Callable[[str, int], tuple[Any, int]] = (
    _SHORT_DECODER.scan_once)  # type: ignore[attr-defined]
# the decoder's own notion of blank: " \t\n\r"
_WHITESPACE: Callable[[str, int], re.Match[str]] = json.decoder.WHITESPACE.match  # type: ignore[attr-defined]
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
                escaped = escape(key)
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


def _vouch_in_python(data: str | bytes | bytearray, value: Any, max_depth: int,
                     max_digits: int) -> bool:
    """The native check's contract (reference_impl/_strict_scan.c, ``vouch``) where it was not
    built: whether ``value``, decoded from ``data`` by msgspec, kept every pair, nests at most
    ``max_depth`` levels and comes from a text with no integer of over ``max_digits`` digits
    (:data:`MAX_INT_DIGITS`: the sample and the cut-offs below are built on it).

    Duplicate keys: the native decoder keeps the last of two, so the dropped pair is missing from
    the value. The value encoded again (native, faster than the parse) is the text itself when
    the text was written compactly by the same rules (a log line, a reply): no pair was dropped.
    Otherwise its colons are counted (:func:`_colons_agree`).
    """
    if type(value) is not dict and type(value) is not list:  # a scalar: no pair, no depth
        return not (type(value) is int and len(data) > max_digits)
    written = _NATIVE_ENCODE(value)
    # type() first: the log reader hands in bytes per line
    raw = data if type(data) is bytes or not isinstance(data, str) else data.encode("utf-8")
    size = len(raw)
    extra = size - len(written)  # compact text: 0, or 1 for a line's newline
    if not ((raw == written if extra == 0 else extra == 1 and raw[-1] == 10
             and raw.startswith(written)) or _colons_agree(raw, written)):
        return False
    if size <= _SHORT and max_depth >= MAX_DEPTH:  # too short for a long integer or deep nesting
        return True
    if size > max_digits and _long_digit_run(raw):
        return False  # maybe an integer of too many digits (or a long number in a string)
    if size <= 2 * max_depth + 1:  # too short to hold 2 * (max_depth + 1) brackets
        return True
    if size <= _COUNT_BRACKETS_UP_TO and raw.count(b"[") + raw.count(b"{") <= max_depth:
        return True
    return _shallow(value, max_depth)


# The fast path's check: native where hatch_build.py compiled it at install (one pass over the
# text, one walk of the value), else the same contract in Python; tests/test_strict_json_*.py run
# both paths against the stdlib path
try:
    from agent_tck.reference_impl._strict_scan import vouch as _vouch
except ImportError:  # installed without a C compiler
    _vouch = _vouch_in_python
#: Whether the native check is the one in use (``agent-tck --version`` says so).
NATIVE = _vouch is not _vouch_in_python


def _colons_agree(raw: bytes | bytearray, written: bytes) -> bool:
    """Whether the value ``written`` again kept every pair of the text ``raw``: it holds a ``:``
    per pair plus the colons inside strings, which are the text's own (no JSON escape but
    ``\\u003a`` makes a colon; the ``\\u003X`` escapes are counted as if each were one): fewer
    colons than the text's means a pair was dropped (more: an escape was not a colon)."""
    colons = raw.count(b":")
    if colons and b"\\" in raw:
        colons += raw.count(b"\\u003")
    return written.count(b":") == colons


def _long_digit_run(raw: bytes | bytearray) -> bool:
    """Whether ``raw`` holds a run of more than :data:`MAX_INT_DIGITS` digits. Every
    ``MAX_INT_DIGITS // 2``-th character first: such a run covers two consecutive ones of them,
    so a text without two consecutive sampled digits has none (the whole text is read only
    when it has)."""
    if b"00" not in raw[::_SAMPLE_STEP].translate(_DIGITS_ONLY):
        return False
    return _LONG_INT in raw.translate(_DIGITS_AS_ZERO)


def _shallow(value: Any, max_depth: int) -> bool:
    """Whether the decoded ``value`` nests at most ``max_depth`` levels: one C call per level,
    :func:`gc.get_referents` handing every container's items (a dict's values, perhaps its keys:
    strings, no container) and skipping the scalars."""
    level: list[Any] = [value]  # the values inside ``depth`` containers
    for _depth in range(max_depth):
        level = _REFERENTS(*level)
        if not level:
            return True
    # the values inside max_depth containers: a container among them opens one level too many
    return not any(type(item) is dict or type(item) is list for item in level)


def loads(data: str | bytes, *, max_depth: int = MAX_DEPTH, lone_surrogates: bool = False) -> Any:
    """Parse one JSON text strictly; raise :class:`StrictJSONError` for anything not plain JSON.

    ``lone_surrogates=True`` admits ``\\udXXX`` escapes that pair with nothing: only for a
    stream this kit wrote itself (``results.jsonl`` keeps an adapter's lone surrogates escaped).
    """
    # The fast path: the native decoder, then the checks it cannot make (_vouch). It never
    # refuses: what it cannot vouch for goes to the stdlib path, which alone words refusals.
    try:
        value = _NATIVE_DECODE(data)
    except (ValueError, RecursionError):  # a DecodeError is a ValueError; so is a raw surrogate
        pass                              # in a str (UnicodeEncodeError)
    else:
        if _vouch(data, value, max_depth, MAX_INT_DIGITS):
            return value
    return _slow(data, max_depth, lone_surrogates)


def _slow(data: str | bytes, max_depth: int, lone_surrogates: bool) -> Any:
    """The stdlib path: decides every input the fast path did not, and words every refusal."""
    # type() first: the log reader hands in a str per line, and isinstance against a union costs
    # several times the parse of a short line's envelope
    from_bytes = type(data) is not str
    if isinstance(data, str):
        text = data
    else:
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise StrictJSONError(f"not UTF-8: byte {exc.start} cannot be decoded") from None
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

