"""The conformance matrix's pure core (harness/matrix/model.py) and its shipped inputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from agent_tck.harness.contract.catalogue import load_catalogue
from agent_tck.harness.matrix import model as mm
from agent_tck.harness.matrix import run as mr

SCHEMA = json.loads((mr.MATRIX_DIR / "schema" / "scenario.schema.json").read_text())
MATRIX_SCHEMA = json.loads((mr.MATRIX_DIR / "schema" / "matrix.schema.json").read_text())


def test_every_shipped_scenario_is_valid_and_names_catalogue_rules() -> None:
    scenarios = mr.load_scenarios()
    known = load_catalogue().by_id
    assert {s.id for s in scenarios} >= {"multi-turn", "tool-loop", "history-reasoning",
                                         "empty-content", "mid-system", "tool-added", "resume"}
    for s in scenarios:
        assert Path(mr.MATRIX_DIR / "scenarios" / f"{s.id}.yaml").is_file(), s.id
        for rule in s.rules:
            assert rule in known, (s.id, rule)


def test_every_registered_client_has_its_driver_and_pins() -> None:
    clients, agents = mr.load_registry()
    package_json = json.loads((mr.MATRIX_DIR / "drivers/node/package.json").read_text())
    lock = json.loads((mr.MATRIX_DIR / "drivers/node/package-lock.json").read_text())
    for c in clients:
        assert (mr.MATRIX_DIR / c.driver).is_file(), c.id
        if c.kind == "node":
            for name in (c.package, *c.also):
                assert package_json["dependencies"][name] == lock["packages"][
                    f"node_modules/{name}"]["version"], name
            assert package_json["dependencies"][c.package] == c.version
        else:
            pins = (mr.MATRIX_DIR / c.lock).read_text().splitlines()
            assert f"{c.package}=={c.version}" in pins, c.id
    assert {a.id for a in agents} == {"claude-code", "pi-coding-agent"}
    assert all(a.reason for a in agents)


def test_a_bad_scenario_is_an_error_naming_its_pointer() -> None:
    doc: dict[str, Any] = {"id": "x", "title": "t", "rules": ["BO-001"], "apis": ["anthropic"],
                           "steps": [{"user": "hi", "shout": True}],
                           "script": {"version": 1, "replies": []}}
    with pytest.raises(mm.MatrixInputError) as err:
        mm.parse_scenario(doc, "x.yaml", SCHEMA)
    assert err.value.pointer == "/steps/0"
    doc["steps"] = [{"user": "hi"}]
    doc["script"] = {"version": 2, "replies": []}
    with pytest.raises(mm.MatrixInputError) as err:
        mm.parse_scenario(doc, "x.yaml", SCHEMA)
    assert err.value.pointer == "/script/version"


def _client(cid: str, apis: tuple[str, ...] = ("anthropic",)) -> mm.Client:
    return mm.Client(id=cid, package=f"pkg-{cid}", language="python", kind="command",
                     version="1.0", driver="d.py", apis=apis)


def _scenario(sid: str, rules: tuple[str, ...], apis: tuple[str, ...] = ("anthropic",)
              ) -> mm.Scenario:
    return mm.Scenario(id=sid, title=sid, rules=rules, apis=apis, data={})


def test_plan_filters_and_rejects_unknown_names() -> None:
    clients = [_client("a", ("anthropic", "openai")), _client("b")]
    scenarios = [_scenario("s1", ("BO-001",)), _scenario("s2", ("BO-002",), ("openai",))]
    assert [c.id for c in mm.plan(clients, scenarios)] == ["a.anthropic.s1", "a.openai.s2",
                                                           "b.anthropic.s1"]
    assert [c.id for c in mm.plan(clients, scenarios, ["pkg-b"], [])] == ["b.anthropic.s1"]
    assert [c.id for c in mm.plan(clients, scenarios, [], ["s2"])] == ["a.openai.s2"]
    with pytest.raises(mm.MatrixInputError, match="unknown name 'zz'"):
        mm.plan(clients, scenarios, ["zz"], [])


def test_version_overrides_by_id_or_package() -> None:
    clients = [_client("a"), _client("b")]
    out = mm.override_versions(clients, ["a@2.0", "pkg-b@3.1"])
    assert [(c.version, c.lock) for c in out] == [("2.0", ""), ("3.1", "")]
    with pytest.raises(mm.MatrixInputError):
        mm.override_versions(clients, ["a"])
    with pytest.raises(mm.MatrixInputError):
        mm.override_versions(clients, ["nobody@1"])


@pytest.mark.parametrize(("kwargs", "expected"), [
    ({"exit_code": 0, "timed_out": False, "stdout": "", "requests": 2}, ("ran", "")),
    ({"exit_code": 0, "timed_out": False, "stdout": "", "requests": 0},
     ("could-not-run", "the driver sent no request to the provider")),
    ({"exit_code": 1, "timed_out": False, "stdout": "", "requests": 3},
     ("could-not-run", "the driver exited with 1")),
    ({"exit_code": None, "timed_out": True, "stdout": "", "requests": 1, "timeout": 5},
     ("could-not-run", "the driver did not finish within 5s (killed)")),
    ({"exit_code": 3, "timed_out": False, "stdout": "x\nunsupported: no way", "requests": 0},
     ("unsupported", "no way")),
    ({"exit_code": 0, "timed_out": False, "stdout": "", "requests": 1, "audit_error": "gone"},
     ("could-not-run", "gone")),
])
def test_classify_run(kwargs: dict[str, Any], expected: tuple[str, str]) -> None:
    assert mm.classify_run(**kwargs) == expected


def _outcome(scenario: str, status: str = "ran", findings: tuple[dict[str, Any], ...] = (),
             checked: tuple[str, ...] = ("BO-001", "BO-002")) -> mm.Outcome:
    return mm.Outcome(cell_id=f"c.{scenario}", column="c/anthropic", scenario=scenario,
                      status=status, findings=findings, checked=frozenset(checked))


FINDING = {"rule": "BO-001", "severity": "error", "pointer": "/request/body/messages/0",
           "message": "m", "exchange": 0, "excerpt": "{}"}


def test_cell_verdicts_fail_beats_could_not_run_beats_pass_beats_not_exercised() -> None:
    scenarios = {"s1": _scenario("s1", ("BO-001",)), "s2": _scenario("s2", ("BO-001",)),
                 "s3": _scenario("s3", ("BO-002",))}
    v = mm.verdict
    assert v("BO-001", [_outcome("s1"), _outcome("s2")], scenarios)["status"] == "pass"
    assert v("BO-001", [_outcome("s1"), _outcome("s2", "could-not-run")],
             scenarios)["status"] == "could-not-run"
    failed = v("BO-001", [_outcome("s1", "could-not-run"), _outcome("s3", findings=(FINDING,))],
               scenarios)
    assert failed["status"] == "fail"
    assert failed["severity"] == "error"
    assert failed["findings"][0]["scenario"] == "s3"  # a finding counts wherever it shows
    assert v("BO-001", [_outcome("s1", "unsupported")], scenarios)["status"] == "not-exercised"
    # named, ran, but the audit does not check the rule on this API: not a pass
    assert v("BO-001", [_outcome("s1", checked=())], scenarios)["status"] == "not-exercised"
    assert v("BO-001", [_outcome("s3")], scenarios)["status"] == "not-exercised"


def test_excerpt_resolves_the_pointer_and_cuts_long_values() -> None:
    doc = {"request": {"body": {"messages": [{"role": "user", "content": "a/b" * 300}]}}}
    assert mm.excerpt(doc, "/request/body/messages/0/role") == '"user"'
    assert len(mm.excerpt(doc, "/request/body/messages/0/content")) == 400
    assert mm.excerpt(doc, "/request/body/messages/7") == ""


def test_the_document_validates_and_renders() -> None:
    col = mm.Column(_client("a"), "anthropic")
    scenarios = [_scenario("s1", ("BO-001", "BO-002"))]
    finding = {**FINDING, "excerpt": '{"type": "<thinking>"}'}
    doc = mm.assemble(columns=[col], scenarios=scenarios,
                      outcomes=[mm.Outcome(cell_id="a.anthropic.s1", column=col.id,
                                           scenario="s1", status="ran", findings=(finding,),
                                           checked=frozenset({"BO-001", "BO-002"}),
                                           report="cells/a.anthropic.s1/audit")],
                      rule_info={"BO-001": {"title": "Reasoning", "level": "MUST"}},
                      agents=[mm.Agent("ag", "@x/ag", "cannot be scripted")],
                      generated="today", tck_version="0")
    jsonschema.Draft202012Validator(MATRIX_SCHEMA).validate(doc)
    assert [c["status"] for c in doc["columns"][0]["cells"]] == ["fail", "pass"]
    md = mm.render_markdown(doc)
    assert "| BO-001 Reasoning | FAIL |" in md
    assert "cells/a.anthropic.s1/audit/report.html" in md
    from agent_tck.harness.reports import matrix_html

    page = matrix_html.render(doc)
    assert "&lt;thinking&gt;" in page
    assert "<thinking>" not in page
    assert "cannot be scripted" in page


def test_a_rule_whose_situation_the_client_rewrote_away_is_not_exercised() -> None:
    data = {"exercised_when": {"IHU-D001": {"message_role": "system"}}}
    rewritten = [{"messages": [{"role": "user", "content": "q"}]},
                 {"messages": [{"role": "user", "content": "q"},
                               {"role": "assistant", "content": "a"},
                               {"role": "user", "content": "q2 (system note as text)"}]}]
    kept = [*rewritten, {"messages": [{"role": "user", "content": "q2"},
                                      {"role": "system", "content": "note"}]}]
    assert set(mm.unexercised(data, rewritten)) == {"IHU-D001"}
    assert mm.unexercised(data, kept) == {}
    scenarios = {"s1": _scenario("s1", ("IHU-D001",))}
    outcome = mm.Outcome(cell_id="c.s1", column="c/anthropic", scenario="s1", status="ran",
                         checked=frozenset({"IHU-D001"}),
                         unexercised=mm.unexercised(data, rewritten))
    verdict = mm.verdict("IHU-D001", [outcome], scenarios)
    assert verdict["status"] == "not-exercised"
    assert "rewrote" in verdict["notes"][0]


def test_the_command_and_the_shell_agree_on_where_the_matrix_lives() -> None:
    from agent_tck.harness.commands import matrix as command

    assert command.MATRIX_DIR == mr.MATRIX_DIR
    assert command.DEFAULT_REPORT_DIR == mr.DEFAULT_REPORT_DIR


def test_a_client_that_cannot_install_is_a_could_not_run_run_with_its_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_TCK_CACHE", str(tmp_path / "cache"))
    client = mm.Client(id="js-x", package="@x/never-installed", language="node", kind="node",
                       version="9.9.9", driver="drivers/node/openai.mjs", apis=("openai",))
    with pytest.raises(mr.InstallError, match="not installed"):
        mr.install(client, offline=True)
    cell = mm.Cell(mm.Column(client, "openai"), _scenario("s1", ("BO-001",), ("openai",)))
    outcome = mr.run_cell(cell, mr.InstallError("npm ci exited with 1: E404"),
                          mr.Settings(out=tmp_path / "out"), mr.Scrub([]))
    assert (outcome.status, outcome.reason) == ("could-not-run",
                                                "install failed: npm ci exited with 1: E404")
    assert "E404" in (tmp_path / "out" / outcome.log).read_text()
