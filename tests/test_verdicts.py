"""Verdicts say exactly what they cover (issue 21 E, issue 26 item 6)."""

from __future__ import annotations

import json

from agent_tck.harness.cli import main
from agent_tck.harness.run.results import CaseResult, CheckResult, summarize
from agent_tck.harness.run.verdicts import declared_families, filter_text, shape

RULES = [{"id": "BO-001", "family": "block-omission", "level": "MUST"},
         {"id": "BO-002", "family": "block-omission", "level": "MUST"},
         {"id": "BO-D002", "family": "block-omission", "level": "SHOULD"},
         {"id": "CFP-001", "family": "chunk-free-persistence", "level": "MUST"}]
FAMILIES = ("block-omission", "chunk-free-persistence")


def _case(family: str, rule: str, status: str, called: bool = True) -> CaseResult:
    checks = (CheckResult("output", rule, status),) if called else ()
    return CaseResult(1, "c", family, "op", (rule,), status, "", {}, {}, None, "",
                      checks=checks)


def _shaped(records, filters, declared=None):
    return shape(summarize(RULES, records), RULES, FAMILIES, filters,
                 declared if declared is not None else declared_families(FAMILIES, records))


def test_a_filtered_run_is_partial_and_names_its_filter_never_not_conformant_for_the_rest():
    records = [_case("block-omission", "BO-001", "pass"),
               _case("chunk-free-persistence", "CFP-001", "pass")]
    filters = {"family": ["block-omission"], "k": "tool result"}
    verdicts = _shaped(records, filters).verdicts
    # BO-002 was filtered out (untested): the run says partial, not "not conformant"
    assert verdicts["block-omission"]["verdict"] == "partial"
    assert verdicts["block-omission"]["filter"] == '--family block-omission -k "tool result"'
    assert verdicts["overall"]["verdict"] == "partial"
    assert filter_text({"vectors": ["v/"], "only_vectors": True}) == "--vectors v/ --only-vectors"


def test_a_filtered_run_says_not_conformant_for_a_must_it_ran_and_saw_fail():
    records = [_case("block-omission", "BO-001", "fail"),
               _case("chunk-free-persistence", "CFP-001", "pass")]
    verdicts = _shaped(records, {"rule": ["BO-001"]}).verdicts
    assert verdicts["block-omission"] == {"verdict": "not conformant", "failing": ["BO-001"]}
    assert verdicts["overall"]["verdict"] == "not conformant"


def test_an_unfiltered_run_keeps_untested_musts_not_conformant():
    records = [_case("block-omission", "BO-001", "pass"),
               _case("chunk-free-persistence", "CFP-001", "pass")]
    verdicts = _shaped(records, {}).verdicts
    assert verdicts["block-omission"] == {"verdict": "not conformant", "failing": ["BO-002"]}


def test_a_family_with_no_declared_operation_is_not_declared_and_overall_names_its_families():
    records = [_case("block-omission", "BO-001", "pass"),
               _case("block-omission", "BO-002", "pass"),
               _case("block-omission", "BO-D002", "pass"),
               _case("chunk-free-persistence", "CFP-001", "not-applicable", called=False)]
    verdicts = _shaped(records, {}).verdicts
    assert verdicts["chunk-free-persistence"]["verdict"] == "not declared"
    assert verdicts["overall"] == {"verdict": "conformant, recommended", "failing": [],
                                   "covers": ["block-omission"]}


def test_an_adapter_declaring_no_operation_exits_1_with_a_clear_message(fake_adapter, tmp_path,
                                                                        capsys):
    code = main(["run", "--impl", fake_adapter("subset", ""), "--report-dir", str(tmp_path)])
    assert code == 1
    assert "declares no operation" in capsys.readouterr().err


def test_an_adapter_whose_operations_cover_no_must_rule_exits_1(fake_adapter, tmp_path, capsys):
    # an operation no vector runs: nothing the verdict needs can be tested
    code = main(["run", "--impl", fake_adapter("subset", "tck.nothing"), "--report-dir",
                 str(tmp_path)])
    assert code == 1
    assert "cover no MUST rule" in capsys.readouterr().err


def test_families_the_adapter_does_not_declare_say_not_declared_end_to_end(fake_adapter,
                                                                           tmp_path, capsys):
    code = main(["run", "--impl", fake_adapter("subset", "message-parts.titles"),
                 "--family", "message-parts", "--family", "send-message-adjacency",
                 "--report-dir", str(tmp_path)])
    out = capsys.readouterr().out
    footer = json.loads((tmp_path / "results.jsonl").read_text().splitlines()[-1])
    assert footer["verdicts"]["send-message-adjacency"]["verdict"] == "not declared"
    assert footer["verdicts"]["message-parts"]["verdict"] == "partial"
    assert footer["verdicts"]["overall"]["covers"] == ["message-parts"]
    assert "send-message-adjacency   not declared" in out
    assert "not conformant" not in out and code == 0


def test_a_filtered_reference_run_is_partial_on_the_console(tmp_path, capsys):
    assert main(["run", "--family", "block-omission", "-k", "tool result",
                 "--report-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert 'block-omission           partial (--family block-omission -k "tool result")' in out
    assert "not conformant" not in out
    summary = (tmp_path / "summary.md").read_text()
    assert "partial" in summary and "not conformant" not in summary


def test_the_in_process_reference_observes_bo008_on_user_vectors(tmp_path, capsys):
    """--only-vectors on the reference: a serializer case that does not cite BO-008 is still
    observed, so BO-008 is judged, and the run is partial (issue 21 B, E)."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    case = json.loads((root / "vectors/block-omission/user-input.json").read_text())["cases"][0]
    assert "BO-008" not in case["rules"]
    mine = tmp_path / "v.json"
    mine.write_text(json.dumps({"family": "block-omission", "cases": [case]}))
    assert main(["run", "--vectors", str(mine), "--only-vectors",
                 "--report-dir", str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out
    footer = json.loads((tmp_path / "r" / "results.jsonl").read_text().splitlines()[-1])
    assert footer["rules"]["BO-008"] == "pass"
    assert "does not declare" not in out and "partial (--vectors" in out


def test_a_family_whose_called_cases_charge_only_other_families_rules_is_not_declared():
    # a developer-messages-like case run on a serializer, its checks all charged to BO rules
    borrowed = CaseResult(1, "c", "chunk-free-persistence", "anthropic.serialize", ("BO-001",),
                          "pass", "", {}, {}, None, "",
                          checks=(CheckResult("invariant:provider-request", "BO-001", "pass"),))
    records = [_case("block-omission", "BO-001", "pass"), _case("block-omission", "BO-002", "pass"),
               _case("block-omission", "BO-D002", "pass"), borrowed]
    assert declared_families(FAMILIES, records) == FAMILIES  # without the rules: as before
    declared = declared_families(FAMILIES, records, RULES)
    assert declared == ("block-omission",)
    verdicts = _shaped(records, {}, declared).verdicts
    assert verdicts["chunk-free-persistence"]["verdict"] == "not declared"
    assert verdicts["overall"]["verdict"] == "conformant, recommended"
    # one check of its own rule makes it declared again, and its untested MUSTs count
    own = CaseResult(1, "c", "chunk-free-persistence", "op", ("CFP-001",), "fail", "", {}, {},
                     None, "", checks=(CheckResult("output", "CFP-001", "fail"),))
    assert "chunk-free-persistence" in declared_families(FAMILIES, [*records, own], RULES)
