"""Trace constraints as checks (issue 21 A): each constraint of an expected trace is its own check
``trace:<name>``, charged to the one rule the vector names for it (else to every rule of the
expectation, as before), so a violation of one constraint fails only that constraint's rule."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_tck.harness.cli import main
from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.contract.vectors import Case, Expectation, load_cases, load_file
from agent_tck.harness.run.checks import check_names
from agent_tck.harness.run.compare import compare_trace, trace_constraints
from agent_tck.harness.run.evaluate import Judgment, case_result, judge
from agent_tck.harness.run.results import summarize
from agent_tck.harness.run.targets import InProcessTarget
from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.subagents.ops import OPERATIONS

SIMULATE = "subagents.simulate"
CASES = {c.id: c for c in load_cases() if c.family == "send-message-adjacency"}


def _trace_checks(judgment: Judgment) -> dict[tuple[str, str], str]:
    return {(c.check, c.rule): c.status for c in judgment.checks}


def _judge_edited(case_id: str, edit: Callable[[list[dict[str, Any]]], None]) -> Judgment:
    """The reference's trace for the case, edited: one broken constraint."""
    def simulate(payload: Any) -> Any:
        value = copy.deepcopy(OPERATIONS[SIMULATE](payload))
        edit(value["trace"])
        return value

    case = CASES[case_id]
    judgment, called = judge(InProcessTarget({SIMULATE: simulate}), case, case.expect[0])
    assert called
    return judgment


def test_an_expected_trace_has_one_constraint_per_action_and_per_headed_agent():
    fork = CASES["sma-head-fork-prefix"]
    assert check_names(fork.expect[0]) == ("outcome", "output", "trace:action-0",
                                           "trace:heads-f1")
    boundary = CASES["sma-delivery-running-nearest-boundary"]  # actions 1 and 3 show nothing
    assert boundary.expect[0].trace == ("action-0", "action-1", "action-2", "action-3")
    # an expectation that is not a trace has none; neither does a rejection
    assert all(not e.trace for c in load_cases() if c.family != "send-message-adjacency"
               for e in c.expect)
    assert check_names(CASES["sma-invalid-unknown-sender"].expect[0]) == ("outcome",
                                                                         "error-code")


def test_the_reference_passes_every_trace_check():
    target = InProcessTarget()
    counts = []
    for case in CASES.values():
        judgment, _ = judge(target, case, case.expect[0])
        assert judgment.status == "pass", (case.id, judgment.message)
        counts.append(sum(c.check.startswith("trace:") for c in judgment.checks))
    assert sum(counts) > len(CASES)  # the reference's run carries the trace checks


def _reason(trace: list[dict[str, Any]]) -> None:
    next(e for e in trace if e["event"] == "rejected")["reason"] = "NOT_ADJACENT"


def _deliver_to_sibling(trace: list[dict[str, Any]]) -> None:
    trace.append({"action": 1, "event": "input", "agent": "c2", "turn": 1, "step": 2,
                  "kind": "agent-message", "framing": "Agent c1 sent a message:",
                  "content": "x", "source": {"kind": "agent-message", "form": "relay",
                                             "senderSessionId": "c1"}})


@pytest.mark.parametrize(("edit", "broken", "kept", "check"), [
    (_reason, "SMA-003", "SMA-014", "trace:action-0/rejected"),
    (_deliver_to_sibling, "SMA-014", "SMA-003", "trace:action-1"),
])
def test_a_violated_constraint_fails_only_its_own_rule(edit, broken, kept, check):
    """sma-route-sibling charges the reason code to SMA-003 and "the sibling receives nothing"
    to SMA-014: breaking one fails that rule alone, whatever the other's level."""
    judgment = _judge_edited("sma-route-sibling", edit)
    assert judgment.failed_rules == (broken,)
    assert _trace_checks(judgment)[(check, broken)] == "fail"
    assert f"{check} ({broken}):" in judgment.message  # the transcript names check and rule
    # read with one of the two rules a SHOULD: a MUST failing while the SHOULD's constraint
    # passes is not conformant; the SHOULD failing while the MUST's passes is conformant
    for must, should in ((broken, kept), (kept, broken)):
        rules = [{"id": must, "family": "send-message-adjacency", "level": "MUST"},
                 {"id": should, "family": "send-message-adjacency", "level": "SHOULD"}]
        record = case_result(1, CASES["sma-route-sibling"], CASES["sma-route-sibling"].expect[0],
                             judgment, 0.0)
        statuses, verdicts, _ = summarize(rules, [record])
        assert statuses == {broken: "fail", kept: "pass"}
        want = "not conformant" if must == broken else "conformant"
        assert verdicts["overall"]["verdict"] == want


def test_an_unattributed_constraint_is_charged_to_every_rule_of_the_case():
    def drop_input(trace: list[dict[str, Any]]) -> None:
        trace[:] = [e for e in trace if e["event"] != "input"]

    judgment = _judge_edited("sma-delivery-running-nearest-boundary", drop_input)
    checks = _trace_checks(judgment)
    assert checks[("trace:action-2", "SMA-015")] == checks[("trace:action-2", "SMA-021")] == (
        "fail")
    assert checks[("trace:action-0", "SMA-015")] == "pass"
    assert set(judgment.failed_rules) == {"SMA-015", "SMA-021"}


def test_an_event_of_no_scenario_action_fails_output_and_no_constraint():
    judgment = _judge_edited("sma-route-sibling", lambda trace: trace.append(
        {"action": 9, "event": "turn-start", "agent": "c2", "turn": 2}))
    failing = {c.check for c in judgment.checks if c.status == "fail"}
    assert failing == {"output"}
    assert "events of no scenario action" in judgment.message


