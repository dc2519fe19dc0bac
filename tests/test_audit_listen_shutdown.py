"""``agent-tck audit --listen`` stopped while requests wait for the upstream (issue 12).

A real mitmdump in reverse mode in front of an upstream that reads each request and never
answers. Once the upstream holds every request (a condition, not a clock), SIGTERM goes to the
command: every request that reached the proxy is audited, the exit code is 1 (each one breaks
BO-001), and results.jsonl was readable before the stop (what a kill -9 would leave).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tck.harness.commands.audit import find_mitmdump
from agent_tck.harness.common.errors import HarnessError

pytestmark = pytest.mark.slow
pytest.importorskip("mitmproxy")

ROOT = Path(__file__).resolve().parent.parent
REQUESTS = 12
BODY = json.dumps({"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": [
    {"type": "text", "text": "hi"}, {"type": "thinking", "thinking": "t"}]}]}).encode()


class SilentUpstream:
    """Accepts connections, reads one request head each, counts it, never answers."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0), backlog=64)
        self.port = self.sock.getsockname()[1]
        self.received = threading.Semaphore(0)
        self.conns: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            threading.Thread(target=self._read, args=(conn,), daemon=True).start()

    def _read(self, conn: socket.socket) -> None:
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
        except OSError:
            return
        self.received.release()

    def close(self) -> None:
        self.sock.close()
        for conn in self.conns:
            conn.close()


def send(port: int) -> socket.socket:
    client = socket.create_connection(("127.0.0.1", port), timeout=120)
    client.sendall(b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                   b"x-api-key: sk-ant-api03-PLANTEDshutdownKEY0123456\r\ncontent-length: "
                   + str(len(BODY)).encode() + b"\r\n\r\n" + BODY)
    return client


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def need_mitmdump() -> None:
    try:
        find_mitmdump(None)
    except HarnessError:
        pytest.skip("mitmdump is not installed")


def wait_listening(port: int, cli: subprocess.Popen[bytes]) -> None:
    for _ in range(600):  # the proxy is up when it accepts a connection
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert cli.poll() is None, "the proxy exited before listening"
            threading.Event().wait(0.1)
    raise AssertionError("the proxy never listened")


