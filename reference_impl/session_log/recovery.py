"""What ``check(recover=True)`` accepts as a torn or corrupt tail (family chunk-free-persistence).

``agent-tck check-log`` reads a damaged log the way the source runtime's loader does: the events
before a problem a loader recovers from are kept, the rest is reported as a tail it drops.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from agent_tck.reference_impl import strict_json
from agent_tck.reference_impl.session_log.format import (
    INVALID_FIELD,
    INVALID_UTF8,
    MALFORMED_JSON,
    MISSING_FIELD,
    SEQ_DECREASE,
    SEQ_DUPLICATE,
    SEQ_GAP,
    TORN_FRAME,
    LogError,
    LogRejected,
    _is_int,
)
from agent_tck.reference_impl.session_log.retired_syntax import retired_syntax

#: Codes a loader of the source runtime recovers from when nothing after the bad line closes a
#: turn (a torn or corrupt tail: ``session-persistence-jsonl/src/format.ts`` drops the suffix,
#: ``session-format-v1-to-v2/src/codec.ts`` refuses it when a later row is ``turn/end``).
RECOVERABLE_CODES: Final = frozenset({
    INVALID_UTF8, MALFORMED_JSON, MISSING_FIELD, INVALID_FIELD, SEQ_GAP, SEQ_DUPLICATE,
    SEQ_DECREASE, TORN_FRAME,
})



@dataclass(frozen=True)
class Tail:
    """A torn or corrupt tail a loader of the source runtime drops (``check(recover=True)``).

    ``error`` is the first problem; no later line closes a turn, so the runtime keeps the events
    before ``error.line`` and drops lines ``error.line``..``last_line`` (format.ts
    ``SessionLogScanner``: a committed row that cannot be decoded ends the accepted prefix unless
    a later ``turn/end`` makes it corruption).
    """

    error: LogError
    last_line: int

    def to_json(self) -> dict[str, Any]:
        dropped = self.last_line - self.error.line + 1
        return {"code": "RECOVERABLE_TAIL", "line": self.error.line,
                **({"seq": self.error.seq} if self.error.seq is not None else {}),
                "droppedLines": dropped, "cause": self.error.to_json(),
                "message": f"{self.error}; no later line closes a turn, so a loader keeps the "
                           f"events before line {self.error.line} and drops {dropped} line(s) "
                           f"from there to the end (a torn or corrupt tail)"}


def _scan_tail(error: LogError, rows: Iterator[bytes], bad_line: int) -> int:
    """Read past a bad line: a later ``turn/end`` makes it corruption (raised, naming both
    lines); retired v4 syntax stays a hard refusal there too (retired-syntax.ts). Returns the
    last line's number."""
    line = bad_line
    for line, raw in enumerate(rows, start=bad_line + 1):  # the last count is returned
        try:
            value = strict_json.loads(raw)
        except ValueError:
            continue
        if type(value) is not dict or type(value.get("data")) is not dict:
            continue
        kind = value.get("type")
        seq = value.get("seq") if _is_int(value.get("seq")) else None
        if kind == "turn/end":
            raise LogRejected(LogError(
                error.code, error.line,
                f"{error.message}; a later turn/end (line {line}) follows it, so this is "
                "corruption inside the log, not a recoverable tail", error.seq))
        if type(kind) is str and (problem := retired_syntax(kind, value["data"])):
            raise LogRejected(LogError(problem[0], line, f"{kind}: {problem[1]}", seq))
    return line
