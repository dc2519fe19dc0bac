"""The model surface of a session log: which surface events are current (``surfaceOp``).

Source-runtime facts (zsagi1368/deepseek-harness-zDSH, session-format-v3-to-v4 README "Surface
messages", src/relationships.ts ``foldSurface``): a surface event either appends itself
(``surfaceOp: "append"``) or replaces an inclusive span of the current surface
(``{op: "replace", startSeq, endSeq}``), citing what it shadows in ``sourceEventSeqs`` (members
may be ``[start, end]`` ranges, session-format-v1-to-v2/src/codec.ts). The first surface node,
when it is a system/message, is the protected system head. Pure data, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def replacement_range(event: Mapping[str, Any]) -> tuple[Any, Any] | None:
    """A replace surfaceOp's (startSeq, endSeq), or None for an append or no surfaceOp."""
    op = event.get("surfaceOp")
    if type(op) is not str and isinstance(op, Mapping) and op.get("op") == "replace":
        return op.get("startSeq"), op.get("endSeq")
    return None


def source_seqs(value: Any) -> set[int] | None:
    """sourceEventSeqs as a set; members may be ``[start, end]`` ranges (codec.ts
    decodeSeqRanges). None when the value is not such an array."""
    if not isinstance(value, list | tuple):
        return None
    out: set[int] = set()
    for entry in value:
        if type(entry) is int:
            out.add(entry)
        elif (isinstance(entry, list | tuple) and len(entry) == 2
              and all(type(x) is int for x in entry) and 0 <= entry[1] - entry[0] <= 1_000_000):
            out.update(range(entry[0], entry[1] + 1))
        else:
            return None
    return out


class Surface:
    """The current model surface as a list of event seqs (appends; replacements splice a span).

    Shared by the default checks below and the dsh-v4 profile. Memory: one int per surface event.
    """

    def __init__(self) -> None:
        self.nodes: list[int] = []
        self.protected: int | None = None  # the first surface node, when a system/message

    def append(self, kind: str, seq: int) -> None:
        if kind == "system/message" and not self.nodes:
            self.protected = seq
        self.nodes.append(seq)

    def span(self, start: Any, end: Any) -> tuple[int, int] | None:
        try:
            first, last = self.nodes.index(start), self.nodes.index(end)
        except ValueError:
            return None
        return (first, last) if first <= last else None

    def replace(self, first: int, last: int, kind: str, seq: int) -> None:
        removed = self.nodes[first:last + 1]
        if self.protected in removed:
            self.protected = seq if kind == "system/message" else None
        self.nodes[first:last + 1] = [seq]
