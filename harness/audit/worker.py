"""The audit process: the engine and the report sink, outside mitmdump's process (issue 24).

The mitmproxy addon (:mod:`harness.audit.addon`) audits nothing itself. It copies what the
audit needs from each finished flow (request and response headers and body bytes, or the
streamed SSE bytes its tee kept, the status, the transport error, the start time) into a
:class:`~harness.audit.capture.RawExchange`, and :class:`AuditProcess` sends it to a Python
process of its own, which runs the unchanged :class:`~harness.audit.engine.Auditor` and
:class:`~harness.audit.sink.ReportSink` (:class:`AuditWorker`, :func:`main`). The audit's CPU
time and its GIL are then the audit process's, never the proxy's.

The pipe carries length-prefixed frames (an 8-byte little-endian length, then a pickle): to the
audit process ``("config", {...})`` once, ``("exchange", RawExchange)`` per flow, ``("end",
dropped, why)`` at the stop; back ``("ready",)`` once the header of results.jsonl is written,
``("result", ExchangeResult, open_conversations)`` per exchange (the addon's metrics and its
recent results come from these), ``("log", level, line)`` for each of its log lines (findings
as they are seen, the closing summary: mitmdump logs them, so one process writes the console)
and ``("finished", {name: path})`` when the reports are done.
Credential headers are dropped before a flow leaves the proxy (the rules never read them).

What each promise becomes:

* **Bounded memory.** At most ``backlog`` exchanges are *outstanding* (sent and not yet
  answered by a ``result``), wherever they wait (the writer's queue, the pipe, the audit
  process). A flow beyond that is not queued: it is counted, and the count is a note of the
  report ("N exchanges were not audited: the audit fell more than 256 exchanges behind") and
  the ``agent_tck_audit_dropped_requests_total`` metric. The proxy never waits for the audit:
  the hooks only append to a queue that a writer thread empties into the pipe.
* **Nothing lost at a clean stop.** The addon's ``done`` hook sends the requests still waiting
  for their response (never dropped then), then ``end``, and waits until the audit process has
  audited everything, written the per-rule records, the footer, every view and audit.json, and
  exited.
* **A crash is reported and the proxy goes on.** If the audit process dies (killed, out of
  memory), the addon logs it once with the number of exchanges lost; later flows pass
  untouched and are counted as not audited; at the stop, the views are rendered from the
  truncated results.jsonl (as after a ``kill -9``) and the shutdown line counts what was not
  audited. ``agent_tck_audit_up`` drops to 0.
* **It dies with the proxy.** The audit process arms ``PR_SET_PDEATHSIG`` on itself
  (:func:`harness.audit.lifeline.arm_now`), ignores SIGINT and SIGTERM (a Ctrl-C in a terminal
  reaches the whole process group: the proxy stops cleanly and the audit must drain), and
  treats the end of its input without ``end`` as the proxy's death: results.jsonl stays a
  truncated run, as the kill -9 promise says.
* **Secrets.** Its log lines go through the run's :class:`~harness.audit.redact.Scrubber`, as
  the addon's did; the artifacts are the sink's, unchanged.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import signal
import struct
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from agent_tck.harness.audit.capture import _SECRET_HEADERS, RawExchange, RawMessage, RawResponse
from agent_tck.harness.audit.engine import ExchangeResult

log = logging.getLogger("agent_tck.audit")

FRAME = struct.Struct("<Q")
#: how long the proxy waits for a starting audit process to write the results.jsonl header
START_WAIT = 300.0
#: how long the proxy waits at the stop for a frame from an audit process that has stopped
#: making progress (SIGSTOPped, stuck in a loop) before it kills it: "never a hang"
#: (docs/RELIABILITY.md); a draining process sends a result per exchange, far more often
STALL_WAIT = 300.0
#: the pipe's kernel buffer (Linux ``F_SETPIPE_SZ``): a ~200 KB request in a few writes
PIPE_BYTES = 1 << 20


def write_frame(out: IO[bytes], message: tuple[Any, ...]) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    out.write(FRAME.pack(len(data)))
    out.write(data)
    out.flush()


def read_frame(inp: IO[bytes]) -> tuple[Any, ...] | None:
    """The next frame, or ``None`` at the end of the input (or a frame cut short by it)."""
    head = inp.read(FRAME.size)
    if len(head) != FRAME.size:
        return None
    (size,) = FRAME.unpack(head)
    data = inp.read(size)
    if len(data) != size:
        return None
    message = pickle.loads(data)  # from our own process at the other end of our own pipe
    return message if isinstance(message, tuple) else None


def without_secrets(raw: RawExchange) -> RawExchange:
    """The exchange without credential headers: they never leave the proxy's process."""

    def clean(headers: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...] | None:
        if not any(k.lower() in _SECRET_HEADERS for k, _ in headers):
            return None
        return tuple((k, v) for k, v in headers if k.lower() not in _SECRET_HEADERS)

    request: RawMessage = raw.request
    response: RawResponse | None = raw.response
    if (headers := clean(request.headers)) is not None:
        request = replace(request, headers=headers)
    if response is not None and (headers := clean(response.headers)) is not None:
        response = replace(response, headers=headers)
    if request is raw.request and response is raw.response:
        return raw
    return replace(raw, request=request, response=response)


