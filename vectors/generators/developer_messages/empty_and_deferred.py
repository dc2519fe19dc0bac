"""empty-and-deferred.json: empty developer content, surface replacements and deferred
loading in the log (DM-044, DM-047..DM-051)."""

from __future__ import annotations

from typing import Any

from .build import (
    ADMIT,
    DEFERRED_SEARCH,
    READ,
    SEARCH_V1,
    Log,
    VectorFile,
    add,
    addition,
    admitted,
    out,
    record,
)


def build() -> VectorFile:
    f = VectorFile("empty-and-deferred", "Empty developer content, surface replacements and "
                   "deferred loading in the log (DM-044, DM-047..051).")
    _replacements(f)
    _empty_and_predeclared(f)
    return f


def _system(log: Log) -> int:
    """Append the protected system head (a system/message) and return its seq."""
    return log.event("system/message", {"turn": 1, "step": 1, "message": {
        "id": f"s-{log.seq + 1}", "role": "system", "source": {"kind": "system-prompt"},
        "content": [{"type": "text", "text": "You are helpful."}]}}, surfaceOp="append")


def _replace(start: int, end: int) -> dict[str, Any]:
    return {"surfaceOp": {"op": "replace", "startSeq": start, "endSeq": end}}


def _replacements(f: VectorFile) -> None:
    """A developer replacement cites what it shadows and never shadows the system head."""
    log = Log().open()
    _system(log)
    u1 = log.user("first")
    u2 = log.user("second")
    d = log.dev(envelope={**_replace(u1, u2), "sourceEventSeqs": [u1, u2]})
    f.case("dm-replacement-cites-shadowed-nodes", ["DM-050", "DM-051"],
           "An empty developer message replaces two user messages (not the system head) and "
           "cites both in sourceEventSeqs: admitted.",
           {"log": log.json()}, {ADMIT: out(admitted(record(d)))})

    log = Log().open()
    _system(log)
    u1 = log.user("first")
    log.user("second")
    u3 = log.user("third")
    d = log.dev(envelope={**_replace(u1, u3), "sourceEventSeqs": [[u1, u3]]})
    f.case("dm-replacement-cites-a-seq-range", ["DM-050"],
           "A developer replacement shadows three user messages and cites them as one "
           "[start, end] range in sourceEventSeqs (members may be ranges, the source runtime's "
           "decodeSeqRanges): admitted.",
           {"log": log.json()}, {ADMIT: out(admitted(record(d)))})

    log = Log().open()
    _system(log)
    u1 = log.user("first")
    u2 = log.user("second")
    log.dev(envelope={**_replace(u1, u2), "sourceEventSeqs": [u1]})
    f.admit_error("dm-replacement-omits-a-shadowed-node", ["DM-050"],
                  "A developer replacement shadows two user messages but cites only the first.",
                  log, "DM_REPLACEMENT_UNCITED")

    log = Log().open()
    s0 = _system(log)
    log.user("first")
    log.dev(envelope={**_replace(s0, s0), "sourceEventSeqs": [s0]})
    f.admit_error("dm-empty-content-over-protected-head", ["DM-051"],
                  "Empty developer content replaces the protected system head (citing it).",
                  log, "DM_PROTECTED_HEAD_SHADOWED")


def _empty_and_predeclared(f: VectorFile) -> None:
    """Empty developer content keeps its place; a predeclared deferred tool needs no record."""
    log = Log().open()
    h = log.header(SEARCH_V1)
    d1 = log.dev()
    d2 = log.dev(add("search"), header_seq=h)
    d3 = log.dev()
    f.case("dm-empty-content-keeps-position", ["DM-044"],
           "Empty developer messages are admitted without a header reference and keep their "
           "places in conversation order around a non-empty one.",
           {"log": log.json()},
           {ADMIT: out(admitted(record(d1), record(d2, addition("search", SEARCH_V1), header_seq=h),
                                record(d3), active={"search": (h, SEARCH_V1)}))})

    log = Log().open()
    log.header(DEFERRED_SEARCH, READ)
    log.user()
    log.assistant()
    f.case("dm-predeclared-deferred-needs-no-record", ["DM-048", "DM-049"],
           "A request header declares a deferred tool that is never added; the log is admitted "
           "with no developer record.",
           {"log": log.json()}, {ADMIT: out(admitted())})
