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

from collections.abc import Callable, Mapping
from typing import Any

from agent_tck.reference_impl.developer_messages import admission as dm
from agent_tck.reference_impl.developer_messages.records import (
    _OBJECTS,
    DEVELOPER_EVENT,
    HEADER_EVENT,
    no_tool_change,
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
        """The admission for one type, as one function made for the type (asked once per type):
        the common types skip ``reader.event``'s dispatch; the rare ones (developer/message,
        request/header, compaction/summary, a type outside the reader's vocabulary...) go
        through it (:meth:`admit`). No pointer is built per event, as in :meth:`admit`."""
        reader = self.reader
        if (kind is None or kind in (DEVELOPER_EVENT, HEADER_EVENT)
                or kind not in reader.index.known or kind in dm.CONTENT_SLOTS
                or (kind not in dm.MESSAGE_SLOTS
                    and (kind in dm._SLOTTED or kind in dm.SURFACE_EVENTS))):
            return self.admit
        if kind in dm.MESSAGE_SLOTS:
            return _message_admission(reader, kind)
        add_run = reader.index.add_run
        if kind in dm._BOUNDARIES:  # step/start, step/end, turn/end: they refuse nothing
            boundaries = reader.boundaries

            def boundary(event: Mapping[str, Any], line: int) -> Problem | None:
                boundaries(event)
                add_run(event["seq"])
                return None

            return boundary

        def known(event: Mapping[str, Any], line: int) -> Problem | None:
            add_run(event["seq"])  # a known type no rule reads: its seq only
            return None

        return known


def _message_admission(reader: Any, kind: str) -> Callable[[Mapping[str, Any], int],
                                                           Problem | None]:
    """``reader.event`` for a type with a message slot (and no content slot): its slot's
    messages (DM-037..043), its stream (DM-043), its surface place, its seq."""
    slot = dm.MESSAGE_SLOTS[kind][0]
    stream = kind in dm.STREAM_EVENTS
    surface = kind in dm.SURFACE_EVENTS
    slot_message = reader.slot_message
    add_run = reader.index.add_run

    def message(event: Mapping[str, Any], line: int) -> Problem | None:
        seq = event["seq"]
        data = event.get("data")
        try:
            if type(data) is dict or isinstance(data, _OBJECTS):
                for where, item in slot(data):
                    # what slot_message finds nothing in (the common case), without the call
                    if type(item) is not dict or item.get("role") == "developer" \
                            or not no_tool_change(item.get("content")):
                        slot_message(item, kind, where, seq, "")
                if stream and "stream" in data:  # most messages embed none
                    reader.no_tool_changes_in_stream(data["stream"], seq, "")
            if surface:
                if type(event.get("surfaceOp")) is str:  # "append": as place() does it
                    reader.surface.append(kind, seq)
                else:
                    reader.place(event, seq, kind, "")
        except dm.DeveloperMessageError as err:
            return (err.code, err.message)
        add_run(seq)
        return None

    return message


ADMISSIONS = (DeveloperAdmission,)
