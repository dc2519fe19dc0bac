"""The runner survives a bad implementation: every fault becomes an ``errored`` value."""

from __future__ import annotations

import time

import pytest

from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.contract.vectors import Case, Expectation
from agent_tck.harness.run.evaluate import run_cases
from agent_tck.harness.run.outcome import Errored, Output, Rejected
from agent_tck.harness.run.results import RESULTS_FORMAT, Header, RuleInfo, exit_code
from agent_tck.harness.run.subprocess_target import SubprocessTarget
from tests.conftest import FAKES


def echo_case(case_id: str, value: object = None) -> Case:
    value = {"case": case_id} if value is None else value
    return Case(
        id=case_id, family="block-omission", rules=("BO-001",), description=case_id,
        input=value, expect=(Expectation("tck.echo", output=value),), file="<test>",
    )


def run(command: str, cases: list[Case], timeout: float = 5.0) -> list[dict]:
    target = SubprocessTarget(command, timeout=timeout)
    head = Header(RESULTS_FORMAT, "0", "", {}, {}, {}, False,
                  (RuleInfo("BO-001", "block-omission", "MUST", "t"),), ("block-omission",))
    try:  # the records as the stream writes them
        return [r.to_json() for r in run_cases(target, cases, head)][1:-1]
    finally:
        target.close()


CASES = [echo_case("one"), echo_case("two-bad"), echo_case("three")]


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("crash", "exited (status 7)"),
        ("garbage", "not JSON"),
        ("wrong-seq", "expected 2"),
        ("two-kinds", "exactly one of output, error, crashed"),
    ],
)
def test_a_fault_errors_one_case_and_the_run_goes_on(fake_adapter, mode, reason):
    records = run(fake_adapter("fake", f"{mode}:bad"), CASES)
    assert [r["status"] for r in records] == ["pass", "errored", "pass"]
    assert reason in records[1]["message"]
    assert any(line.startswith(">> ") for line in records[1]["transcript"])


def test_a_hang_times_out_and_the_process_is_restarted(fake_adapter):
    target = SubprocessTarget(fake_adapter("fake", "hang:bad"), timeout=0.5)
    try:
        started = time.monotonic()
        assert isinstance(target.call("tck.echo", 1, "bad"), Errored)
        assert time.monotonic() - started < 5
        assert target.call("tck.echo", 2, "fine") == Output(2)
        assert target.restarts == 1
    finally:
        target.close()


def test_crash_transcript_keeps_stderr(fake_adapter):
    records = run(fake_adapter("fake", "crash:bad"), [echo_case("bad")])
    assert "stderr: fake: crashing now" in records[0]["transcript"]


def test_stderr_noise_and_split_writes_are_harmless(fake_adapter):
    records = run(fake_adapter("fake", "stderr", "split"), CASES)
    assert [r["status"] for r in records] == ["pass", "pass", "pass"]


def test_a_lie_is_a_failure_not_an_error(fake_adapter):
    records = run(fake_adapter("fake", "lie:bad"), CASES)
    assert [r["status"] for r in records] == ["pass", "fail", "pass"]
    assert "/case: missing" in records[1]["message"]


def test_a_rejection_where_output_was_expected_fails(fake_adapter):
    target = SubprocessTarget(fake_adapter("fake", "reject"))
    try:
        assert target.call("tck.echo", 1, "x") == Rejected("UNSUPPORTED_CONTENT", "fake", None)
    finally:
        target.close()


def test_undeclared_operations_are_not_applicable(fake_adapter):
    case = Case(id="na", family="block-omission", rules=("BO-001",), description="",
                input=1, expect=(Expectation("nobody.implements", output=1),), file="<t>")
    records = run(fake_adapter("fake"), [case])
    assert records[0]["status"] == "not-applicable"


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("no-start", "exited (status 3) before answering"),
        ("bad-handshake", "not JSON"),
        ("old-protocol", "speaks protocol 0"),
    ],
)
def test_an_adapter_that_does_not_start_is_a_usage_error(fake_adapter, mode, message):
    with pytest.raises(HarnessError) as info:
        SubprocessTarget(fake_adapter("fake", mode))
    assert info.value.code == "IMPL_START_FAILED"
    assert message in info.value.message


def test_a_missing_program_says_so():
    with pytest.raises(HarnessError, match="could not start"):
        SubprocessTarget("/nonexistent/adapter --flag")


def test_a_slow_start_times_out(fake_adapter):
    started = time.monotonic()
    with pytest.raises(HarnessError, match="did not answer the start command"):
        SubprocessTarget(fake_adapter("fake", "slow-start"), start_timeout=0.5)
    assert time.monotonic() - started < 5


