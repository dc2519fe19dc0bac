"""Hypothesis properties of the message-parts reconciler:

* any split of a text into deltas followed by a matching final gives that text exactly once
  (MP-080, MP-088, MP-104), also with duplicated numbered deltas, interleaved reasoning and a
  late delta (MP-D003, MP-D004, MP-D006);
* reasoning never reaches the final answer unless exported (MP-053, MP-100);
* the same events always give the same parts, answer, projection and titles (MP-089), the
  input is never mutated, each part has exactly one projection (MP-037), and every output
  matches the output schema.
"""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from agent_tck.harness.families import run_operation

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
OPS = ("parts", "answer", "project", "titles", "branches")
SCHEMAS = Path(__file__).resolve().parent.parent / "vectors" / "schema"
START = {"type": "turn.start", "turn": "t1", "user": {"id": "u1", "author": "a", "text": "q"}}


def _split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    return [text[a:b] for a, b in itertools.pairwise(points)] or [""]


def _answer(events: list[Any]) -> list[dict[str, str]]:
    return run_operation("message-parts.answer", {"events": events})["turns"][0]["segments"]


@SETTINGS
@given(text=st.text(max_size=60), cuts=st.lists(st.integers(0, 1000), max_size=12))
def test_any_split_then_a_matching_final_gives_the_text_once(text: str, cuts: list[int]):
    deltas = [{"type": "part.delta", "id": "a", "text": c} for c in _split(text, cuts)]
    events = [START, {"type": "part.start", "id": "a", "kind": "assistant_text"}, *deltas,
              {"type": "part.final", "id": "a", "text": text},
              {"type": "turn.end", "turn": "t1"}]
    assert _answer(events) == [{"part": "a", "text": text}]
    part = run_operation("message-parts.parts", {"events": events})["turns"][0]["parts"][1]
    assert part["final"] == "matched"


@SETTINGS
@given(text=st.text(max_size=60), cuts=st.lists(st.integers(0, 1000), max_size=12),
       data=st.data())
def test_faults_around_a_matching_final_still_give_the_text_once(text: str, cuts: list[int],
                                                                  data: st.DataObject):
    chunks = _split(text, cuts)
    events: list[Any] = [START, {"type": "part.start", "id": "a", "kind": "assistant_text"},
                         {"type": "part.start", "id": "r", "kind": "reasoning_summary"}]
    for seq, chunk in enumerate(chunks):
        delta = {"type": "part.delta", "id": "a", "text": chunk, "seq": seq}
        events.append(delta)
        if data.draw(st.booleans(), label="duplicate"):
            events.append(dict(delta))  # MP-D003: a numbered duplicate is dropped
        if data.draw(st.booleans(), label="interleave reasoning"):
            events.append({"type": "part.delta", "id": "r", "text": "ZZ"})  # MP-D006
    events.append({"type": "part.final", "id": "a", "text": text})
    if data.draw(st.booleans(), label="late delta"):
        events.append({"type": "part.delta", "id": "a", "text": "late"})  # MP-D004
    if data.draw(st.booleans(), label="repeated final"):
        events.append({"type": "part.final", "id": "a", "text": text})
    events.append({"type": "turn.end", "turn": "t1"})
    assert _answer(events) == [{"part": "a", "text": text}]


# --- random well-formed streams ----------------------------------------------------------------

ANSWER_ALPHABET = "abc ."
REASONING_ALPHABET = "XYZ"  # never used by any other text, so its presence is detectable
OTHER_ALPHABET = "0123{}"


STREAMING = ("assistant_text", "reasoning_summary", "reasoning_detail", "runtime_status",
             "tool_call", "tool_result")