# --- the proxy's side ---------------------------------------------------------------------------


class AuditProcess:
    """mitmdump's handle on the audit process: :meth:`start`, :meth:`submit` per flow (never
    blocks), :meth:`finish` at the stop. ``on_result`` is called (on the reader thread) with
    each audited exchange's result and the number of open conversations; ``on_stop`` once if
    the process stops before finishing, with the number of exchanges it took along."""

    def __init__(self, config: dict[str, Any], backlog: int,
                 on_result: Callable[[ExchangeResult, int], None],
                 on_stop: Callable[[int], None]) -> None:
        self.config = {**config, "parent": os.getpid()}
        self.backlog = max(1, backlog)
        self.on_result = on_result
        self.on_stop = on_stop
        self.alive = False
        self.lost = 0  # exchanges the process took along when it stopped
        self.returncode: int | None = None
        self.finished: dict[str, str] | None = None
        self._closing = False
        self._outstanding = 0
        self._cond = threading.Condition()
        self._queue: deque[tuple[Any, ...]] = deque()
        self._ready = threading.Event()
        self._proc: subprocess.Popen[bytes] | None = None
        self._threads: list[threading.Thread] = []
        self._heard = time.monotonic()  # when the last frame arrived (the stall watchdog)
        self.stalled = False  # killed at the stop after STALL_WAIT without a frame

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def start(self) -> None:
        """Start the process and wait until it has written the results.jsonl header."""
        import agent_tck

        src = str(Path(agent_tck.__file__).parent.parent)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            p for p in (src, os.environ.get("PYTHONPATH", "")) if p)}
        self._proc = subprocess.Popen(
            [sys.executable, "-c", "from agent_tck.harness.audit.worker import main; main()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        assert self._proc.stdin is not None and self._proc.stdout is not None
        _widen(self._proc.stdin)
        self.alive = True
        write_frame(self._proc.stdin, ("config", self.config))
        for target, name in ((self._write, "agent-tck-audit-writer"),
                             (self._read, "agent-tck-audit-reader")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        self._ready.wait(START_WAIT)

    def submit(self, raw: RawExchange, *, force: bool = False) -> bool:
        """Queue one exchange; ``False`` when it is not taken (the audit is ``backlog``
        exchanges behind, or stopped). ``force``: taken past the backlog (at the stop)."""
        with self._cond:
            if not self.alive or (self._outstanding >= self.backlog and not force):
                return False
            self._outstanding += 1
            self._queue.append(("exchange", raw))
            self._cond.notify_all()
        return True

    def flush(self) -> None:
        """Wait until every exchange submitted so far has been audited (or the process died)."""
        with self._cond:
            while self._outstanding and self.alive:
                self._cond.wait()

    def finish(self, dropped: int, why: str) -> dict[str, str] | None:
        """Send the end, wait for the reports and the exit: the written paths, or ``None``
        when the process had stopped before."""
        with self._cond:
            self._queue.append(("end", dropped, why))
            self._cond.notify_all()
        self._join()
        return self.finished

    def close(self) -> None:
        """End the process without reports (its input closes: results.jsonl stays truncated)."""
        with self._cond:
            self._closing = True
            self._queue.append(("close",))
            self._cond.notify_all()
        self._join()

    def _join(self) -> None:
        """Wait for the threads and the exit; a process that sends nothing for
        ``STALL_WAIT`` seconds is killed (its reader then ends as on a crash)."""
        self._heard = time.monotonic()  # the wait starts now, however long the proxy idled
        for thread in self._threads:
            while thread.is_alive():
                thread.join(min(5.0, STALL_WAIT))
                if (thread.is_alive() and self._proc is not None and self._proc.poll() is None
                        and time.monotonic() - self._heard > STALL_WAIT):
                    log.warning("agent-tck: the audit process sent nothing for %.0f s at the "
                                "stop: killed", STALL_WAIT)
                    self.stalled = True
                    with contextlib.suppress(OSError):
                        self._proc.kill()
        self._threads = []
        if self._proc is not None:
            self.returncode = self._proc.wait()

    def _write(self) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        pipe = self._proc.stdin
        try:
            while True:
                with self._cond:
                    while not self._queue:
                        self._cond.wait()
                    message = self._queue.popleft()
                if message[0] == "close":
                    return
                write_frame(pipe, message)
                if message[0] == "end":
                    return
        except (OSError, ValueError):  # the process is gone: the reader reports it
            return
        finally:
            with contextlib.suppress(OSError):
                pipe.close()

    def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        try:
            while (frame := read_frame(self._proc.stdout)) is not None:
                self._take(frame)
        except Exception:  # contained: the proxy goes on whatever the audit process sends
            log.exception("agent-tck: reading the audit process failed")
        finally:
            code = self._proc.wait()
            with self._cond:
                self.alive = False
                lost, self._outstanding = self._outstanding, 0
                self._queue.clear()
                self._cond.notify_all()
            self._ready.set()
            if self.finished is None and not self._closing:
                self.lost = lost
                self.returncode = code
                self.on_stop(lost)

    def _take(self, frame: tuple[Any, ...]) -> None:
        self._heard = time.monotonic()
        kind = frame[0]
        if kind == "result":
            try:
                self.on_result(frame[1], int(frame[2]))
            except Exception:  # a metrics failure must not stop the reading
                log.exception("agent-tck: recording an audit result failed")
            with self._cond:
                self._outstanding -= 1
                self._cond.notify_all()
        elif kind == "failed":  # an exchange the audit process could not audit (logged there)
            with self._cond:
                self._outstanding -= 1
                self._cond.notify_all()
        elif kind == "log":
            log.log(int(frame[1]), "%s", frame[2])
        elif kind == "ready":
            self._ready.set()
        elif kind == "finished":
            self.finished = dict(frame[1])


def _widen(pipe: IO[bytes]) -> None:
    with contextlib.suppress(ImportError, AttributeError, OSError):  # not Linux, over the limit
        import fcntl

        fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)


def describe_exit(code: int | None) -> str:
    if code is None:
        return "it is not running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


# --- the audit process --------------------------------------------------------------------------


class AuditWorker:
    """The audit, as the addon's worker thread ran it: each exchange through the engine, its
    records into the sink, its findings on the log; the reports at the end."""

    def __init__(self, config: dict[str, Any]) -> None:
        from agent_tck.harness.audit.engine import Auditor
        from agent_tck.harness.audit.redact import Scrubber

        self.config = config
        self.scrub = Scrubber()
        self.auditor = Auditor(max_body=int(config["max_body"]), keep=False)
        self.sink: Any = None
        self._open_sink()

    def _open_sink(self) -> None:
        from agent_tck.harness.audit.sink import ReportSink

        if self.sink is None:
            try:
                self.sink = ReportSink(self.config["report_dir"], source=self.config["source"],
                                       name=self.config["name"], scrub=self.scrub)
            except Exception:  # no stream: tried again at the end
                log.exception("agent-tck: cannot write results.jsonl as the audit goes")

    def observe(self, raw: RawExchange) -> ExchangeResult:
        result = self.auditor.observe(raw)
        if self.sink is not None:
            try:
                self.sink.add(result)
            except Exception:  # a full disk must not stop the audit
                log.exception("agent-tck: writing results.jsonl failed")
        self._log(result)
        return result

    def _log(self, result: ExchangeResult) -> None:
        where = f"agent-tck: #{result.index} {result.method} {result.path}"
        for finding in result.findings:
            log.warning("%s", self.scrub.text(
                f"{where}: {finding.severity} {finding.rule} at {finding.pointer}: "
                f"{finding.message}"))
        for err in result.errors:
            log.error("%s", self.scrub.text(
                f"agent-tck: #{result.index} check {err.check} raised {err.error}"))
        if result.error:
            log.warning("%s", self.scrub.text(f"{where}: no response: {result.error}"))

    def finish(self, dropped: int, why: str) -> dict[str, str]:
        if dropped:
            self.auditor.note(f"{dropped} exchanges were not audited: {why}")
        self._open_sink()
        sink, self.sink = self.sink, None
        folder = self.config["report_dir"]
        if sink is None:
            raise RuntimeError(f"cannot write the audit reports in {folder}")
        result = self.auditor.result()
        written = sink.finish(result.conversations, result.notes)
        tally = sink.tally
        log.warning("agent-tck: audited %d LLM requests (%d other ignored): %d errors, "
                    "%d warnings; reports in %s", tally.audited, tally.ignored,
                    tally.severity.get("error", 0), tally.severity.get("warning", 0), folder)
        return {name: str(path) for name, path in written.items()}

    def abandon(self) -> None:
        """The proxy went away without an end: results.jsonl stays a truncated run."""
        if self.sink is not None:
            self.sink.writer.close()


def serve(inp: IO[bytes], out: IO[bytes], config: dict[str, Any]) -> int:
    worker = AuditWorker(config)
    write_frame(out, ("ready",))
    while (frame := read_frame(inp)) is not None:
        if frame[0] == "exchange":
            try:
                result = worker.observe(frame[1])
            except Exception as exc:  # contained: one exchange never stops the audit process
                log.error("agent-tck: auditing an exchange failed (%s): it is not in the report",
                          type(exc).__name__)
                write_frame(out, ("failed",))
                continue
            write_frame(out, ("result", result, worker.auditor.open_conversations))
        elif frame[0] == "end":
            if frame[1]:
                log.warning("agent-tck: %d exchanges were not audited: %s", frame[1], frame[2])
            write_frame(out, ("finished", worker.finish(int(frame[1]), str(frame[2]))))
            return 0
    worker.abandon()
    log.warning("agent-tck: the proxy stopped without ending the audit: results.jsonl is left "
                "as a truncated run")
    return 3


def main() -> None:
    """The audit process: frames on stdin, frames (log lines among them) on stdout."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the proxy's stop ends us, with an end frame
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    inp = os.fdopen(os.dup(0), "rb")
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print must not break a frame: stdout now goes to stderr
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    frame = read_frame(inp)
    if frame is None or frame[0] != "config":
        sys.exit(2)
    config: dict[str, Any] = frame[1]
    from agent_tck.harness.audit.lifeline import arm_now

    arm_now(int(config["parent"]))
    log.handlers[:] = [_ToProxy(out)]
    log.propagate = False
    log.setLevel(logging.WARNING)
    try:
        code = serve(inp, out, config)
    except Exception:
        log.exception("agent-tck: the audit process failed")
        code = 1
    sys.exit(code)


# --- log lines ----------------------------------------------------------------------------------


class _JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        import json

        return json.dumps({"time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S%z"),
                           "level": record.levelname.lower(), "logger": record.name,
                           "message": record.getMessage()}, ensure_ascii=False)


def json_logs(logger: logging.Logger) -> None:
    """``--log-format json``: the audit's log lines as JSON objects on stderr, one a line."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_JsonLines())
    logger.handlers[:] = [handler]
    logger.propagate = False


class _ToProxy(logging.Handler):
    """The audit process's log lines, sent to the proxy as ``("log", level, text)`` frames:
    mitmdump logs them with its own, so one process writes the console and lines from the
    two never run into each other (an unbuffered stderr writes a line and its newline apart)."""

    def __init__(self, out: IO[bytes]) -> None:
        from agent_tck.harness.audit.redact import Scrubber

        super().__init__(logging.WARNING)
        self.out = out
        self.scrub = Scrubber()  # a traceback's text is no line of ours: redacted here

    def emit(self, record: logging.LogRecord) -> None:
        with contextlib.suppress(Exception):  # the proxy is gone: the line has nowhere to go
            text = record.getMessage()
            if record.exc_info:
                text += "\n" + self.scrub.text(
                    logging.Formatter().formatException(record.exc_info))
            write_frame(self.out, ("log", record.levelno, text))
