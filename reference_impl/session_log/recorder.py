"""The recorder: a replay fixture (model chunk script) in, transient live events and the durable
chunk-free log out. Sans-I/O and deterministic (CFP-030): the same fixture always gives the same
log, byte for byte; the fixture owns the token stream, the log never does (CFP-027, CFP-028).

A replay fixture is a sidecar, apart from the session log (``vectors/schema/replay-fixture.schema
.json``)::

    {"kind": "agent-tck/replay-fixture", "fixtureVersion": 1, "sessionFormatVersion": 4,
     "session": {"id": "s-1", "createdAt": 1700000000000},
     "script": [
       {"event": {"type": "turn/start", "time": 1, "data": {"turn": 1}}},
       {"model": {"turn": 1, "step": 1, "time": 9, "messageId": "a1",
                  "stream": [{"type": "text-delta", "index": 0, "text": "Hel"},
                             {"type": "text-delta", "index": 0, "text": "lo"},
                             {"type": "finish", "reason": {"kind": "stop"}}]}},
       ...]}

``event`` entries are runtime events the recorder persists as they are (it only assigns ``seq``);
``model`` entries are one model stream each, in DSH's chunk vocabulary (``text-delta``,
``reasoning-delta``, ``tool-call-delta``, ``usage``, ``finish`` with reason ``stop`` |
``tool-calls`` | ``max-tokens`` | ``aborted`` | ``error``). Each delta becomes a transient live
event (CFP-008); the stream's end writes at most one assembled durable record, chosen by the
table :data:`RECORD_FOR`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.session_log import format as sl
from agent_tck.reference_impl.session_log import reader as log_reader
from agent_tck.reference_impl.session_log.dsh_v4 import SURFACE_TYPES

FIXTURE_KIND: Final = "agent-tck/replay-fixture"
FIXTURE_VERSION: Final = 1

FIXTURE_INVALID: Final = "FIXTURE_INVALID"
SCRIPT_INVALID: Final = "SCRIPT_INVALID"
UNSUPPORTED_VERSION: Final = sl.UNSUPPORTED_VERSION


def _invalid(message: str, pointer: str, code: str = FIXTURE_INVALID) -> TckError:
    return TckError(code, message, pointer)


# --- assembly of one model stream: a state machine, written as a table -----------------------


@dataclass(frozen=True)
class _Block:
    kind: str  # "text" | "reasoning" | "tool-call"
    text: str = ""
    call_id: str = ""
    name: str | None = None


@dataclass(frozen=True)
class _Stream:
    """The assembly state of one model stream (frozen; every chunk gives a new value)."""

    state: str = "streaming"
    order: tuple[int, ...] = ()  # block indexes in first-seen order
    blocks: Mapping[int, _Block] = MappingProxyType({})
    usage: Mapping[str, Any] | None = None
    reason: Mapping[str, Any] | None = None


def _with_block(stream: _Stream, index: int, block: _Block) -> _Stream:
    blocks = dict(stream.blocks)
    blocks[index] = block
    order = stream.order if index in stream.blocks else (*stream.order, index)
    return _Stream(stream.state, order, MappingProxyType(blocks), stream.usage, stream.reason)


def _delta(kind: str, field: str) -> Callable[[_Stream, Mapping[str, Any], str], _Stream]:
    def apply(stream: _Stream, chunk: Mapping[str, Any], where: str) -> _Stream:
        index: Any = chunk.get("index")  # an int once _is_int holds
        if not sl._is_int(index) or index < 0:
            raise _invalid("a delta needs a non-negative integer index", f"{where}/index",
                           SCRIPT_INVALID)
        text = chunk.get(field)
        if type(text) is not str:
            raise _invalid(f"a {chunk['type']} needs a string {field}", f"{where}/{field}",
                           SCRIPT_INVALID)
        current = stream.blocks.get(index)
        if current is not None and current.kind != kind:
            raise _invalid(f"block {index} is a {current.kind} block, not {kind}", where,
                           SCRIPT_INVALID)
        if kind != "tool-call":
            previous = current.text if current else ""
            return _with_block(stream, index, _Block(kind, previous + text))
        call_id = chunk.get("id")
        if type(call_id) is not str or not call_id:
            raise _invalid("a tool-call-delta needs a non-empty string id", f"{where}/id",
                           SCRIPT_INVALID)
        if current is not None and current.call_id != call_id:
            raise _invalid(f"block {index} belongs to tool call {current.call_id!r}",
                           f"{where}/id", SCRIPT_INVALID)
        name = chunk.get("name")
        if name is not None and type(name) is not str:
            raise _invalid("name must be a string", f"{where}/name", SCRIPT_INVALID)
        known = current.name if current else None
        return _with_block(stream, index, _Block(
            kind, (current.text if current else "") + text, call_id, known or name))

    return apply


def _usage(stream: _Stream, chunk: Mapping[str, Any], where: str) -> _Stream:
    usage = chunk.get("usage")
    if type(usage) is not dict:
        raise _invalid("a usage chunk needs a usage object", f"{where}/usage", SCRIPT_INVALID)
    return _Stream(stream.state, stream.order, stream.blocks, MappingProxyType(dict(usage)),
                   stream.reason)


FINISH_KINDS: Final = ("stop", "tool-calls", "max-tokens", "aborted", "error")


def _finish(stream: _Stream, chunk: Mapping[str, Any], where: str) -> _Stream:
    reason = chunk.get("reason")
    if type(reason) is not dict or reason.get("kind") not in FINISH_KINDS:
        raise _invalid(f"finish.reason.kind must be one of {', '.join(FINISH_KINDS)}",
                       f"{where}/reason", SCRIPT_INVALID)
    if reason["kind"] in ("aborted", "error") and type(reason.get("failure")) is not dict:
        raise _invalid(f"a {reason['kind']} finish needs a failure object",
                       f"{where}/reason/failure", SCRIPT_INVALID)
    return _Stream("finished", stream.order, stream.blocks, stream.usage,
                   MappingProxyType(dict(reason)))


#: (state, chunk type) -> transition. A pair not in the table is a script error naming both.
TRANSITIONS: Final[Mapping[tuple[str, str], Callable[[_Stream, Mapping[str, Any], str],
                                                     _Stream]]] = MappingProxyType({
    ("streaming", "text-delta"): _delta("text", "text"),
    ("streaming", "reasoning-delta"): _delta("reasoning", "text"),
    ("streaming", "tool-call-delta"): _delta("tool-call", "argumentsDelta"),
    ("streaming", "usage"): _usage,
    ("streaming", "finish"): _finish,
})

#: (finish kind, stream produced content) -> the durable record the step writes.
#: "message": one assembled assistant/message (CFP-003); "interrupted": the same, marked
#: interrupted (CFP-018, CFP-D007); "attempt": a v4 assistant/attempt ``{turn, step, stream}``
#: whose compact stream holds the partial output and the failure (CFP-017, CFP-D007); None:
#: nothing (CFP-020).
RECORD_FOR: Final[Mapping[tuple[str, bool], str | None]] = MappingProxyType({
    ("stop", True): "message",
    ("stop", False): "message",
    ("tool-calls", True): "message",
    ("tool-calls", False): "message",
    ("max-tokens", True): "message",
    ("max-tokens", False): None,  # CFP-020: an empty max-token step may write no message
    ("aborted", True): "interrupted",
    ("aborted", False): None,  # nothing streamed, nothing to recover
    ("error", True): "attempt",
    ("error", False): "attempt",  # the failed attempt is still recorded, without content
})


def _content(stream: _Stream) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for index in stream.order:
        block = stream.blocks[index]
        if block.kind == "tool-call":
            out.append({"type": "tool-call", "id": block.call_id, "name": block.name or "",
                        "arguments": block.text})
        else:
            out.append({"type": block.kind, "text": block.text})
    return out


# --- the recorder -----------------------------------------------------------------------------


@dataclass(frozen=True)
class LiveEvent:
    """A transient stream event for a UI (CFP-008): never written to the durable log."""

    turn: int
    step: int
    chunk: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"type": "assistant/delta", "turn": self.turn, "step": self.step,
                "chunk": dict(self.chunk)}


@dataclass(frozen=True)
class Recording:
    log: sl.Log
    live: tuple[LiveEvent, ...]


@dataclass(frozen=True)
class Fixture:
    session: Mapping[str, Any]
    first_seq: int
    script: tuple[Mapping[str, Any], ...]


def parse_fixture(raw: Any) -> Fixture:
    """Check a replay fixture's shape and versions (CFP-016: fixtures are refreshed with the
    format; a fixture recorded for another session format version is rejected)."""
    if type(raw) is not dict:
        raise _invalid("a replay fixture must be an object", "")
    if raw.get("kind") != FIXTURE_KIND:
        raise _invalid(f"kind must be {FIXTURE_KIND!r} (is this a session log?)", "/kind")
    for key, expected in (("fixtureVersion", FIXTURE_VERSION),
                          ("sessionFormatVersion", sl.FORMAT_VERSION)):
        if key not in raw:
            raise _invalid(f"{key} is required", "")
        if not sl._is_int(raw[key]):
            raise _invalid(f"{key} must be an integer", f"/{key}")
        if raw[key] != expected:
            raise _invalid(f"{key} {raw[key]} found, {expected} expected: re-record the fixture",
                           f"/{key}", UNSUPPORTED_VERSION)
    session = raw.get("session")
    if type(session) is not dict:
        raise _invalid("session must be an object of header fields", "/session")
    for key in ("type", "version"):
        if key in session:
            raise _invalid(f"session.{key} is set by the recorder", f"/session/{key}")
    header = {"type": sl.HEADER_TYPE, "version": sl.FORMAT_VERSION, **session}
    try:
        log_reader._check_header(header, 1)
    except sl.LogRejected as exc:
        raise _invalid(f"session: {exc.error.message}", "/session") from None
    first_seq = raw.get("firstSeq", 0)  # v4: seq is the row index, from 0 (validation.ts)
    if not sl._is_int(first_seq) or first_seq < 0:
        raise _invalid("firstSeq must be a non-negative integer", "/firstSeq")
    script = raw.get("script")
    if type(script) is not list:
        raise _invalid("script must be an array", "/script")
    for key in raw:
        if key not in ("kind", "fixtureVersion", "sessionFormatVersion", "session", "firstSeq",
                       "script", "description"):
            raise _invalid(f"unexpected member {key!r}", f"/{key}")
    return Fixture(MappingProxyType(dict(session)), first_seq, tuple(script))


def _passthrough(entry: Any, where: str, vocabulary: sl.Vocabulary) -> Mapping[str, Any]:
    if type(entry) is not dict or set(entry) - {"type", "time", "data", "ignorable",
                                                "sourceEventSeqs", "surfaceOp"}:
        raise _invalid("an event entry has type, time, data and optionally ignorable, "
                       "sourceEventSeqs and surfaceOp", where)
    kind = entry.get("type")
    if type(kind) is not str:
        raise _invalid("type must be a string", f"{where}/type")
    if kind == sl.CHUNK_TYPE:  # CFP-001: chunks belong to a model stream, never to the log
        raise _invalid("assistant/chunk is never persisted; put deltas in a model stream",
                       f"{where}/type", SCRIPT_INVALID)
    if not sl._is_number(entry.get("time")):
        raise _invalid("time must be a number", f"{where}/time")
    data = entry.get("data")
    if type(data) is not dict:
        raise _invalid("data must be an object", f"{where}/data")
    validator = vocabulary.validators.get(kind)
    if validator is None and entry.get("ignorable") is not True:
        raise _invalid(f"unknown event type {kind!r} must be marked ignorable", f"{where}/type")
    if validator is not None and (problem := validator(data)):
        raise _invalid(f"{kind}: {problem[1]}", f"{where}/data")
    return entry


def _model(entry: Any, where: str) -> tuple[Mapping[str, Any], _Stream, list[LiveEvent]]:
    allowed = {"turn", "step", "time", "messageId", "source", "stream"}
    if type(entry) is not dict or set(entry) - allowed:
        raise _invalid(f"a model entry has only {', '.join(sorted(allowed))}", where)
    for key in ("turn", "step"):
        if not sl._is_int(entry.get(key)):
            raise _invalid(f"{key} must be an integer", f"{where}/{key}")
    if not sl._is_number(entry.get("time")):
        raise _invalid("time must be a number (the assembled record's time)", f"{where}/time")
    if "messageId" in entry and type(entry["messageId"]) is not str:
        raise _invalid("messageId must be a string", f"{where}/messageId")
    if "source" in entry and type(entry["source"]) is not dict:
        raise _invalid("source must be an object", f"{where}/source")
    chunks = entry.get("stream")
    if type(chunks) is not list:
        raise _invalid("stream must be an array of chunks", f"{where}/stream")
    stream = _Stream()
    live: list[LiveEvent] = []
    for index, chunk in enumerate(chunks):
        at = f"{where}/stream/{index}"
        if type(chunk) is not dict or type(chunk.get("type")) is not str:
            raise _invalid("a chunk must be an object with a string type", at, SCRIPT_INVALID)
        transition = TRANSITIONS.get((stream.state, chunk["type"]))
        if transition is None:
            raise _invalid(f"no transition for chunk {chunk['type']!r} in state "
                           f"{stream.state!r}", at, SCRIPT_INVALID)
        stream = transition(stream, chunk, at)
        if chunk["type"].endswith("-delta"):
            live.append(LiveEvent(entry["turn"], entry["step"], MappingProxyType(dict(chunk))))
    if stream.state != "finished":
        raise _invalid("a model stream must end with a finish chunk", f"{where}/stream",
                       SCRIPT_INVALID)
    return entry, stream, live


_DELTA_FOR: Final = MappingProxyType({"text": "text-delta", "reasoning": "reasoning-delta",
                                       "tool-call": "tool-call-delta"})


def _compact_stream(content: list[dict[str, Any]], stream: _Stream) -> list[dict[str, Any]]:
    """A failed step's compact stream record, the only place a v4 ``assistant/attempt`` keeps
    its partial output and failure (CFP-017, CFP-D007; the source runtime's attempt is
    ``{turn, step, stream}``). Per block in first-seen order: ``block-start``, its joined delta,
    ``block-end`` with the block as assembled when the stream failed; then usage, then the
    finish chunk carrying the failure. Built from the assembled state, so the record does not
    depend on how the model split its deltas (CFP-030)."""
    assert stream.reason is not None
    out: list[dict[str, Any]] = []
    for index, block in zip(stream.order, content, strict=True):  # _content keeps the order
        kind = block["type"]
        delta: dict[str, Any] = {"type": _DELTA_FOR[kind], "index": index}
        if kind == "tool-call":
            delta |= {"id": block["id"], "name": block["name"], "argumentsDelta":
                      block["arguments"]}
        else:
            delta["text"] = block["text"]
        out += [{"type": "chunk", "chunk": {"type": "block-start", "index": index,
                                            "blockType": kind}},
                {"type": "chunk", "chunk": delta},
                {"type": "chunk", "chunk": {"type": "block-end", "index": index,
                                            "block": block}}]
    if stream.usage is not None:
        out.append({"type": "chunk", "chunk": {"type": "usage", "usage": dict(stream.usage)}})
    out.append({"type": "chunk", "chunk": {"type": "finish", "reason": dict(stream.reason)}})
    return out


def _record(entry: Mapping[str, Any], stream: _Stream) -> tuple[str, dict[str, Any]] | None:
    assert stream.reason is not None
    content = _content(stream)
    kind = RECORD_FOR[(stream.reason["kind"], bool(content))]
    if kind is None:
        return None
    data: dict[str, Any] = {"turn": entry["turn"], "step": entry["step"]}
    if kind == "attempt":  # v4: {turn, step, stream}, no message and no failure member
        data["stream"] = _compact_stream(content, stream)
        return "assistant/attempt", data
    message: dict[str, Any] = {}
    if "messageId" in entry:
        message["id"] = entry["messageId"]
    message["role"] = "assistant"
    message["content"] = content
    if "source" in entry:
        message["source"] = dict(entry["source"])
    data["message"] = message
    if stream.usage is not None:  # CFP-007: usage, when retained, rides on the record
        data["usage"] = dict(stream.usage)
    if kind == "interrupted":
        data["interrupted"] = True
    return "assistant/message", data


def record(raw_fixture: Any, vocabulary: sl.Vocabulary = sl.VOCABULARY) -> Recording:
    """Run a replay fixture through the recorder."""
    fixture = parse_fixture(raw_fixture)
    # The canonical v4 shape (dsh_v4.HEADER_REQUIRED): a fixture's session fields win.
    head = {"type": sl.HEADER_TYPE, "version": sl.FORMAT_VERSION, "isSeeded": False,
            "delegationDepth": 0, **fixture.session}
    builder = sl.LogBuilder(head, (), fixture.first_seq)
    live: list[LiveEvent] = []
    for index, item in enumerate(fixture.script):
        where = f"/script/{index}"
        if type(item) is not dict or len(item) != 1 or next(iter(item)) not in ("event", "model"):
            raise _invalid('a script entry is {"event": {...}} or {"model": {...}}', where)
        if "event" in item:
            event = _passthrough(item["event"], f"{where}/event", vocabulary)
            extra: dict[str, Any] = {"ignorable": True} if event.get("ignorable") is True else {}
            for key in ("sourceEventSeqs", "surfaceOp"):
                if key in event:
                    extra[key] = event[key]
            if event["type"] in SURFACE_TYPES:  # v4: a surface event says where it goes
                extra.setdefault("surfaceOp", "append")
            builder = builder.append(event["type"], event["time"], event["data"], **extra)
            continue
        entry, stream, deltas = _model(item["model"], f"{where}/model")
        live.extend(deltas)
        if (written := _record(entry, stream)) is not None:
            extra = {"surfaceOp": "append"} if written[0] in SURFACE_TYPES else {}
            builder = builder.append(written[0], entry["time"], written[1], **extra)
    return Recording(builder.build(), tuple(live))


def record_text(raw_fixture: Any) -> str:
    """The durable log the fixture records, as the writer writes it."""
    return sl.write(record(raw_fixture).log)


def live_view(live: Sequence[LiveEvent]) -> list[dict[str, Any]]:
    """The live stream as a UI shows it: per step and block, the deltas' text joined."""
    out: list[dict[str, Any]] = []
    where: dict[tuple[int, int, int], dict[str, Any]] = {}
    kinds = {"text-delta": "text", "reasoning-delta": "reasoning", "tool-call-delta": "tool-call"}
    for event in live:
        chunk = event.chunk
        key = (event.turn, event.step, chunk["index"])
        text = chunk.get("argumentsDelta") if chunk["type"] == "tool-call-delta" else (
            chunk["text"])
        if key not in where:
            where[key] = {"turn": event.turn, "step": event.step, "index": chunk["index"],
                          "type": kinds[chunk["type"]], "text": ""}
            out.append(where[key])
        where[key]["text"] += text
    return out
