"""Developer-message admission inside the session log reader (``agent-tck check-log``).

:func:`reference_impl.session_log.format.default_vocabulary` loads every ``ext_*`` module:

* ``VALIDATORS`` adds the shapes of the message-carrying event types the developer-messages note
  names beside the durable ones (inbox splices, title requests, compaction summaries), so the
  reader knows them and the developer role can be confined there (DM-041, DM-042, DM-043);
* ``ADMISSIONS`` adds the stateful developer admission of
  :mod:`reference_impl.developer_messages.admission` (headerSeq binding, role confinement,
  open step).

Each problem comes back as ``(code, message)``; the code is the family's (``DM_...``), the
message names the seq and the rule.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from agent_tck.reference_impl.developer_messages import admission as dm
from agent_tck.reference_impl.developer_messages.records import (
    _OBJECTS,
    DEVELOPER_EVENT,
    HEADER_EVENT,
)
from agent_tck.reference_impl.session_log.format import (
    INVALID_FIELD,
    MISSING_FIELD,
    Admission,
    Problem,
)


def _array_field(name: str, *, required: bool) -> Any:
    def validator(data: Mapping[str, Any]) -> Problem | None:
        if name not in data:
            return (MISSING_FIELD, f"data.{name} is required") if required else None
        if type(data[name]) is not list:
            return (INVALID_FIELD, f"data.{name} must be an array")
        return None

    return validator


VALIDATORS = {
    "agent/inbox/spliced": _array_field("inserted", required=True),
    "session/title-llm-request": _array_field("messages", required=True),
    "compaction/summary": _array_field("summary", required=False),
}


class DeveloperAdmission(Admission):
    """One log's developer admission; state stays small (see ``developer_messages._SeqIndex``)."""

    def __init__(self) -> None:
        self.reader = dm.new_reader(keep_records=False)
        self.event = self.reader.event

    def admit(self, event: Mapping[str, Any], line: int) -> Problem | None:
        try:
            # the reader's envelope check already passed (an object, a string type, an integer
            # seq >= 0). No pointer is built per event: a finding here is reported with its
            # line and seq (the reader's), never with the admission's JSON pointer.
            self.event(event, event["seq"], event["type"], "")
        except dm.DeveloperMessageError as err:
            return (err.code, err.message)
        return None

    def plan(self, kind: str | None) -> Callable[[Mapping[str, Any], int], Problem | None]:
        """The admission for one type: the reader's function for that type (:meth:`admit` for a
        type outside the reader's vocabulary)."""
        if kind is None:
            return self.admit
        step = _step(self.reader, kind)

        def admit(event: Mapping[str, Any], line: int) -> Problem | None:
            try:
                step(event, event["seq"], "")  # as admit(): no pointer built per event
            except dm.DeveloperMessageError as err:
                return (err.code, err.message)
            return None

        return admit


Step = Callable[[Mapping[str, Any], int, str], None]


def _step(reader: Any, etype: str) -> Step:
    """What ``reader.event`` does for an event of type ``etype``, as one function made for the
    type (asked once per type): the common types skip its dispatch; the rare ones
    (developer/message, request/header, compaction/summary, a type outside the vocabulary...)
    go through it."""
    if (etype in (DEVELOPER_EVENT, HEADER_EVENT) or etype not in reader.index.known
            or etype in dm.CONTENT_SLOTS):
        return functools.partial(_event_of, reader, etype)
    if etype in dm.MESSAGE_SLOTS:
        return _message_step(reader, etype)
    if etype in dm._SLOTTED or etype in dm.SURFACE_EVENTS:
        return functools.partial(_event_of, reader, etype)
    add_run = reader.index.add_run
    if etype in dm._BOUNDARIES:
        boundaries = reader.boundaries

        def boundary(line: Mapping[str, Any], seq: int, at: str) -> None:
            boundaries(line)
            add_run(seq)

        return boundary

    def known(line: Mapping[str, Any], seq: int, at: str) -> None:
        add_run(seq)  # a known type no rule reads: its seq only

    return known


def _event_of(reader: Any, etype: str, line: Mapping[str, Any], seq: int, at: str) -> None:
    reader.event(line, seq, etype, at)


def _message_step(reader: Any, etype: str) -> Step:
    """``reader.event`` for a type with a message slot (and no content slot): its slot's
    messages (DM-037..043), its stream (DM-043), its surface place, its seq."""
    slot = dm.MESSAGE_SLOTS[etype][0]
    stream = etype in dm.STREAM_EVENTS
    surface = etype in dm.SURFACE_EVENTS
    slot_message = reader.slot_message
    add_run = reader.index.add_run

    def message_step(line: Mapping[str, Any], seq: int, at: str) -> None:
        data = line.get("data")
        if type(data) is dict or isinstance(data, _OBJECTS):
            for where, message in slot(data):
                slot_message(message, etype, where, seq, at)
            if stream and "stream" in data:  # most messages embed none
                reader.no_tool_changes_in_stream(data["stream"], seq, at)
        if surface:
            reader.place(line, seq, etype, at)
        add_run(seq)

    return message_step


ADMISSIONS = (DeveloperAdmission,)
