"""BO-008 through protocol 1.1 ``observe``: seeded faults that change the caller's record are
killed on BO-008 through the subprocess adapter that declares the capability, and leave BO-008
untested (never passed) through one that does not."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from agent_tck.harness.contract.catalogue import load_catalogue
from agent_tck.harness.contract.vectors import load_cases
from agent_tck.harness.mutation.mutants import ROOT, apply, load_mutants
from agent_tck.harness.run.evaluate import run_cases
from agent_tck.harness.run.outcome import Observed, Output
from agent_tck.harness.run.results import summarize
from agent_tck.harness.run.runner import Filters, header, select
from agent_tck.harness.run.subprocess_target import SubprocessTarget
from agent_tck.harness.run.targets import InProcessTarget
from tests.conftest import FAKES

OBSERVE_MUTANTS = ("bo-omitted-blocks-spliced-from-the-record", "bo-record-edited-on-rejection",
                   "bo-output-aliases-the-record")


def bo008_run(command: str, env: dict[str, str] | None = None) -> tuple[list[dict], dict]:
    # the mutated copy's folder as the working directory too: `python -m` puts it first
    catalogue = load_catalogue()
    cases = select(load_cases(), Filters(rules=("BO-008",)))
    cwd = (env or {}).get("PYTHONPATH", "").split(os.pathsep)[0] or None
    target = SubprocessTarget(command, env=env, cwd=cwd, timeout=30)
    head = header(catalogue, cases, Filters(rules=("BO-008",)),
                  target_info={"kind": "subprocess"}, implementation={"name": "t"})
    try:
        records = [r.to_json() for r in run_cases(target, cases, head)]
    finally:
        target.close()
    return records[1:-1], records[-1]


def mutated(name: str, tmp_path: Path) -> dict[str, str]:
    mutant = next(m for m in load_mutants() if m.name == name)
    copy = tmp_path / name
    package = Path(mutant.file).parts[0]
    # agent_tck of this copy: the mutated package first, the rest from the checkout
    shutil.copytree(ROOT / package, copy / "agent_tck" / package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "agent_tck" / "__init__.py").write_text(f"__path__.append({str(ROOT)!r})\n")
    apply(mutant, copy / "agent_tck")
    return {"PYTHONPATH": os.pathsep.join([str(copy), os.environ.get("PYTHONPATH", "")])}


REFERENCE = f"{sys.executable} -m agent_tck.harness.reference_adapter"
PLAIN = f"{sys.executable} {FAKES / 'no_observe.py'}"


def test_the_reference_adapter_passes_bo008_with_the_capability():
    records, footer = bo008_run(REFERENCE)
    assert records and {r["status"] for r in records} == {"pass"}
    assert footer["rules"]["BO-008"] == "pass"


@pytest.mark.parametrize("name", OBSERVE_MUTANTS)
def test_a_record_changing_fault_is_killed_on_bo008_through_the_adapter(name, tmp_path):
    records, footer = bo008_run(REFERENCE, mutated(name, tmp_path))
    failed = [r for r in records if r["status"] == "fail"]
    assert failed, f"{name} survived BO-008 through the subprocess adapter"
    # the observation's checks fail, charged to BO-008 alone (issue 21 A); an aliased output
    # may also fail the output check of the rule governing the output
    observed = [c for r in failed for c in r["checks"] if c["check"].startswith("observe:")]
    assert {c["rule"] for c in observed} == {"BO-008"}
    assert any(c["status"] == "fail" for c in observed)
    assert footer["rules"]["BO-008"] == "fail"


@pytest.mark.parametrize("name", OBSERVE_MUTANTS)
def test_without_the_capability_bo008_is_untested_never_passed(name, tmp_path):
    records, footer = bo008_run(PLAIN, mutated(name, tmp_path))
    charged = [c for r in records for c in r.get("checks", ()) if c["rule"] == "BO-008"]
    assert charged and {c["status"] for c in charged} == {"not-applicable"}
    assert all('"observe"' in c["message"] for c in charged)
    assert footer["rules"]["BO-008"] == "untested"
    overall = footer["verdicts"]["overall"]  # filtered to BO-008: partial, never conformant
    assert overall["verdict"] == "partial" and overall["filter"] == "--rule BO-008"


def test_the_in_process_target_observes_two_calls_on_one_input():
    result = InProcessTarget().call(
        "anthropic.serialize", {"history": [{"role": "user", "content": [
            {"type": "text", "text": "hi"}]}]}, "x", observe=True)
    assert isinstance(result, Observed) and isinstance(result.first, Output)
    assert result.first == result.second


def test_summarize_reports_untested_for_a_must_rule_with_only_not_applicable_cases():
    rules = [{"id": "BO-008", "family": "block-omission", "level": "MUST"}]
    status, _, _ = summarize(rules, [{"rules": ["BO-008"], "status": "not-applicable"}])
    assert status["BO-008"] == "untested"


def test_the_console_names_the_capability_when_bo008_is_untested(tmp_path, capsys):
    from agent_tck.harness.cli import main

    # exit status as for any untested rule (not a failure); the verdict and console say why:
    # a filtered run (--rule) says partial, never "not conformant" for a rule it did not see fail
    main(["run", "--impl", PLAIN, "--rule", "BO-008", "--report-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert "overall                  partial (--rule BO-008)" in out
    assert "BO-008 untested" in out and '"observe": ["input-after", "repeat"]' in out


def test_observe_messages_follow_the_published_schemas():
    import json as _json

    from agent_tck.harness.common.jsonschema_util import validator
    from agent_tck.harness.run.protocol import (
        OBSERVE,
        ProtocolViolation,
        RunCommand,
        parse_result,
        parse_started,
    )

    command = RunCommand(3, "anthropic.serialize", {"history": []}, "c", OBSERVE).to_json()
    assert list(validator("protocol/command.schema.json").iter_errors(command)) == []
    started = parse_started(_json.dumps({
        "protocol": 1, "implementation": {"name": "x", "language": "go"},
        "operations": ["anthropic.serialize"], "observe": list(OBSERVE)}))
    assert started.observe == frozenset(OBSERVE)
    reply = {"seq": 3, "output": {"messages": []},
             "observed": {"repeat": {"error": {"code": "X"}}, "input_after": {"history": []}}}
    observed = parse_result(_json.dumps(reply), 3, observe=True)
    assert isinstance(observed, Observed) and observed.input_after == {"history": []}
    with pytest.raises(ProtocolViolation, match="did not ask for"):
        parse_result(_json.dumps(reply), 3)
    with pytest.raises(ProtocolViolation, match="must hold observed"):
        parse_result(_json.dumps({"seq": 3, "output": 1}), 3, observe=True)
    with pytest.raises(ProtocolViolation, match="protocol schema"):
        parse_result(_json.dumps({**reply, "observed": {"repeat": {"crashed": {"message": "x"}},
                                                        "input_after": 1}}), 3, observe=True)
