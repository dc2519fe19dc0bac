"""A hostile-adapter battery: every fault the runner bounds becomes its documented outcome.

Each test sets the limit it relies on (``Limits``) so the outcome never depends on how fast the
machine is: floods are stopped by a line budget, not a race against a timer; a hang is ended by
a timeout only where "timed out" is the one possible outcome.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.run.outcome import Errored, Output
from agent_tck.harness.run.subprocess_target import Limits, SubprocessTarget
from tests.test_runner_faults import CASES, run


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("nan", "NaN is not JSON"),
        ("infinity", "Infinity is not JSON"),
        ("hugeint", "integer of 5000 digits"),
        ("dupkey", "duplicate key 'output'"),
    ],
)
def test_replies_no_strict_reader_accepts_error_one_case(fake_adapter, mode, reason):
    records = run(fake_adapter("fake", f"{mode}:bad"), CASES)
    assert [r["status"] for r in records] == ["pass", "errored", "pass"]
    assert reason in records[1]["message"]
    json.dumps(records, allow_nan=False)  # every record can be written to results.jsonl


def test_a_blank_line_flood_during_a_case_meets_the_line_budget(fake_adapter):
    target = SubprocessTarget(fake_adapter("fake", "blanks:bad"), timeout=600,
                              limits=Limits(noise_lines=500, queued_lines=8))
    try:
        result = target.call("tck.echo", 1, "bad")
        assert isinstance(result, Errored)
        assert "more than 500 lines without replying" in result.reason
        assert target.call("tck.echo", 2, "fine") == Output(2)  # restarted, the run goes on
    finally:
        target.close()


def test_a_blank_line_flood_cannot_outlast_the_timeout(fake_adapter):
    # a budget no machine reaches in a second: the timeout is the only way out of the flood
    target = SubprocessTarget(fake_adapter("fake", "blanks:bad"), timeout=1,
                              limits=Limits(noise_lines=10**12, queued_lines=8))
    try:
        result = target.call("tck.echo", 1, "bad")
        assert isinstance(result, Errored) and "no reply within 1 s" in result.reason
    finally:
        target.close()


def test_a_blank_line_flood_during_the_handshake_is_a_start_failure(fake_adapter):
    with pytest.raises(HarnessError, match="more than 300 blank lines"):
        SubprocessTarget(fake_adapter("fake", "blanks-start"), start_timeout=600,
                         limits=Limits(noise_lines=300))


def test_the_timeout_shortens_the_start_up_wait(fake_adapter):
    with pytest.raises(HarnessError, match=r"within 1\.5 s"):
        SubprocessTarget(fake_adapter("fake", "slow-start"), timeout=0.5)


def test_an_overlong_line_is_a_breach_at_the_limit_the_test_sets(fake_adapter):
    target = SubprocessTarget(fake_adapter("fake"), limits=Limits(line_bytes=1000))
    try:
        result = target.call("tck.echo", "x" * 2000, "long")
        assert isinstance(result, Errored) and "longer than 1000 bytes" in result.reason
        assert target.call("tck.echo", "short", "next") == Output("short")
    finally:
        target.close()


def test_stderr_is_a_ring_buffer_that_keeps_the_tail(fake_adapter):
    limits = Limits(stderr_lines=4, stderr_chunk=256)
    records = run(fake_adapter("fake", "stderr-flood:bad"), CASES)  # default limits: bounded
    assert [r["status"] for r in records] == ["pass", "errored", "pass"]
    target = SubprocessTarget(fake_adapter("fake", "stderr-flood:bad"), limits=limits)
    try:
        result = target.call("tck.echo", 1, "bad")
    finally:
        target.close()
    assert isinstance(result, Errored) and "exited (status 9)" in result.reason
    stderr = [line for line in result.transcript if line.startswith("stderr: ")]
    assert 1 <= len(stderr) <= 4  # 4 MB of stderr, at most 4 chunks of 256 bytes kept
    assert all(len(line) <= len("stderr: ") + 256 for line in stderr)
    assert stderr[-1] == "stderr: fake: TAIL-MARKER"


def test_a_child_that_does_not_read_its_stdin_cannot_block_the_runner(fake_adapter):
    target = SubprocessTarget(fake_adapter("fake", "deaf"), timeout=1)
    try:
        result = target.call("tck.echo", "x" * (1 << 20), "big")  # far over a pipe buffer
        assert isinstance(result, Errored)
        assert "did not read the command within 1 s" in result.reason
    finally:
        target.close()


def _gone(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return "\nState:\tZ" in status  # killed, waiting for its (new) parent to reap it


def _wait_gone(pid: int) -> bool:
    """Wait for a condition (bounded), not for a time: True as soon as the process is gone."""
    for _ in range(1000):
        if _gone(pid):
            return True
        time.sleep(0.01)
    return _gone(pid)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
def test_a_clean_stop_ends_what_the_adapter_forked(fake_adapter, tmp_path, monkeypatch):
    pid_file = tmp_path / "child.pid"
    monkeypatch.setenv("FAKE_PID_FILE", str(pid_file))
    target = SubprocessTarget(fake_adapter("fake", "fork"))
    assert target.call("tck.echo", 1, "one") == Output(1)
    child = int(pid_file.read_text())
    assert not _gone(child)
    target.close()  # a clean stop: the adapter exits, its forked child must not survive it
    assert _wait_gone(child), "a child the adapter forked outlived a clean stop"


def test_sigterm_ends_a_run_promptly_with_the_reports_so_far(fake_adapter, tmp_path):
    from agent_tck.harness.reports.stream import read

    mark = tmp_path / "reached"
    env = {**os.environ, "FAKE_MARK_FILE": str(mark)}
    cmd = [sys.executable, "-m", "agent_tck", "run", "--impl",
           fake_adapter("fake", "mark:bo-assistant-tool-calls-kept"), "--family", "block-omission",
           "--timeout", "600", "--report-dir", str(tmp_path / "out")]
    # the fourth block-omission case hangs (after touching the mark); SIGTERM must not wait for
    # its 600 s timeout, and the cases before it are in the report
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        for _ in range(6000):  # wait for the condition "the case is running", bounded
            if mark.exists() or proc.poll() is not None:
                break
            time.sleep(0.01)
        assert mark.exists(), proc.communicate()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    run_ = read(tmp_path / "out" / "results.jsonl")
    assert run_.truncated
    assert [c.case for c in run_.cases][:3] == ["bo-assistant-reasoning-kept",
                                                 "bo-assistant-reasoning-signature-kept",
                                                 "bo-assistant-reasoning-before-tool-call"]
