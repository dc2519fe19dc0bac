"""The command line end to end: real subprocesses, real report files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tck.harness.cli import main
from agent_tck.harness.reports import read

pytestmark = pytest.mark.slow  # its subprocesses: start it first on a core of its own (conftest.py)

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = f"{sys.executable} -m agent_tck.harness.reference_adapter"
FAMILIES = ["--family", "block-omission", "--family", "in-history-update"]


def agent_tck(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "agent_tck", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=300, check=False)


def verdicts(folder: Path) -> dict[tuple[str, str], str]:
    return {(c.case, c.operation): c.status for c in read(folder / "results.jsonl").cases}


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory: pytest.TempPathFactory):
    """One whole run of the in-process reference, read by the two tests below."""
    folder = tmp_path_factory.mktemp("inproc")
    return folder, agent_tck("run", "--report-dir", str(folder))


def test_run_against_the_reference_passes_and_writes_every_report(reference_run):
    folder, proc = reference_run
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in ("results.jsonl", "junit.xml", "summary.md", "report.html", "badges/overall.json"):
        assert (folder / name).is_file(), name
    run = read(folder / "results.jsonl")
    assert not run.truncated
    assert {c.status for c in run.cases} == {"pass"}
    assert " passed, 0 failed" in proc.stdout.splitlines()[-1]


def test_the_reference_adapter_as_a_subprocess_gives_the_same_verdicts(reference_run, tmp_path):
    a, inproc = reference_run
    assert inproc.returncode == 0, inproc.stdout + inproc.stderr
    b = tmp_path / "sub"
    proc = agent_tck("run", "--impl", REFERENCE, "--report-dir", str(b))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert verdicts(a) == verdicts(b)
    assert len(verdicts(a)) > 100


def test_a_broken_adapter_fails_on_the_right_rules(tmp_path, fake_adapter):
    proc = agent_tck("run", "--impl", fake_adapter("flattening"), *FAMILIES,
                     "--report-dir", str(tmp_path))
    assert proc.returncode == 1
    run = read(tmp_path / "results.jsonl")
    failed_rules = {r for c in run.cases if c.status == "fail" for r in c.rules}
    # the fault is flattening reasoning in user input into text: it must be caught on the
    # reasoning-omission and no-flattening rules, and exactly the cases whose user input holds
    # reasoning can fail (a case citing several rules fails on all of them); no other case may
    assert {"BO-001", "BO-015"} <= failed_rules
    for case in run.cases:
        if not _user_reasoning(case.input):
            assert case.status == "pass", case.case
    assert run.footer is not None and run.footer.exit_code == 1


def _user_reasoning(payload: object) -> bool:
    history = payload.get("history") if isinstance(payload, dict) else None
    return any(
        m.get("role") == "user" and isinstance(m.get("content"), list)
        and any(isinstance(b, dict) and b.get("type") == "reasoning" for b in m["content"])
        for m in history or [] if isinstance(m, dict)
    )


def test_a_crashing_adapter_gives_errored_cases_not_a_crash(tmp_path, fake_adapter):
    proc = agent_tck("run", "--impl", fake_adapter("fake", "crash:omit"), *FAMILIES,
                     "--report-dir", str(tmp_path))
    assert proc.returncode == 1
    statuses = {c.status for c in read(tmp_path / "results.jsonl").cases}
    assert statuses == {"pass", "errored"}
    assert "ERRORED" in proc.stderr


def test_an_adapter_that_does_not_start_is_exit_2(tmp_path):
    proc = agent_tck("run", "--impl", "/no/such/adapter", "--report-dir", str(tmp_path))
    assert proc.returncode == 2
    assert "IMPL_START_FAILED" in proc.stderr and "could not start" in proc.stderr


def test_a_malformed_vector_names_its_file_and_pointer(tmp_path):
    bad = tmp_path / "mine" / "bad.json"
    bad.parent.mkdir()
    bad.write_text(json.dumps({"family": "block-omission", "cases": [
        {"id": "x", "rules": ["BO-001"], "description": "", "input": {}, "expect": {
            "anthropic.serialize": {"output": {}, "error": {"code": "X"}}}}]}))
    proc = agent_tck("run", "--vectors", str(bad.parent), "--report-dir", str(tmp_path / "r"))
    assert proc.returncode == 2
    assert "VECTOR_INVALID" in proc.stderr
    assert f"{bad}#/cases/0/expect/anthropic.serialize" in proc.stderr


def test_invalid_json_in_a_vector_names_the_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"family": "block-omission",\n "cases": [,]}')
    proc = agent_tck("run", "--vectors", str(bad), "--report-dir", str(tmp_path / "r"))
    assert proc.returncode == 2 and f"{bad}:2:" in proc.stderr


def test_extra_vectors_run_beside_ours_and_cite_known_rules(tmp_path):
    mine = tmp_path / "mine.json"
    case = json.loads((ROOT / "vectors/block-omission/user-input.json").read_text())["cases"][0]
    mine.write_text(json.dumps({"family": "block-omission",
                                "cases": [{**case, "id": "my-own-case"}]}))
    proc = agent_tck("run", "--vectors", str(mine), "--only-vectors",
                     "--report-dir", str(tmp_path / "r"))
    assert proc.returncode == 0, proc.stderr
    assert {c.case for c in read(tmp_path / "r" / "results.jsonl").cases} == {"my-own-case"}
    mine.write_text(json.dumps({"family": "block-omission",
                                "cases": [{**case, "id": "x", "rules": ["BO-999"]}]}))
    proc = agent_tck("run", "--vectors", str(mine), "--report-dir", str(tmp_path / "r"))
    assert proc.returncode == 2 and "BO-999" in proc.stderr


@pytest.mark.parametrize(
    ("args", "expected"),
    [(["--family", "block-omission"], {"block-omission"}),
     (["--rule", "IHU-001"], None),
     (["-k", "tool result"], None)],
)
def test_filters_narrow_the_run(tmp_path, args, expected):
    assert main(["run", *args, "--report-dir", str(tmp_path)]) == 0
    run = read(tmp_path / "results.jsonl")
    if expected is not None:
        assert {c.family for c in run.cases} == expected
    if "--rule" in args:
        assert all("IHU-001" in c.rules for c in run.cases)
    assert run.cases


def test_unknown_filters_are_usage_errors(tmp_path, capsys):
    assert main(["run", "--family", "nope", "--report-dir", str(tmp_path)]) == 2
    assert "no family named 'nope'" in capsys.readouterr().err
    assert main(["run", "--rule", "ZZ-001", "--report-dir", str(tmp_path)]) == 2


def test_baseline_turns_failures_into_expected_and_catches_stale_entries(tmp_path, fake_adapter):
    impl = fake_adapter("flattening")
    first = tmp_path / "first"
    assert agent_tck("run", "--impl", impl, *FAMILIES, "--report-dir", str(first)).returncode == 1
    baseline = tmp_path / "baseline.yaml"
    proc = agent_tck("baseline", str(first / "results.jsonl"), "-o", str(baseline))
    assert proc.returncode == 0, proc.stderr
    # with every failure listed, the broken adapter's run passes (failures stay visible)
    second = tmp_path / "second"
    proc = agent_tck("run", "--impl", impl, *FAMILIES, "--expect", str(baseline),
                     "--report-dir", str(second))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "expected-fail" in {c.status for c in read(second / "results.jsonl").cases}
    # the fixed implementation (the reference) makes every entry stale: the run fails, naming them
    third = tmp_path / "third"
    proc = agent_tck("run", *FAMILIES, "--expect", str(baseline), "--report-dir", str(third))
    assert proc.returncode == 1
    assert "stale baseline entry" in proc.stdout or "stale" in proc.stdout
    stale = [c for c in read(third / "results.jsonl").cases if c.status == "stale"]
    assert stale and all("remove" in c.message for c in stale)


def test_a_baseline_naming_an_unknown_case_is_refused(tmp_path):
    baseline = tmp_path / "b.yaml"
    baseline.write_text("expected_failures:\n  - case: no-such-case\n    reason: x\n")
    proc = agent_tck("run", "--expect", str(baseline), "--report-dir", str(tmp_path / "r"))
    assert proc.returncode == 2 and "BASELINE_INVALID" in proc.stderr
    assert "no-such-case" in proc.stderr


def test_rules_json_lists_the_catalogue_with_coverage():
    proc = agent_tck("rules", "--format", "json")
    assert proc.returncode == 0
    rules = json.loads(proc.stdout)
    assert len(rules) > 100
    keys = {"id", "family", "level", "source", "quote", "decision", "covered_by"}
    assert all(keys <= set(r) for r in rules)
    by_id = {r["id"]: r for r in rules}
    assert any(c.startswith("vector:") for c in by_id["BO-001"]["covered_by"])
    assert any(c.startswith("scenario:") for c in by_id["BO-001"]["covered_by"])
    assert by_id["BO-D001"]["decision"] is True
    # the decision policy: each decision says whether it is strict and why (vectors/README.md)
    assert by_id["BO-D001"]["review"]["strict"] is True
    assert by_id["IHU-D003"]["strictness"].startswith("lenient")
    assert by_id["DM-D006"]["strictness"].startswith("SHOULD")
    text = agent_tck("rules", "--family", "in-history-update").stdout
    assert "MUST lenient: accepts" in text and "MUST strict" in text


def test_rules_untestable_lists_the_entries_with_their_reason():
    text = agent_tck("rules", "--untestable")
    assert text.returncode == 0
    assert "Cancellation during a cold resume" in text.stdout and "untested:" in text.stdout
    proc = agent_tck("rules", "--untestable", "--format", "json",
                     "--family", "send-message-adjacency")
    entries = json.loads(proc.stdout)
    assert entries and all(e["family"] == "send-message-adjacency" and e["reason"]
                           for e in entries)
    new = {r["id"]: r for r in json.loads(agent_tck("rules", "--format", "json").stdout)}
    assert any(c.startswith("vector:") for c in new["SMA-055"]["covered_by"])
    assert new["SMA-016"]["level_reason"]


def test_smoke_diagnoses_an_adapter(fake_adapter):
    good = agent_tck("smoke", "--impl", REFERENCE)
    assert good.returncode == 0, good.stdout
    bad = agent_tck("smoke", "--impl", fake_adapter("fake", "garbage"))
    assert bad.returncode == 1 and "not JSON" in bad.stdout
    dead = agent_tck("smoke", "--impl", fake_adapter("fake", "bad-handshake"))
    assert dead.returncode == 2 and "handshake" in dead.stdout  # like `run`: cannot start


def test_report_rerenders_a_saved_stream(tmp_path):
    assert main(["run", "--family", "block-omission", "--report-dir", str(tmp_path)]) == 0
    proc = agent_tck("report", str(tmp_path / "results.jsonl"), "--format", "md")
    assert proc.returncode == 0
    assert proc.stdout == (tmp_path / "summary.md").read_text()


def test_an_expectation_can_narrow_the_rules_it_counts_for(tmp_path):
    case = json.loads((ROOT / "vectors/block-omission/user-input.json").read_text())["cases"][0]
    first_op = sorted(case["expect"])[0]
    narrowed = {**case, "id": "narrowed", "rules": ["BO-001", "BO-015"],
                "expect": {first_op: {**case["expect"][first_op], "rules": ["BO-015"]}}}
    mine = tmp_path / "v.json"
    mine.write_text(json.dumps({"family": "block-omission", "cases": [narrowed]}))
    assert main(["run", "--vectors", str(mine), "--only-vectors",
                 "--report-dir", str(tmp_path / "r")]) == 0
    assert [c.rules for c in read(tmp_path / "r" / "results.jsonl").cases] == [("BO-015",)]
    narrowed["expect"][first_op]["rules"] = ["BO-002"]  # not among the case's rules
    mine.write_text(json.dumps({"family": "block-omission", "cases": [narrowed]}))
    proc = agent_tck("run", "--vectors", str(mine), "--report-dir", str(tmp_path / "r2"))
    assert proc.returncode == 2 and "not among the case's rules" in proc.stderr


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon"])
def test_a_timeout_must_be_positive_seconds(value, capsys):
    with pytest.raises(SystemExit) as info:
        main(["run", "--timeout", value])
    assert info.value.code == 2
    assert "--timeout" in capsys.readouterr().err


def test_report_dir_naming_a_file_is_a_usage_error(tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert main(["run", "--family", "block-omission", "--report-dir", str(afile)]) == 2
    assert "names a file" in capsys.readouterr().err


def test_an_adapter_name_never_escapes_the_reports_folder():
    from agent_tck.harness.reports.runs import safe_name as _safe

    assert _safe("..") == "implementation" and _safe(".") == "implementation"
    assert _safe("../../etc") == ".._.._etc" and _safe("my-impl 2") == "my-impl_2"


def test_sigterm_leaves_reports_marked_truncated(tmp_path, fake_adapter):
    import signal
    import time

    folder = tmp_path / "r"
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_tck", "run", "--impl", fake_adapter("fake", "hang:"),
         "--family", "block-omission", "--report-dir", str(folder), "--timeout", "30"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not (folder / "results.jsonl").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert read(folder / "results.jsonl").truncated
    assert "truncated" in (folder / "summary.md").read_text().lower()
