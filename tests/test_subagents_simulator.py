"""The subagent simulator: determinism, immutability, the transition table, the scenario format
(code and JSON Schema kept in sync), bad scenarios, file loading and the trace schema."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.subagents.model import EVENT_KINDS, KINDS, STATES
from agent_tck.reference_impl.subagents.scenario import parse_scenario, parse_scenario_text
from agent_tck.reference_impl.subagents.simulator import apply, canonical_json, run, simulate
from agent_tck.reference_impl.subagents.table import (
    ANY,
    FINISH,
    TABLE,
    NoTransition,
    transition,
)

ROOT = Path(__file__).resolve().parent.parent
FAMILY = ROOT / "vectors" / "send-message-adjacency"
SCHEMAS = ROOT / "vectors" / "schema"


def _cases() -> list[dict]:
    out = []
    for path in sorted(FAMILY.glob("*.json")):
        out.extend(json.loads(path.read_text(encoding="utf-8"))["cases"])
    return out


CASES = _cases()
VALID = [c for c in CASES if "output" in c["expect"]["subagents.simulate"]]
INVALID = [c for c in CASES if "error" in c["expect"]["subagents.simulate"]]
SCENARIO_SCHEMA = Draft202012Validator(
    json.loads((SCHEMAS / "subagent-scenario.schema.json").read_text(encoding="utf-8"))
)
TRACE_SCHEMA = Draft202012Validator(
    json.loads((SCHEMAS / "subagent-trace.schema.json").read_text(encoding="utf-8"))
)

SMALL = {
    "scenario": "small",
    "world": {"system": ["core"], "registry": ["read", "send_message"], "agents": [
        {"id": "root", "state": "running"},
        {"id": "c1", "parent": "root", "mode": "continuable"},
        {"id": "c3", "parent": "root", "mode": "continuable", "state": "absent"},
    ]},
    "actions": [
        {"do": "send", "from": "c1", "to": "root", "message": "m1"},
        {"do": "send", "from": "root", "to": "c3", "message": "wake"},
        {"do": "finish", "agent": "c1", "output": "done"},
        {"do": "boundary", "agent": "root"},
        {"do": "boundary", "agent": "c3"},
    ],
}


def test_the_family_has_its_vectors():
    assert len(VALID) >= 60 and len(INVALID) >= 10


# --- determinism and immutability ---------------------------------------------------------
@pytest.mark.parametrize("case", VALID, ids=lambda c: c["id"])
def test_same_scenario_same_bytes_and_input_untouched(case):
    before = copy.deepcopy(case["input"])
    first = canonical_json(simulate(case["input"]))
    assert case["input"] == before
    assert canonical_json(simulate(copy.deepcopy(case["input"]))) == first
    assert first == canonical_json(case["expect"]["subagents.simulate"]["output"])


def test_apply_returns_a_new_world_and_leaves_the_old_one_alone():
    scenario = parse_scenario(SMALL)
    world = scenario.world
    snapshot = dict(world.agents)
    new, seen = apply(world, scenario.actions[0], scenario.actions)
    assert dict(world.agents) == snapshot
    assert new is not world and new.agents["root"].inbox and not world.agents["root"].inbox
    assert [o.event for o in seen] == ["accepted"]
    with pytest.raises(TypeError):
        world.agents["root"] = None  # type: ignore[index]


def test_observe_keeps_only_the_chosen_event_kinds():
    doc = {**SMALL, "observe": ["input"]}
    trace = simulate(doc)["trace"]
    assert trace and {e["event"] for e in trace} == {"input"}
    full = simulate(SMALL)["trace"]
    assert [e for e in full if e["event"] == "input"] == trace


# --- the trace and scenario schemas --------------------------------------------------------
@pytest.mark.parametrize("case", VALID, ids=lambda c: c["id"])
def test_valid_scenarios_and_their_traces_match_the_schemas(case):
    assert list(SCENARIO_SCHEMA.iter_errors(case["input"])) == []
    assert list(TRACE_SCHEMA.iter_errors(simulate(case["input"]))) == []


def test_the_trace_schema_knows_every_event_kind():
    schema = json.loads((SCHEMAS / "subagent-trace.schema.json").read_text(encoding="utf-8"))
    consts = {d["properties"]["event"]["const"] for k, d in schema["$defs"].items()
              if isinstance(d, dict) and "event" in d.get("properties", {})
              and "const" in d["properties"]["event"]}
    assert consts == set(EVENT_KINDS)


def _mutations(doc: dict) -> list[tuple[str, dict]]:
    """Small breakages of a valid scenario, each of which the JSON Schema can see."""
    out = []

    def variant(name: str, change) -> None:
        d = copy.deepcopy(doc)
        change(d)
        out.append((name, d))

    variant("unknown top field", lambda d: d.update(reportDelivery="quiet"))
    variant("no world", lambda d: d.pop("world"))
    variant("empty agents", lambda d: d["world"].update(agents=[]))
    variant("agent without id", lambda d: d["world"]["agents"][0].pop("id"))
    variant("root with mode", lambda d: d["world"]["agents"][0].update(mode="continuable"))
    variant("child without mode", lambda d: d["world"]["agents"][1].pop("mode"))
    variant("bad state", lambda d: d["world"]["agents"][1].update(state="sleeping"))
    variant("turn zero", lambda d: d["world"]["agents"][1].update(turn=0))
    variant("unknown agent field", lambda d: d["world"]["agents"][1].update(mailbox=True))
    variant("registry repeats", lambda d: d["world"].update(registry=["a", "a"]))
    variant("unknown action", lambda d: d["actions"].append({"do": "report", "agent": "c1"}))
    variant("send without message", lambda d: d["actions"][0].pop("message"))
    variant("send with source", lambda d: d["actions"][0].update(source={"kind": "x"}))
    variant("send with mode", lambda d: d["actions"][0].update(delivery="queue"))
    variant("bad signal", lambda d: d["actions"][0].update(signal="late"))
    variant("message not text", lambda d: d["actions"][0].update(message=3))
    variant("settle completed", lambda d: d["actions"].append(
        {"do": "settle", "agent": "c1", "outcome": "completed"}))
    variant("fork with preset", lambda d: d["actions"].append(
        {"do": "spawn", "parent": "root", "child": "f", "mode": "continuable", "task": "t",
         "fork": True, "preset": ["read"]}))
    variant("observe unknown", lambda d: d.update(observe=["delivery"]))
    variant("generation zero", lambda d: d["actions"][0].update(generation=0))
    return out


@pytest.mark.parametrize(("name", "doc"), _mutations(SMALL), ids=lambda x: x if
                         isinstance(x, str) else "")
def test_the_schema_and_the_parser_reject_the_same_breakages(name, doc):
    assert list(SCENARIO_SCHEMA.iter_errors(doc)), f"the schema accepts: {name}"
    with pytest.raises(TckError) as err:
        simulate(doc)
    assert err.value.code == "INVALID_SCENARIO"


@pytest.mark.parametrize("case", INVALID, ids=lambda c: c["id"])
def test_invalid_scenarios_name_the_scenario_and_where(case):
    with pytest.raises(TckError) as err:
        simulate(case["input"])
    assert err.value.code == "INVALID_SCENARIO"
    assert repr(case["input"]["scenario"]) in err.value.message
    assert err.value.pointer is not None and err.value.pointer.startswith(("/actions", "/world"))
    if err.value.pointer.startswith("/actions/"):
        index = err.value.pointer.split("/")[2]
        assert f"step {index}" in err.value.message


# --- the transition table ------------------------------------------------------------------
def test_rows_are_unique_and_none_is_shadowed():
    keys = [(r.kind, r.state, r.event, r.pending) for r in TABLE]
    assert len(keys) == len(set(keys))
    for i, row in enumerate(TABLE):
        earlier = TABLE[:i]
        assert not any(
            (e.kind, e.state, e.event) == (row.kind, row.state, row.event) and e.pending == ANY
            for e in earlier
        ), f"row {i} is shadowed by an earlier wildcard"
    assert {r.kind for r in TABLE} == set(KINDS)
    assert {r.state for r in TABLE} | {r.next for r in TABLE} <= set(STATES)


def test_a_missing_pair_names_agent_state_and_event():
    with pytest.raises(NoTransition) as err:
        transition("c4", "continuable", "idle", FINISH, "nothing")
    text = str(err.value)
    assert "'c4'" in text and "idle" in text and "'finish'" in text
    assert (err.value.agent, err.value.state, err.value.event) == ("c4", "idle", FINISH)


def test_a_finish_with_input_waiting_extends_instead_of_settling():
    # SMA-016, SMA-020 straight from the table
    assert transition("c1", "continuable", "running", FINISH, "inbox").effect == "extend-turn"
    assert transition("c1", "continuable", "running", FINISH, "nothing").effect == (
        "end-and-settle"
    )


# --- files ---------------------------------------------------------------------------------
def test_a_yaml_scenario_runs_like_its_json(tmp_path):
    import yaml

    path = tmp_path / "small.yaml"
    path.write_text(yaml.safe_dump(SMALL), encoding="utf-8")
    scenario = parse_scenario_text(path.read_text(encoding="utf-8"), str(path))
    assert canonical_json(run(scenario)[1][0].to_json()) == canonical_json(
        simulate(SMALL)["trace"][0]
    )


def test_a_bad_file_names_the_file_and_the_step(tmp_path):
    bad = copy.deepcopy(SMALL)
    bad["actions"][1] = {"do": "send", "from": "ghost", "to": "root", "message": "x"}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(TckError) as err:
        run(parse_scenario_text(path.read_text(encoding="utf-8"), str(path)))
    # a semantic problem is found while simulating; the pointer names the step
    assert err.value.code == "INVALID_SCENARIO" and err.value.pointer == "/actions/1/from"
    assert "step 1" in err.value.message and "'small'" in err.value.message
    assert str(path) in err.value.message

    broken = tmp_path / "broken.yaml"
    broken.write_text("scenario: [unclosed\n", encoding="utf-8")
    with pytest.raises(TckError) as err:
        parse_scenario_text(broken.read_text(encoding="utf-8"), str(broken))
    assert err.value.code == "INVALID_SCENARIO" and str(broken) in err.value.message

    shape = tmp_path / "shape.yaml"
    shape.write_text("scenario: s\nworld: {agents: [{id: r}]}\nactions: [{do: fly}]\n",
                     encoding="utf-8")
    with pytest.raises(TckError) as err:
        parse_scenario_text(shape.read_text(encoding="utf-8"), str(shape))
    assert str(shape) in err.value.message and "step 0" in err.value.message
