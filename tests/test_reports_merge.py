"""``agent-tck report --merge``: several results streams, one report, verdicts recomputed."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from agent_tck.harness.commands.report import merge_runs, report
from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.reports.stream import parse_lines
from tests.reports_sample_runs import (
    RULES,
    case,
    failing_records,
    footer,
    header,
    passing_records,
    truncated_records,
)


def run_of(records: list[dict], source: str):
    return parse_lines([json.dumps(r) for r in records], source)


def test_merging_a_passing_and_a_failing_host_fails_where_one_failed() -> None:
    merged = merge_runs([run_of(passing_records(), "a/results.jsonl"),
                         run_of(failing_records(), "b/results.jsonl")])
    assert len(merged.cases) == 5 + 6
    assert [c.case for c in merged.cases][:2] == ["1:bo-reasoning", "1:bo-tool-call"]
    assert merged.rule_status["BO-001"] == "fail"  # host b failed it
    assert merged.rule_status["BO-002"] == "fail"
    assert merged.footer is not None and merged.footer.exit_code == 1
    assert merged.footer.verdicts["overall"].verdict == "not conformant"
    assert "a/results.jsonl" in merged.notes[0] and "b/results.jsonl" in merged.notes[0]


def test_two_passing_hosts_stay_conformant_and_a_truncated_one_truncates() -> None:
    one = run_of(passing_records(), "a")
    assert merge_runs([one, one]).footer.exit_code == 0
    assert merge_runs([one, run_of(truncated_records(), "t")]).truncated


def test_another_catalogue_cannot_be_merged() -> None:
    cases = [case(1, "x", ["BO-001"], "pass")]
    other = [header(rules=RULES[:1], families=["block-omission"]), *cases,
             footer(cases, RULES[:1])]
    with pytest.raises(HarnessError, match="another catalogue"):
        merge_runs([run_of(passing_records(), "a"), run_of(other, "b")])


def test_the_command_merges_files_and_asks_for_merge(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture) -> None:
    paths = []
    for name, records in (("a", passing_records()), ("b", failing_records())):
        path = tmp_path / name / "results.jsonl"
        path.parent.mkdir()
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
        paths.append(path)
    assert report(argparse.Namespace(results=paths, merge=True, format="md")) == 0
    out = capsys.readouterr().out
    assert "2:bo-reasoning-2" in out
    with pytest.raises(HarnessError, match="--merge"):
        report(argparse.Namespace(results=paths, merge=False, format="md"))


def _written(tmp_path: Path, name: str, records: list[dict]) -> Path:
    path = tmp_path / name / "results.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _other_impl(records: list[dict], **implementation: str) -> list[dict]:
    head = {**records[0], "implementation": {**records[0]["implementation"], **implementation}}
    return [head, *records[1:]]


def test_results_of_different_implementations_are_refused_without_a_name(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from agent_tck.harness.cli import main

    a = _written(tmp_path, "a", passing_records())
    b = _written(tmp_path, "b", _other_impl(passing_records(), name="other-impl"))
    assert main(["report", "--merge", str(a), str(b)]) == 2
    err = capsys.readouterr().err
    assert "RESULTS_MERGE" in err and "different implementations" in err
    assert "demo-impl 1.2.3" in err and "other-impl 1.2.3" in err and "--name" in err
    # another version of the same implementation is another implementation too
    c = _written(tmp_path, "c", _other_impl(passing_records(), version="2.0"))
    assert main(["report", "--merge", str(a), str(c)]) == 2
    assert main(["report", "--name", "fleet", str(a)]) == 2  # --name is for --merge
    assert main(["report", "--merge", "--name", "fleet", str(a), str(b), "--format", "html"]) == 0
    page = capsys.readouterr().out
    assert "agent-tck: fleet" in page
    assert str(a) in page and str(b) in page and "other-impl" in page  # its sources


def test_results_of_different_kit_versions_are_refused_without_a_name() -> None:
    newer = passing_records()
    newer[0] = {**newer[0], "tck_version": "0.2.0"}
    runs = [run_of(passing_records(), "a"), run_of(newer, "b")]
    with pytest.raises(HarnessError, match="different agent-tck versions"):
        merge_runs(runs)
    merged = merge_runs(runs, name="both kits")
    assert merged.header.implementation == {"name": "both kits"}
    assert [s["tck_version"] for s in merged.sources] == ["0.1.0", "0.2.0"]
    assert [s["results"] for s in merged.sources] == ["a", "b"]


def test_the_merged_header_lists_its_sources_in_every_view() -> None:
    from agent_tck.harness.reports import render

    merged = merge_runs([run_of(passing_records(), "host-a/results.jsonl"),
                         run_of(failing_records(), "host-b/results.jsonl")])
    for fmt in ("md", "html"):
        text = render(merged, fmt)
        assert "host-a/results.jsonl" in text and "host-b/results.jsonl" in text, fmt
