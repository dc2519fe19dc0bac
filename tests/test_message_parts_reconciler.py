"""Unit tests of the message-parts reconciler: its tables, its errors, its values."""

from __future__ import annotations

import copy
import dataclasses
import itertools
from typing import Any

import pytest

from agent_tck.harness.families import run_operation
from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.message_parts.reconciler import State, feed, reconcile
from agent_tck.reference_impl.message_parts.tables import (
    EVENT_FIELDS,
    KIND_FIELDS,
    KINDS,
    PART_TABLE,
    TURN_TABLE,
    PartState,
    TurnState,
)
from agent_tck.reference_impl.message_parts.views import (
    ViewSettings,
    answer_view,
    parts_view,
    project_view,
)

START = {"type": "turn.start", "turn": "t1", "user": {"id": "u1", "author": "a", "text": "q"}}
PART_EVENTS = ("part.start", "part.delta", "part.final", "part.end", "part.export")


def test_the_table_of_kinds_is_the_notes_table():
    # "标准 part": 11 kinds, each with its surface ("Process 或 Task" named by the event)
    assert list(KINDS) == [
        "user_text", "assistant_text", "reasoning_summary", "reasoning_detail",
        "runtime_status", "tool_call", "tool_result", "action_required", "artifact_ref",
        "evidence_ref", "error",
    ]
    assert {k: s.surface for k, s in KINDS.items()} == {
        "user_text": "Conversation", "assistant_text": "Conversation",
        "reasoning_summary": "Process", "reasoning_detail": "Process", "runtime_status": None,
        "tool_call": "Process", "tool_result": "Process", "action_required": "Task",
        "artifact_ref": "Artifact", "evidence_ref": "Evidence", "error": None,
    }
    assert set(KIND_FIELDS) == set(KINDS)
    assert len({s.behaviour for s in KINDS.values()}) == 11
    assert [s.rule for s in KINDS.values()] == [f"MP-0{n}" for n in range(10, 21)]


def _events_with_part_in(state: PartState, kind: str = "reasoning_summary") -> list[Any]:
    """Events after which part "p" is in ``state`` and a turn runs."""
    start = {"type": "part.start", "id": "p", "kind": kind}
    if state is PartState.ABSENT:
        return [START]
    if state is PartState.OPEN:
        return [START, start]
    if state is PartState.FINAL:
        return [START, start, {"type": "part.final", "id": "p", "text": "x"}]
    if state is PartState.ENDED:
        return [START, start, {"type": "part.end", "id": "p"}]
    return [START, start, {"type": "turn.abort", "turn": "t1"},
            {**START, "turn": "t2", "user": {"id": "u2", "author": "a", "text": "q"}}]


def _event(etype: str) -> dict[str, Any]:
    return {"part.start": {"type": "part.start", "id": "p", "kind": "reasoning_summary"},
            "part.delta": {"type": "part.delta", "id": "p", "text": "d"},
            "part.final": {"type": "part.final", "id": "p", "text": "f"},
            "part.end": {"type": "part.end", "id": "p"},
            "part.export": {"type": "part.export", "id": "p"}}[etype]


@pytest.mark.parametrize(("etype", "pstate"), list(itertools.product(PART_EVENTS, PartState)))
def test_every_part_event_in_every_state_has_one_defined_outcome(etype: str,
                                                                  pstate: PartState):
    events = [*_events_with_part_in(pstate), _event(etype)]
    index = len(events) - 1
    transition = PART_TABLE.get((etype, pstate))
    if transition is None:
        # a pair missing from the table is an error naming the event, subject and state
        with pytest.raises(TckError) as caught:
            reconcile(events)
        assert caught.value.code == "INVALID_TRANSITION"
        assert caught.value.pointer == f"/events/{index}"
        assert f"event {index}" in caught.value.message and str(pstate) in caught.value.message
        return
    if transition.action.startswith("reject:"):
        with pytest.raises(TckError) as caught:
            reconcile(events)
        assert caught.value.code == transition.action.split(":", 1)[1]
        assert caught.value.pointer == f"/events/{index}"
        return
    before = reconcile(events[:-1])
    after = reconcile(events)
    part = after.parts["p"]
    if transition.next is not None:
        assert part.state is transition.next
    if transition.action == "drop":
        assert after.parts["p"] == before.parts["p"]


def test_only_part_start_is_missing_from_the_part_table():
    missing = [(e, s) for e in PART_EVENTS for s in PartState if (e, s) not in PART_TABLE]
    assert missing == [("part.start", s) for s in PartState if s is not PartState.ABSENT]


@pytest.mark.parametrize(("etype", "tstate"),
                         list(itertools.product(
                             ("turn.start", "turn.branch", "turn.end", "turn.abort"),
                             TurnState)))
