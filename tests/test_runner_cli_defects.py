"""Small `run` / `smoke` / `subagents` defects from issue 12, each pinned by its outcome."""

from __future__ import annotations

import json

import pytest

from agent_tck.harness.cli import main
from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.reports import read
from agent_tck.harness.run.subprocess_target import SubprocessTarget
from tests.test_subagents_cli import SCENARIO


@pytest.mark.parametrize("command", ["run", "smoke"])
def test_an_unbalanced_quote_in_impl_is_a_usage_error(command, capsys):
    assert main([command, "--impl", "'x"]) == 2
    assert "No closing quotation" in capsys.readouterr().err


def test_smoke_exits_2_like_run_when_the_adapter_cannot_start(capsys):
    assert main(["smoke", "--impl", "/nonexistent/adapter"]) == 2
    assert main(["run", "--impl", "/nonexistent/adapter", "--rule", "IHU-001"]) == 2


def test_an_adapter_name_with_a_trailing_newline_is_refused(fake_adapter):
    with pytest.raises(HarnessError, match="implementation/name"):
        SubprocessTarget(fake_adapter("narrow", json.dumps(json.dumps("x\n"))))
    SubprocessTarget(fake_adapter("narrow", json.dumps(json.dumps("x")))).close()


def test_a_report_dir_that_cannot_be_written_says_why(tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("")
    assert main(["run", "--rule", "IHU-001", "--report-dir", str(afile)]) == 2
    assert "names a file" in capsys.readouterr().err
    assert main(["run", "--rule", "IHU-001", "--report-dir", str(afile / "sub")]) == 2
    err = capsys.readouterr().err
    assert "REPORT_DIR" in err and "Not a directory" in err and "Traceback" not in err


def test_a_filtered_run_says_partial_not_conformant(tmp_path, capsys):
    assert main(["run", "--rule", "IHU-001", "--report-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "overall                  partial" in out
    badge = json.loads((tmp_path / "badges" / "overall.json").read_text())
    assert badge["message"] == "partial (--rule IHU-001)" and badge["color"] != "green"
    assert read(tmp_path / "results.jsonl").verdicts["overall"].verdict == "partial"


def test_subagents_with_an_adapter_that_does_not_declare_it_is_not_applicable(
        fake_adapter, tmp_path, capsys):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(SCENARIO), encoding="utf-8")
    assert main(["subagents", "--impl", fake_adapter("narrow"), str(path)]) == 0
    assert "not applicable" in capsys.readouterr().out
