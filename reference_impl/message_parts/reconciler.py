# Size: ~170 lines are the note's tables as data (KINDS, EVENT_FIELDS, KIND_FIELDS, TURN_TABLE,
# PART_TABLE), read beside the actions they name; split next: the tables into tables.py.
"""Message parts and reconciliation (spec 002_37b03d34ed5e6e9a.txt, family ``message-parts``).

A sans-I/O reconciler: runtime events in (plain JSON, vectors/message-parts/README.md), typed
and ordered message parts out. No file, socket, clock or randomness; every state is a frozen
value and :func:`feed` returns a new one, so the same events always give the same parts
(MP-089: "reconciliation 必须确定且可测试").

Read this module top to bottom:

1. ``KINDS``: the note's table of the 11 standard parts, as data (surface, default behaviour).
2. ``EVENT_FIELDS`` / ``KIND_FIELDS``: what a well-formed event carries (else MALFORMED_EVENT).
3. ``TURN_TABLE`` and ``PART_TABLE``: every transition, ``(event type, state) -> (action,
   next state)``. A pair that is not in a table is a bad event sequence: the error names the
   event index, the event, the subject and its state (like h11's ``_state.py``).
4. The actions, each next to the rule it enforces.

The views a client renders from the final state (parts, answer, projections, branches) are in
:mod:`reference_impl.message_parts.views`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from agent_tck.reference_impl.errors import TckError

# ---------------------------------------------------------------------------------------------
# 1. The standard parts ("标准 part"): kind -> surface, default behaviour.


class PartState(StrEnum):
    ABSENT = "absent"  # no part.start seen for this id
    OPEN = "open"  # streaming (or, for action_required, pending)
    FINAL = "final"  # closed by a final payload (part.final)
    ENDED = "ended"  # closed without a final payload (part.end, turn.end, or born complete)
    ABORTED = "aborted"  # its turn was aborted while it was open


class TurnState(StrEnum):
    ABSENT = "absent"
    ACTIVE = "active"
    COMPLETED = "completed"
    ABORTED = "aborted"


#: The surface named by the event (MP-D001) for the kinds whose row says "Process 或 Task".
EVENT_SURFACE = None


@dataclass(frozen=True)
class KindSpec:
    kind: str
    rule: str
    surface: str | None  # None: "Process 或 Task", the event names which (MP-D001)
    behaviour: str  # the table's 默认行为, as a stable token
    streamable: bool  # takes part.delta / part.final
    process: bool  # a process or task fact (projected inline / timeline / task), not message body
    initial: PartState  # its state right after part.start


KINDS: Mapping[str, KindSpec] = MappingProxyType({
    s.kind: s
    for s in (
        # "user_text Conversation 立即显示，并保留作者身份。"
        KindSpec("user_text", "MP-010", "Conversation", "show_immediately_with_author",
                 False, False, PartState.ENDED),
        # "assistant_text Conversation 渲染为最终回答文本。"
        KindSpec("assistant_text", "MP-011", "Conversation", "render_as_final_answer",
                 True, False, PartState.OPEN),
        # "reasoning_summary Process 默认折叠或摘要。"
        KindSpec("reasoning_summary", "MP-012", "Process", "collapse_or_summarize",
                 True, True, PartState.OPEN),
        # "reasoning_detail Process 只有 policy 和用户设置允许时展示。"
        KindSpec("reasoning_detail", "MP-013", "Process", "show_only_if_policy_and_user_allow",
                 True, True, PartState.OPEN),
        # "runtime_status Process 或 Task 作为紧凑状态，不作为消息正文。"
        KindSpec("runtime_status", "MP-014", EVENT_SURFACE, "compact_status_not_body",
                 True, True, PartState.OPEN),
        # "tool_call Process 展示紧凑步骤和输入摘要。"
        KindSpec("tool_call", "MP-015", "Process", "compact_step_with_input_summary",
                 True, True, PartState.OPEN),
        # "tool_result Process 展示预览、摘要或详情抽屉。"
        KindSpec("tool_result", "MP-016", "Process", "preview_summary_or_detail_drawer",
                 True, True, PartState.OPEN),
        # "action_required Task 展示明确 CTA 和 pending state。"
        KindSpec("action_required", "MP-017", "Task", "explicit_cta_with_pending_state",
                 False, True, PartState.OPEN),
        # "artifact_ref Artifact 展示摘要卡，并在 Artifact 工作区打开。"
        KindSpec("artifact_ref", "MP-018", "Artifact", "summary_card_opens_artifact_workspace",
                 False, False, PartState.ENDED),
        # "evidence_ref Evidence 展示 source、verification 或 replay entry。"
        KindSpec("evidence_ref", "MP-019", "Evidence", "source_verification_or_replay_entry",
                 False, False, PartState.ENDED),
        # "error Process 或 Task 展示可恢复诊断和下一步。"
        KindSpec("error", "MP-020", EVENT_SURFACE, "recoverable_diagnostic_and_next_step",
                 False, True, PartState.ENDED),
    )
})

REASONING_KINDS = frozenset({"reasoning_summary", "reasoning_detail"})
SURFACE_CHOICES = ("Process", "Task")
EVIDENCE_ENTRIES = ("source", "verification", "replay")
LOG_CHANNELS = ("debug", "trace", "queue", "tool")

# ---------------------------------------------------------------------------------------------
# 2. Well-formed events. A field spec is (required, check, description).

Check = Callable[[Any], bool]


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _is_id(v: Any) -> bool:
    return isinstance(v, str) and v != ""


def _is_bool(v: Any) -> bool:
    return isinstance(v, bool)


def _is_seq(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _is_any(v: Any) -> bool:
    return True


def _is_opt_str(v: Any) -> bool:
    return v is None or isinstance(v, str)


def _is_id_list(v: Any) -> bool:
    return isinstance(v, list) and all(_is_id(x) for x in v)


def _is_str_list(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def _one_of(*values: str) -> Check:
    return lambda v: v in values


def _is_user(v: Any) -> bool:
    return (
        isinstance(v, dict)
        and _is_id(v.get("id"))
        and _is_str(v.get("author"))
        and _is_str(v.get("text"))
    )


@dataclass(frozen=True)
class FieldSpec:
    required: bool
    check: Check
    expects: str


def _req(check: Check, expects: str) -> FieldSpec:
    return FieldSpec(True, check, expects)


def _opt(check: Check, expects: str) -> FieldSpec:
    return FieldSpec(False, check, expects)


ID = "a non-empty string"
EVENT_FIELDS: Mapping[str, Mapping[str, FieldSpec]] = MappingProxyType({
    "turn.start": {
        "turn": _req(_is_id, ID),
        "user": _req(_is_user, "an object {id, author, text} of strings (id non-empty)"),
        "context": _opt(_is_str_list, "a list of strings"),
        "mode": _opt(_is_opt_str, "a string or null"),
        "artifacts": _opt(_is_id_list, "a list of artifact ids"),
    },
    "turn.branch": {"turn": _req(_is_id, ID), "from": _req(_is_id, ID)},
    "turn.end": {"turn": _req(_is_id, ID)},
    "turn.abort": {"turn": _req(_is_id, ID), "reason": _opt(_is_str, "a string")},
    "part.start": {"id": _req(_is_id, ID), "kind": _req(_is_str, "a part kind")},
    "part.delta": {
        "id": _req(_is_id, ID),
        "text": _req(_is_str, "a string"),
        "seq": _opt(_is_seq, "an integer >= 0"),
    },
    "part.final": {
        "id": _req(_is_id, ID),
        "text": _req(_is_str, "a string"),
        "summary": _opt(_is_str, "a string"),
        "is_error": _opt(_is_bool, "a boolean"),
    },
    "part.end": {
        "id": _req(_is_id, ID),
        "summary": _opt(_is_str, "a string"),
        "is_error": _opt(_is_bool, "a boolean"),
    },
    "part.export": {"id": _req(_is_id, ID)},
    "answer.link": {"artifact": _req(_is_id, ID)},
    "answer.cite": {"evidence": _req(_is_id, ID)},
    "runtime.log": {
        "channel": _req(_one_of(*LOG_CHANNELS), f"one of {', '.join(LOG_CHANNELS)}"),
        "data": _opt(_is_any, "any JSON value"),
    },
})

#: Kind-specific fields of part.start.
KIND_FIELDS: Mapping[str, Mapping[str, FieldSpec]] = MappingProxyType({
    "user_text": {"author": _req(_is_str, "a string"), "text": _req(_is_str, "a string")},
    "assistant_text": {},
    "reasoning_summary": {"summary": _opt(_is_str, "a string")},
    "reasoning_detail": {
        "summary": _opt(_is_str, "a string"),
        "redacted": _opt(_is_bool, "a boolean"),
    },
    "runtime_status": {"surface": _req(_one_of(*SURFACE_CHOICES), "Process or Task")},
    "tool_call": {
        "name": _req(_is_id, ID),
        "summary": _opt(_is_str, "a string"),
        "retry_of": _opt(_is_id, ID),
    },
    "tool_result": {
        "call": _req(_is_id, ID),
        "summary": _opt(_is_str, "a string"),
        "is_error": _opt(_is_bool, "a boolean"),
    },
    "action_required": {"prompt": _req(_is_str, "a string"), "payload": _opt(_is_any, "JSON")},
    "artifact_ref": {
        "artifact": _req(_is_id, ID),
        "title": _req(_is_str, "a string"),
        "summary": _opt(_is_str, "a string"),
    },
    "evidence_ref": {
        "evidence": _req(_is_id, ID),
        "entry": _req(_one_of(*EVIDENCE_ENTRIES), "source, verification or replay"),
        "label": _opt(_is_str, "a string"),
        "pack": _opt(_is_any, "any JSON value"),
    },
    "error": {
        "surface": _req(_one_of(*SURFACE_CHOICES), "Process or Task"),
        "message": _req(_is_str, "a string"),
        "recoverable": _req(_is_bool, "a boolean"),
        "next_step": _opt(_is_opt_str, "a string or null"),
    },
})

# ---------------------------------------------------------------------------------------------
# 3. The transition tables.


@dataclass(frozen=True)
class Transition:
    """``action`` names a function below (``"reject:CODE"`` rejects); ``next`` is the new state
    (``None``: decided by the action, e.g. the kind's initial state on create)."""

    action: str
    next: PartState | TurnState | None


# Turn events, keyed by the state of the turn the event names. A turn.start / turn.branch also
# needs no other turn running (one active turn at a time): checked in ``_start_turn``.
TURN_TABLE: Mapping[tuple[str, TurnState], Transition] = MappingProxyType({
    ("turn.start", TurnState.ABSENT): Transition("start_turn", TurnState.ACTIVE),
    ("turn.branch", TurnState.ABSENT): Transition("branch_turn", TurnState.ACTIVE),
    ("turn.end", TurnState.ACTIVE): Transition("end_turn", TurnState.COMPLETED),
    ("turn.end", TurnState.COMPLETED): Transition("drop", TurnState.COMPLETED),  # MP-D007 late
    ("turn.end", TurnState.ABORTED): Transition("drop", TurnState.ABORTED),  # MP-D007 late
    ("turn.end", TurnState.ABSENT): Transition("reject:UNKNOWN_TURN", None),
    ("turn.abort", TurnState.ACTIVE): Transition("abort_turn", TurnState.ABORTED),
    ("turn.abort", TurnState.COMPLETED): Transition("drop", TurnState.COMPLETED),  # MP-D007
    ("turn.abort", TurnState.ABORTED): Transition("drop", TurnState.ABORTED),  # MP-D007
    ("turn.abort", TurnState.ABSENT): Transition("reject:UNKNOWN_TURN", None),
})

# Part events, keyed by the state of the part the event names.
S = PartState
PART_TABLE: Mapping[tuple[str, PartState], Transition] = MappingProxyType({
    ("part.start", S.ABSENT): Transition("create", None),
    # MP-081: only typed deltas append, each to its own part; MP-D003 duplicates, gaps.
    ("part.delta", S.ABSENT): Transition("reject:UNKNOWN_PART", None),
    ("part.delta", S.OPEN): Transition("append", S.OPEN),
    ("part.delta", S.FINAL): Transition("drop", S.FINAL),  # MP-D004: final before last delta
    ("part.delta", S.ENDED): Transition("drop", S.ENDED),  # MP-D004: the part is closed
    ("part.delta", S.ABORTED): Transition("drop", S.ABORTED),  # MP-D007
    # MP-080 / MP-087 / MP-088: a final is compared, then replaces or marks; never appended.
    ("part.final", S.ABSENT): Transition("reject:UNKNOWN_PART", None),
    ("part.final", S.OPEN): Transition("reconcile", S.FINAL),
    ("part.final", S.ENDED): Transition("reconcile", S.FINAL),  # MP-D005: final after close
    ("part.final", S.FINAL): Transition("reconcile", S.FINAL),  # MP-D004: repeated final
    ("part.final", S.ABORTED): Transition("drop", S.ABORTED),  # MP-D007
    ("part.end", S.ABSENT): Transition("reject:UNKNOWN_PART", None),
    ("part.end", S.OPEN): Transition("close", S.ENDED),
    ("part.end", S.ENDED): Transition("close", S.ENDED),  # idempotent
    ("part.end", S.FINAL): Transition("close", S.FINAL),  # idempotent, keeps the final
    ("part.end", S.ABORTED): Transition("drop", S.ABORTED),  # MP-D007
    # MP-D012 / MP-100: reasoning enters the answer only when explicitly exported.
    ("part.export", S.ABSENT): Transition("reject:UNKNOWN_PART", None),
    ("part.export", S.OPEN): Transition("export", S.OPEN),
    ("part.export", S.FINAL): Transition("export", S.FINAL),
    ("part.export", S.ENDED): Transition("export", S.ENDED),
    ("part.export", S.ABORTED): Transition("export", S.ABORTED),
})

#: Events that need a running turn (MP-D017: NO_ACTIVE_TURN otherwise).
NEEDS_ACTIVE_TURN = frozenset({"part.start", "answer.link", "answer.cite"})
#: Part events only the streamable kinds take (else INVALID_TRANSITION).
STREAM_EVENTS = frozenset({"part.delta", "part.final"})

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
