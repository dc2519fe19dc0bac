"""write_all: the runner's entry point writes the stream, then every view from the stream."""

from __future__ import annotations

import json

import pytest
from reports_sample_runs import SECRETS, failing_records, hostile_records, truncated_records

from agent_tck.harness.reports import FORMATS, read, render, render_folder, write_all, write_views
from agent_tck.harness.reports.stream import StreamError, Writer


def test_writes_every_file_and_returns_their_paths(tmp_path):
    folder = tmp_path / "reports" / "demo"
    paths = write_all(folder, failing_records())
    assert set(paths) == {"results.jsonl", "junit.xml", "summary.md", "report.html",
                          "badges/block-omission.json", "badges/in-history-update.json",
                          "badges/overall.json"}
    for name, path in paths.items():
        assert path == folder / name and path.stat().st_size > 0
    assert not list(folder.rglob(".*"))  # no temporary file left behind


def test_views_are_rendered_from_the_stream_alone_and_re_render_identically(tmp_path):
    paths = write_all(tmp_path, failing_records())
    run = read(paths["results.jsonl"])
    for fmt, (name, _) in FORMATS.items():
        assert paths[name].read_text(encoding="utf-8") == render(run, fmt)
    with pytest.raises(ValueError, match="unknown report format 'pdf'"):
        render(run, "pdf")


def test_a_planted_secret_reaches_no_artifact(tmp_path):
    write_all(tmp_path, hostile_records())
    artifacts = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(artifacts) == 6
    for path in artifacts:
        content = path.read_bytes()
        for secret in (*SECRETS, "plain-key-value-04"):
            needle = secret.split()[-1].encode()
            assert needle not in content, f"{needle!r} in {path.name}"


def test_a_truncated_run_still_gets_every_view(tmp_path):
    paths = write_all(tmp_path, truncated_records())
    assert read(paths["results.jsonl"]).truncated
    assert "run truncated, no verdict" in paths["summary.md"].read_text(encoding="utf-8")
    assert json.loads(paths["badges/overall.json"].read_text())["message"] == "incomplete"


def test_stale_badges_of_families_no_longer_in_the_run_are_removed(tmp_path):
    write_all(tmp_path, failing_records())
    records = failing_records()
    records[0] = {**records[0], "rules": records[0]["rules"][:4],
                  "families": ["block-omission"]}
    paths = write_all(tmp_path, records)
    assert sorted(p.name for p in (tmp_path / "badges").iterdir()) == [
        "block-omission.json", "overall.json"]
    assert "badges/in-history-update.json" not in paths


def test_invalid_records_keep_the_data_and_raise_naming_the_line(tmp_path):
    records = failing_records()
    records[2] = {**records[2], "status": "passed"}
    with pytest.raises(StreamError) as err:
        write_all(tmp_path, records)
    assert err.value.code == "RESULTS_BAD_RECORD" and err.value.line == 3
    assert (tmp_path / "results.jsonl").exists()


def test_write_views_re_renders_into_another_folder(tmp_path):
    paths = write_all(tmp_path / "a", failing_records())
    again = write_views(tmp_path / "b", read(paths["results.jsonl"]))
    for name, path in again.items():
        assert path.read_bytes() == paths[name].read_bytes()


def test_contract_with_the_runner(tmp_path):
    """The evaluate loop builds its footer with summarize(); write_all takes its records."""
    from agent_tck.harness.contract.vectors import Case, Expectation
    from agent_tck.harness.run.evaluate import run_cases
    from agent_tck.harness.run.results import Header
    from agent_tck.harness.run.targets import InProcessTarget

    def echo(value):
        return value

    def broken(value):
        raise RuntimeError("boom")

    rules = [{"id": "BO-001", "family": "block-omission", "level": "MUST", "title": "t",
              "decision": False},
             {"id": "BO-002", "family": "block-omission", "level": "MUST", "title": "u",
              "decision": False}]
    head = {"type": "header", "format": "agent-tck-results/1", "tck_version": "0.1.0",
            "started": "2026-01-01T00:00:00+00:00",
            "implementation": {"name": "echo", "operations": ["tck.echo", "tck.broken"]},
            "target": {"kind": "in-process"}, "filters": {"family": [], "rule": [], "k": None},
            "strict": False, "families": ["block-omission"], "rules": rules}
    cases = [
        Case("c-echo", "block-omission", ("BO-001",), "echo", {"a": 1},
             (Expectation("tck.echo", output={"a": 1}),), "<test>"),
        Case("c-broken", "block-omission", ("BO-002",), "broken", {"a": 2},
             (Expectation("tck.broken", output={"a": 2}),
              Expectation("tck.missing", output={"a": 2})), "<test>"),
    ]
    target = InProcessTarget({"tck.echo": echo, "tck.broken": broken}, name="echo")
    records = list(run_cases(target, cases, Header.from_json(head)))
    paths = write_all(tmp_path, records)
    run = read(paths["results.jsonl"])
    assert [c.status for c in run.cases] == ["pass", "errored", "not-applicable"]
    assert run.rule_status == {"BO-001": "pass", "BO-002": "errored"}
    assert run.verdicts["overall"].failing == ("BO-002",)
    assert run.disagreements == ()


def test_a_streamed_run_that_dies_renders_as_truncated(tmp_path):
    records = failing_records()
    try:
        with Writer(tmp_path / "results.jsonl") as writer:
            for record in records:
                if record["type"] == "footer":
                    raise KeyboardInterrupt
                writer.write(record)
    except KeyboardInterrupt:
        paths = render_folder(tmp_path)
    assert "Truncated run" in paths["report.html"].read_text(encoding="utf-8")
    assert 'type="truncated"' in paths["junit.xml"].read_text(encoding="utf-8")
