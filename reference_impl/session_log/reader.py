"""The streaming session log reader (family ``chunk-free-persistence``, spec 001).

One pass over raw byte lines, O(1) state (:class:`_Events`: the previous ``seq`` and the
admissions' own state): :func:`check` validates without building event values (``agent-tck
check-log``); :func:`iter_log` and :func:`read` yield :class:`~format.Header` and
:class:`~format.Event` values (load, resume, round trips). The format, its vocabulary and the
writer are in :mod:`reference_impl.session_log.format`; what ``check(recover=True)`` accepts as a
torn or corrupt tail is in :mod:`reference_impl.session_log.recovery`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from agent_tck.reference_impl import strict_json
from agent_tck.reference_impl.session_log import recovery
from agent_tck.reference_impl.session_log.format import (
    CHUNK_PERSISTED,
    CHUNK_TYPE,
    EMPTY_LOG,
    FORMAT_VERSION,
    HEADER_TYPE,
    INVALID_FIELD,
    INVALID_UTF8,
    MALFORMED_JSON,
    MISSING_FIELD,
    MISSING_HEADER,
    SAFE_INTEGER,
    SAFE_NEGATIVE,
    SEQ_DECREASE,
    SEQ_DUPLICATE,
    SEQ_GAP,
    UNKNOWN_EVENT_TYPE,
    UNSUPPORTED_VERSION,
    VOCABULARY,
    DataValidator,
    Event,
    Header,
    Log,
    LogError,
    LogRejected,
    Problem,
    Vocabulary,
    _is_int,
    _is_number,
)
from agent_tck.reference_impl.session_log.recovery import Tail

_Admit = Callable[[Mapping[str, Any], int], Problem | None]


@dataclass(frozen=True)
class LogCheckSummary:
    """What ``check`` reports for an accepted log."""

    version: int
    events: int
    first_seq: int | None
    last_seq: int | None
    final_newline: bool = True
    tail: Tail | None = None  # a recoverable tail (check(recover=True) only)
    lines: int = 0  # lines read, the header included

    def to_json(self) -> dict[str, Any]:
        return {"valid": True, "version": self.version, "events": self.events,
                "firstSeq": self.first_seq, "lastSeq": self.last_seq}

    def warnings(self) -> list[dict[str, Any]]:
        """What a loader of the source runtime drops from this accepted log (check-log says)."""
        warnings = []
        if self.tail is not None:
            warnings.append(self.tail.to_json())
        elif not self.final_newline:
            # format.ts SessionLogScanner.finish: "ignoring a final record without a newline
            # as a torn tail". CFP-D006: not an error; said, because a loader drops the line.
            warnings.append({
                "code": "TORN_FINAL_LINE", "line": self.lines,
                **({"seq": self.last_seq} if self.last_seq is not None else {}),
                "message": f"line {self.lines} has no final newline: valid here, but the source "
                           "runtime's loader drops a final line without a newline as a torn "
                           "write"})
        return warnings


# --- the streaming reader ---------------------------------------------------------------------


def _utf8_error(exc: UnicodeDecodeError, line: int) -> LogRejected:
    return LogRejected(LogError(INVALID_UTF8, line, f"not UTF-8 (byte {exc.start} of the line)"))


def _json_error(exc: ValueError, text: str, line: int) -> LogRejected:
    # CFP-D006: not JSON (NaN, Infinity, duplicate keys, lone surrogates, nesting deeper than
    # strict_json.MAX_DEPTH, numbers out of range included: strict_json says which).
    what = "a blank line" if not text.strip() else "not valid JSON"
    return LogRejected(LogError(MALFORMED_JSON, line, f"{what} ({exc})"))


def _line_error(raw: bytes, line: int) -> LogRejected:
    """Why a line the parser refused is refused: not UTF-8 (INVALID_UTF8), else not JSON
    (MALFORMED_JSON, with the parser's reason). The refusal path only: it decodes again."""
    text = _decode(raw, line)  # raises INVALID_UTF8
    try:
        strict_json.loads(text)
    except ValueError as exc:
        return _json_error(exc, text, line)
    return LogRejected(LogError(MALFORMED_JSON, line, "not valid JSON"))  # pragma: no cover


def _decode(raw: bytes, line: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _utf8_error(exc, line) from None


def _parse(text: str, line: int) -> Any:
    try:
        return strict_json.loads(text)
    except ValueError as exc:
        raise _json_error(exc, text, line) from None


def version_refusal(version: Any) -> str:
    """CFP-014/015, CFP-D001: what the file is, why it is refused, and what migrates it."""
    found = f"session format version {version} found, version {FORMAT_VERSION} expected"
    if _is_int(version) and 0 <= version < FORMAT_VERSION:
        return (f"{found}: a released older format (v{int(version)}). The note rejects "
                "non-current stored logs as they are; the source runtime migrates a v0-v3 file "
                "to v4 when it opens it (session-format-v3-to-v4 and the earlier edges), beside "
                "the unchanged original. Open it once with the source runtime, or migrate it, "
                "then check the v4 file")
    if _is_int(version) and version > FORMAT_VERSION:
        return (f"{found}: a newer format than this reader knows. The note rejects non-current "
                "stored logs; a newer file needs a newer reader, never a downgrade")
    return f"{found}: not a format version"


def _check_header(value: Any, line: int) -> int:
    """CFP-013/014/015, CFP-D001: the header, and the version before anything else."""
    if type(value) is not dict or value.get("type") != HEADER_TYPE:
        raise LogRejected(LogError(
            MISSING_HEADER, line, 'the first line must be the session header {"type":"session"}'))
    if "version" not in value:
        raise LogRejected(LogError(MISSING_FIELD, line, "header.version is required"))
    version = value["version"]
    if not _is_int(version):
        raise LogRejected(LogError(INVALID_FIELD, line, "header.version must be an integer"))
    # CFP-014/015: "non-current stored logs are rejected" - older and newer alike, as-is.
    if version != FORMAT_VERSION:
        raise LogRejected(LogError(UNSUPPORTED_VERSION, line, version_refusal(version)))
    for key, check, what in (("id", str, "a string"), ("createdAt", None, "a number")):
        if key not in value:
            raise LogRejected(LogError(MISSING_FIELD, line, f"header.{key} is required"))
        ok = _is_number(value[key]) if check is None else type(value[key]) is check
        if not ok:
            raise LogRejected(LogError(INVALID_FIELD, line, f"header.{key} must be {what}"))
    for key in ("cwd", "parentSession"):
        if key in value and type(value[key]) is not str:
            raise LogRejected(LogError(INVALID_FIELD, line, f"header.{key} must be a string"))
    return int(version)


def _in_data(problem: Problem, kind: str, line: int, seq: int) -> LogRejected:
    """A problem inside a decoded row (its data, or a rule over rows): never a torn write."""
    return LogRejected(LogError(problem[0], line, f"{kind}: {problem[1]}", seq), decoded=True)


class _Events:
    """The per-log reader state: previous seq, and per event type the checks that apply to it
    (its data validator and the admissions that read that type), looked up once per event."""

    __slots__ = ("admissions", "plans", "prev", "unknown")

    def __init__(self, vocabulary: Vocabulary) -> None:
        admissions = [factory() for factory in vocabulary.admissions]
        self.admissions = tuple(admissions)
        # the admissions for every type first, then those for the event's type (vocabulary order)
        ordered = ([a for a in admissions if a.types is None]
                   + [a for a in admissions if a.types is not None])
        validators = vocabulary.validators
        typed = {kind for a in admissions for kind in a.types or ()}

        def plan(kind: str | None) -> tuple[_Admit, ...]:
            return tuple(p for a in ordered if (p := a.plan(kind)) is not None)

        #: type -> (its validator or None: unknown, each admission's check for that type), one
        #: pass per event; a type outside the table is unknown (kept out: the table stays bounded)
        self.plans: dict[str, tuple[DataValidator | None, tuple[_Admit, ...]]] = {
            kind: (validators.get(kind), plan(kind)) for kind in {*validators, *typed}}
        self.unknown: tuple[DataValidator | None, tuple[_Admit, ...]] = (None, plan(None))
        self.prev: int | None = None

    def header(self, value: Mapping[str, Any], line: int) -> None:
        for admission in self.admissions:
            if problem := admission.header(value, line):
                raise LogRejected(LogError(problem[0], line, f"header: {problem[1]}"))

    def finish(self, line: int) -> None:
        for admission in self.admissions:
            if problem := admission.finish(line):
                raise LogRejected(LogError(problem[0], line, f"end of log: {problem[1]}",
                                           self.prev))

    def check(self, value: Any, line: int) -> tuple[int, str]:
        """Validate one event envelope and its data; returns (seq, type)."""
        if type(value) is not dict:
            raise LogRejected(LogError(INVALID_FIELD, line, "an event must be a JSON object"))
        kind = value.get("type")
        seq: Any = value.get("seq")
        seq_known = seq if (  # a small int without the call
            type(seq) is int and SAFE_NEGATIVE <= seq <= SAFE_INTEGER) or _is_int(seq) else None
        if kind is None:
            raise LogRejected(LogError(MISSING_FIELD, line, "type is required", seq_known))
        if type(kind) is not str:
            raise LogRejected(LogError(INVALID_FIELD, line, "type must be a string", seq_known))
        # CFP-001/002: no stream chunk in the durable log, however it is marked.
        if kind == CHUNK_TYPE:
            raise LogRejected(LogError(
                CHUNK_PERSISTED, line,
                "assistant/chunk is a stream delta; the durable log keeps assembled "
                "assistant/message events only", seq_known))
        if seq_known is None:
            if "seq" not in value:
                raise LogRejected(LogError(MISSING_FIELD, line, "seq is required"))
            raise LogRejected(LogError(INVALID_FIELD, line, "seq must be an integer"))
        if seq < 0:
            raise LogRejected(LogError(INVALID_FIELD, line, "seq must not be negative", seq))
        # CFP-009..012: seq is contiguous from the first event (CFP-D003: any origin).
        prev = self.prev
        if prev is not None and seq != prev + 1:
            if seq == prev:
                code, what = SEQ_DUPLICATE, f"seq {seq} repeats the previous event's seq"
            elif seq < prev:
                code, what = SEQ_DECREASE, f"seq {seq} follows seq {prev}"
            else:
                code, what = SEQ_GAP, f"seq jumps from {prev} to {seq} (missing {prev + 1})"
            raise LogRejected(LogError(code, line, what, seq))
        self.prev = seq
        if "time" not in value:
            raise LogRejected(LogError(MISSING_FIELD, line, "time is required", seq))
        when = value["time"]
        if type(when) is not int and not _is_number(when):  # an int without the call
            raise LogRejected(LogError(INVALID_FIELD, line, "time must be a number", seq))
        if "data" not in value:
            raise LogRejected(LogError(MISSING_FIELD, line, "data is required", seq))
        data = value["data"]
        if type(data) is not dict:
            raise LogRejected(LogError(INVALID_FIELD, line, "data must be an object", seq))
        ignorable = value.get("ignorable", False)
        if type(ignorable) is not bool:
            raise LogRejected(LogError(INVALID_FIELD, line, "ignorable must be a boolean", seq))
        validator, admits = self.plans.get(kind) or self.unknown
        if validator is None:
            # CFP-D004: an unknown type is admitted only when it says it may be ignored.
            if not ignorable:
                raise LogRejected(LogError(
                    UNKNOWN_EVENT_TYPE, line,
                    f"unknown event type {kind!r} is not marked ignorable", seq))
        elif problem := validator(data):
            # An ignorable marker does not exempt a known type from validation.
            raise _in_data(problem, kind, line, seq)
        for admit in admits:
            if problem := admit(value, line):
                raise _in_data(problem, kind, line, seq)
        return seq, kind


def _lines(lines: Iterable[bytes]) -> Iterator[tuple[int, bytes, bool]]:
    """(1-based number, line without its newline, whether it ended with a newline)."""
    for number, raw in enumerate(lines, start=1):
        if raw.endswith(b"\n"):
            yield number, raw[:-1], True
        else:
            yield number, raw, False


def check(
    lines: Iterable[bytes], vocabulary: Vocabulary = VOCABULARY, *, recover: bool = False
) -> LogCheckSummary:
    """Validate a whole log in one pass without building event values (``agent-tck check-log``).

    ``lines`` are raw byte lines as a binary file yields them. Raises :class:`LogRejected` with
    the first problem. With ``recover``, a problem a loader of the source runtime recovers from
    (:func:`reference_impl.session_log.recovery.recover`: what a crash can leave) is a
    recoverable tail: the summary covers the events before it and carries the :class:`Tail`.
    """
    loads = strict_json.loads
    state = _Events(vocabulary)
    checker = state.check
    version: int | None = None
    count = 0
    first: int | None = None
    last: int | None = None
    raw = b"\n"
    number = 0
    closed: int | None = None  # the line of the last turn/end (a tail's warning names it)
    rows = iter(lines)
    try:
        # The hot loop: the newline stays on the line (JSON whitespace), nothing is copied.
        for number, raw in enumerate(rows, start=1):
            try:
                # the bytes as read: the parser decodes UTF-8 once (no str of the line first)
                value = loads(raw)
            except ValueError:
                raise _line_error(raw, number) from None
            if version is None:
                version = _check_header(value, number)
                state.header(value, number)
                continue
            last, kind = checker(value, number)
            if kind == "turn/end":
                closed = number
            if first is None:
                first = last
            count += 1
    except LogRejected as exc:
        if not recover or version is None or exc.error.line <= 1:
            raise  # the header is never a tail
        row = raw if exc.error.line == number else None  # None: the byte stream failed
        tail = recovery.recover(exc, row, rows, state.admissions, closed)
        state.finish(exc.error.line - 1)
        return LogCheckSummary(version, count, first, last, True, tail, tail.last_line)
    if version is None:
        raise LogRejected(LogError(EMPTY_LOG, 1, "the log is empty: no session header"))
    state.finish(count + 1)
    return LogCheckSummary(version, count, first, last, raw.endswith(b"\n"), None, number)


def iter_log(
    lines: Iterable[bytes], vocabulary: Vocabulary = VOCABULARY
) -> Iterator[Header | Event]:
    """Stream a log: the :class:`Header`, then each :class:`Event`, validated as it is read.

    The last item yielded is followed by nothing; an invalid line raises :class:`LogRejected`
    when reached (events before it have already been yielded).
    """
    state = _Events(vocabulary)
    header_seen = False
    last = 1
    for number, raw, _ in _lines(lines):
        text = _decode(raw, number)
        value = _parse(text, number)
        if not header_seen:
            _check_header(value, number)
            state.header(value, number)
            header_seen = True
            yield Header(value, text)
            continue
        seq, kind = state.check(value, number)
        last = number
        yield Event(number, seq, kind, value, text)
    if not header_seen:
        raise LogRejected(LogError(EMPTY_LOG, 1, "the log is empty: no session header"))
    state.finish(last)


def read(lines: Iterable[bytes], vocabulary: Vocabulary = VOCABULARY) -> Log:
    """Read and validate a whole log into a :class:`Log` value."""
    header: Header | None = None
    events: list[Event] = []
    newline = True
    materialized = list(lines) if not isinstance(lines, list) else lines
    if materialized:
        newline = materialized[-1].endswith(b"\n")
    for item in iter_log(materialized, vocabulary):
        if isinstance(item, Header):
            header = item
        else:
            events.append(item)
    assert header is not None  # iter_log raises EMPTY_LOG otherwise
    return Log(header, tuple(events), newline)
