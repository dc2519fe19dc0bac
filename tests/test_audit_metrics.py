"""``agent-tck audit --listen --metrics``: the counters move during a live audit (issue 23).

A real mitmdump in reverse mode in front of a tiny upstream; the test scrapes
``127.0.0.1:<metrics port>/metrics`` before and after two requests that each break BO-001,
waiting on conditions with bounded polling, never on a clock.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agent_tck.harness.commands.audit import find_mitmdump
from agent_tck.harness.common.errors import HarnessError

pytestmark = pytest.mark.slow
pytest.importorskip("mitmproxy")
pytest.importorskip("prometheus_client")

ROOT = Path(__file__).resolve().parent.parent
BODY = json.dumps({"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": [
    {"type": "text", "text": "hi"}, {"type": "thinking", "thinking": "t"}]}]}).encode()
REPLY = json.dumps({"id": "msg_1", "type": "message", "role": "assistant",
                    "content": [{"type": "text", "text": "ok"}],
                    "stop_reason": "end_turn"}).encode()


class _Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(REPLY)))
        self.end_headers()
        self.wfile.write(REPLY)

    def log_message(self, *args: Any) -> None:
        return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _scrape(port: int) -> str | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
            return str(r.read().decode())
    except OSError:
        return None


def _value(text: str, series: str) -> float:
    match = re.search(rf"^{re.escape(series)} (\S+)$", text, re.MULTILINE)
    return float(match.group(1)) if match else 0.0


def _until(predicate: Any, what: str, proc: subprocess.Popen[bytes]) -> Any:
    for _ in range(1200):  # bounded polling on a condition
        value = predicate()
        if value:
            return value
        assert proc.poll() is None, f"the proxy exited while waiting for {what}"
        threading.Event().wait(0.1)
    raise AssertionError(f"never: {what}")


def test_metrics_move_during_a_live_audit(tmp_path: Path) -> None:
    try:
        find_mitmdump(None)
    except HarnessError:
        pytest.skip("mitmdump is not installed")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Upstream)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port, metrics = _free_port(), _free_port()
    cli = subprocess.Popen(
        [sys.executable, "-m", "agent_tck", "audit", "--listen", f"127.0.0.1:{port}",
         "--upstream", f"http://127.0.0.1:{server.server_address[1]}",
         "--report-dir", str(tmp_path / "reports"), "--metrics", f"127.0.0.1:{metrics}",
         "--log-format", "json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        before = _until(lambda: _scrape(metrics), "the metrics endpoint", cli)
        assert _value(before, "agent_tck_audit_requests_total") == 0
        for _ in range(2):
            request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/messages", data=BODY,
                                             headers={"content-type": "application/json"})
            with urllib.request.urlopen(request, timeout=60) as r:
                assert r.status == 200
        after = _until(lambda: (t := _scrape(metrics)) and _value(
            t, "agent_tck_audit_requests_total") == 2 and t, "two audited requests", cli)
        assert _value(after, 'agent_tck_audit_findings_total{level="MUST",rule="BO-001"}') == 2
        assert _value(after, "agent_tck_audit_seconds_count") == 2
        assert _value(after, "agent_tck_audit_errored_requests_total") == 0
        assert _value(after, "agent_tck_audit_open_conversations") >= 1
        cli.send_signal(signal.SIGTERM)
        code = cli.wait(120)
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait(10)
        server.shutdown()
    err = cli.stderr.read().decode()  # type: ignore[union-attr]
    assert code == 1, err[-3000:]
    ours = [ln for ln in err.splitlines() if "agent-tck" in ln]
    assert ours and all(json.loads(ln)["message"] for ln in ours), err[-3000:]


def test_the_grafana_dashboard_shows_every_metric_and_only_metrics_that_exist() -> None:
    from agent_tck.harness.audit import metrics as metrics_module

    root = Path(__file__).resolve().parent.parent
    board = json.loads((root / "examples" / "grafana-audit-dashboard.json").read_text())
    queried = {name for panel in board["panels"] for target in panel.get("targets", ())
               for name in re.findall(r"agent_tck_audit_[a-z_]+", target["expr"])}
    listed = set(re.findall(r"``(agent_tck_audit_[a-z_]+)``", metrics_module.__doc__ or ""))
    # a histogram is queried through its _bucket series
    assert {q.removesuffix("_bucket") for q in queried} == listed