def test_an_output_that_is_not_a_trace_fails_every_constraint():
    case = CASES["sma-route-sibling"]
    judgment, _ = judge(InProcessTarget({SIMULATE: lambda payload: {"events": []}}), case,
                        case.expect[0])
    assert {c.check for c in judgment.checks if c.status == "fail"} == {
        "output", "trace:action-0", "trace:action-1", "trace:action-0/rejected"}


def test_a_rejection_leaves_the_trace_checks_not_reached():
    case = CASES["sma-route-sibling"]
    def refuse(payload: Any) -> Any:
        raise TckError("INVALID_SCENARIO", "no")

    judgment, _ = judge(InProcessTarget({SIMULATE: refuse}), case, case.expect[0])
    statuses = {c.check: c.status for c in judgment.checks}
    assert statuses["outcome"] == "fail"
    assert {statuses[n] for n in statuses if n.startswith("trace:")} == {"not-applicable"}


# ---- attribution of a trace constraint the expectation does not have ---------------------------


def _vector(tmp_path: Path, checks: dict[str, str], expect: Any = None) -> Path:
    case = copy.deepcopy(CASES["sma-route-sibling"])
    spec = expect or {"output": case.expect[0].output}
    path = tmp_path / "v.json"
    path.write_text(json.dumps({"family": "send-message-adjacency", "cases": [{
        "id": "x", "rules": list(case.rules), "description": "", "input": case.input,
        "expect": {SIMULATE: {**spec, "checks": checks}}}]}), encoding="utf-8")
    return path


@pytest.mark.parametrize(("name", "expect"), [
    ("trace:action-9", None),                 # the scenario has two actions
    ("trace:heads-c1", None),                 # no head of c1 is expected
    ("trace:action-0/request-head", None),    # heads are their own constraints
    ("trace:action-7/rejected", None),        # a kind carved out of no action
    ("trace:action-0", {"error": {"code": "INVALID_SCENARIO"}}),  # a rejection has no trace
])
def test_an_attribution_naming_an_unknown_trace_constraint_is_refused(tmp_path, name, expect):
    path = _vector(tmp_path, {name: "SMA-003"}, expect)
    with pytest.raises(HarnessError) as caught:
        load_file(path)
    assert caught.value.code == "VECTOR_INVALID"
    token = name.replace("/", "~1")  # a JSON pointer token
    assert caught.value.where == f"{path}#/cases/0/expect/{SIMULATE}/checks/{token}"
    assert "names no trace constraint" in str(caught.value)


def test_a_known_trace_constraint_is_accepted_and_charged(tmp_path):
    (case,) = load_file(_vector(tmp_path, {"trace:action-1": "SMA-014"}))
    exp: Expectation = case.expect[0]
    assert exp.attributed("trace:action-1") == "SMA-014"
    assert isinstance(case, Case) and "trace:action-1" in check_names(exp)


# ---- an adapter breaking one constraint: the results stream and the reports name its rule ------


def test_a_failing_trace_check_is_recorded_and_reported_with_its_rule(tmp_path, fake_adapter):
    out = tmp_path / "reports"
    code = main(["run", "--impl", fake_adapter("trace_break"), "--family",
                 "send-message-adjacency", "--report-dir", str(out)])
    assert code == 1
    records = [json.loads(line) for line in
               (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert records[0]["format"] == "agent-tck-results/2"
    failed = [r for r in records if r.get("status") == "fail"]
    assert [r["case"] for r in failed] == ["sma-route-sibling"]
    assert [(c["check"], c["rule"]) for c in failed[0]["checks"] if c["status"] == "fail"] == [
        ("trace:action-0/rejected", "SMA-003")]
    assert {c["check"] for r in records if "checks" in r for c in r["checks"]} >= {
        "trace:action-0", "trace:heads-f1"}
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert "fail: trace:action-0/rejected (SMA-003): action 0/rejected: /0/reason" in summary
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "checks did not pass: trace:action-0/rejected (SMA-003)" in page
    assert ('<td><code>trace:action-0/rejected</code></td><td><a href="#rule-SMA-003"><code>'
            'SMA-003</code></a></td><td><span class="st st-fail">') in page


def test_an_agent_id_with_a_slash_names_its_heads_not_a_carved_kind():
    head = {"action": 0, "event": "request-head", "agent": "team/a", "system": [],
            "tools": ["send_message"], "sendMessage": None}
    expected = {"trace": [head]}
    names = trace_constraints(expected, {"actions": [{"do": "spawn"}]})
    assert names == ("action-0", "heads-team/a")
    assert compare_trace(expected, copy.deepcopy(expected), names) == dict.fromkeys(
        ("action-0", "heads-team/a", ""))
    other = {"trace": [{**head, "tools": []}]}
    assert compare_trace(expected, other, names)["heads-team/a"] == (
        'heads team/a: /0/tools: expected 1 items, got 0; first difference at /0/tools/0: '
        'expected "send_message", got nothing')


def test_a_trace_whose_action_is_unhashable_fails_every_constraint_and_never_crashes():
    case_id = next(iter(CASES))

    def edit(trace: list[dict[str, Any]]) -> None:
        trace[0]["action"] = [0]

    judgment = _judge_edited(case_id, edit)
    assert judgment.status == "fail"
    assert all(c.status == "fail" for c in judgment.checks if c.check.startswith("trace:"))
    assert "not a well-formed subagent-trace body" in judgment.message


def test_an_exception_while_judging_is_an_errored_result_not_an_aborted_run(monkeypatch):
    from agent_tck.harness.run import evaluate

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a kit bug")

    monkeypatch.setattr(evaluate, "expectation_checks", broken)
    judgment = _judge_edited(next(iter(CASES)), lambda trace: None)
    assert judgment.status == "errored"
    assert "the kit could not judge this output (RuntimeError: a kit bug)" in judgment.message