def test_exit_code_gates_on_must_and_on_should_only_when_strict():
    rules = [{"id": "A-001", "level": "MUST"}, {"id": "A-002", "level": "SHOULD"}]

    def recs(*pairs):
        return [{"rules": [rid], "status": status} for rid, status in pairs]

    assert exit_code(rules, recs(("A-001", "pass"), ("A-002", "fail"))) == 0
    assert exit_code(rules, recs(("A-001", "pass"), ("A-002", "fail")), strict=True) == 1
    assert exit_code(rules, recs(("A-001", "errored"), ("A-002", "pass"))) == 1
    assert exit_code(rules, recs(("A-001", "expected-fail"))) == 0
    assert exit_code(rules, recs(("A-002", "stale"))) == 1
    assert exit_code(rules, recs(("A-001", "pass")), stale=1) == 1
    assert exit_code(rules, []) == 0


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("deep", "nested deeper than 200 levels"),
        ("badutf8", "not UTF-8"),
        ("bigline", "longer than"),
        ("floatseq", "seq must be a JSON integer"),
    ],
)
def test_hostile_replies_error_one_case_only(fake_adapter, mode, reason):
    records = run(fake_adapter("fake", f"{mode}:bad"), CASES)
    assert [r["status"] for r in records] == ["pass", "errored", "pass"]
    assert reason in records[1]["message"]


def test_two_replies_to_one_command_do_not_blame_the_next_case(fake_adapter):
    records = run(fake_adapter("fake", "double:bad"), CASES)
    # the extra reply carries the seq of the command it answers: it is attributed to that case
    # (errored, with the extra reply in its transcript), and the next case runs cleanly
    assert [r["status"] for r in records] == ["pass", "errored", "pass"]
    assert "replied more than once" in records[1]["message"]
    assert any('"seq": 2' in line for line in records[1]["transcript"])
    target = SubprocessTarget(fake_adapter("fake", "double:bad"))
    try:
        assert target.call("tck.echo", 1, "bad") == Output(1)
        assert target.call("tck.echo", 2, "next") == Output(2)
        assert target.restarts == 0  # matched by seq: the stream never went out of step
        assert target.pop_late("bad", "tck.echo")
        assert target.pop_late("next", "tck.echo") == ()
    finally:
        target.close()


def test_duplicate_replies_are_attributed_alike_200_times_over(fake_adapter):
    # the scenario above repeated 200 times in one run (the last case answers twice too, so the
    # reply read after the stop command is attributed as well): no timing can move a verdict
    cases = [echo_case(f"{kind}-{i}") for i in range(200) for kind in ("ok", "bad")]
    records = run(fake_adapter("fake", "double:bad"), cases)
    assert [r["status"] for r in records] == ["pass", "errored"] * 200


def test_stderr_of_earlier_cases_stays_out_of_a_later_transcript(fake_adapter):
    cases = [echo_case(f"case-{i}") for i in range(10)] + [echo_case("last")]
    records = run(fake_adapter("fake", "stderr", "crash:last"), cases)
    noise = [line for line in records[-1]["transcript"] if "some noise" in line]
    # its own line, and never the backlog of the ten cases before (a line written just before
    # the previous reply may still be in the pipe when this case starts: how many is timing)
    assert 1 <= len(noise) < 5


def test_a_kill_reaches_what_a_shell_wrapper_started(fake_adapter, tmp_path):
    import subprocess
    import uuid

    marker = f"marker-{uuid.uuid4().hex}"  # an inert argument that names this adapter
    inner = fake_adapter("fake", "hang:bad", marker)
    target = SubprocessTarget(f"sh -c '{inner}; true'", timeout=0.5)
    try:
        assert isinstance(target.call("tck.echo", 1, "bad"), Errored)
    finally:
        target.close()
    for _ in range(1000):  # wait for the condition (bounded), not for a fixed time
        left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True,
                              check=False)
        if left.stdout.strip() == "":
            break
        time.sleep(0.01)
    assert left.stdout.strip() == "", "the adapter under `sh -c` outlived the kill"


def test_restarts_that_keep_failing_stop_being_attempted(fake_adapter, tmp_path):
    marker = tmp_path / "started"
    # starts once, then every restart exits before answering
    script = tmp_path / "once.py"
    script.write_text(
        "import pathlib, subprocess, sys\n"
        f"m = pathlib.Path({str(marker)!r})\n"
        "if m.exists(): sys.exit(4)\n"
        "m.write_text('x')\n"
        f"sys.argv = ['fake', 'crash:']\n"
        f"exec(open({str(FAKES / 'fake.py')!r}).read())\n"
    )
    import sys as _sys

    target = SubprocessTarget(f"{_sys.executable} {script}", timeout=2)
    try:
        results = [target.call("tck.echo", i, f"c{i}") for i in range(6)]
    finally:
        target.close()
    reasons = [r.reason for r in results]  # type: ignore[union-attr]
    assert "exited (status 7)" in reasons[0]
    assert all("could not restart" in r for r in reasons[1:4])
    assert all("failed to restart 3 times in a row" in r for r in reasons[4:])
