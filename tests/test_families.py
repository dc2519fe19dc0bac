"""Family descriptors: the built-in ones agree with the code, and a family plugs in from files.

The toy family (tests/fixtures/toy_family/) is a descriptor, a catalogue, a vector file and one
operation, declared with ``AGENT_TCK_FAMILIES``; no file of the kit is edited for it.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tck import reference_impl as reference
from agent_tck.harness import families
from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.contract.catalogue import load_catalogue
from agent_tck.harness.contract.vectors import load_cases, load_file
from agent_tck.harness.run.compare import _normalizers

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
TOY = FIXTURES / "toy_family"


def agent_tck(*args: str, plug_in: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != families.ENV}
    if plug_in is not None:
        env[families.ENV] = plug_in
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(FIXTURES), env.get("PYTHONPATH"))
                                            if p)
    return subprocess.run([sys.executable, "-m", "agent_tck", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=300, check=False, env=env)


# --- the built-in descriptors -----------------------------------------------------------------


def test_every_catalogue_and_vector_family_has_a_descriptor_with_its_prefix():
    catalogue = load_catalogue()
    assert set(catalogue.families) == set(families.family_names())
    for rule in catalogue.rules:
        assert rule.id.split("-")[0] == families.get(rule.family).prefix  # type: ignore[union-attr]
    assert {c.family for c in load_cases()} <= set(families.family_names())


def test_descriptors_name_every_operations_module_of_the_reference():
    named = {m for f in families.families() for m in f.operations}
    modules = set()
    for info in pkgutil.iter_modules(reference.__path__):
        if info.ispkg and importlib.util.find_spec(f"agent_tck.reference_impl.{info.name}.ops"):
            modules.add(f"agent_tck.reference_impl.{info.name}.ops")
    # the wire-audit family's operations run the audit's own rules, so they live beside them
    assert named == modules | {"agent_tck.harness.audit.operations"}
    assert set(families.operations()) == {
        name for module in named for name in importlib.import_module(module).OPERATIONS}


def test_default_modes_are_known_modes_of_operations_the_family_defines():
    for family in families.families():
        own = families._modules_attr("OPERATIONS", family.operations)
        for operation, mode in family.compare.items():
            assert operation in own, (family.name, operation)
            assert mode in _normalizers(), (family.name, mode)


def test_wire_checks_are_read_only_from_the_module_the_audit_runs():
    # harness.audit.engine runs harness.audit.rules and nothing else: a descriptor naming
    # another module would claim coverage by checks that never run.
    assert {m for f in families.families() for m in f.wire_checks} == {
        "agent_tck.harness.audit.rules"}
    assert families.wire_checks()


# --- undeclared families are errors -----------------------------------------------------------


def test_a_catalogue_naming_an_undeclared_family_is_an_error(tmp_path):
    shutil.copy(TOY / "rules.yaml", tmp_path / "toy.yaml")
    with pytest.raises(HarnessError) as err:
        load_catalogue(tmp_path)
    assert err.value.code == "CATALOGUE_INVALID"
    assert err.value.where.endswith("toy.yaml#/family")
    assert "family 'toy' has no descriptor" in err.value.message


def test_a_catalogue_with_another_prefix_than_its_descriptor_is_an_error(tmp_path):
    text = (ROOT / "vectors" / "rules" / "message-parts.yaml").read_text(encoding="utf-8")
    (tmp_path / "mp.yaml").write_text(text.replace("prefix: MP", "prefix: MPX"), "utf-8")
    with pytest.raises(HarnessError, match="differs from the family descriptor's MP"):
        load_catalogue(tmp_path)


def test_a_vector_file_naming_an_undeclared_family_is_an_error():
    with pytest.raises(HarnessError) as err:
        load_file(FIXTURES / "undeclared_family" / "nameless.json")
    assert err.value.code == "VECTOR_INVALID"
    assert "family 'nameless' has no descriptor" in err.value.message


def test_two_descriptors_with_one_prefix_are_an_error(monkeypatch, tmp_path):
    (tmp_path / "twin_family.py").write_text(
        "from agent_tck.harness.families import Family\n"
        "FAMILY = Family(name='twin', prefix='BO', order=999)\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(families.ENV, "twin_family")
    with pytest.raises(HarnessError, match="share the prefix 'BO'"):
        families.families()


def test_an_unimportable_descriptor_module_is_a_usage_error():
    proc = agent_tck("run", "--family", "toy", plug_in="no_such_family_module")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "FAMILY_INVALID" in proc.stderr
    assert "no_such_family_module" in proc.stderr


# --- the toy family, from fixtures alone ------------------------------------------------------


def test_toy_family_failing_must_rule_fails_the_run(tmp_path):
    proc = agent_tck("run", "--family", "toy", "--report-dir", str(tmp_path), plug_in="toy_family")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "toy-double-negative" in proc.stderr
    assert proc.stdout.splitlines()[-1] == "2 passed, 1 failed"
    lines = [json.loads(line) for line in
             (tmp_path / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    head, footer = lines[0], lines[-1]
    assert head["families"] == ["toy"]
    assert [r["id"] for r in head["rules"]] == ["TOY-D001", "TOY-D002"]
    assert footer["rules"]["TOY-D001"] == "fail"
    assert footer["exit_code"] == 1


def test_toy_family_runs_after_the_builtin_families_in_descriptor_order(tmp_path):
    proc = agent_tck("run", "--family", "block-omission", "--family", "toy",
                     "--report-dir", str(tmp_path), plug_in="toy_family")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    head = json.loads((tmp_path / "results.jsonl").read_text(encoding="utf-8").splitlines()[0])
    # wire-audit: bo-durable-call-text-result cites WA-D001 (its Chat Completions tool message
    # answers the assistant directly), and a rule a selected case cites is judged
    assert head["families"] == ["block-omission", "wire-audit", "toy"]


def test_toy_vectors_without_the_descriptor_are_an_error_not_a_pass(tmp_path):
    proc = agent_tck("run", "--vectors", str(TOY / "vectors"), "--report-dir", str(tmp_path))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "VECTOR_INVALID" in proc.stderr
    assert "family 'toy' has no descriptor" in proc.stderr
    assert not (tmp_path / "results.jsonl").exists()


def test_a_rule_of_another_family_cited_by_a_selected_case_gates_the_run():
    # wire-audit vectors also cite block-omission rules; a --family wire-audit run must judge
    # them, or an implementation missing every BO-001 finding would pass
    from agent_tck.harness.run.evaluate import run_cases
    from agent_tck.harness.run.runner import Filters, header, select
    from agent_tck.harness.run.targets import InProcessTarget

    def no_bo_001(payload):
        return [f for f in families.operations()["wire.check"](payload)
                if f["rule"] != "BO-001"]

    filters = Filters(("wire-audit",))
    cases = [c for c in select(load_cases(), filters)  # only cases citing no WA rule
             if not any(rid.startswith("WA-") for rid in c.rules)]
    head = header(load_catalogue(), cases, filters, target_info={},
                  implementation={"name": "drops BO-001"})
    target = InProcessTarget({**families.operations(), "wire.check": no_bo_001})
    records = list(run_cases(target, cases, head))
    failing = {rid for r in records[1:-1] if r.status == "fail" for rid in r.rules}
    assert failing == {"BO-001"}
    assert "block-omission" in head.families
    assert records[-1].rules["BO-001"] == "fail"
    assert records[-1].exit_code == 1
