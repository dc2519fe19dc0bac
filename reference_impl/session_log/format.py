# Size: the event vocabulary (a table of ~170 lines of per-event validators) and the one-pass
# reader and checker that apply it; split next into vocabulary.py and reader.py.
"""The chunk-free session log (family ``chunk-free-persistence``, spec 001): format, reader, writer.

A log is JSON Lines: line 1 is the session header, every further line one event::

    {"type":"session","version":4,"id":"s-1","createdAt":1700000000000,"cwd":"/w"}
    {"type":"turn/start","seq":1,"time":1700000000001,"data":{"turn":1}}
    {"type":"assistant/message","seq":3,"time":...,"data":{"turn":1,"step":1,"message":{...}}}

Header and envelope follow the source runtime (DSH): header ``{type:'session', version, id,
createdAt, cwd?, parentSession?, ...}``, envelope ``{type, seq, time, data, ignorable?}``. The
format version is 4, DSH's current writer (CFP-D001).

The reader is sans-I/O and streams: it consumes an iterable of raw byte lines (the caller opens
the file) and keeps O(1) state (the previous ``seq`` and the admission hooks' own state), so memory
stays flat however long the log. Each line costs one strict JSON parse (``strict_json.loads``:
NaN, Infinity, duplicate keys, lone surrogates, over-deep nesting and out-of-range numbers are
MALFORMED_JSON, never a traceback) plus a few dictionary lookups:
there is no JSON Schema validation per line (the schemas in ``vectors/schema/session-log-*.json``
document the same shapes for other languages).

Validation is a table (:data:`VOCABULARY`): event type -> data validator. Another family adds an
event type, or stateful admission for one (developer/message's ``headerSeq`` binding), without
touching this file: see :class:`Vocabulary` and :data:`AdmissionFactory`.

Every rejection is a :class:`LogError` value with a stable ``code``, the 1-based ``line`` and the
event's ``seq`` when it has one.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType
from typing import Any, Final

from agent_tck.reference_impl import strict_json
from agent_tck.reference_impl.session_log.retired_syntax import RETIRED_SYNTAX, retired_syntax

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

#: Codes a loader of the source runtime recovers from when nothing after the bad line closes a
#: turn (a torn or corrupt tail: ``session-persistence-jsonl/src/format.ts`` drops the suffix,
#: ``session-format-v1-to-v2/src/codec.ts`` refuses it when a later row is ``turn/end``).
RECOVERABLE_CODES: Final = frozenset({
    INVALID_UTF8, MALFORMED_JSON, MISSING_FIELD, INVALID_FIELD, SEQ_GAP, SEQ_DUPLICATE,
    SEQ_DECREASE, TORN_FRAME,
})


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
    """Raised by the streaming reader; carries the :class:`LogError` value."""

    def __init__(self, error: LogError) -> None:
        super().__init__(str(error))
        self.error = error


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


def _is_int(value: Any) -> bool:
    # bool is not an int here; 2.0 is (JSON does not tell 2 from 2.0, and neither do we), but
    # 1e300 and -0.0 are not integers a log counts with.
    if type(value) is int:
        return -SAFE_INTEGER <= value <= SAFE_INTEGER
    return (type(value) is float and value.is_integer() and abs(value) <= SAFE_INTEGER
            and math.copysign(1.0, value) > 0)


def _is_number(value: Any) -> bool:
    return type(value) is int or (type(value) is float and math.isfinite(value))


def _need_ints(data: Mapping[str, Any], *keys: str) -> Problem | None:
    for key in keys:
        if key not in data:
            return (MISSING_FIELD, f"data.{key} is required")
        value = data[key]
        # the common case (a small int) without the call
        small = type(value) is int and -SAFE_INTEGER <= value <= SAFE_INTEGER
        if not (small or _is_int(value)):
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


def _step(data: Mapping[str, Any]) -> Problem | None:
    return _need_ints(data, "turn", "step")


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
    problem = _need_ints(data, "turn", "step") or _message_field(data, "assistant")
    if problem:
        return problem
    if "interrupted" in data and type(data["interrupted"]) is not bool:
        return (INVALID_FIELD, "data.interrupted must be a boolean")
    return _usage(data)


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
    if problem := _need_ints(data, "turn", "step"):
        return problem
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
    return version


class _Events:
    """The per-log reader state: previous seq, validators and admission instances."""

    __slots__ = ("admissions", "every", "prev", "typed", "validators")

    def __init__(self, vocabulary: Vocabulary) -> None:
        self.validators = vocabulary.validators
        admissions = [factory() for factory in vocabulary.admissions]
        self.admissions = tuple(admissions)
        self.every = tuple(a for a in admissions if a.types is None)
        typed: dict[str, list[Admission]] = {}
        for admission in admissions:
            for kind in admission.types or ():
                typed.setdefault(kind, []).append(admission)
        self.typed = {kind: tuple(found) for kind, found in typed.items()}
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
        seq = value.get("seq")
        seq_known = seq if (  # a small int without the call
            type(seq) is int and -SAFE_INTEGER <= seq <= SAFE_INTEGER) or _is_int(seq) else None
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
        if not _is_number(value["time"]):
            raise LogRejected(LogError(INVALID_FIELD, line, "time must be a number", seq))
        if "data" not in value:
            raise LogRejected(LogError(MISSING_FIELD, line, "data is required", seq))
        data = value["data"]
        if type(data) is not dict:
            raise LogRejected(LogError(INVALID_FIELD, line, "data must be an object", seq))
        ignorable = value.get("ignorable", False)
        if type(ignorable) is not bool:
            raise LogRejected(LogError(INVALID_FIELD, line, "ignorable must be a boolean", seq))
        validator = self.validators.get(kind)
        if validator is None:
            # CFP-D004: an unknown type is admitted only when it says it may be ignored.
            if not ignorable:
                raise LogRejected(LogError(
                    UNKNOWN_EVENT_TYPE, line,
                    f"unknown event type {kind!r} is not marked ignorable", seq))
        elif problem := validator(data):
            # An ignorable marker does not exempt a known type from validation.
            raise LogRejected(LogError(problem[0], line, f"{kind}: {problem[1]}", seq))
        for admission in self.every:
            if problem := admission.admit(value, line):
                raise LogRejected(LogError(problem[0], line, f"{kind}: {problem[1]}", seq))
        for admission in self.typed.get(kind, ()):
            if problem := admission.admit(value, line):
                raise LogRejected(LogError(problem[0], line, f"{kind}: {problem[1]}", seq))
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
    the first problem. With ``recover``, a problem of :data:`RECOVERABLE_CODES` that no later
    ``turn/end`` follows is a recoverable tail: the summary covers the events before it and
    carries the :class:`Tail` (what a loader of the source runtime drops).
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
    rows = iter(lines)
    try:
        # The hot loop: the newline stays on the line (JSON whitespace), nothing is copied.
        for number, raw in enumerate(rows, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise _utf8_error(exc, number) from None
            try:
                value = loads(text)
            except ValueError as exc:
                raise _json_error(exc, text, number) from None
            if version is None:
                version = _check_header(value, number)
                state.header(value, number)
                continue
            last, _ = checker(value, number)
            if first is None:
                first = last
            count += 1
    except LogRejected as exc:
        if not (recover and version is not None and exc.error.code in RECOVERABLE_CODES):
            raise
        end = _scan_tail(exc.error, rows, exc.error.line)
        state.finish(exc.error.line - 1)
        return LogCheckSummary(version, count, first, last, True, Tail(exc.error, end), end)
    if version is None:
        raise LogRejected(LogError(EMPTY_LOG, 1, "the log is empty: no session header"))
    state.finish(count + 1)
    return LogCheckSummary(version, count, first, last, raw.endswith(b"\n"), None, number)


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


@dataclass(frozen=True)
class Log:
    """A whole log read into memory (for load, resume and round trips; not for check-log)."""

    header: Header
    events: tuple[Event, ...]
    final_newline: bool = True


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
