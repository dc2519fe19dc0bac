"""Developer messages: writers and rewriters built on admission (DM-025, DM-026, DM-033, DM-018).

Each one admits its input first (:func:`reference_impl.developer_messages.admission.admit`) and
refuses what a reader would refuse; the records are read and written through
:mod:`reference_impl.developer_messages.records`. Sans-I/O: values in, values out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from agent_tck.reference_impl.developer_messages.admission import (
    Admission,
    DeveloperMessageError,
    _reject,
    admit,
)
from agent_tck.reference_impl.developer_messages.records import (
    DeveloperData,
    Event,
    Json,
    SessionLog,
    _is_count,
    freeze,
    read_log,
    thaw,
    write_log,
)


def roundtrip(lines: Sequence[Json]) -> list[Json]:
    """Read a log and write it back (DM-026): admitted first, then through the typed model."""
    admit(lines)
    return write_log(read_log(lines))


def append(lines: Sequence[Json], event: Mapping[str, Json]) -> dict[str, Json]:
    """Write one event after the log (DM-033): the writer assigns seq and refuses what a reader
    would refuse."""
    frozen = freeze(list(lines))
    admit(frozen)
    seqs = [line["seq"] for line in frozen[1:]]
    written = {**thaw(event), "seq": (max(seqs) + 1) if seqs else 0}
    try:
        admit([*frozen, written])
    except DeveloperMessageError as err:
        pointer = (err.pointer or "").replace(f"/log/{len(frozen)}", "/event", 1)
        raise DeveloperMessageError(err.code, err.message, pointer, err.seq, err.rule) from None
    return {"event": write_log(read_log([frozen[0], written]))[1]}


def fork(lines: Sequence[Json], at: int) -> Admission:
    """Admission of the fork child that inherits the prefix through seq ``at`` (DM-018, DM-021)."""
    frozen = freeze(list(lines))
    admit(frozen)
    seqs = [line["seq"] for line in frozen[1:]]
    if not _is_count(at) or at not in seqs:
        raise _reject("DM_MALFORMED", "DM-021", None, "/at", f"no event with seq {at!r} to fork at")
    child = [frozen[0], *(line for line in frozen[1:] if line["seq"] <= at)]
    return admit(child)


def remap(lines: Sequence[Json], drop: Iterable[int]) -> list[Json]:
    """A cardinality-changing migration (DM-025): drop events, renumber seq contiguously from the
    first event's seq, and remap every headerSeq to its header's new seq."""
    frozen = freeze(list(lines))
    admitted = admit(frozen)
    events = frozen[1:]
    seqs = [line["seq"] for line in events]
    dropped = set()
    for index, seq in enumerate(drop):
        if not _is_count(seq) or seq not in seqs:
            raise _reject("DM_MALFORMED", "DM-025", None, f"/drop/{index}",
                          f"no event with seq {seq!r} to drop")
        dropped.add(seq)
    for record in admitted.developer_messages:
        if record.header_seq in dropped and record.seq not in dropped:
            raise _reject(
                "DM_REFERENCED_HEADER_DROPPED", "DM-025", record.seq, "/drop",
                f"the migration drops request/header seq {record.header_seq}, which this "
                "developer/message references",
            )
    kept = [line for line in events if line["seq"] not in dropped]
    base = min(seqs) if seqs else 0
    renumber = {line["seq"]: base + i for i, line in enumerate(kept)}
    log = read_log([frozen[0], *kept])
    moved = []
    for event in log.events:
        data = event.data
        if isinstance(data, DeveloperData) and data.header_seq is not None:
            data = DeveloperData(data.turn, data.step, data.message,
                                 renumber[data.header_seq], data.extra)
        moved.append(Event(event.type, renumber[event.seq], data, event.extra))
    out = write_log(SessionLog(log.header, tuple(moved)))
    admit(out)  # the migrated log must still admit, to the same definitions
    return out
