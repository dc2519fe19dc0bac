"""Developer messages: the typed record model of a log, with its reading and writing (DM-026).

:func:`read_log` reads admitted log lines (call
:func:`reference_impl.developer_messages.admission.admit` first) into frozen values: a
``developer/message`` is typed (:class:`DeveloperData`), every other event rides along as frozen
raw JSON, and :func:`write_log` writes back every field read, interpreted or not. Also the frozen
JSON helpers admission shares. Sans-I/O: values in, values out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, TypeGuard

# ---------------------------------------------------------------------------------------------
# Frozen JSON: values read from a log never change under the reader's feet (STYLE 9).

Json = Any  # None | bool | int | float | str | tuple[Json, ...] | Mapping[str, Json]


def freeze(value: Json) -> Json:
    """A deep, read-only copy of a JSON value (objects become mapping proxies, arrays tuples)."""
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Json) -> Json:
    """Plain ``dict`` / ``list`` JSON from a frozen value (a fresh copy every call)."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [thaw(v) for v in value]
    return value


# Plain isinstance checks against concrete types: the session log reader calls this module once
# per event (``agent-tck check-log``), so the hot path avoids ABC checks.
_OBJECTS: Final = (dict, MappingProxyType)
_ARRAYS: Final = (list, tuple)


def _is_count(value: Json) -> bool:
    # bool is not a count; 3.0 is 3 (JSON does not tell them apart, nor does the log reader)
    if type(value) is float:
        return value.is_integer() and value >= 0
    return type(value) is int and value >= 0


def _is_object(value: Json) -> TypeGuard[Mapping[str, Json]]:
    return isinstance(value, _OBJECTS)


def _is_array(value: Json) -> TypeGuard[Sequence[Json]]:
    return isinstance(value, _ARRAYS)


# ---------------------------------------------------------------------------------------------
# The typed model of what this family interprets; everything else rides along untouched.

ADDITION: Final = "tool-addition"
REMOVAL: Final = "tool-removal"
#: a tuple, not a set: a block's "type" may be any JSON value, an object included, and a
#: membership test on it must answer, not raise (unhashable)
TOOL_CHANGES: Final = (ADDITION, REMOVAL)
HEADER_EVENT: Final = "request/header"
DEVELOPER_EVENT: Final = "developer/message"


@dataclass(frozen=True)
class ToolChange:
    """One tool-addition or tool-removal block; ``extra`` keeps every other field of the block."""

    type: str
    tool_name: str
    extra: Mapping[str, Json] = field(default_factory=lambda: MappingProxyType({}))

    def to_json(self) -> dict[str, Json]:
        return {**thaw(self.extra), "type": self.type, "toolName": self.tool_name}


@dataclass(frozen=True)
class OtherBlock:
    """A developer content block this family does not interpret (future developer content)."""

    raw: Json

    def to_json(self) -> Json:
        return thaw(self.raw)


@dataclass(frozen=True)
class DeveloperMessage:
    role: str
    content: tuple[ToolChange | OtherBlock, ...]
    extra: Mapping[str, Json]

    def to_json(self) -> dict[str, Json]:
        return {
            **thaw(self.extra),
            "role": self.role,
            "content": [block.to_json() for block in self.content],
        }


@dataclass(frozen=True)
class DeveloperData:
    turn: int
    step: int
    message: DeveloperMessage
    header_seq: int | None  # None: the field is absent
    extra: Mapping[str, Json]

    def to_json(self) -> dict[str, Json]:
        out: dict[str, Json] = {
            **thaw(self.extra),
            "turn": self.turn,
            "step": self.step,
            "message": self.message.to_json(),
        }
        if self.header_seq is not None:
            out["headerSeq"] = self.header_seq
        return out


@dataclass(frozen=True)
class Event:
    """One envelope. ``data`` is typed for developer/message, frozen raw JSON otherwise."""

    type: str
    seq: int
    data: DeveloperData | Json
    extra: Mapping[str, Json]  # time, ignorable, sourceEventSeqs, surfaceOp, unknown fields

    def to_json(self) -> dict[str, Json]:
        data = self.data.to_json() if isinstance(self.data, DeveloperData) else thaw(self.data)
        return {**thaw(self.extra), "type": self.type, "seq": self.seq, "data": data}


@dataclass(frozen=True)
class SessionLog:
    header: Mapping[str, Json]
    events: tuple[Event, ...]

    def to_json(self) -> list[Json]:
        return [thaw(self.header), *(event.to_json() for event in self.events)]


def no_tool_change(content: Json) -> bool:
    """DM-043 for sure: an array of objects whose types are no tool change (the common case, in a
    tight loop). False: maybe; admission's exact walk decides (its refusals and pointers)."""
    if type(content) is not list:
        return False
    for block in content:
        if type(block) is not dict or block.get("type") in TOOL_CHANGES:
            return False
    return True


def _without(obj: Mapping[str, Json], *keys: str) -> Mapping[str, Json]:
    return MappingProxyType({k: v for k, v in obj.items() if k not in keys})


def _read_developer_data(data: Mapping[str, Json]) -> DeveloperData:
    message = data["message"]
    blocks: list[ToolChange | OtherBlock] = []
    for block in message["content"]:
        if _is_object(block) and block.get("type") in TOOL_CHANGES:
            blocks.append(
                ToolChange(block["type"], block["toolName"], _without(block, "type", "toolName"))
            )
        else:
            blocks.append(OtherBlock(block))
    return DeveloperData(
        turn=data["turn"],
        step=data["step"],
        message=DeveloperMessage(
            message["role"], tuple(blocks), _without(message, "role", "content")
        ),
        header_seq=data.get("headerSeq"),
        extra=_without(data, "turn", "step", "message", "headerSeq"),
    )


def read_log(lines: Sequence[Json]) -> SessionLog:
    """Read admitted log lines into the typed model (call :func:`admit` first)."""
    frozen = freeze(list(lines))
    events = []
    for line in frozen[1:]:
        data = line.get("data")
        if line["type"] == DEVELOPER_EVENT:
            data = _read_developer_data(data)
        events.append(Event(line["type"], line["seq"], data, _without(line, "type", "seq", "data")))
    return SessionLog(frozen[0], tuple(events))


def write_log(log: SessionLog) -> list[Json]:
    """The JSON lines of a log: every field read, interpreted or not, is written back."""
    return log.to_json()