def _part_start(draw: st.DrawFn, pid: str, calls: list[str], artifacts: list[str],
                evidence: list[str]) -> dict[str, Any] | None:
    """A well-formed part.start of a random kind (None: a tool_result with no call yet)."""
    kind = draw(st.sampled_from(
        ["assistant_text", "reasoning_summary", "reasoning_detail", "runtime_status",
         "tool_call", "tool_result", "action_required", "artifact_ref", "evidence_ref",
         "error"]))
    event: dict[str, Any] = {"type": "part.start", "id": pid, "kind": kind}
    if kind in ("runtime_status", "error"):
        event["surface"] = draw(st.sampled_from(["Process", "Task"]))
    if kind == "error":
        event |= {"message": "0", "recoverable": draw(st.booleans())}
    if kind == "tool_call":
        event["name"] = "tool"
        if calls and draw(st.booleans()):
            event["retry_of"] = draw(st.sampled_from(calls))
        calls.append(pid)
    if kind == "tool_result":
        if not calls:
            return None
        event["call"] = draw(st.sampled_from(calls))
        event["is_error"] = draw(st.booleans())
    if kind == "action_required":
        event |= {"prompt": "0?", "payload": {"approve": "0"}}
    if kind == "artifact_ref":
        event |= {"artifact": f"art-{pid}", "title": "0"}
        artifacts.append(f"art-{pid}")
    if kind == "evidence_ref":
        event |= {"evidence": f"ev-{pid}", "entry": "source", "pack": {"big": "0"}}
        evidence.append(f"ev-{pid}")
    if kind == "reasoning_detail":
        event["redacted"] = draw(st.booleans())
    return event


def _text_for(draw: st.DrawFn, kind: str) -> str:
    alphabet = (ANSWER_ALPHABET if kind == "assistant_text" else
                REASONING_ALPHABET if kind.startswith("reasoning") else OTHER_ALPHABET)
    return draw(st.text(alphabet=alphabet, max_size=6))


@st.composite
def streams(draw: st.DrawFn, max_steps: int = 40) -> list[dict[str, Any]]:
    """A random, well-formed event sequence over several turns and every kind."""
    events: list[dict[str, Any]] = []
    open_parts: list[tuple[str, str]] = []  # (id, kind) that still take deltas
    calls: list[str] = []
    evidence: list[str] = []
    artifacts: list[str] = []
    counter = 0
    turn: str | None = None
    turns = 0

    def new_id(prefix: str) -> str:
        nonlocal counter
        counter += 1
        return f"{prefix}{counter}"

    for _ in range(draw(st.integers(1, max_steps))):
        if turn is None:
            turns += 1
            turn = f"t{turns}"
            if turns > 1 and draw(st.booleans()):
                events.append({"type": "turn.branch", "turn": turn,
                               "from": f"t{draw(st.integers(1, turns - 1))}"})
            else:
                events.append({"type": "turn.start", "turn": turn,
                               "user": {"id": f"{turn}.u", "author": "alice", "text": "q"}})
            open_parts, evidence, artifacts = [], [], []
            continue
        action = draw(st.sampled_from(
            ["start", "start", "delta", "delta", "delta", "final", "end", "log", "cite",
             "link", "close_turn"]))
        if action == "start":
            event = _part_start(draw, new_id("p"), calls, artifacts, evidence)
            if event is None:
                continue
            events.append(event)
            if event["kind"] in STREAMING:
                open_parts.append((event["id"], event["kind"]))
        elif action in ("delta", "final", "end") and open_parts:
            pid, kind = draw(st.sampled_from(open_parts))
            if action == "delta":
                events.append({"type": "part.delta", "id": pid, "text": _text_for(draw, kind)})
            elif action == "final":
                events.append({"type": "part.final", "id": pid, "text": _text_for(draw, kind)})
                open_parts.remove((pid, kind))
            else:
                events.append({"type": "part.end", "id": pid})
                open_parts.remove((pid, kind))
        elif action == "log":
            events.append({"type": "runtime.log",
                           "channel": draw(st.sampled_from(["debug", "trace", "queue", "tool"])),
                           "data": {"n": "0"}})
        elif action == "cite" and evidence:
            events.append({"type": "answer.cite", "evidence": draw(st.sampled_from(evidence))})
        elif action == "link" and artifacts:
            events.append({"type": "answer.link", "artifact": draw(st.sampled_from(artifacts))})
        elif action == "close_turn":
            kind_of_close = draw(st.sampled_from(["turn.end", "turn.abort"]))
            events.append({"type": kind_of_close, "turn": turn})
            turn = None
    return events


