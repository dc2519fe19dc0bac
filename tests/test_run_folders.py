"""Nothing lost (issue 23): every run keeps its own folder, ``latest`` moves only when a run
finishes, a closed console pipe never cuts a run short, and ``report --list`` shows the runs."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from agent_tck.harness.cli import main
from agent_tck.harness.reports import read
from agent_tck.harness.reports.runs import (
    LATEST,
    kept_runs,
    latest_target,
    mark_latest,
    new_run_folder,
    render_list,
    safe_name,
)
from agent_tck.harness.run import conformance_run

IMPL = "agent-tck-reference"


def _folders(root: Path) -> list[Path]:
    return sorted(p for p in (root / IMPL).iterdir() if p.name != LATEST)


def test_a_second_run_keeps_the_first_runs_reports(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--rule", "BO-001"]) == 0
    assert main(["run", "--rule", "IHU-001"]) == 0  # a filtered run too gets its own folder
    first, second = _folders(tmp_path / "reports")
    assert read(first / "results.jsonl").header.filters["rule"] == ["BO-001"]
    assert read(second / "results.jsonl").header.filters["rule"] == ["IHU-001"]
    for folder in (first, second):
        assert (folder / "report.html").is_file() and (folder / "summary.md").is_file()
    latest = tmp_path / "reports" / IMPL / LATEST
    assert latest.is_symlink() and os.readlink(latest) == second.name
    assert read(latest / "results.jsonl").footer is not None


def test_latest_moves_only_when_a_run_finishes(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--rule", "BO-001"]) == 0
    (done,) = _folders(tmp_path / "reports")

    def interrupted(target: Any, cases: Any, head: Any, **kwargs: Any) -> Iterator[Any]:
        yield head
        raise KeyboardInterrupt

    monkeypatch.setattr(conformance_run, "run_cases", interrupted)
    assert main(["run", "--rule", "BO-001"]) == 130
    old, cut = _folders(tmp_path / "reports")
    assert old == done and read(cut / "results.jsonl").truncated
    assert (cut / "report.html").is_file()  # the views of a truncated run are still written
    assert latest_target(tmp_path / "reports" / IMPL) == done.name


def test_run_folders_never_collide_and_names_stay_folders(tmp_path: Path) -> None:
    now = datetime(2026, 12, 1, 22, 25, 0, tzinfo=UTC)
    names = [new_run_folder(tmp_path, now).name for _ in range(3)]
    assert names == ["20261201T222500Z", "20261201T222500Z-2", "20261201T222500Z-3"]
    assert safe_name("..") == "implementation" and safe_name(LATEST) == "implementation"
    assert safe_name("my impl/2") == "my_impl_2"


def test_where_links_cannot_be_made_latest_is_a_copy(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    def no_links(*args: Any, **kwargs: Any) -> None:
        raise OSError(1, "symbolic links are not allowed here")

    monkeypatch.setattr(os, "symlink", no_links)
    parent = tmp_path / "impl"
    runs = []
    for n in range(2):
        folder = new_run_folder(parent, datetime(2026, 1, 1, 0, 0, n, tzinfo=UTC))
        (folder / "results.jsonl").write_text(f"run {n}\n")
        runs.append(folder)
        mark_latest(folder)
    latest = parent / LATEST
    assert latest.is_dir() and not latest.is_symlink()
    assert (latest / "results.jsonl").read_text() == "run 1\n"
    assert latest_target(parent) == runs[1].name
    assert sorted(p.name for p in parent.iterdir()) == sorted([LATEST, *(r.name for r in runs)])


def test_report_list_shows_every_kept_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--rule", "BO-001"]) == 0
    assert main(["run", "--family", "in-history-update"]) == 0
    (tmp_path / "reports" / "broken" / "x").mkdir(parents=True)
    (tmp_path / "reports" / "broken" / "x" / "results.jsonl").write_text('{"type":"header"')
    # a folder written before run folders existed: its results.jsonl directly inside
    (tmp_path / "reports" / "older").mkdir()
    latest = tmp_path / "reports" / IMPL / LATEST / "results.jsonl"
    (tmp_path / "reports" / "older" / "results.jsonl").write_bytes(latest.read_bytes())
    capsys.readouterr()
    assert main(["report", "--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "4 runs kept under reports/"
    first, second, broken, older = out[0], out[1], out[2], out[3]
    assert older.startswith("reports/older/  ") and "(latest)" not in older
    assert "partial" in first and "(filtered)" in first and "(latest)" not in first
    assert "(latest)" in second and "pass" in second
    assert "unreadable" in broken
    runs = kept_runs(tmp_path / "reports")
    assert [r.latest for r in runs] == [False, True, False, False]
    assert main(["report", "--list", str(tmp_path / "nowhere")]) == 2
    assert render_list([], Path("reports")) == "no runs kept under reports/\n"


def _run_into_a_closed_pipe(args: list[str], cwd: Path, *,
                            stderr_too: bool) -> tuple[int, str]:
    """Run the CLI with stdout (and stderr) on a pipe whose reader is already gone."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    err_file = cwd / "stderr.txt"
    with err_file.open("w") as err:
        proc = subprocess.run([sys.executable, "-m", "agent_tck", *args], cwd=cwd,
                              stdout=write_end, stderr=write_end if stderr_too else err,
                              timeout=300, check=False)
    os.close(write_end)
    return proc.returncode, err_file.read_text()


def test_a_closed_console_pipe_still_finishes_the_run_and_its_reports(tmp_path: Path) -> None:
    code, err = _run_into_a_closed_pipe(["run", "--family", "block-omission"], tmp_path,
                                        stderr_too=False)
    assert code == 0 and err == ""  # quiet: no traceback, no "Exception ignored"
    run = read(tmp_path / "reports" / IMPL / LATEST / "results.jsonl")
    assert run.footer is not None and run.footer.exit_code == 0
    assert len(run.cases) > 20


def test_a_closed_pipe_on_both_streams_keeps_the_failing_verdict(tmp_path: Path,
                                                                  fake_adapter: Any) -> None:
    code, _ = _run_into_a_closed_pipe(
        ["run", "--impl", fake_adapter("flattening"), "--family", "block-omission",
         "--report-dir", str(tmp_path / "out")], tmp_path, stderr_too=True)
    assert code == 1
    run = read(tmp_path / "out" / "results.jsonl")
    assert run.footer is not None and run.footer.exit_code == 1
    assert (tmp_path / "out" / "report.html").is_file()


def test_the_pipe_guard_goes_quiet_on_a_broken_pipe() -> None:
    class Closed:
        writes = 0

        def write(self, text: str, /) -> int:
            self.writes += 1
            raise BrokenPipeError

        def flush(self) -> None:
            raise BrokenPipeError

        def isatty(self) -> bool:
            return True

    inner = Closed()
    guard = conformance_run.PipeGuard(inner)
    assert guard.write("one\n") == 4 and guard.broken
    guard.write("two\n")
    guard.flush()
    assert inner.writes == 1 and not guard.isatty()
