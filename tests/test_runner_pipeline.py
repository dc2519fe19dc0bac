"""The pipelined adapter loop, the circuit breaker and the handshake errors of the runner.

Pipelining (vectors/PROTOCOL.md): an adapter that declares ``"pipeline": true`` is sent up to
PIPELINE_DEPTH commands ahead; verdicts and their attribution do not change. The hostile fakes
declare nothing (they are sent one command at a time); here they are also forced to pipeline
(``pipeline=8``), which a real adapter that misbehaves could do to the runner just the same.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.contract.vectors import load_cases
from agent_tck.harness.run.evaluate import run_cases
from agent_tck.harness.run.outcome import Errored, Output
from agent_tck.harness.run.results import RESULTS_FORMAT, Header, RuleInfo
from agent_tck.harness.run.subprocess_target import PIPELINE_DEPTH, SubprocessTarget
from agent_tck.harness.run.targets import InProcessTarget, PlannedCall
from tests.test_runner_faults import CASES, echo_case

ADAPTER = f"{sys.executable} -m agent_tck.harness.reference_adapter"
HEAD = Header(RESULTS_FORMAT, "0", "", {}, {}, {}, False,
              (RuleInfo("BO-001", "block-omission", "MUST", "t"),), ("block-omission",))


def run(target: SubprocessTarget, cases: list) -> list[dict]:
    try:
        return [r.to_json() for r in run_cases(target, cases, HEAD)][1:-1]
    finally:
        target.close()


def test_the_reference_adapter_pipelines_and_every_verdict_is_the_in_process_one():
    cases = load_cases()
    target = SubprocessTarget(ADAPTER)
    assert target.implementation.pipeline and target.pipeline == PIPELINE_DEPTH
    piped = run(target, cases)
    alone = [r.to_json() for r in run_cases(InProcessTarget(), cases, HEAD)][1:-1]
    assert [(r["case"], r["status"]) for r in piped] == [(r["case"], r["status"]) for r in alone]
    assert target.restarts == 0


def test_an_adapter_that_declares_nothing_gets_one_command_at_a_time(fake_adapter):
    target = SubprocessTarget(fake_adapter("fake"))
    try:
        assert target.pipeline == 1
    finally:
        target.close()


def test_a_doubled_reply_is_blamed_on_its_case_when_pipelined(fake_adapter):
    cases = [echo_case(f"{kind}-{i}") for i in range(100) for kind in ("ok", "bad")]
    records = run(SubprocessTarget(fake_adapter("fake", "double:bad"), pipeline=8), cases)
    assert [r["status"] for r in records] == ["pass", "errored"] * 100
    assert all("replied more than once" in r["message"] for r in records[1::2])


@pytest.mark.parametrize(("mode", "reason"), [("crash", "exited (status 7)"),
                                              ("garbage", "not JSON"),
                                              ("wrong-seq", "expected 2")])
def test_a_fault_mid_pipeline_errors_one_case_and_the_rest_is_sent_again(fake_adapter, mode,
                                                                         reason):
    target = SubprocessTarget(fake_adapter("fake", f"{mode}:bad"), pipeline=8)
    records = run(target, CASES)
    assert [r["status"] for r in records] == ["pass", "errored", "pass"]
    assert reason in records[1]["message"]
    assert target.restarts == 1


def test_a_call_the_plan_did_not_foresee_is_made_alone_and_blames_no_one(fake_adapter):
    target = SubprocessTarget(fake_adapter("fake"), pipeline=8)
    try:
        target.plan(PlannedCall("tck.echo", i, f"c{i}") for i in range(5))
        assert target.call("tck.echo", 0, "c0") == Output(0)
        assert target.call("tck.echo", 9, "other") == Output(9)  # c1..c4 were sent: dropped
        assert target.call("tck.echo", 3, "c3") == Output(3)
        assert all(target.pop_late(f"c{i}", "tck.echo") == () for i in range(5))
        assert target.restarts == 0
    finally:
        target.close()


def test_after_three_timeouts_in_a_row_the_adapter_is_unresponsive(fake_adapter):
    # the adapter answers its handshake, then never replies: the limit, not a clock, bounds
    # the run (three timed-out calls, then every other case is errored without being sent)
    target = SubprocessTarget(fake_adapter("fake", "hang:"), timeout=0.2, start_timeout=600)
    try:
        results = [target.call("tck.echo", i, f"c{i}") for i in range(10)]
    finally:
        target.close()
    reasons = [r.reason for r in results if isinstance(r, Errored)]
    assert len(reasons) == 10
    assert all("no reply within 0.2 s" in r for r in reasons[:3])
    assert all(r.startswith("not run: adapter unresponsive (3 calls in a row timed out")
               for r in reasons[3:])
    assert "--max-timeouts" in reasons[3]
    assert target.restarts == 2  # restarted for the second and third call only


def test_the_breaker_can_be_set_and_a_reply_resets_it(fake_adapter):
    target = SubprocessTarget(fake_adapter("fake", "hang:slow"), timeout=0.2, start_timeout=600,
                              max_timeouts=2)
    def fine(value: int) -> object:  # a reply that must come: no tight timeout on it
        target.timeout = 600
        try:
            return target.call("tck.echo", value, "fine")
        finally:
            target.timeout = 0.2

    try:
        first = [target.call("tck.echo", i, f"slow-{i}") for i in range(1)]
        assert fine(1) == Output(1)  # resets the count
        later = [target.call("tck.echo", i, f"slow-{i}") for i in range(2)]
        after = fine(2)
    finally:
        target.close()
    assert isinstance(first[0], Errored) and all(isinstance(r, Errored) for r in later)
    assert isinstance(after, Errored) and "adapter unresponsive (2 calls" in after.reason


def _adapter(tmp_path: Path, body: str) -> str:
    script = tmp_path / "adapter.py"
    script.write_text("import json, sys\n"
                      "START = {'protocol': 1, 'implementation': {'name': 'x', 'language': 'py'},"
                      " 'operations': ['tck.echo']}\n" + body)
    return f"{sys.executable} {script}"


def test_a_doubled_handshake_says_what_came_and_what_was_expected(tmp_path):
    command = _adapter(tmp_path, (
        "for line in sys.stdin:\n"
        "    cmd = json.loads(line)\n"
        "    if cmd['cmd'] == 'start':\n"
        "        print(json.dumps(START)); print(json.dumps(START)); sys.stdout.flush()\n"
        "    elif cmd['cmd'] == 'run':\n"
        "        print(json.dumps({'seq': cmd['seq'], 'output': cmd['input']}), flush=True)\n"
        "    else:\n"
        "        break\n"))
    target = SubprocessTarget(command, timeout=600)
    try:
        result = target.call("tck.echo", 1, "one")
    finally:
        target.close()
    assert isinstance(result, Errored)
    assert "received a second start reply (the start command is answered once)" in result.reason
    assert 'expected the reply to run command seq 1 ({"seq": 1, "output"' in result.reason


def test_a_bad_start_reply_shows_what_was_received_and_what_was_expected(tmp_path):
    command = _adapter(tmp_path, (
        "sys.stdin.readline()\n"
        "print(json.dumps({'protocol': 1, 'implementation': {'name': 'x'}}), flush=True)\n"))
    with pytest.raises(HarnessError) as caught:
        SubprocessTarget(command, timeout=600)
    message = caught.value.message
    assert "failed the handshake" in message
    assert "received: {\"protocol\": 1, \"implementation\": {\"name\": \"x\"}}" in message
    assert 'expected: one line, {"protocol": 1, "implementation"' in message
