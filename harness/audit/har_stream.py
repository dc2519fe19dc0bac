"""A HAR file read one entry at a time: memory follows the largest entry, not the file.

A HAR document is one JSON object, ``{"log": {..., "entries": [entry, entry, ...]}}``, often
hundreds of megabytes (a browser's or proxy's whole session). :func:`har_entries` walks its
structure with a buffer over the file: the members around ``/log/entries`` are read and
dropped one by one, and each entry's text is cut out with the C scanner (``raw_decode``, which
finds where a value ends) and then parsed by the strict reader
(:func:`reference_impl.strict_json.loads`), so an entry holding NaN, a duplicate key or a lone
surrogate is refused as before, one at a time. An entry longer than ``max_entry`` characters
ends the reading with a note (it is never held whole); a file that is not a HAR object with a
list at ``/log/entries`` is a :class:`HarnessError`, and damage after the first entry is a note:
the entries before it were read.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from agent_tck.reference_impl.strict_json import MAX_DEPTH, StrictJSONError, loads

_WS = re.compile(r"[ \t\n\r]*")
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_LENIENT = json.JSONDecoder()
CHUNK = 1 << 20


class HarDamage(Exception):
    """The document is not well-formed here; ``where`` is ``line:column`` (1-based)."""

    def __init__(self, reason: str, where: str) -> None:
        super().__init__(reason)
        self.reason, self.where = reason, where


@dataclass(frozen=True)
class Entry:
    """The entry at ``/log/entries/<index>``: its value, or why it cannot be read."""

    index: int
    value: Any = None
    error: str | None = None


class _Buffer:
    """Decoded text of the file, read in chunks; ``pos`` indexes into ``text``."""

    def __init__(self, handle: IO[bytes], max_value: int) -> None:
        self.handle = handle
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.text = ""
        self.pos = 0
        self.eof = False
        self.lines_before = 0  # newlines in the text already dropped
        self.col_base = 0  # characters since the last dropped newline
        self.max_value = max_value

    def more(self, at_least: int = CHUNK) -> bool:
        """Read at least ``at_least`` more characters (False at the end of the file)."""
        if self.eof:
            return False
        dropped = self.text[:self.pos]
        if dropped:
            newlines = dropped.count("\n")
            self.lines_before += newlines
            self.col_base = (len(dropped) - dropped.rfind("\n") - 1) if newlines else (
                self.col_base + len(dropped))
        self.text, self.pos = self.text[self.pos:], 0
        parts = []
        got = 0
        while got < at_least:
            data = self.handle.read(max(at_least - got, CHUNK))
            if not data:
                self.eof = True
                parts.append(self.decoder.decode(b"", final=True))
                break
            piece = self.decoder.decode(data)
            parts.append(piece)
            got += len(piece)
        self.text += "".join(parts)
        return True

    def where(self, index: int | None = None) -> str:
        index = self.pos if index is None else index
        newlines = self.text.count("\n", 0, index)
        if newlines:
            return (f"{self.lines_before + newlines + 1}:"
                    f"{index - self.text.rfind(chr(10), 0, index)}")
        return f"{self.lines_before + 1}:{self.col_base + index + 1}"

    def peek(self) -> str:
        """The next non-blank character ("" at the end of the file)."""
        while True:
            blank = _WS.match(self.text, self.pos)  # matches the empty string too: never None
            self.pos = blank.end() if blank is not None else self.pos
            if self.pos < len(self.text) or not self.more():
                return self.text[self.pos:self.pos + 1]

    def expect(self, char: str, what: str) -> None:
        if self.peek() != char:
            found = self.text[self.pos:self.pos + 1] or "the end of the file"
            raise HarDamage(f"expected {what}, found {found!r}", self.where())
        self.pos += 1

    def span(self) -> tuple[int, int]:
        """(start, end) in ``text`` of the next value, reading more until it is whole."""
        self.peek()
        while True:
            start = self.pos
            try:
                end = _LENIENT.raw_decode(self.text, start)[1]
                if end < len(self.text) or self.eof:  # a number at the end may go on
                    return start, end
            except RecursionError:  # deeper than the C scanner goes: count brackets instead
                closing = self._bracket_end(start)
                if closing is not None:
                    return start, closing
            except json.JSONDecodeError:
                pass
            if len(self.text) - start > self.max_value:
                raise HarDamage(f"a value longer than {self.max_value} characters", self.where())
            if not self.more(max(CHUNK, len(self.text) - start)):  # doubling: linear overall
                raise HarDamage("not JSON (a value is cut off or malformed)", self.where())

    def _bracket_end(self, start: int) -> int | None:
        depth = 0
        for match in _TOKEN.finditer(self.text, start):
            token = match.group()
            if token in "[{":
                depth += 1
            elif token in "]}":
                depth -= 1
                if depth == 0:
                    return match.end()
        return None

    def value(self) -> Any:
        """The next value, read strictly (a :class:`HarDamage` naming line and column)."""
        start, end = self.span()
        self.pos = end
        try:
            return loads(self.text[start:end])
        except StrictJSONError as exc:
            raise HarDamage(exc.reason, self._offset(start, exc)) from None

    def _offset(self, start: int, exc: StrictJSONError) -> str:
        if exc.line is None or exc.column is None:
            return self.where(start)
        if exc.line == 1:
            line, col = self.where(start).split(":")
            return f"{line}:{int(col) + exc.column - 1}"
        return f"{int(self.where(start).split(':')[0]) + exc.line - 1}:{exc.column}"


def _members(buf: _Buffer, pointer: str) -> Iterator[str]:
    """The keys of the object that starts here, each left for the caller to read its value."""
    buf.expect("{", f"an object at {pointer or '/'}")
    seen: set[str] = set()
    if buf.peek() == "}":
        buf.pos += 1
        return
    while True:
        key = buf.value()
        if not isinstance(key, str):
            raise HarDamage(f"a member name in {pointer or '/'}", buf.where())
        if key in seen:
            raise HarDamage(f"duplicate key {key!r} in one object", buf.where())
        seen.add(key)
        buf.expect(":", "':'")
        yield key
        if buf.peek() == ",":
            buf.pos += 1
            continue
        buf.expect("}", f"',' or '}}' in {pointer or '/'}")
        return


def _entries(buf: _Buffer) -> Iterator[Entry]:
    buf.expect("[", "a list at /log/entries")
    if buf.peek() == "]":
        buf.pos += 1
        return
    index = 0
    while True:
        start, end = buf.span()
        buf.pos = end
        try:
            yield Entry(index, loads(buf.text[start:end]))
        except StrictJSONError as exc:
            yield Entry(index, error=str(exc))
        index += 1
        if buf.peek() == ",":
            buf.pos += 1
            continue
        buf.expect("]", "',' or ']' in /log/entries")
        return


def har_entries(handle: IO[bytes], *, max_entry: int) -> Iterator[Entry]:
    """Every entry of the HAR document in ``handle``, in order. Raises :class:`HarDamage` where
    the document is not well-formed (the caller says whether entries came before), and
    ``ValueError`` when it is well-formed but has no list at ``/log/entries``."""
    buf = _Buffer(handle, max_entry)
    found = False
    for key in _members(buf, ""):
        if key != "log":
            buf.value()
            continue
        if buf.peek() != "{":
            buf.value()  # a deep or malformed value says so; a well-formed one is not a log
            raise ValueError("/log")
        for inner in _members(buf, "/log"):
            if inner != "entries":
                buf.value()
                continue
            if buf.peek() != "[":
                buf.value()
                raise ValueError("/log/entries")
            found = True
            yield from _entries(buf)
    if buf.peek():
        raise HarDamage("extra data after the document", buf.where())
    if not found:
        raise ValueError("/log/entries")


__all__ = ["MAX_DEPTH", "Entry", "HarDamage", "har_entries"]
