"""The one path every console line takes: secrets redacted, control characters made visible.

An adapter's crash message, its stderr, a capture's transport error or a session log's text can
carry a credential or a terminal escape (``ESC [2J`` clears the screen, OSC 8 forges a link,
BEL rings, NUL and C1 controls confuse terminals and CI log viewers). Every line the commands
print goes through :func:`clean`:

* redaction: :func:`agent_tck.harness.reports.redact.redact_text`, the one home of the secret
  shapes (docs/RELIABILITY.md, "Redaction guarantees");
* neutralizing, the way ``cat -v`` shows them: C0 controls as ``^@`` ... ``^_`` (ESC is ``^[``,
  BEL ``^G``, NUL ``^@``, CR ``^M``), DEL as ``^?``, C1 controls (U+0080..U+009F) as
  ``M-^@`` ... ``M-^_`` (``cat -v`` shows the byte 0x9B, CSI, as ``M-^[``); besides, the bidi
  embedding, override and isolate controls (U+202A..U+202E, U+2066..U+2069), which reorder what
  a terminal shows, as ``<U+202E>``, and lone surrogates (undecodable bytes), which no encoder
  writes, as ``\\udcff``. ``\\n`` and ``\\t`` are kept where they are line structure.

:func:`install` (called once by ``agent-tck``'s ``main``) puts a :class:`ConsoleStream` in front
of ``sys.stdout`` and ``sys.stderr``, so every ``print``, ``write``, logging handler and
traceback of every command takes this path; a value embedded in one line (a case's message, a
smoke diagnosis) goes through :func:`one_line`, which escapes its newlines too, so an adapter
cannot forge a line of its own. Output written to files (reports, ``-o``) is not touched here:
the report writers redact and escape for their formats.
"""

from __future__ import annotations

import codecs
import contextlib
import functools
import re
import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import IO, Any, TextIO

from agent_tck.harness.reports.redact import redact_text


def _caret(code: int) -> str:
    return "^?" if code == 0x7F else "^" + chr(code + 0x40)


def _table() -> dict[int, str]:
    table = {code: _caret(code) for code in (*range(0x20), 0x7F)}
    table.update({code: "M-" + _caret(code - 0x80) for code in range(0x80, 0xA0)})
    table.update({code: f"<U+{code:04X}>" for code in (*range(0x202A, 0x202F),
                                                       *range(0x2066, 0x206A))})
    table.update({code: f"\\u{code:04x}" for code in range(0xD800, 0xE000)})
    return table


_ESCAPES = _table()
# one quick test before the translation: most text holds none of these
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def neutralize(text: str, *, keep: str = "\n\t") -> str:
    """``text`` with every control character shown as a printable escape (``cat -v``), except
    the characters in ``keep``."""
    if not _UNSAFE.search(text):
        return text
    return text.translate(_escapes_but(keep))


@functools.cache
def _escapes_but(keep: str) -> dict[int, str]:
    return {code: esc for code, esc in _ESCAPES.items() if chr(code) not in keep}


def clean(text: str, *, keep: str = "\n\t") -> str:
    """``text`` fit for a terminal: secrets redacted, then control characters neutralized."""
    return neutralize(redact_text(text), keep=keep)


def one_line(text: str) -> str:
    """A value embedded in one console line: as :func:`clean`, and its newlines and tabs
    escaped too (``^J``, ``^I``), so it cannot start a line of its own."""
    return clean(text, keep="")


class ConsoleStream:
    """A text stream in front of a terminal (or a pipe, or a CI log) that cleans what it passes.

    Text is held until its line is complete (``\\n``) or the stream is flushed, so a secret is
    redacted as a whole even when a line is written in pieces (``print`` writes its end of line
    separately). A ``\\r`` is kept only as the first character of one ``write``, where the
    progress bar puts it to redraw its line; anywhere else it is shown as ``^M``.
    """

    #: a line longer than this (characters) is written out in parts rather than held
    MAX_PENDING = 1 << 20

    def __init__(self, raw: TextIO | IO[str]) -> None:
        self.raw = raw
        self._pending: list[str] = []
        self._held = 0
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        n = len(text)
        with self._lock:
            if text.startswith("\r"):
                self._emit_pending()
                self.raw.write("\r")
                text = text[1:]
            while True:
                head, newline, text = text.partition("\n")
                self._pending.append(head)
                self._held += len(head)
                if not newline:
                    break
                line = "".join(self._pending)
                self._pending.clear()
                self._held = 0
                self.raw.write(clean(line) + "\n")
            if self._held > self.MAX_PENDING:
                self._emit_pending()
        return n

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def _emit_pending(self) -> None:
        partial = "".join(self._pending)
        self._pending.clear()
        self._held = 0
        if partial:
            self.raw.write(clean(partial))

    def flush(self) -> None:
        with self._lock:
            self._emit_pending()
        self.raw.flush()

    def isatty(self) -> bool:
        return self.raw.isatty()

    def fileno(self) -> int:
        return self.raw.fileno()

    def writable(self) -> bool:
        return True

    def __getattr__(self, name: str) -> Any:  # encoding, errors, buffer...: the raw stream's
        return getattr(self.raw, name)


def install() -> tuple[TextIO, TextIO]:
    """Put a :class:`ConsoleStream` in front of ``sys.stdout`` and ``sys.stderr`` (once: a
    stream already cleaned is left as it is); returns the streams it replaced."""
    previous = (sys.stdout, sys.stderr)
    if not isinstance(sys.stdout, ConsoleStream):
        sys.stdout = ConsoleStream(sys.stdout)
    if not isinstance(sys.stderr, ConsoleStream):
        sys.stderr = ConsoleStream(sys.stderr)
    return previous


@contextmanager
def console() -> Iterator[None]:
    """:func:`install` for the time of one command; the previous streams come back after it,
    what is still held is written out (a closed pipe then is not an error any more)."""
    previous = install()
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            # the reader went away: said where it happened (cli.main's BrokenPipeError)
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        sys.stdout, sys.stderr = previous


def pump(source: IO[bytes], stream: TextIO | IO[str]) -> threading.Thread:
    """Copy a child's output (``stdout=PIPE``) to ``stream`` through a :class:`ConsoleStream`,
    in a daemon thread that ends at the pipe's end of file. Bytes that are not UTF-8 are shown
    as ``\\udcff`` escapes, never raised; memory is bounded by the line cap."""
    out = stream if isinstance(stream, ConsoleStream) else ConsoleStream(stream)

    def copy() -> None:
        decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        with source:
            for raw in iter(lambda: source.readline(65536), b""):
                out.write(decoder.decode(raw))
                out.flush()
            out.write(decoder.decode(b"", final=True))
            out.flush()

    thread = threading.Thread(target=copy, name="agent-tck console pump", daemon=True)
    thread.start()
    return thread