def test_every_turn_event_in_every_state_has_one_defined_outcome(etype: str,
                                                                  tstate: TurnState):
    prefix = {
        TurnState.ABSENT: [],
        TurnState.ACTIVE: [START],
        TurnState.COMPLETED: [START, {"type": "turn.end", "turn": "t1"}],
        TurnState.ABORTED: [START, {"type": "turn.abort", "turn": "t1"}],
    }[tstate]
    event = {"turn.start": START, "turn.branch": {"type": "turn.branch", "turn": "t1",
                                                  "from": "t0"},
             "turn.end": {"type": "turn.end", "turn": "t1"},
             "turn.abort": {"type": "turn.abort", "turn": "t1"}}[etype]
    transition = TURN_TABLE.get((etype, tstate))
    if transition is None:
        with pytest.raises(TckError) as caught:
            reconcile([*prefix, event])
        assert caught.value.code == "INVALID_TRANSITION"
        assert caught.value.pointer == f"/events/{len(prefix)}"
    elif transition.action.startswith("reject:"):
        with pytest.raises(TckError) as caught:
            reconcile([*prefix, event])
        assert caught.value.code == transition.action.split(":", 1)[1]
    elif etype == "turn.branch":
        with pytest.raises(TckError) as caught:  # from "t0", never started
            reconcile([*prefix, event])
        assert caught.value.code == "UNKNOWN_TURN"
    else:
        state = reconcile([*prefix, event])
        assert state.turn("t1") is not None
        assert state.turn("t1").state is transition.next  # type: ignore[union-attr]


@pytest.mark.parametrize("etype", sorted(EVENT_FIELDS))
def test_a_missing_required_field_is_a_malformed_event(etype: str):
    required = [n for n, f in EVENT_FIELDS[etype].items() if f.required]
    for name in required:
        event = {"type": etype, **{n: None for n in required if n != name}}
        with pytest.raises(TckError) as caught:
            reconcile([event])
        assert caught.value.code == "MALFORMED_EVENT"
        assert caught.value.pointer == "/events/0"


@pytest.mark.parametrize("kind", sorted(k for k in KIND_FIELDS if KIND_FIELDS[k]))
def test_kind_fields_are_checked(kind: str):
    spec = KIND_FIELDS[kind]
    bad = dict.fromkeys(spec, 12345)  # no member of any kind is a number
    with pytest.raises(TckError) as caught:
        reconcile([START, {"type": "part.start", "id": "p", "kind": kind, **bad}])
    assert caught.value.code == "MALFORMED_EVENT"
    assert caught.value.pointer == "/events/1"


@pytest.mark.parametrize("seq", [True, -1, 1.5, "0"])
def test_seq_must_be_a_non_negative_integer(seq: Any):
    events = [START, {"type": "part.start", "id": "a", "kind": "assistant_text"},
              {"type": "part.delta", "id": "a", "text": "x", "seq": seq}]
    with pytest.raises(TckError) as caught:
        reconcile(events)
    assert caught.value.code == "MALFORMED_EVENT"


def test_input_that_is_not_an_events_list():
    for bad in (None, [], "x", {"events": {}}):
        with pytest.raises(TckError) as caught:
            run_operation("message-parts.parts", bad)
        assert caught.value.code == "MALFORMED_INPUT"


def test_states_are_frozen_and_feed_returns_a_new_value():
    state = reconcile([START, {"type": "part.start", "id": "a", "kind": "assistant_text"}])
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.parts["a"].text = "changed"  # type: ignore[misc]
    with pytest.raises(TypeError):
        state.parts["b"] = state.parts["a"]  # type: ignore[index]
    after = feed(state, 2, {"type": "part.delta", "id": "a", "text": "hi"})
    assert state.parts["a"].text == "" and after.parts["a"].text == "hi"


def test_the_input_is_never_mutated():
    payload = {"events": [
        START, {"type": "part.start", "id": "a", "kind": "action_required", "prompt": "ok?",
                "payload": {"deep": [1, {"x": 2}]}},
        {"type": "part.start", "id": "e", "kind": "evidence_ref", "evidence": "ev",
         "entry": "source", "pack": {"files": ["f"]}}]}
    snapshot = copy.deepcopy(payload)
    for op in ("parts", "answer", "project", "titles", "branches"):
        out = run_operation(f"message-parts.{op}", payload)
        assert payload == snapshot
        if op == "parts":  # the output does not alias the input either
            out["turns"][0]["parts"][1]["payload"]["deep"].append(3)
            assert payload == snapshot


def test_views_of_an_empty_stream():
    state = State()
    assert parts_view(state) == {"turns": []}
    assert answer_view(state) == {"turns": []}
    assert project_view(state, ViewSettings()) == {"view": "idle", "turns": []}


def test_a_final_is_never_appended_even_after_a_part_end():
    state = reconcile([START, {"type": "part.start", "id": "a", "kind": "assistant_text"},
                       {"type": "part.delta", "id": "a", "text": "Hi"},
                       {"type": "part.end", "id": "a"},
                       {"type": "part.final", "id": "a", "text": "Hi"},
                       {"type": "part.end", "id": "a"}])
    part = state.parts["a"]
    assert (part.text, part.final, part.state) == ("Hi", "matched", PartState.FINAL)