@SETTINGS
@given(events=streams())
def test_reasoning_never_reaches_the_final_answer(events: list[dict[str, Any]]):
    answer = run_operation("message-parts.answer", {"events": events})
    assert not set(REASONING_ALPHABET) & set(json.dumps(answer))
    # and every reasoning part is kept as a part of its own, not lost
    parts = run_operation("message-parts.parts", {"events": events})
    started = [e["id"] for e in events
               if e["type"] == "part.start" and e["kind"].startswith("reasoning")]
    kept = [p["id"] for t in parts["turns"] for p in t["parts"]
            if p["kind"].startswith("reasoning")]
    assert kept == started


@SETTINGS
@given(events=streams())
def test_exported_reasoning_is_the_only_reasoning_in_the_answer(events: list[dict[str, Any]]):
    reasoning = [e["id"] for e in events
                 if e["type"] == "part.start" and e["kind"].startswith("reasoning")]
    exported = reasoning[::2]
    payload = {"events": [*events, *({"type": "part.export", "id": r} for r in exported)]}
    answer = run_operation("message-parts.answer", payload)
    in_answer = {s["part"] for t in answer["turns"] for s in t["segments"]}
    assert in_answer & set(reasoning) == set(exported)


def _output_validator(op: str) -> Draft202012Validator:
    doc = json.loads((SCHEMAS / "parts-output.schema.json").read_text(encoding="utf-8"))
    registry = Registry().with_resource(doc["$id"], Resource.from_contents(doc))
    return Draft202012Validator({"$ref": f"{doc['$id']}#/$defs/{op}"}, registry=registry)


VALIDATORS = {op: _output_validator(op) for op in OPS}
INPUT = Draft202012Validator(
    json.loads((SCHEMAS / "parts-input.schema.json").read_text(encoding="utf-8")))


@SETTINGS
@given(events=streams(), policy=st.booleans(), user=st.booleans())
def test_the_same_events_always_give_the_same_views(events: list[dict[str, Any]],
                                                    policy: bool, user: bool):
    payload = {"events": events, "view": {"reasoning_detail": {"policy": policy, "user": user}}}
    assert list(INPUT.iter_errors(payload)) == []
    snapshot = copy.deepcopy(payload)
    reordered = {"events": [dict(reversed(list(e.items()))) for e in events],
                 "view": payload["view"]}
    for op in OPS:
        first = run_operation(f"message-parts.{op}", payload)
        assert payload == snapshot  # never mutates its input
        assert run_operation(f"message-parts.{op}", copy.deepcopy(payload)) == first
        assert run_operation(f"message-parts.{op}", reordered) == first
        assert [e.message for e in VALIDATORS[op].iter_errors(first)] == []


@SETTINGS
@given(events=streams())
def test_every_part_has_exactly_one_projection(events: list[dict[str, Any]]):
    parts = run_operation("message-parts.parts", {"events": events})
    view = run_operation("message-parts.project", {"events": events})
    ids = [p["id"] for t in parts["turns"] for p in t["parts"]]
    shown = [i["part"] for t in view["turns"] for i in t["items"]]
    assert shown == ids
    active = [t["turn"] for t in view["turns"] if t["status"] == "active"]
    assert view["view"] == ("active" if active else "idle")
    for t in view["turns"]:
        for i in t["items"]:
            # MP-038 / MP-107: the archive never holds a fact of the running turn
            assert not (t["status"] == "active" and i["projection"] == "timeline")
            assert not (t["status"] != "active" and i["projection"] == "inline")
