"""The agent-tck audit as a mitmproxy addon: ``mitmdump -s harness/audit/addon.py``.

A thin shell (STYLE 7): the hooks hand each completed flow (references to its bytes) to a
worker thread that runs :class:`harness.audit.engine.Auditor`, so traffic never waits for the
rules, and never touch the traffic. Request and response bytes reach the other side unchanged;
a Server-Sent Events response is streamed through at once, with a tee on
``flow.response.stream`` keeping a bounded copy for the audit; every hook and the worker
contain their own exceptions (a failing audit is logged and reported, never a broken flow);
non-LLM traffic passes and is ignored. ``results.jsonl`` is written as the audit goes by a
:class:`harness.audit.sink.ReportSink` (the header when the proxy starts, each exchange's
records flushed as it is audited), so even a ``kill -9`` leaves a stream ``agent-tck report``
renders; when mitmproxy shuts down (Ctrl-C, SIGTERM) and the worker has caught up, the sink
appends the per-rule records and the footer and renders every view. Nothing per request is
kept in memory. A request that reached
the proxy but had no response yet at shutdown is still audited (its request-side rules), with
a note saying the response never came. If the audit falls more than ``tck_backlog``
exchanges behind, further ones are counted and reported as not audited rather than queued
without bound.

Options (``--set name=value``):

* ``tck_report_dir`` - where the reports go (default ``reports/audit``);
* ``tck_max_body`` - the largest decoded body the audit reads, in bytes (default 64 MiB);
  a larger one is noted, not audited, and always passes through;
* ``tck_name`` - the label of the audited agent in the reports;
* ``tck_backlog`` - how many completed exchanges may wait for the audit (default 256).

It never writes mitmproxy's raw flows or a HAR: run it without ``-w`` and ``hardump``
(``agent-tck audit --listen`` does).
"""

from __future__ import annotations

import asyncio
import logging
import queue
import sys
import threading
from collections import deque
from pathlib import Path
from typing import Any

try:  # loaded by path (so its imports are absolute), maybe from a checkout not installed
    import agent_tck  # noqa: F401
except ImportError:  # pragma: no cover - depends on how mitmdump was started
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from agent_tck.harness.audit.capture import DEFAULT_MAX_BODY, RawExchange
from agent_tck.harness.audit.engine import Auditor, ExchangeResult
from agent_tck.harness.audit.readers import flow_to_raw
from agent_tck.harness.audit.redact import Scrubber
from agent_tck.harness.audit.sink import ReportSink

log = logging.getLogger("agent_tck.audit")

_TEE = "agent_tck_tee"
RECENT_RESULTS = 256
_SEEN = "agent_tck_seen"


