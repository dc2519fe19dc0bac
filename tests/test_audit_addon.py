"""harness/audit/addon.py inside mitmproxy's test context (taddons, tflow), with its real audit
process (harness/audit/worker.py). Where a test needs the audit to be slow or gone, it stops
that process with SIGSTOP or kills it, and waits on conditions, never on a clock."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from lazy_import import lazy

from agent_tck.harness.audit.addon import AgentTckAudit, Tee

# mitmproxy's test helpers imported on first use, not at collection (tests/lazy_import.py)
http = lazy("mitmproxy.http")
taddons = lazy("mitmproxy.test.taddons")
tflow = lazy("mitmproxy.test.tflow")

KEY = "sk-ant-api03-PLANTEDaddonKEY0123456789"
THINKING_IN_USER = {"model": "m", "messages": [{"role": "user", "content": [
    {"type": "text", "text": "hi"}, {"type": "thinking", "thinking": "t", "signature": "s"}]}]}
SSE = (b"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n"
       b"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
       b"\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
       b"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
       b"\"delta\":{\"type\":\"text_delta\",\"text\":\"hello\"}}\n\n"
       b"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")


def llm_flow(body: Any, path: str = "/v1/messages", response: http.Response | None = None,
             err: bool = False) -> http.HTTPFlow:
    f = tflow.tflow(resp=False, err=err)
    f.request = http.Request.make("POST", f"http://127.0.0.1:8080{path}",
                                  json.dumps(body).encode(),
                                  {"content-type": "application/json", "x-api-key": KEY})
    f.response = response
    return f


def cycle(tctx: Any, addon: AgentTckAudit, flow: http.HTTPFlow) -> None:
    """Run the flow through every hook, on the test context's own event loop, then wait for
    the audit worker to catch up."""
    tctx.master.event_loop.run_until_complete(tctx.cycle(addon, flow))
    addon.flush()


@pytest.fixture
def addon_ctx(tmp_path: Path) -> Any:
    addon = AgentTckAudit()
    with taddons.context(addon) as tctx:
        tctx.configure(addon, tck_report_dir=str(tmp_path / "reports"), tck_name="unit")
        yield addon, tctx
        if addon.process is not None and addon.process.pid is not None and addon.process.alive:
            os.kill(addon.process.pid, signal.SIGCONT)  # a test that stopped it and failed
        addon.close()


def audit_pid(addon: AgentTckAudit) -> int:
    pid = addon.start().pid
    assert pid is not None and pid != os.getpid()  # the audit runs in a process of its own
    return pid


def returns(call: Any) -> bool:
    """``call()`` returned (on a thread; a hang of a minute means it would not have)."""
    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    thread.join(60)
    return not thread.is_alive()


def test_a_finding_is_recorded_and_the_flow_left_untouched(addon_ctx: Any) -> None:
    addon, tctx = addon_ctx
    flow = llm_flow(THINKING_IN_USER, response=http.Response.make(
        200, b'{"type":"message","content":[]}', {"content-type": "application/json"}))
    before = (flow.request.raw_content, flow.request.headers.fields, flow.response.raw_content,
              flow.response.headers.fields)
    cycle(tctx, addon, flow)
    assert (flow.request.raw_content, flow.request.headers.fields, flow.response.raw_content,
            flow.response.headers.fields) == before
    assert flow.response.stream is False  # a JSON response is not streamed
    (x,) = addon.audited()
    assert [(f.rule, f.pointer) for f in x.findings] == [
        ("BO-001", "/request/body/messages/0/content/1")]


def test_an_event_stream_is_teed_unchanged_and_audited(addon_ctx: Any) -> None:
    addon, _ = addon_ctx
    flow = llm_flow({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    flow.response = http.Response.make(200, b"", {"content-type": "text/event-stream"})
    addon.responseheaders(flow)
    tee = flow.response.stream
    assert isinstance(tee, Tee)
    out = b"".join(tee(SSE[i:i + 7]) for i in range(0, len(SSE), 7)) + tee(b"")
    assert hashlib.sha256(out).digest() == hashlib.sha256(SSE).digest()
    flow.response.content = None  # what mitmproxy leaves after streaming
    addon.response(flow)
    addon.flush()
    (x,) = addon.audited()
    assert x.findings == () and x.conversation == "c1" and x.status == 200


def test_the_tee_stops_copying_at_its_limit_but_passes_everything() -> None:
    tee = Tee(10)
    assert tee(b"0123456789") == b"0123456789"
    assert tee(b"abc") == b"abc"
    assert tee.truncated and tee.body() == b""


def test_an_unreachable_upstream_is_a_flow_with_a_note(addon_ctx: Any) -> None:
    addon, tctx = addon_ctx
    flow = llm_flow(THINKING_IN_USER, err=True)
    cycle(tctx, addon, flow)
    addon.error(flow)  # mitmproxy may call error after response hooks: seen once only
    addon.flush()
    (x,) = addon.audited()
    assert x.status is None and x.error
    assert [f.rule for f in x.findings] == ["BO-001"]  # the request is still audited
    assert any("transport error" in n for n in x.notes)


def test_other_traffic_passes_and_is_ignored(addon_ctx: Any) -> None:
    addon, tctx = addon_ctx
    flow = tflow.tflow(resp=True)
    cycle(tctx, addon, flow)
    assert addon.audited() == () and addon.ignored == 1


# An exception inside a rule is contained by the engine, in the audit process:
# tests/test_audit_engine.py::test_a_crashing_rule_and_a_crashing_tracker_are_contained.


def test_a_crash_of_the_audit_process_is_reported_and_the_proxy_goes_on(
        addon_ctx: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    addon, tctx = addon_ctx
    cycle(tctx, addon, llm_flow(THINKING_IN_USER, response=http.Response.make(200, b"{}")))
    pid = audit_pid(addon)
    os.kill(pid, signal.SIGSTOP)
    held = llm_flow(THINKING_IN_USER, response=http.Response.make(200, b"{}"))
    addon.response(held)  # taken, never answered
    os.kill(pid, signal.SIGKILL)
    addon.flush()  # returns once the proxy has seen the audit process gone
    assert not addon.process.alive  # type: ignore[union-attr]
    later = llm_flow(THINKING_IN_USER, response=http.Response.make(200, b"{}"))
    cycle(tctx, addon, later)  # passes, unaudited
    assert later.error is None and later.response.status_code == 200  # type: ignore[union-attr]
    assert addon.dropped == 1 and addon.process.lost == 1  # type: ignore[union-attr]
    addon.done()  # no exception escapes
    text = caplog.text
    assert "the audit process stopped (killed by SIGKILL)" in text
    assert "2 exchanges were not audited" in text
    folder = tmp_path / "reports"
    assert not (folder / "audit.json").exists()  # what was audited, as a truncated run:
    from agent_tck.harness.reports import read

    run = read(folder / "results.jsonl")
    assert run.truncated and any(c.rules == ("BO-001",) for c in run.cases)
    assert (folder / "report.html").exists()


def test_hooks_hand_over_without_waiting_for_the_audit(addon_ctx: Any) -> None:
    addon, _ = addon_ctx
    pid = audit_pid(addon)
    os.kill(pid, signal.SIGSTOP)  # the audit makes no progress at all
    try:
        flows = [llm_flow(THINKING_IN_USER, response=http.Response.make(200, b"{}"))
                 for _ in range(3)]
        assert returns(lambda: [addon.response(f) for f in flows])
    finally:
        os.kill(pid, signal.SIGCONT)
    addon.flush()
    assert len(addon.audited()) == 3 and addon.dropped == 0


def test_credential_headers_never_leave_the_proxy() -> None:
    from agent_tck.harness.audit.readers import flow_to_raw
    from agent_tck.harness.audit.worker import without_secrets

    flow = llm_flow(THINKING_IN_USER, response=http.Response.make(
        200, b"{}", {"set-cookie": "s=" + KEY, "content-type": "application/json"}))
    raw = without_secrets(flow_to_raw(flow, "flow 1"))
    assert [k for k, _ in raw.request.headers] == ["content-type", "content-length"]
    assert [k for k, _ in raw.response.headers] == [  # type: ignore[union-attr]
        "content-type", "content-length"]
    assert raw.request.body == flow.request.raw_content


def test_an_overfull_backlog_is_counted_and_reported(addon_ctx: Any, tmp_path: Path) -> None:
    addon, tctx = addon_ctx
    tctx.configure(addon, tck_backlog=1)
    pid = audit_pid(addon)
    os.kill(pid, signal.SIGSTOP)  # the first exchange waits: the backlog is full
    try:
        for _ in range(5):
            addon.response(llm_flow(THINKING_IN_USER, response=http.Response.make(200, b"{}")))
    finally:
        os.kill(pid, signal.SIGCONT)
    assert addon.dropped == 4
    addon.done()
    doc = json.loads((tmp_path / "reports" / "audit.json").read_text())
    assert len(doc["exchanges"]) == 1
    assert doc["notes"] == ["4 exchanges were not audited: the audit fell more than 1 "
                            "exchanges behind"]


def test_done_writes_the_reports_without_secrets(addon_ctx: Any, tmp_path: Path) -> None:
    addon, tctx = addon_ctx
    cycle(tctx, addon, llm_flow(THINKING_IN_USER, path="/v1/messages?key=" + KEY,
                                      response=http.Response.make(200, b"{}")))
    addon.done()
    folder = tmp_path / "reports"
    assert (folder / "results.jsonl").exists() and (folder / "report.html").exists()
    doc = json.loads((folder / "audit.json").read_text())
    assert doc["exit_code"] == 1 and doc["exchanges"][0]["findings"][0]["rule"] == "BO-001"
    for path in folder.rglob("*"):
        if path.is_file():
            assert KEY not in path.read_text(errors="replace"), path.name


def test_options_reach_the_auditor(addon_ctx: Any) -> None:
    addon, tctx = addon_ctx
    tctx.configure(addon, tck_max_body=64)
    flow = llm_flow(THINKING_IN_USER, response=http.Response.make(200, b"{}"))
    cycle(tctx, addon, flow)
    (x,) = addon.audited()
    assert x.checked == () and "limit" in x.notes[0]


def test_results_are_streamed_as_the_audit_goes(addon_ctx: Any, tmp_path: Path) -> None:
    """A proxy killed with kill -9 leaves a truncated results.jsonl `agent-tck report` renders."""
    from agent_tck.harness.reports import read, render

    addon, tctx = addon_ctx
    addon.running()
    cycle(tctx, addon, llm_flow(THINKING_IN_USER, response=http.Response.make(200, b"{}")))
    run = read(tmp_path / "reports" / "results.jsonl")  # no done(): as after a kill -9
    assert run.truncated
    assert any(c.status == "fail" and c.rules == ("BO-001",) for c in run.cases)
    assert "BO-001" in render(run, "md")


def test_requests_without_a_response_at_shutdown_are_audited(addon_ctx: Any,
                                                              tmp_path: Path) -> None:
    """SIGTERM with requests in flight: each one that reached the proxy is audited."""
    addon, _ = addon_ctx
    answered = llm_flow(THINKING_IN_USER, response=http.Response.make(200, b"{}"))
    addon.request(answered)
    in_flight = [llm_flow(THINKING_IN_USER) for _ in range(3)]
    for flow in in_flight:
        addon.request(flow)
    addon.response(answered)
    addon.done()
    doc = json.loads((tmp_path / "reports" / "audit.json").read_text())
    assert len(doc["exchanges"]) == 4 and doc["exit_code"] == 1
    assert all(x["findings"][0]["rule"] == "BO-001" for x in doc["exchanges"])
    assert sum("stopped before the response" in " ".join(x["notes"])
               for x in doc["exchanges"]) == 3


def test_a_request_too_deep_to_audit_is_errored_and_fails_the_audit(addon_ctx: Any,
                                                                     tmp_path: Path) -> None:
    addon, _ = addon_ctx
    flow = llm_flow(None, response=http.Response.make(200, b"{}"))
    flow.request.content = b'{"model": "m", "messages": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    addon.request(flow)
    addon.response(flow)
    addon.done()
    doc = json.loads((tmp_path / "reports" / "audit.json").read_text())
    (x,) = doc["exchanges"]
    assert "nested deeper than" in x["errors"][0]["error"]
    assert doc["exit_code"] == 1 and doc["counts"]["errored_exchanges"] == 1


def test_an_audit_process_that_stops_making_progress_is_killed_at_the_stop(
        addon_ctx: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # "never a hang" (docs/RELIABILITY.md): a stopped audit process cannot hold mitmdump's exit
    from agent_tck.harness.audit import worker

    addon, tctx = addon_ctx
    cycle(tctx, addon, llm_flow(THINKING_IN_USER, response=http.Response.make(200, b"{}")))
    addon.flush()
    pid = audit_pid(addon)
    monkeypatch.setattr(worker, "STALL_WAIT", 0.0)  # no frame will ever come: any wait is one
    os.kill(pid, signal.SIGSTOP)
    addon.done()  # returns: the watchdog kills the silent process
    assert addon.process.stalled  # type: ignore[union-attr]
    assert "sent nothing for 0 s at the stop: killed" in caplog.text
    assert "the audit did not finish" in caplog.text
    assert not (tmp_path / "reports" / "audit.json").exists()


def test_an_exchange_the_audit_process_cannot_audit_is_logged_and_the_next_is_audited(
        tmp_path: Path) -> None:
    # the per-exchange containment of the audit process's loop (outcomes are values)
    import io

    from agent_tck.harness.audit import worker

    class Broken(worker.AuditWorker):
        calls = 0

        def observe(self, raw: Any) -> Any:
            Broken.calls += 1
            if Broken.calls == 1:
                raise RuntimeError("a rule's bug outside the engine's containment")
            return super().observe(raw)

    from agent_tck.harness.audit.readers import flow_to_raw

    raw = worker.without_secrets(flow_to_raw(
        llm_flow(THINKING_IN_USER, response=http.Response.make(200, b"{}")), "flow 1"))
    inp = io.BytesIO()
    for frame in (("exchange", raw), ("exchange", raw)):
        worker.write_frame(inp, frame)
    inp.seek(0)
    out = io.BytesIO()
    original = worker.AuditWorker
    worker.AuditWorker = Broken  # type: ignore[misc]
    try:
        code = worker.serve(inp, out, {"report_dir": str(tmp_path / "r"), "max_body": 1 << 20,
                                       "source": "proxy test", "name": "test"})
    finally:
        worker.AuditWorker = original  # type: ignore[misc]
    out.seek(0)
    kinds = []
    while (frame := worker.read_frame(out)) is not None:
        kinds.append(frame[0])
    assert [k for k in kinds if k != "log"] == ["ready", "failed", "result"]
    assert code == 3  # no end frame: a truncated run, as when the proxy dies


def test_a_traceback_the_audit_process_logs_reaches_the_proxy_redacted() -> None:
    import io
    import logging

    from agent_tck.harness.audit import worker

    out = io.BytesIO()
    handler = worker._ToProxy(out)
    try:
        raise ValueError(f"upstream said: bad key {KEY}")
    except ValueError:
        record = logging.LogRecord("agent_tck.audit", logging.ERROR, __file__, 1,
                                   "the audit process failed", (), sys.exc_info())
    handler.emit(record)
    out.seek(0)
    frame = worker.read_frame(out)
    assert frame is not None and frame[0] == "log"
    assert "ValueError" in frame[2] and KEY not in frame[2]
