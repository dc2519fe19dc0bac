"""Message parts and reconciliation (spec 002_37b03d34ed5e6e9a.txt, family ``message-parts``).

A sans-I/O reconciler: runtime events in (plain JSON, vectors/message-parts/README.md), typed
and ordered message parts out. No file, socket, clock or randomness; every state is a frozen
value and :func:`feed` returns a new one, so the same events always give the same parts
(MP-089: "reconciliation 必须确定且可测试").

The note's tables are data in :mod:`reference_impl.message_parts.tables` (``KINDS``, the 11
standard parts; ``EVENT_FIELDS`` / ``KIND_FIELDS``, what a well-formed event carries, else
MALFORMED_EVENT; ``TURN_TABLE`` and ``PART_TABLE``, every transition ``(event type, state) ->
(action, next state)``). A pair that is not in a table is a bad event sequence: the error
names the event index, the event, the subject and its state (like h11's ``_state.py``).
Read this module top to bottom: the state values, validation, then the actions the tables
name, each next to the rule it enforces.

The views a client renders from the final state (parts, answer, projections, branches) are in
:mod:`reference_impl.message_parts.views`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.message_parts.tables import (
    EVENT_FIELDS,
    KIND_FIELDS,
    KINDS,
    NEEDS_ACTIVE_TURN,
    PART_TABLE,
    REASONING_KINDS,
    STREAM_EVENTS,
    TURN_TABLE,
    FieldSpec,
    PartState,
    Transition,
    TurnState,
)

# ---------------------------------------------------------------------------------------------
# State values.


@dataclass(frozen=True)
class Part:
    id: str
    kind: str
    turn: str
    state: PartState
    surface: str
    attrs: Mapping[str, Any]  # the kind's part.start fields (author, name, call, ...)
    deltas: tuple[str, ...] = ()  # applied delta texts; a delta's seq is its index here
    text: str = ""  # what is rendered now: the streamed text, or the final's
    final: str = "none"  # "none" | "final_only" | "matched" | "replaced" (MP-D002)
    summary: str | None = None  # the latest stable summary the runtime supplied (MP-039)
    is_error: bool = False
    exported: bool = False
    attempt: int = 1

    @property
    def streamed(self) -> str:
        return "".join(self.deltas)


@dataclass(frozen=True)
class Turn:
    id: str
    state: TurnState
    user: Mapping[str, str]
    context: tuple[str, ...]
    mode: str | None
    artifacts: tuple[str, ...]  # in scope at the user message (MP-093)
    branch_of: str | None = None
    parts: tuple[str, ...] = ()  # part ids in start order (MP-030)
    links: tuple[str, ...] = ()  # artifact ids linked from the answer (MP-062)
    citations: tuple[str, ...] = ()  # evidence ids cited by the answer (MP-063)


@dataclass(frozen=True)
class State:
    turns: tuple[Turn, ...] = ()
    parts: Mapping[str, Part] = field(default_factory=lambda: MappingProxyType({}))
    active: str | None = None  # id of the running turn

    def turn(self, turn_id: str) -> Turn | None:
        for t in self.turns:
            if t.id == turn_id:
                return t
        return None

    def with_turn(self, turn: Turn) -> State:
        turns = tuple(turn if t.id == turn.id else t for t in self.turns)
        if all(t.id != turn.id for t in self.turns):
            turns = (*turns, turn)
        return replace(self, turns=turns)

    def with_parts(self, *parts: Part) -> State:
        merged = dict(self.parts)
        for p in parts:
            merged[p.id] = p
        return replace(self, parts=MappingProxyType(merged))


# ---------------------------------------------------------------------------------------------
# Errors that name the event index (MP-D013..MP-D017).


def _fail(code: str, index: int, event: Any, what: str) -> TckError:
    etype = event.get("type") if isinstance(event, dict) else None
    subject = ""
    if isinstance(event, dict):
        for key in ("id", "turn", "artifact", "evidence"):
            if isinstance(event.get(key), str):
                subject = f" for {key} {event[key]!r}"
                break
    head = f"event {index}" + (f" ({etype}{subject})" if etype else "")
    return TckError(code, f"{head}: {what}", f"/events/{index}")


def _validate(index: int, event: Any) -> None:
    if not isinstance(event, dict):
        raise _fail("MALFORMED_EVENT", index, event, "an event must be a JSON object")
    etype = event.get("type")
    spec = EVENT_FIELDS.get(etype) if isinstance(etype, str) else None
    if spec is None:
        known = ", ".join(EVENT_FIELDS)
        raise _fail("MALFORMED_EVENT", index, event,
                    f"unknown event type {etype!r}; expected one of {known}")
    _check_fields(index, event, spec)
    if etype == "part.start":
        kind_spec = KIND_FIELDS.get(event["kind"])
        if kind_spec is None:
            raise _fail("UNKNOWN_PART_KIND", index, event,
                        f"{event['kind']!r} is not one of the 11 standard parts: "
                        + ", ".join(KINDS))
        _check_fields(index, event, kind_spec)


def _check_fields(index: int, event: dict[str, Any], spec: Mapping[str, FieldSpec]) -> None:
    for name, fs in spec.items():
        if name not in event:
            if fs.required:
                raise _fail("MALFORMED_EVENT", index, event,
                            f"missing field {name!r} ({fs.expects})")
            continue
        if not fs.check(event[name]):
            raise _fail("MALFORMED_EVENT", index, event,
                        f"field {name!r} must be {fs.expects}, got {event[name]!r}")


# ---------------------------------------------------------------------------------------------
# 4. The reconciler.


def reconcile(events: Any) -> State:
    """Feed every event in order and return the final state (raises TckError on a bad one)."""
    if not isinstance(events, list):
        raise TckError("MALFORMED_INPUT", "input.events must be a list of events", "/events")
    state = State()
    for index, event in enumerate(events):
        state = feed(state, index, event)
    return state


def feed(state: State, index: int, event: Any) -> State:
    """One event: validate it, look its transition up, run the action. Never mutates."""
    _validate(index, event)
    etype: str = event["type"]
    if etype == "runtime.log":
        # MP-D019: provider debug logs, tracing, queue events and tool logs are not message
        # parts and never reach the answer ("SHOULD NOT 包含原始工具日志、队列事件...").
        return state
    if etype in NEEDS_ACTIVE_TURN and state.active is None:
        raise _fail("NO_ACTIVE_TURN", index, event,
                    f"{etype} needs a running turn; start one with turn.start or turn.branch")
    if etype.startswith("turn."):
        turn = state.turn(event["turn"])
        tstate = turn.state if turn is not None else TurnState.ABSENT
        tr = TURN_TABLE.get((etype, tstate))
        if tr is None:
            raise _fail("INVALID_TRANSITION", index, event,
                        f"turn {event['turn']!r} is {tstate}: no transition for {etype}")
        return _run(tr, state, index, event)
    if etype.startswith("answer."):
        return _ANSWER_ACTIONS[etype](state, index, event)
    part = state.parts.get(event["id"])
    pstate = part.state if part is not None else PartState.ABSENT
    tr = PART_TABLE.get((etype, pstate))
    if tr is None:
        raise _fail("INVALID_TRANSITION", index, event,
                    f"part {event['id']!r} is {pstate}: no transition for {etype}")
    if part is not None and etype in STREAM_EVENTS and not KINDS[part.kind].streamable:
        raise _fail("INVALID_TRANSITION", index, event,
                    f"a {part.kind} part does not stream; {etype} applies to "
                    + ", ".join(k for k, s in KINDS.items() if s.streamable))
    return _run(tr, state, index, event)


def _run(tr: Transition, state: State, index: int, event: dict[str, Any]) -> State:
    if tr.action.startswith("reject:"):
        code = tr.action.split(":", 1)[1]
        what = {
            "UNKNOWN_PART": "no part with this id was started (part.start must come first)",
            "UNKNOWN_TURN": "no turn with this id was started",
        }.get(code, "rejected")
        raise _fail(code, index, event, what)
    return _ACTIONS[tr.action](state, index, event, tr)


# --- turn actions ---------------------------------------------------------------------------


def _start_turn(state: State, index: int, event: dict[str, Any], tr: Transition) -> State:
    if state.active is not None:
        raise _fail("INVALID_TRANSITION", index, event,
                    f"turn {state.active!r} is still running; end or abort it first")
    user = event["user"]
    if user["id"] in state.parts:
        raise _fail("INVALID_TRANSITION", index, event,
                    f"part id {user['id']!r} (the user message) is already used")
    user_part = Part(
        id=user["id"], kind="user_text", turn=event["turn"], state=PartState.ENDED,
        surface="Conversation", attrs=MappingProxyType({"author": user["author"]}),
        text=user["text"],
    )
    turn = Turn(
        id=event["turn"], state=TurnState.ACTIVE,
        user=MappingProxyType({"id": user["id"], "author": user["author"], "text": user["text"]}),
        context=tuple(event.get("context", [])), mode=event.get("mode"),
        artifacts=tuple(event.get("artifacts", [])), parts=(user["id"],),
    )
    return replace(state.with_turn(turn).with_parts(user_part), active=turn.id)


def _branch_turn(state: State, index: int, event: dict[str, Any], tr: Transition) -> State:
    # MP-090..MP-093: a branch keeps the user message, selected context, mode and artifacts of
    # the turn it regenerates; MP-094/MP-095: it starts with no process or evidence of its own.
    if state.active is not None:
        raise _fail("INVALID_TRANSITION", index, event,
                    f"turn {state.active!r} is still running; end or abort it first")
    source = state.turn(event["from"])
    if source is None:
        raise _fail("UNKNOWN_TURN", index, event, f"no turn {event['from']!r} to branch from")
    turn = Turn(
        id=event["turn"], state=TurnState.ACTIVE, user=source.user, context=source.context,
        mode=source.mode, artifacts=source.artifacts, branch_of=source.id,
    )
    return replace(state.with_turn(turn), active=turn.id)


def _end_turn(state: State, index: int, event: dict[str, Any], tr: Transition) -> State:
    # MP-D005: the runtime declared the turn finished; a streaming part closes with what it
    # streamed (no final: marked "none"). A pending action stays pending.
    turn = state.turn(event["turn"])
    assert turn is not None
    closed = [
        replace(p, state=PartState.ENDED)
        for p in (state.parts[i] for i in turn.parts)
        if p.state is PartState.OPEN and KINDS[p.kind].streamable
    ]
    done = replace(turn, state=TurnState.COMPLETED)
    return replace(state.with_turn(done).with_parts(*closed), active=None)


def _abort_turn(state: State, index: int, event: dict[str, Any], tr: Transition) -> State:
    # MP-D007: open parts keep their partial text, marked aborted; nothing is appended later.
    turn = state.turn(event["turn"])
    assert turn is not None
    aborted = [
        replace(p, state=PartState.ABORTED)
        for p in (state.parts[i] for i in turn.parts)
        if p.state is PartState.OPEN
    ]
    done = replace(turn, state=TurnState.ABORTED)
    return replace(state.with_turn(done).with_parts(*aborted), active=None)


def _drop(state: State, index: int, event: dict[str, Any], tr: Transition) -> State:
    return state


# --- part actions ---------------------------------------------------------------------------


def _create(state: State, index: int, event: dict[str, Any], tr: Transition) -> State:
    kind = event["kind"]
    spec = KINDS[kind]
    assert state.active is not None
    turn = state.turn(state.active)
    assert turn is not None
    attrs = {
        name: copy.deepcopy(event[name])
        for name in KIND_FIELDS[kind]
        if name in event and name not in ("summary", "is_error")
    }
    attempt = 1
    if kind == "tool_call" and "retry_of" in event:
        # MP-096: retrying a failed tool creates a new process item with its attempt number;
        # the failed attempt stays as it was.
        earlier = state.parts.get(event["retry_of"])
        if earlier is None:
            raise _fail("UNKNOWN_PART", index, event,
                        f"retry_of names {event['retry_of']!r}, which was never started")
        if earlier.kind != "tool_call":
            raise _fail("INVALID_TRANSITION", index, event,
                        f"retry_of must name a tool_call, {event['retry_of']!r} is a "
                        f"{earlier.kind}")
        attempt = earlier.attempt + 1
    if kind == "tool_result":
        call = state.parts.get(event["call"])
        if call is None:
            raise _fail("UNKNOWN_PART", index, event,
                        f"call names {event['call']!r}, which was never started")
        if call.kind != "tool_call":
            raise _fail("INVALID_TRANSITION", index, event,
                        f"call must name a tool_call, {event['call']!r} is a {call.kind}")
    surface = spec.surface if spec.surface is not None else event["surface"]  # MP-D001
    text = event["text"] if kind == "user_text" else ""
    part = Part(
        id=event["id"], kind=kind, turn=turn.id, state=spec.initial, surface=surface,
        attrs=MappingProxyType(attrs), text=text, summary=event.get("summary"),
        is_error=event.get("is_error", False), attempt=attempt,
    )
    # MP-030 / MP-031 / MP-032: a part takes its place in the turn when it starts, so
    # reasoning, tools and answer text interleave as they happened.
    grown = replace(turn, parts=(*turn.parts, part.id))
    return state.with_turn(grown).with_parts(part)


def _append(state: State, index: int, event: dict[str, Any], tr: Transition) -> State:
    part = state.parts[event["id"]]
    seq = event.get("seq")
    expected = len(part.deltas)
    if seq is not None and seq < expected:
        # MP-D003: a duplicated delta is recognised by its seq and dropped; a different text
        # under an applied seq is a conflict the reconciler cannot settle deterministically.
        if part.deltas[seq] == event["text"]:
            return state
        raise _fail("CONFLICTING_DELTA", index, event,
                    f"seq {seq} was already applied with a different text")
    if seq is not None and seq > expected:
        raise _fail("DELTA_GAP", index, event,
                    f"seq {seq} skips ahead; the next delta of this part is seq {expected}")
    # MP-081: the delta appends to its own part only (answer text only for assistant_text).
    grown = replace(part, deltas=(*part.deltas, event["text"]), text=part.text + event["text"])
    return state.with_parts(grown)


def _reconcile(state: State, index: int, event: dict[str, Any], tr: Transition) -> State:
    # MP-080 "UI MUST reconcile final content，而不是盲目追加"; MP-087 compare, then replace or
    # mark; MP-088 never append the final to the rendered answer; MP-D002 the final replaces.
    part = state.parts[event["id"]]
    final_text: str = event["text"]
    if not part.deltas:
        mark = "final_only"  # nothing was streamed: the final is the whole content
    else:
        mark = "matched" if final_text == part.streamed else "replaced"
    done = replace(
        part, state=PartState.FINAL, text=final_text, final=mark,
        summary=event.get("summary", part.summary),
        is_error=event.get("is_error", part.is_error),
    )
    return state.with_parts(done)


def _close(state: State, index: int, event: dict[str, Any], tr: Transition) -> State:
    part = state.parts[event["id"]]
    assert isinstance(tr.next, PartState)
    done = replace(
        part, state=tr.next, summary=event.get("summary", part.summary),
        is_error=event.get("is_error", part.is_error),
    )
    return state.with_parts(done)


def _export(state: State, index: int, event: dict[str, Any], tr: Transition) -> State:
    part = state.parts[event["id"]]
    if part.kind not in REASONING_KINDS:
        raise _fail("INVALID_TRANSITION", index, event,
                    f"only reasoning parts can be exported as answer, {part.id!r} is a "
                    f"{part.kind}")
    return state.with_parts(replace(part, exported=True))


# --- answer references ----------------------------------------------------------------------


def _link(state: State, index: int, event: dict[str, Any]) -> State:
    # MP-062 links to artifacts may enter the answer; MP-D011 only to an artifact of the turn.
    assert state.active is not None
    turn = state.turn(state.active)
    assert turn is not None
    produced = {
        state.parts[i].attrs["artifact"] for i in turn.parts
        if state.parts[i].kind == "artifact_ref"
    }
    artifact = event["artifact"]
    if artifact not in produced and artifact not in turn.artifacts:
        raise _fail("UNKNOWN_ARTIFACT", index, event,
                    f"artifact {artifact!r} is neither produced in turn {turn.id!r} nor in "
                    "its scope")
    if artifact in turn.links:
        return state
    return state.with_turn(replace(turn, links=(*turn.links, artifact)))


def _cite(state: State, index: int, event: dict[str, Any]) -> State:
    # MP-063 "由 evidence facts 支撑的 citations"; MP-D011 backed by an evidence_ref of the turn.
    assert state.active is not None
    turn = state.turn(state.active)
    assert turn is not None
    backed = {
        state.parts[i].attrs["evidence"] for i in turn.parts
        if state.parts[i].kind == "evidence_ref"
    }
    evidence = event["evidence"]
    if evidence not in backed:
        raise _fail("UNBACKED_CITATION", index, event,
                    f"no evidence_ref with evidence {evidence!r} in turn {turn.id!r}")
    if evidence in turn.citations:
        return state
    return state.with_turn(replace(turn, citations=(*turn.citations, evidence)))


_ACTIONS: Mapping[str, Callable[[State, int, dict[str, Any], Transition], State]] = (
    MappingProxyType({
        "start_turn": _start_turn,
        "branch_turn": _branch_turn,
        "end_turn": _end_turn,
        "abort_turn": _abort_turn,
        "drop": _drop,
        "create": _create,
        "append": _append,
        "reconcile": _reconcile,
        "close": _close,
        "export": _export,
    })
)

_ANSWER_ACTIONS: Mapping[str, Callable[[State, int, dict[str, Any]], State]] = MappingProxyType({
    "answer.link": _link,
    "answer.cite": _cite,
})