class Tee:
    """A ``flow.response.stream`` callable: passes every chunk on unchanged, keeps a copy of
    up to ``limit`` bytes for the audit (beyond it, the copy is marked truncated)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.chunks: list[bytes] = []
        self.size = 0
        self.truncated = False

    def __call__(self, data: bytes) -> bytes:
        if data and not self.truncated:
            if self.size + len(data) > self.limit:
                self.truncated = True
                self.chunks.clear()
            else:
                self.chunks.append(data)
                self.size += len(data)
        return data

    def body(self) -> bytes:
        return b"".join(self.chunks)


def is_event_stream(headers: Any) -> bool:
    return "text/event-stream" in str(headers.get("content-type", "")).lower()


class AgentTckAudit:
    """The addon: hooks only move flows to the audit worker, and reports out."""

    def __init__(self) -> None:
        self.auditor = Auditor(keep=False)  # results go to the sink as they come
        #: the latest results (bounded), for a look at what the proxy is doing
        self.recent: deque[ExchangeResult] = deque(maxlen=RECENT_RESULTS)
        self.ignored = 0
        self.metrics: Any = None  # harness.audit.metrics.AuditMetrics with --metrics
        self.scrub = Scrubber()
        self.flows = 0
        self.dropped = 0
        self.written: dict[str, Path] = {}
        self._queue: queue.Queue[RawExchange | None] = queue.Queue(maxsize=256)
        self._worker: threading.Thread | None = None
        self._lock = threading.Lock()
        self._pending: dict[str, Any] = {}  # flow id -> flow whose request arrived
        self.stream: ReportSink | None = None

    # -- options ------------------------------------------------------------------------------

    def load(self, loader: Any) -> None:
        quiet_cancellations()
        loader.add_option("tck_report_dir", str, "reports/audit",
                          "agent-tck: where the audit reports are written")
        loader.add_option("tck_max_body", int, DEFAULT_MAX_BODY,
                          "agent-tck: the largest decoded body the audit reads (bytes)")
        loader.add_option("tck_name", str, "audited agent",
                          "agent-tck: the audited agent's label in the reports")
        loader.add_option("tck_source", str, "mitmproxy",
                          "agent-tck: how the traffic was captured (shown in the reports)")
        loader.add_option("tck_backlog", int, 256,
                          "agent-tck: completed exchanges that may wait for the audit")
        loader.add_option("tck_metrics", str, "",
                          "agent-tck: HOST:PORT to serve Prometheus metrics on (empty: none)")
        loader.add_option("tck_log_format", str, "text",
                          "agent-tck: text or json (one JSON object per log line)")

    def configure(self, updated: Any) -> None:
        from mitmproxy import ctx

        if "tck_max_body" in updated:
            self.auditor.max_body = max(0, int(ctx.options.tck_max_body))
        if "tck_backlog" in updated and self._worker is None:
            self._queue = queue.Queue(maxsize=max(1, int(ctx.options.tck_backlog)))
        if "tck_log_format" in updated and ctx.options.tck_log_format == "json":
            json_logs(log)
        if "tck_metrics" in updated and ctx.options.tck_metrics and self.metrics is None:
            from agent_tck.harness.audit.metrics import AuditMetrics

            host, _, port = ctx.options.tck_metrics.rpartition(":")
            self.metrics = AuditMetrics()
            self.metrics.serve(host.strip("[]") or "127.0.0.1", int(port))

    # -- hooks --------------------------------------------------------------------------------

    def running(self) -> None:
        self._open_stream()

    def request(self, flow: Any) -> None:
        try:
            self._pending[flow.id] = flow
        except Exception:  # never break the flow
            log.exception("agent-tck: could not note %s", _where(flow))

    def responseheaders(self, flow: Any) -> None:
        try:
            if flow.response is not None and is_event_stream(flow.response.headers):
                tee = Tee(self.auditor.max_body)
                flow.metadata[_TEE] = tee
                flow.response.stream = tee
        except Exception:  # never break the flow
            log.exception("agent-tck: could not set up streaming for %s", _where(flow))

    def response(self, flow: Any) -> None:
        self._hand_over(flow)

    def error(self, flow: Any) -> None:
        self._hand_over(flow)

    def done(self) -> None:
        try:
            waiting = list(self._pending.values())
            for flow in waiting:  # reached us, never answered
                self._hand_over(flow, note="the proxy stopped before the response arrived: "
                                           "request-side rules only")
            if waiting:  # one line for them all (issue 26.9), never one per request
                log.warning("agent-tck: %d requests were still waiting for their response at "
                            "the stop: audited on their request side, connections closed",
                            len(waiting))
            self.flush()
            self.write_reports()
        except Exception:
            log.exception("agent-tck: writing the audit reports failed")

    # -- work ---------------------------------------------------------------------------------

    def _hand_over(self, flow: Any, note: str | None = None) -> None:
        """In the event loop: take references to the flow's bytes, queue them, return."""
        try:
            self._pending.pop(str(getattr(flow, "id", "")), None)
            if flow.metadata.get(_SEEN) or getattr(flow, "request", None) is None:
                return
            flow.metadata[_SEEN] = True
            tee = flow.metadata.get(_TEE)
            self.flows += 1
            raw = flow_to_raw(flow, f"flow {self.flows}",
                              tee.body() if tee is not None else None,
                              tee.truncated if tee is not None else False)
            if note is not None:
                from dataclasses import replace

                raw = replace(raw, notes=(*raw.notes, note))
            self._start()
            try:
                self._queue.put_nowait(raw)
            except queue.Full:
                self.dropped += 1
        except Exception:  # contained: the flow goes on whatever happens here
            log.exception("agent-tck: auditing %s failed", _where(flow))

    def _start(self) -> None:
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, name="agent-tck-audit",
                                            daemon=True)
            self._worker.start()

    def _work(self) -> None:
        while True:
            raw = self._queue.get()
            try:
                if raw is None:
                    return
                self._audit(raw)
            except Exception:  # contained: a failing audit never stops the worker
                log.exception("agent-tck: auditing %s failed", raw.ref if raw else "?")
            finally:
                self._queue.task_done()

    def _open_stream(self) -> None:
        with self._lock:
            self._open_stream_locked()

    def _open_stream_locked(self) -> None:
        from mitmproxy import ctx

        if self.stream is None:
            try:
                self.stream = ReportSink(ctx.options.tck_report_dir,
                                         source=ctx.options.tck_source,
                                         name=ctx.options.tck_name, scrub=self.scrub)
            except Exception:  # no stream: tried again at shutdown
                log.exception("agent-tck: cannot write results.jsonl as the audit goes")

    def _audit(self, raw: RawExchange) -> None:
        if self.stream is None:
            self._open_stream()
        with self._lock:
            result = self.auditor.observe(raw)
            self.recent.append(result)
            self.ignored += result.dialect is None
            if self.metrics is not None:
                self.metrics.observe(result, self.auditor.open_conversations)
            if self.stream is not None:
                try:
                    self.stream.add(result)
                except Exception:  # a full disk must not stop the audit
                    log.exception("agent-tck: writing results.jsonl failed")
        for finding in result.findings:
            log.warning("%s", self.scrub.text(
                f"agent-tck: #{result.index} {result.method} {result.path}: "
                f"{finding.severity} {finding.rule} at {finding.pointer}: {finding.message}"))
        for err in result.errors:
            log.error("%s", self.scrub.text(
                f"agent-tck: #{result.index} check {err.check} raised {err.error}"))
        if result.error:
            log.warning("%s", self.scrub.text(
                f"agent-tck: #{result.index} {result.method} {result.path}: "
                f"no response: {result.error}"))

    def audited(self) -> tuple[ExchangeResult, ...]:
        """The latest audited (LLM) exchanges' results, oldest first."""
        return tuple(x for x in self.recent if x.dialect is not None)

    def flush(self) -> None:
        """Wait until every exchange handed over so far has been audited."""
        if self._worker is not None:
            self._queue.join()

    def stop(self) -> None:
        if self._worker is not None:
            self._queue.put(None)
            self._worker.join(timeout=60)
            self._worker = None

    def write_reports(self) -> dict[str, Path]:
        from mitmproxy import ctx

        self.stop()
        with self._lock:
            if self.dropped:
                self.auditor.note(f"{self.dropped} exchanges were not audited: the audit fell "
                                  f"more than {self._queue.maxsize} exchanges behind")
                self.dropped = 0
            if self.stream is None:
                self._open_stream_locked()
            sink, self.stream = self.stream, None
            result = self.auditor.result()
        folder = Path(ctx.options.tck_report_dir)
        if sink is None:
            raise RuntimeError(f"cannot write the audit reports in {folder}")
        self.written = sink.finish(result.conversations, result.notes)
        tally = sink.tally
        log.warning("agent-tck: audited %d LLM requests (%d other ignored): %d errors, "
                    "%d warnings; reports in %s", tally.audited, tally.ignored,
                    tally.severity.get("error", 0), tally.severity.get("warning", 0), folder)
        return self.written


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


class _NoCancellations(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, asyncio.CancelledError)


def quiet_cancellations() -> None:
    """A stop with requests in flight cancels each connection's task, and asyncio logs every
    cancellation as a traceback ("Exception in callback ... CancelledError"): 135 requests in
    flight made 4,700 lines of stderr (issue 26.9). Cancellations say nothing the stop does not
    (:meth:`AgentTckAudit.done` counts the requests in one line), so a filter on the
    ``asyncio`` logger (and on mitmproxy's, which logs them as "Unhandled error in task")
    drops log records carrying one; every other error is still logged. A filter rather than
    a loop exception handler: mitmproxy puts the loop's handler back when its run ends, and
    the connections still open are cancelled after that."""
    for name in ("asyncio", "mitmproxy.master"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _NoCancellations) for f in logger.filters):
            logger.addFilter(_NoCancellations())


def _where(flow: Any) -> str:
    try:
        return f"{flow.request.method} {flow.request.path.split('?')[0]}"
    except Exception:
        return "a flow"


addons = [AgentTckAudit()]
