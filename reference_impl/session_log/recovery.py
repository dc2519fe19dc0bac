"""What ``check(recover=True)`` accepts as a torn or corrupt tail (family chunk-free-persistence).

``agent-tck check-log`` reads a damaged log the way the source runtime's loader does and reports
what that loader would drop. A recoverable tail is exactly what a crash can leave, as the runtime's
scanner defines it (zsagi1368/deepseek-harness-zDSH; [J] session-persistence-jsonl/src/format.ts,
[C] session-format-v1-to-v2/src/codec.ts, [4] session-format-v3-to-v4/src/codec.ts):

* an unterminated last line: [J] ``SessionLogScanner.finish`` never reads a final record
  without a newline ("a torn tail");
* a torn zstd frame: [J] ``checkpoint`` ("a recoverable torn-frame prefix");
* a complete row that is not JSON, or whose envelope or seq does not decode: [J]
  ``consumeEventLine`` keeps the first such row as a pending issue and drops it and every later
  row, the v2 framing decoder ([C] ``decodeArtifact``, reused by [4]) counting a seq that is not
  the number of events decoded so far as a gap.

Never a tail, as the runtime refuses them too:

* a row that is itself a ``turn/end`` ([J], [C]: the issue is thrown at once), and any later row
  that is a ``turn/end`` (the tail is then corruption inside the log);
* a row failing row admission (:data:`~format.ROW_ADMISSION`, the admissions' ``admit_row``):
  [J] runs ``assertV4RowAdmission`` on every parsed row before any recovery, the failing row and
  the dropped ones included;
* a field error inside a row's data: the row decodes, the loader keeps it and refuses the log when
  it validates the events ([J] ``finish``: ``restore.finish``, ``assertReleasedV4Relationships``).

Where the note is stricter than the runtime, the note wins: a complete, parseable row whose seq
repeats or goes back (SEQ_DUPLICATE, SEQ_DECREASE) is an event written again, not a torn write.
The runtime drops it with the rest and cuts it before its next append (index.ts and storage.ts
mark a short scan for truncation), but note 001 keeps the stored log seq-contiguous (CFP-011,
CFP-012), so the log is invalid.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from agent_tck.reference_impl import strict_json
from agent_tck.reference_impl.session_log.format import (
    INVALID_FIELD,
    INVALID_UTF8,
    MALFORMED_JSON,
    MISSING_FIELD,
    ROW_ADMISSION,
    SEQ_DECREASE,
    SEQ_DUPLICATE,
    SEQ_GAP,
    TORN_FRAME,
    Admission,
    LogError,
    LogRejected,
    _is_int,
)

#: What a loader's scanner takes for a torn or corrupt complete row: not UTF-8 or not JSON, or an
#: envelope (type, seq, time, data, ignorable) or seq that does not decode ([J], [C]).
ROW_DECODING: Final = frozenset({INVALID_UTF8, MALFORMED_JSON, MISSING_FIELD, INVALID_FIELD,
                                 SEQ_GAP})
#: What an unterminated last line may fail with and still be a torn write: the loader never reads
#: it ([J] ``finish``), so also a field error or a repeated seq. A chunk, an unknown type or a
#: broken rule are not torn writes: they stay errors.
TORN_LINE: Final = ROW_DECODING | {SEQ_DUPLICATE, SEQ_DECREASE}
#: The codes a recoverable tail may start with (the documented list; TORN_FRAME from the shell).
RECOVERABLE_CODES: Final = TORN_LINE | {TORN_FRAME}
TURN_END: Final = "turn/end"
_RUNTIME: Final = "the source runtime's scanner (format.ts SessionLogScanner)"


@dataclass(frozen=True)
class Tail:
    """A torn or corrupt tail a loader of the source runtime drops (``check(recover=True)``).

    ``error`` is the first problem; no line from it to the end (``last_line``) is a ``turn/end``,
    so the runtime keeps the events before ``error.line`` and drops the rest. ``closed_at``: the
    line of the last ``turn/end`` kept (None: no kept line closes a turn). ``unterminated``: the
    problem is on a last line without its newline, which the runtime never reads.
    """

    error: LogError
    last_line: int
    closed_at: int | None = None
    unterminated: bool = False

    def dropped(self) -> int:
        return self.last_line - self.error.line + 1

    def to_json(self) -> dict[str, Any]:
        closed = (f"the last turn kept closes at line {self.closed_at}" if self.closed_at
                  else "no kept line closes a turn")
        why = ("the line has no final newline, and the source runtime's loader never reads an "
               "unterminated last record (a torn write)" if self.unterminated else
               f"no line from line {self.error.line} to the end is a turn/end (a torn or corrupt "
               "tail)")
        return {"code": "RECOVERABLE_TAIL", "line": self.error.line,
                **({"seq": self.error.seq} if self.error.seq is not None else {}),
                "droppedLines": self.dropped(), "cause": self.error.to_json(),
                "message": f"{self.error}; {why}, so a loader of the source runtime drops "
                           f"{self.dropped()} line(s) from line {self.error.line} to the end, "
                           f"cuts them before its next append and keeps the events before them "
                           f"({closed})"}

    def brief(self) -> dict[str, Any]:
        """The tail as ``session.recover`` reports it (codes and numbers, no prose)."""
        return {"line": self.error.line, "cause": self.error.code,
                "droppedLines": self.dropped()}


def recover(rejected: LogRejected, row: bytes | None, rows: Iterator[bytes],
            admissions: Iterable[Admission], closed_at: int | None) -> Tail:
    """The tail that starts at ``rejected`` (raised by the reader on ``row``; None when the byte
    stream itself failed between lines), or ``rejected`` (or a sharper error) raised again."""
    error = rejected.error
    if row is None:  # the stream failed: a torn zstd frame is a tail, a line over the bound not
        if error.code != TORN_FRAME:
            raise rejected
        return Tail(error, scan_tail(error, rows, admissions), closed_at)
    if not row.endswith(b"\n"):  # the last line, unterminated: never read by the loader
        if error.code not in TORN_LINE:
            raise rejected
        return Tail(error, error.line, closed_at, unterminated=True)
    value = _parsed(row)
    admit_row(value, error.line, admissions)  # [J]: row admission precedes recovery
    if rejected.decoded or error.code not in ROW_DECODING:
        raise _not_a_tail(rejected)
    if type(value) is dict and value.get("type") == TURN_END:
        # [J] consumeEventLine, [C] decodeArtifact: a failing turn/end is thrown at once.
        raise LogRejected(LogError(
            error.code, error.line,
            f"{error.message}; this row is itself a turn/end, the turn's close, which "
            f"{_RUNTIME} never drops: it refuses the log", error.seq))
    return Tail(error, scan_tail(error, rows, admissions), closed_at)


def _parsed(raw: bytes) -> Any:
    try:
        return strict_json.loads(raw)
    except ValueError:
        return None  # not JSON, or not UTF-8 (UnicodeDecodeError is a ValueError)


def _not_a_tail(rejected: LogRejected) -> LogRejected:
    """The reader's error, saying why a loader would not take it for a torn write."""
    error = rejected.error
    if error.code in (SEQ_DUPLICATE, SEQ_DECREASE):
        # CFP-011/012 (the note wins where it is stricter than the runtime)
        why = ("a complete row whose seq repeats or goes back is an event written again, not a "
               f"torn write. {_RUNTIME[0].upper()}{_RUNTIME[1:]} would drop it and every later "
               "row and cut them before its next append (index.ts, storage.ts), but note 001 "
               "keeps the stored log seq-contiguous, so the log is invalid")
    elif rejected.decoded:
        why = ("the row decodes, so a loader of the source runtime keeps it and refuses the log "
               "when it validates the events (format.ts SessionLogScanner.finish): a field "
               "error inside the data is not a torn write")
    else:
        return rejected
    return LogRejected(LogError(error.code, error.line, f"{error.message}; {why}", error.seq),
                       decoded=rejected.decoded)


