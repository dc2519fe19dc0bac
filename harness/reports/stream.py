"""The results stream (results.jsonl): write it, and read it back into a ``Run``.

The stream is the report; every view (JUnit, Markdown, HTML, badges) is rendered from a parsed
``Run`` and from nothing else, so ``agent-tck report results.jsonl`` can re-render any time.
Format: vectors/schema/results.schema.json (header, one record per case, footer). A stream
without its footer is a truncated run: it parses, is flagged ``truncated``, and gets no verdict.

:mod:`harness.run.results` holds the typed records and :func:`~harness.run.results.summarize`, the
one
place where case results become rule statuses and verdicts; the views import them from there.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import IO, Any

from agent_tck.harness.reports.redact import might_hold_secret, redact
from agent_tck.harness.run.results import (
    READABLE_FORMATS,
    RULE_STATUSES,
    CaseResult,
    Footer,
    Header,
    Record,
    RuleInfo,
    RunSummary,
    Verdict,
    summarize,
)
from agent_tck.reference_impl.json_pointer import pointer
from agent_tck.reference_impl.strict_json import MAX_DEPTH, StrictJSONError, loads

#: longest results.jsonl line read back, in bytes, and deepest nesting (a record wraps an
#: adapter's output, itself at most MAX_DEPTH deep, a few levels down)
MAX_LINE = 256 * 1024 * 1024
MAX_RECORD_DEPTH = MAX_DEPTH + 16

SCHEMA = "results.schema.json"

__all__ = ["SCHEMA", "Run", "StreamError", "Writer", "dumps_record", "parse_lines", "read",
           "write"]


# --- errors -------------------------------------------------------------------------------------


@dataclass  # not frozen: Python must be able to set __traceback__ on it
class StreamError(Exception):
    """A results stream that cannot be read. ``code`` is stable; ``line`` is 1-based.

    Codes: ``RESULTS_UNREADABLE`` (no such file...), ``RESULTS_EMPTY``, ``RESULTS_BAD_ENCODING``,
    ``RESULTS_BAD_JSON``, ``RESULTS_BAD_RECORD`` (schema), ``RESULTS_NO_HEADER``,
    ``RESULTS_FORMAT`` (another format version), ``RESULTS_ORDER`` (a second header, a record
    after the footer).
    """

    code: str
    message: str
    source: str = "results.jsonl"
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line is not None else self.source
        return f"{self.code}: {where}: {self.message}"


# --- the parsed run -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """A parsed results stream. ``footer is None`` means the run was truncated."""

    header: Header
    cases: tuple[CaseResult, ...]
    footer: Footer | None
    source: str = "results.jsonl"
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: a merged run's inputs (``report --merge``): results path, implementation, kit version,
    #: start; empty for a run read from one stream
    sources: tuple[Mapping[str, str], ...] = field(default_factory=tuple)

    @property
    def truncated(self) -> bool:
        return self.footer is None

    @cached_property
    def recomputed(self) -> RunSummary:
        """The summary recomputed from the case records present."""
        return summarize(self.header.rules, self.cases)

    @cached_property
    def rule_status(self) -> dict[str, str]:
        """Per rule of the header: the footer's status, else (truncated) the recomputed one."""
        footer = self.footer.rules if self.footer else {}
        return {r.id: footer.get(r.id, self.recomputed.rule_status[r.id])
                for r in self.header.rules}

    @cached_property
    def counts(self) -> dict[str, int]:
        counts = dict(self.recomputed.counts)
        if self.footer:
            counts.update(self.footer.counts)
        return counts

    @property
    def verdicts(self) -> Mapping[str, Verdict] | None:
        """The footer's verdicts; ``None`` for a truncated run, which has none."""
        return self.footer.verdicts if self.footer else None

    @cached_property
    def disagreements(self) -> tuple[str, ...]:
        """Rules whose footer status differs from what the case records say (a runner bug)."""
        if self.footer is None:
            return ()
        mine = self.recomputed.rule_status
        return tuple(rid for rid, status in self.footer.rules.items()
                     if rid in mine and mine[rid] != status)

    @cached_property
    def cases_by_rule(self) -> dict[str, tuple[CaseResult, ...]]:
        out: dict[str, list[CaseResult]] = {}
        for case in self.cases:
            for rid in case.rules:
                out.setdefault(rid, []).append(case)
        return {rid: tuple(cases) for rid, cases in out.items()}

    @property
    def families(self) -> tuple[str, ...]:
        """The header's families, then any family seen only in rules or cases."""
        seen = dict.fromkeys(self.header.families)
        seen.update(dict.fromkeys(r.family for r in self.header.rules))
        seen.update(dict.fromkeys(c.family for c in self.cases))
        return tuple(seen)

    def rules_of(self, family: str) -> tuple[RuleInfo, ...]:
        return tuple(r for r in self.header.rules if r.family == family)

    def rule_counts(self, family: str | None = None) -> dict[str, int]:
        """Rule statuses tallied, over one family or the whole run."""
        counts = dict.fromkeys(RULE_STATUSES, 0)
        for rule in self.header.rules:
            if family is None or rule.family == family:
                counts[self.rule_status[rule.id]] += 1
        return counts

    @property
    def implementation_label(self) -> str:
        impl = self.header.implementation
        return " ".join(str(p) for p in (impl.get("name"), impl.get("version")) if p)


