"""The chunk-free session log (family ``chunk-free-persistence``, spec 001): format and writer.

A log is JSON Lines: line 1 is the session header, every further line one event::

    {"type":"session","version":4,"id":"s-1","createdAt":1700000000000,"cwd":"/w"}
    {"type":"turn/start","seq":1,"time":1700000000001,"data":{"turn":1}}
    {"type":"assistant/message","seq":3,"time":...,"data":{"turn":1,"step":1,"message":{...}}}

Header and envelope follow the source runtime (DSH): header ``{type:'session', version, id,
createdAt, cwd?, parentSession?, ...}``, envelope ``{type, seq, time, data, ignorable?}``. The
format version is 4, DSH's current writer (CFP-D001).

The reader (:mod:`reference_impl.session_log.reader`) is sans-I/O and streams: it consumes an
iterable of raw byte lines (the caller opens the file) and keeps O(1) state (the previous ``seq``
and the admission hooks' own state), so memory stays flat however long the log. Each line costs
one strict JSON parse (``strict_json.loads``: NaN, Infinity, duplicate keys, lone surrogates,
over-deep nesting and out-of-range numbers are MALFORMED_JSON, never a traceback) plus a few
dictionary lookups: there is no JSON Schema validation per line (the schemas in
``vectors/schema/session-log-*.json`` document the same shapes for other languages).

Validation is a table (:data:`VOCABULARY`): event type -> data validator. Another family adds an
event type, or stateful admission for one (developer/message's ``headerSeq`` binding), without
touching this file: see :class:`Vocabulary` and :data:`AdmissionFactory`.

Every rejection is a :class:`LogError` value with a stable ``code``, the 1-based ``line`` and the
event's ``seq`` when it has one.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType
from typing import Any, Final

from agent_tck.reference_impl.session_log.retired_syntax import RETIRED_SYNTAX

# --- the format -------------------------------------------------------------------------------

#: The current session format version (CFP-013: "The session format version ... refreshed";
#: CFP-D001: the source runtime's V4 writer constant). Every other version is rejected.
FORMAT_VERSION: Final = 4
HEADER_TYPE: Final = "session"
#: The stream-delta event the note removes from the durable log (CFP-001, CFP-002).
CHUNK_TYPE: Final = "assistant/chunk"

# Stable error codes (documented in vectors/chunk-free-persistence/README.md).
EMPTY_LOG: Final = "EMPTY_LOG"
MISSING_HEADER: Final = "MISSING_HEADER"
UNSUPPORTED_VERSION: Final = "UNSUPPORTED_VERSION"
INVALID_UTF8: Final = "INVALID_UTF8"
MALFORMED_JSON: Final = "MALFORMED_JSON"
MISSING_FIELD: Final = "MISSING_FIELD"
INVALID_FIELD: Final = "INVALID_FIELD"
CHUNK_PERSISTED: Final = "CHUNK_PERSISTED"
SEQ_GAP: Final = "SEQ_GAP"
SEQ_DUPLICATE: Final = "SEQ_DUPLICATE"
SEQ_DECREASE: Final = "SEQ_DECREASE"
UNKNOWN_EVENT_TYPE: Final = "UNKNOWN_EVENT_TYPE"
#: A line longer than the reader's bound (an endless stream such as /dev/zero ends here).
LINE_TOO_LONG: Final = "LINE_TOO_LONG"
#: The note-governed log checks (CFP-031..CFP-034) and the dsh-v4 profile's (DSH_*).
STEP_MESSAGE_REPEATED: Final = "STEP_MESSAGE_REPEATED"
#: A zstd-framed log whose last frame is torn (the shell reports it; recoverable like a torn line).
TORN_FRAME: Final = "TORN_FRAME"

ERROR_CODES: Final = (
    EMPTY_LOG, MISSING_HEADER, UNSUPPORTED_VERSION, INVALID_UTF8, MALFORMED_JSON, MISSING_FIELD,
    INVALID_FIELD, CHUNK_PERSISTED, SEQ_GAP, SEQ_DUPLICATE, SEQ_DECREASE, UNKNOWN_EVENT_TYPE,
    LINE_TOO_LONG, STEP_MESSAGE_REPEATED, RETIRED_SYNTAX, TORN_FRAME,
)


@dataclass(frozen=True)
class LogError:
    """One rejection: what (``code``), where (``line``, 1-based; ``seq`` when known), and why."""

    code: str
    line: int
    message: str
    seq: int | None = None

    def where(self) -> str:
        return f"line {self.line}" + (f" (seq {self.seq})" if self.seq is not None else "")

    def __str__(self) -> str:
        return f"{self.code} at {self.where()}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "line": self.line, "message": self.message}
        if self.seq is not None:
            out["seq"] = self.seq
        return out


class LogRejected(Exception):
    """Raised by the streaming reader; carries the :class:`LogError` value.

    ``decoded``: the line parsed and its envelope and seq decoded, so the problem lies in the
    event's data or in a rule over several rows; a loader never takes such a row for a torn
    write (:mod:`reference_impl.session_log.recovery`).
    """

    def __init__(self, error: LogError, *, decoded: bool = False) -> None:
        super().__init__(str(error))
        self.error = error
        self.decoded = decoded


# A validator inspects an event's ``data`` (already known to be an object) and returns
# ``None`` or ``(code, message)``. It must not mutate ``data``.
Problem = tuple[str, str]
DataValidator = Callable[[Mapping[str, Any]], Problem | None]


class Admission:
    """Stateful, per-log admission of events (one instance per log being read).

    Subclass and override :meth:`admit` for rules that need earlier events (e.g. a reference to
    an earlier ``request/header``). Keep only what the rule needs, so memory stays flat.

    ``types``: when set (a class or instance attribute), :meth:`admit` is called only for events
    of those types, which keeps the reader fast on long logs; ``None`` means every event.
    """

    types: frozenset[str] | None = None

    def admit(self, event: Mapping[str, Any], line: int) -> Problem | None:  # pragma: no cover
        return None

    def header(self, value: Mapping[str, Any], line: int) -> Problem | None:
        """Called once with the accepted session header (before any event)."""
        return None

    def finish(self, line: int) -> Problem | None:
        """Called once after the last event (``line`` is the last line's number)."""
        return None

    def plan(self, kind: str | None) -> Callable[[Mapping[str, Any], int], Problem | None] | None:
        """The check this admission makes on an event of type ``kind`` (``None``: a type outside
        the vocabulary), or None when it makes none: the reader asks once per type and calls
        the answer for each event of that type. The default is :meth:`admit` for the types it
        reads (:attr:`types`); an admission may answer with a function made for the type, which
        must do exactly what :meth:`admit` does on an event of that type."""
        if self.types is None or (kind is not None and kind in self.types):
            return self.admit
        return None

    def admit_row(self, event: Mapping[str, Any]) -> Problem | None:
        """Row admission of a parsed row that a recoverable tail may drop (the failing row and
        every later one): only what needs no earlier event, since this state never sees them.
        ``event`` is an object whose ``data`` is an object; nothing else is known of it."""
        return None


AdmissionFactory = Callable[[], Admission]


@dataclass(frozen=True)
class Vocabulary:
    """The event types a reader knows: type -> data validator, plus stateful admissions.

    Frozen; :meth:`extended` returns a new vocabulary, so a family can add its types without
    touching the default one.
    """

    validators: Mapping[str, DataValidator]
    admissions: tuple[AdmissionFactory, ...] = ()

    def extended(
        self,
        validators: Mapping[str, DataValidator] | None = None,
        admissions: Sequence[AdmissionFactory] = (),
    ) -> Vocabulary:
        merged = dict(self.validators)
        merged.update(validators or {})
        return Vocabulary(MappingProxyType(merged), self.admissions + tuple(admissions))


# --- cheap field checks (one isinstance per field: the reader's hot path) ---------------------


#: Largest integer a JSON reader in every language holds exactly (2**53 - 1): seq, turn and
#: step numbers beyond it (1e300) are not counts.
SAFE_INTEGER: Final = 2**53 - 1
#: its negative, a constant (``-SAFE_INTEGER`` in a check builds a new int object per call)
SAFE_NEGATIVE: Final = -SAFE_INTEGER


def _is_int(value: Any) -> bool:
    # bool is not an int here; 2.0 is (JSON does not tell 2 from 2.0, and neither do we), but
    # 1e300 and -0.0 are not integers a log counts with.
    if type(value) is int:
        return SAFE_NEGATIVE <= value <= SAFE_INTEGER
    return (type(value) is float and value.is_integer() and abs(value) <= SAFE_INTEGER
            and math.copysign(1.0, value) > 0)


def _is_number(value: Any) -> bool:
    return type(value) is int or (type(value) is float and math.isfinite(value))


def _need_ints(data: Mapping[str, Any], *keys: str) -> Problem | None:
    for key in keys:
        value = data.get(key)
        if type(value) is int and SAFE_NEGATIVE <= value <= SAFE_INTEGER:
            continue  # the common case (a small int, so present) in one lookup
        if key not in data:
            return (MISSING_FIELD, f"data.{key} is required")
        if not _is_int(value):
            return (INVALID_FIELD, f"data.{key} must be an integer")
    return None


def _check_blocks(content: Any, where: str) -> Problem | None:
    if type(content) is not list:
        return (INVALID_FIELD, f"{where}.content must be an array of blocks")
    for index, block in enumerate(content):
        if type(block) is not dict:
            return (INVALID_FIELD, f"{where}.content[{index}] must be an object")
        kind = block.get("type")
        if type(kind) is not str or not kind:
            return (INVALID_FIELD, f"{where}.content[{index}].type must be a non-empty string")
    return None


def _check_message(message: Any, role: str, where: str) -> Problem | None:
    if type(message) is not dict:
        return (INVALID_FIELD, f"{where} must be an object")
    if "role" not in message:
        return (MISSING_FIELD, f"{where}.role is required")
    if message["role"] != role:
        return (INVALID_FIELD, f"{where}.role must be {role!r}, not {message['role']!r}")
    if "content" not in message:
        return (MISSING_FIELD, f"{where}.content is required")
    return _check_blocks(message["content"], where)


def _message_field(data: Mapping[str, Any], role: str) -> Problem | None:
    if "message" not in data:
        return (MISSING_FIELD, "data.message is required")
    return _check_message(data["message"], role, "data.message")


# --- the event types of the format (CFP-003..CFP-007 name what the durable log keeps) ---------


def _turn_start(data: Mapping[str, Any]) -> Problem | None:
    return _need_ints(data, "turn")


def _turn_end(data: Mapping[str, Any]) -> Problem | None:
    if problem := _need_ints(data, "turn"):
        return problem
    if "reason" not in data:
        return (MISSING_FIELD, "data.reason is required")
    reason = data["reason"]
    if type(reason) is not dict or type(reason.get("kind")) is not str:
        return (INVALID_FIELD, "data.reason must be an object with a string kind")
    return None


def _small_ints(data: Mapping[str, Any]) -> bool:
    """``data.turn`` and ``data.step`` are both small ints (so present): the common case, which
    :func:`_need_ints` then need not look at."""
    turn, step = data.get("turn"), data.get("step")
    return (type(turn) is int and type(step) is int and SAFE_NEGATIVE <= turn <= SAFE_INTEGER
            and SAFE_NEGATIVE <= step <= SAFE_INTEGER)


def _step(data: Mapping[str, Any]) -> Problem | None:
    return None if _small_ints(data) else _need_ints(data, "turn", "step")


def _request_header(data: Mapping[str, Any]) -> Problem | None:
    if "header" not in data:
        return (MISSING_FIELD, "data.header is required")
    header = data["header"]
    if type(header) is not dict:
        return (INVALID_FIELD, "data.header must be an object")
    tools = header.get("tools")
    if tools is not None:
        if type(tools) is not list:
            return (INVALID_FIELD, "data.header.tools must be an array")
        for index, tool in enumerate(tools):
            if type(tool) is not dict or type(tool.get("name")) is not str:
                return (INVALID_FIELD, f"data.header.tools[{index}] needs a string name")
    return None


def _user_message(data: Mapping[str, Any]) -> Problem | None:
    # DSH stores the UserMessage itself as the event's data.
    return _check_message(data, "user", "data")


def _system_message(data: Mapping[str, Any]) -> Problem | None:
    return _need_ints(data, "turn", "step") or _message_field(data, "system")


def _usage(data: Mapping[str, Any]) -> Problem | None:
    usage = data.get("usage")
    if usage is not None and type(usage) is not dict:
        return (INVALID_FIELD, "data.usage must be an object")
    return None


def _assistant_message(data: Mapping[str, Any]) -> Problem | None:
    problem = (None if _small_ints(data) else _need_ints(data, "turn", "step")) or (
        _message_field(data, "assistant"))
    if problem:
        return problem
    if "interrupted" in data and type(data["interrupted"]) is not bool:
        return (INVALID_FIELD, "data.interrupted must be a boolean")
    return _usage(data) if "usage" in data else None


def _assistant_attempt(data: Mapping[str, Any]) -> Problem | None:
    if problem := _need_ints(data, "turn", "step"):
        return problem
    if "message" in data and (problem := _check_message(data["message"], "assistant",
                                                         "data.message")):
        return problem
    return _usage(data)


def _tool_call(data: Mapping[str, Any]) -> Problem | None:
    if problem := _need_ints(data, "turn", "step"):
        return problem
    for key in ("callId", "name", "arguments"):
        if key not in data:
            return (MISSING_FIELD, f"data.{key} is required")
        if type(data[key]) is not str:
            return (INVALID_FIELD, f"data.{key} must be a string")
    return None


def _tool_result(data: Mapping[str, Any]) -> Problem | None:
    return _need_ints(data, "turn", "step") or _tool_message(data)


def _tool_message(data: Mapping[str, Any]) -> Problem | None:
    """A tool/result's tool-role message (also row admission: :data:`ROW_ADMISSION`)."""
    if problem := _message_field(data, "tool"):
        return problem
    message = data["message"]
    if "toolCallId" not in message:
        return (MISSING_FIELD, "data.message.toolCallId is required")
    if type(message["toolCallId"]) is not str:
        return (INVALID_FIELD, "data.message.toolCallId must be a string")
    if "isError" in message and type(message["isError"]) is not bool:
        return (INVALID_FIELD, "data.message.isError must be a boolean")
    return None


def _developer_message(data: Mapping[str, Any]) -> Problem | None:
    # Shape only. Admission (headerSeq binding, tool-change blocks) belongs to the
    # developer-messages family, which extends this vocabulary.
    return _need_ints(data, "turn", "step") or _message_field(data, "developer")


#: The default vocabulary: the durable event types of the chunk-free format.
VOCABULARY: Final = Vocabulary(MappingProxyType({
    "turn/start": _turn_start,
    "turn/end": _turn_end,
    "step/start": _step,
    "step/end": _step,
    "request/header": _request_header,
    "system/message": _system_message,
    "user/message": _user_message,
    "assistant/message": _assistant_message,
    "assistant/attempt": _assistant_attempt,
    "tool/call": _tool_call,
    "tool/result": _tool_result,
    "developer/message": _developer_message,
}))


#: Row admission: the data checks that run on every parsed row, also on the rows a recoverable
#: tail drops and on the failing row itself, because the source runtime's scanner runs them before
#: any recovery (session-persistence-jsonl/src/format.ts ``SessionLogScanner.consumeEventLine``
#: calls ``assertV4RowAdmission``, session-format-v3-to-v4/src/codec.ts: tool-role results,
#: tool-role.ts ``assertV4ToolResultMessage``; system-message fields, system-message.ts; developer
#: data, developer.ts; retired syntax and message sources are the admissions' ``admit_row``).
#: The other types' data is validated only on the rows a loader keeps (reader.check).
ROW_ADMISSION: Final = MappingProxyType({
    "tool/result": _tool_message,
    "system/message": _system_message,
    "developer/message": _developer_message,
})


@cache
def default_vocabulary() -> Vocabulary:
    """:data:`VOCABULARY` plus the extensions of ``reference_impl.session_log.ext_*`` modules.

    An extension module defines ``VALIDATORS`` (type -> validator) and/or ``ADMISSIONS`` (a
    sequence of :data:`AdmissionFactory`). This is how another family's admission rules reach
    ``agent-tck check-log`` without an edit here.
    """
    import importlib
    import pkgutil

    package = importlib.import_module(__package__)  # the package this module is part of
    vocabulary = VOCABULARY
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if info.name.startswith("ext_"):
            module = importlib.import_module(f"{__package__}.{info.name}")
            vocabulary = vocabulary.extended(getattr(module, "VALIDATORS", None),
                                             getattr(module, "ADMISSIONS", ()))
    return vocabulary


# --- values the reader yields -----------------------------------------------------------------


@dataclass(frozen=True)
class Header:
    value: Mapping[str, Any]  # the parsed header object, every member kept
    raw: str  # the line as read (without its newline)


@dataclass(frozen=True)
class Event:
    line: int
    seq: int
    type: str
    value: Mapping[str, Any]  # the parsed envelope, every member kept (unknown ones too)
    raw: str | None = None  # the line as read; None for an event built in memory


@dataclass(frozen=True)
class Log:
    """A whole log read into memory (for load, resume and round trips; not for check-log)."""

    header: Header
    events: tuple[Event, ...]
    final_newline: bool = True


def split_lines(data: bytes) -> list[bytes]:
    """Bytes of a whole log -> lines as a binary file yields them (each keeps its ``\\n``).

    A line ends at ``\\n`` only (``bytes.splitlines`` would also split at ``\\r``).
    """
    parts = data.split(b"\n")
    out = [part + b"\n" for part in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


# --- the writer -------------------------------------------------------------------------------


def encode(value: Mapping[str, Any]) -> str:
    """The writer's line encoding: compact JSON, members in their given order, UTF-8 unescaped.

    Deterministic (CFP-030): the same value always gives the same bytes.
    """
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def write_lines(log: Log) -> Iterator[str]:
    """The log's lines, each with its newline (the last one only if the log had it).

    Lines read from a file are written back exactly as read (CFP-D005: unknown members, their
    order and their spelling survive a read/write round trip); values built in memory are
    encoded with :func:`encode`.
    """
    rows: list[str] = [log.header.raw]
    rows.extend(e.raw if e.raw is not None else encode(e.value) for e in log.events)
    for index, row in enumerate(rows):
        last = index == len(rows) - 1
        yield row + ("\n" if (not last or log.final_newline) else "")


def write(log: Log) -> str:
    return "".join(write_lines(log))


@dataclass(frozen=True)
class LogBuilder:
    """Builds a log in memory, assigning contiguous ``seq`` values (CFP-009). Immutable."""

    header: Mapping[str, Any]
    events: tuple[Mapping[str, Any], ...] = field(default=())
    next_seq: int = 1

    def append(
        self, kind: str, time: float, data: Mapping[str, Any], **extra: Any
    ) -> LogBuilder:
        event = {"type": kind, "seq": self.next_seq, "time": time, "data": data, **extra}
        return LogBuilder(self.header, (*self.events, event), self.next_seq + 1)

    def build(self) -> Log:
        header = dict(self.header)
        return Log(
            Header(header, encode(header)),
            tuple(Event(i + 2, e["seq"], e["type"], e) for i, e in enumerate(self.events)),
        )