def admit_row(value: Any, line: int, admissions: Iterable[Admission]) -> None:
    """Row admission on one parsed row (the failing one, or one a tail drops): raises."""
    if type(value) is not dict or type(value.get("data")) is not dict:
        return
    kind = value.get("type")
    if type(kind) is not str:
        return
    check = ROW_ADMISSION.get(kind)
    problem = check(value["data"]) if check is not None else None
    for admission in admissions:
        problem = problem or admission.admit_row(value)
    if problem:
        seq = value.get("seq") if _is_int(value.get("seq")) else None
        raise LogRejected(LogError(
            problem[0], line, f"{kind}: {problem[1]} (row admission, which {_RUNTIME} runs on "
            "every parsed row before any recovery)", seq), decoded=True)


def scan_tail(error: LogError, rows: Iterator[bytes], admissions: Iterable[Admission]) -> int:
    """Read past a bad line to the end: a later ``turn/end`` makes it corruption (raised, naming
    both lines); every parsed row passes row admission. Returns the last line's number."""
    line = error.line
    for line, raw in enumerate(rows, start=error.line + 1):  # the last count is returned
        value = _parsed(raw)
        admit_row(value, line, admissions)
        if type(value) is dict and value.get("type") == TURN_END:
            raise LogRejected(LogError(
                error.code, error.line,
                f"{error.message}; a later turn/end (line {line}) follows it, so {_RUNTIME} "
                "refuses the log: corruption inside the log, not a recoverable tail", error.seq))
    return line