def audit_cli(port: int, upstream: int, report_dir: Path, *more: str,
              quiet: bool = False) -> subprocess.Popen[bytes]:
    """``agent-tck audit --listen`` on ``port`` in front of ``upstream``."""
    out = subprocess.DEVNULL if quiet else subprocess.PIPE
    return subprocess.Popen(
        [sys.executable, "-m", "agent_tck", "audit", "--listen", f"127.0.0.1:{port}",
         "--upstream", f"http://127.0.0.1:{upstream}", "--report-dir", str(report_dir), *more],
        stdout=out, stderr=out, cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"})


@contextlib.contextmanager
def reaped(cli: subprocess.Popen[bytes]) -> Iterator[subprocess.Popen[bytes]]:
    """The command, killed on the way out if a failing test left it running."""
    try:
        yield cli
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait(10)


def test_sigterm_audits_every_request_in_flight(tmp_path: Path) -> None:
    need_mitmdump()
    from agent_tck.harness.reports import read

    upstream = SilentUpstream()
    port = free_port()
    report_dir = tmp_path / "reports"
    cli = audit_cli(port, upstream.port, report_dir, "--format", "json")
    clients: list[socket.socket] = []
    try:
        wait_listening(port, cli)
        clients = [send(port) for _ in range(REQUESTS)]
        for _ in range(REQUESTS):  # every request has reached the upstream (so the proxy)
            assert upstream.received.acquire(timeout=120)
        live = read(report_dir / "results.jsonl")  # what a kill -9 would leave: readable
        assert live.truncated
        cli.send_signal(signal.SIGTERM)
        code = cli.wait(120)
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait(10)
        for client in clients:
            client.close()
        upstream.close()
    out, err = cli.stdout.read().decode(), cli.stderr.read().decode()  # type: ignore[union-attr]
    assert code == 1, err[-3000:]
    # issue 26.9: requests in flight at the stop cost one line in all, never a traceback
    assert "Traceback" not in err and "CancelledError" not in err, err[-3000:]
    other = [ln for ln in err.splitlines() if "agent-tck: #" not in ln]  # not a finding
    assert len(other) <= 4, err[-3000:]
    assert sum("12 requests were still waiting" in ln for ln in other) == 1, err[-3000:]
    doc = json.loads(out)
    assert doc["counts"]["exchanges"] == REQUESTS
    assert all([f["rule"] for f in x["findings"]] == ["BO-001"] for x in doc["exchanges"])
    run = read(report_dir / "results.jsonl")
    assert not run.truncated and run.footer is not None and run.footer.exit_code == 1
    assert "PLANTEDshutdownKEY" not in out + err


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _alive(pid: int) -> bool:
    """Some thread of the process has not exited yet. The first thread turns zombie while the
    others still tear down, holding the files (the listening socket) the threads share: the
    process is gone, its port free, only once every thread is a zombie."""
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return False
    for task in tasks:
        try:
            state = (task / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in ("Z", "X"):  # a zombie has exited (its parent, init, reaps it)
            return True
    return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_kill_9_of_the_command_takes_mitmdump_with_it(tmp_path: Path) -> None:
    """Issue 26.8: kill -9 of `agent-tck audit --listen` leaves no mitmdump behind (it kept the
    port and went on appending to results.jsonl); results.jsonl reads as a truncated run."""
    need_mitmdump()
    from agent_tck.harness.reports import read

    upstream = SilentUpstream()
    port = free_port()
    report_dir = tmp_path / "reports"
    cli = audit_cli(port, upstream.port, report_dir, quiet=True)
    children: list[int] = []
    clients: list[socket.socket] = []
    try:
        wait_listening(port, cli)
        children = _children(cli.pid)
        assert children, "mitmdump is not a child of the command"
        clients = [send(port) for _ in range(2)]
        for _ in range(2):
            assert upstream.received.acquire(timeout=120)
        cli.kill()  # SIGKILL: the command can forward nothing
        cli.wait(30)
        for _ in range(600):  # bounded polling on a condition: mitmdump is gone
            if not any(_alive(pid) for pid in children):
                break
            threading.Event().wait(0.1)
        assert not any(_alive(pid) for pid in children), "mitmdump outlived its parent"
    finally:
        for pid in children:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        for client in clients:
            client.close()
        upstream.close()
    run = read(report_dir / "results.jsonl")
    assert run.truncated
    with pytest.raises(OSError):  # nobody listens on the port any more
        socket.create_connection(("127.0.0.1", port), timeout=5).close()


class AnsweringUpstream(SilentUpstream):
    """Answers each request head with a small JSON reply (the request has no body to wait
    for beyond its head in this test's requests)."""

    def _read(self, conn: socket.socket) -> None:
        data = b""
        try:
            while True:
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                head, _, data = data.partition(b"\r\n\r\n")
                length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                while len(data) < length:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                data = data[length:]
                reply = b'{"type": "message", "content": []}'
                conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                             b"content-length: " + str(len(reply)).encode() + b"\r\n\r\n" + reply)
                self.received.release()
        except OSError:
            return


def _post(port: int) -> int:
    import urllib.request

    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/messages", data=BODY,
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as r:
        return int(r.status)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_crash_of_the_audit_process_is_reported_and_the_proxy_goes_on(tmp_path: Path) -> None:
    """The audit runs in a process of mitmdump's own (harness/audit/worker.py): killed, it is
    reported once, traffic still passes, and the stop leaves a truncated, readable run."""
    need_mitmdump()
    from agent_tck.harness.reports import read

    upstream = AnsweringUpstream()
    port = free_port()
    report_dir = tmp_path / "reports"
    cli = audit_cli(port, upstream.port, report_dir)
    with contextlib.closing(upstream), reaped(cli):
        wait_listening(port, cli)
        assert _post(port) == 200
        for _ in range(1200):  # bounded polling on a condition: that request is audited
            if (report_dir / "results.jsonl").exists() and any(
                    c.rules == ("BO-001",) for c in read(report_dir / "results.jsonl").cases):
                break
            threading.Event().wait(0.1)
        (mitmdump,) = _children(cli.pid)
        (auditor,) = _children(mitmdump)
        os.kill(auditor, signal.SIGKILL)
        for _ in range(3):  # the proxy goes on
            assert _post(port) == 200
        cli.send_signal(signal.SIGTERM)
        _, err_bytes = cli.communicate(timeout=120)
    err = err_bytes.decode()
    assert cli.returncode == 2, err[-3000:]
    assert "the audit process stopped (killed by SIGKILL)" in err, err[-3000:]
    assert "AUDIT_PROXY_FAILED" in err and "Traceback" not in err, err[-3000:]
    run = read(report_dir / "results.jsonl")
    assert run.truncated and any(c.rules == ("BO-001",) for c in run.cases)