# --- reading ------------------------------------------------------------------------------------


@cache
def _validators() -> dict[str, Any]:
    from jsonschema import Draft202012Validator

    from agent_tck.harness.common.data import vectors_dir

    schema = json.loads((vectors_dir() / "schema" / SCHEMA).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    root = {k: v for k, v in schema.items() if k != "oneOf"}
    return {kind: Draft202012Validator({**root, "$ref": f"#/$defs/{kind}"})
            for kind in ("header", "case", "footer")}


#: Digests of the lines this process has written with :class:`Writer` (bounded). A run renders its
#: reports from the stream it has just written, and checking each of its own records against the
#: schema again cost a quarter of the run. Only a typed record's line is remembered (the evaluate
#: loop's; a plain mapping handed to the writer may be anything): read back byte for byte as
#: written, it is one this process made. Any other line, or a line changed on disk, is checked.
_WRITTEN: set[bytes] = set()
_WRITTEN_MAX = 1_000_000


def _digest(line: bytes) -> bytes:
    return hashlib.blake2b(line, digest_size=16).digest()


def _check(kind: str, record: Mapping[str, Any], source: str, line: int) -> None:
    errors = sorted(_validators()[kind].iter_errors(record), key=lambda e: list(e.path))
    if errors:
        best = errors[0]
        raise StreamError("RESULTS_BAD_RECORD",
                          f"{kind} record at {pointer(best.path) or '/'}: {best.message}",
                          source, line)


def _load(raw_line: bytes | str, source: str, number: int) -> tuple[Any, StreamError | None]:
    """(record or None for a blank line, error) for one line."""
    text = raw_line
    if isinstance(raw_line, bytes):
        try:
            text = raw_line.decode("utf-8")
        except UnicodeDecodeError as exc:
            return None, StreamError("RESULTS_BAD_ENCODING", f"not UTF-8 ({exc.reason} at byte "
                                     f"{exc.start})", source, number)
    assert isinstance(text, str)
    text = text.strip()
    if not text:
        return None, None
    try:
        # dumps_record keeps an adapter's lone surrogates as escapes: they read back as written
        return loads(text, max_depth=MAX_RECORD_DEPTH, lone_surrogates=True), None
    except StrictJSONError as exc:
        where = f" at column {exc.column}" if exc.column is not None else ""
        reason = exc.reason if exc.reason.startswith("not JSON") else f"not JSON: {exc.reason}"
        return None, StreamError("RESULTS_BAD_JSON", f"{reason}{where}", source, number)


def parse_lines(lines: Iterable[bytes | str], source: str = "results.jsonl") -> Run:
    """Parse the stream's lines (bytes or text, newline kept or not) into a :class:`Run`.

    A last line that is cut off (no newline) and not valid JSON or UTF-8 is what a killed
    writer leaves behind: it is dropped with a note and the run reads as truncated. Every other
    malformed line is a :class:`StreamError` naming the line.
    """
    header: Header | None = None
    cases: list[CaseResult] = []
    footer: Footer | None = None
    pending: StreamError | None = None  # a bad line that may turn out to be the cut-off last one
    number = 0
    for number, raw_line in enumerate(lines, start=1):
        if pending is not None:
            raise pending
        record, error = _load(raw_line, source, number)
        trusted = type(raw_line) is bytes and _digest(raw_line) in _WRITTEN
        if error is not None:
            cut_off = not (raw_line.endswith(b"\n") if isinstance(raw_line, bytes)
                           else raw_line.endswith("\n"))
            if not cut_off or header is None:
                raise error
            pending = error
            continue
        if record is None:
            continue
        if not isinstance(record, dict) or record.get("type") not in ("header", "case", "footer"):
            raise StreamError("RESULTS_BAD_RECORD", "each line must be an object whose type is "
                              "header, case or footer", source, number)
        kind = record["type"]
        if header is None:
            if kind != "header":
                raise StreamError("RESULTS_NO_HEADER", f"the first record is a {kind}; a "
                                  "results stream starts with its header", source, number)
            if record.get("format") not in READABLE_FORMATS:
                raise StreamError("RESULTS_FORMAT", f"format {record.get('format')!r} found, "
                                  f"one of {', '.join(map(repr, READABLE_FORMATS))} expected",
                                  source, number)
            if not trusted:
                _check("header", record, source, number)
            header = Header.from_json(record)
        elif footer is not None or kind == "header":
            what = "a second header" if kind == "header" else f"a {kind} record after the footer"
            raise StreamError("RESULTS_ORDER", what, source, number)
        elif kind == "case":
            if not trusted:
                _check(kind, record, source, number)
            cases.append(CaseResult.from_json(record, number))
        else:
            if not trusted:
                _check(kind, record, source, number)
            footer = Footer.from_json(record, header.rules)
    if header is None:
        raise StreamError("RESULTS_EMPTY", "no records: a results stream starts with its header",
                          source, number or None)
    notes = (f"line {pending.line} was cut off mid-record and is ignored",) if pending else ()
    return Run(header, tuple(cases), footer, source, notes)


def _bounded_lines(handle: IO[bytes], source: str) -> Iterator[bytes]:
    """The file's lines, refusing one longer than :data:`MAX_LINE` (``/dev/zero`` is one
    endless line: a clear error, not unbounded memory)."""
    number = 0
    while True:
        line = handle.readline(MAX_LINE + 1)
        if not line:
            return
        number += 1
        if len(line) > MAX_LINE:
            raise StreamError("RESULTS_BAD_JSON", f"a line longer than {MAX_LINE} bytes",
                              source, number)
        yield line


def read(path: str | os.PathLike[str]) -> Run:
    """Read and parse a results.jsonl file (streaming, line by line)."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            return parse_lines(_bounded_lines(handle, str(path)), str(path))
    except OSError as exc:
        raise StreamError("RESULTS_UNREADABLE", exc.strerror or str(exc), str(path)) from None


# --- writing ------------------------------------------------------------------------------------

# lone surrogates (valid as JSON escapes, unencodable in UTF-8) and the characters that some
# line splitters (str.splitlines, JavaScript before ES2019) treat as line ends
_ESCAPE_RAW = re.compile("[\ud800-\udfff\u2028\u2029\x85]")


def dumps_record(record: Record | Mapping[str, Any]) -> str:
    """One line of the stream (no newline) for a typed record or its JSON: redacted, UTF-8 safe.

    Lone surrogates and U+2028, U+2029, U+0085 are written as JSON escapes, so one record is
    one line for any line splitter.
    """
    return _dumps(record)[0]


def _dumps(record: Record | Mapping[str, Any]) -> tuple[str, bool]:
    """:func:`dumps_record`'s line, and whether it is the record's own JSON (redaction changed
    nothing): only such a line of a typed record is as valid as the record class makes it."""
    data = record if isinstance(record, Mapping) else record.to_json()
    try:  # serialized first: redacting walks the record, and most hold nothing to redact
        plain = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except TypeError:  # a Mapping json cannot write as is: redact() returns plain values
        plain = ""
    text = plain
    if not plain or might_hold_secret(plain):
        text = json.dumps(redact(data), ensure_ascii=False, allow_nan=False,
                          separators=(",", ":"))
    return _ESCAPE_RAW.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text), text == plain


class Writer:
    """Append records to a results stream as they come, one flushed line each.

    A run that dies before :meth:`write` gets its footer leaves a stream that reads as
    truncated, which is the point of writing as we go.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle: IO[str] | None = self.path.open("w", encoding="utf-8", newline="\n")

    def write(self, record: Record | Mapping[str, Any]) -> None:
        if self._handle is None:
            raise ValueError(f"{self.path} is closed")
        text, own = _dumps(record)
        line = text + "\n"
        self._handle.write(line)
        self._handle.flush()
        # redaction can make a typed record's line invalid (a family named like a credential
        # field: its verdict becomes "[REDACTED]"), so a line it changed is checked when read
        if own and not isinstance(record, Mapping) and len(_WRITTEN) < _WRITTEN_MAX:
            _WRITTEN.add(_digest(line.encode("utf-8")))

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __enter__(self) -> Writer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write(path: str | os.PathLike[str],
          records: Iterable[Record | Mapping[str, Any]]) -> Path:
    """Write a whole stream (header, cases, footer) to ``path``."""
    with Writer(path) as writer:
        for record in records:
            writer.write(record)
    return Path(path)
