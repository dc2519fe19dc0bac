"""The agent-tck audit as a mitmproxy addon: ``mitmdump -s harness/audit/addon.py``.

A thin shell (STYLE 7) that audits nothing in mitmdump's process: when a flow ends, the hooks
copy what the audit needs (request and response headers and body bytes, or the teed SSE bytes,
the status, the transport error, the start time; never a credential header) onto a bounded
queue to a separate audit process (:mod:`harness.audit.worker`), which runs
:class:`harness.audit.engine.Auditor` and :class:`harness.audit.sink.ReportSink` with a GIL and
CPU time of its own. Request and response bytes reach the other side unchanged (the addon
never writes to a flow); a Server-Sent Events response is streamed through at once, with a tee
on ``flow.response.stream`` keeping a bounded copy; every hook contains its own exceptions;
non-LLM traffic passes (the audit process counts it as ignored).

``results.jsonl`` is written as the audit goes (the header when the proxy starts, each
exchange's records flushed as it is audited), so even a ``kill -9`` leaves a stream
``agent-tck report`` renders; when mitmproxy shuts down (Ctrl-C, SIGTERM) the audit process
catches up, audits the requests that had no response yet (request-side rules, with a note),
appends the per-rule records and the footer, renders every view and exits, and only then does
mitmdump exit. If the audit falls more than ``tck_backlog`` exchanges behind, further ones are
counted and reported as not audited rather than queued without bound; if the audit process
dies, that is logged and the proxy goes on (worker.py says what each promise becomes).

Options (``--set name=value``; read when the proxy starts):

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
import sys
from collections import deque
from pathlib import Path
from typing import Any

try:  # loaded by path (so its imports are absolute), maybe from a checkout not installed
    import agent_tck  # noqa: F401
except ImportError:  # pragma: no cover - depends on how mitmdump was started
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from agent_tck.harness.audit.capture import DEFAULT_MAX_BODY
from agent_tck.harness.audit.engine import ExchangeResult
from agent_tck.harness.audit.readers import flow_to_raw
from agent_tck.harness.audit.worker import AuditProcess, describe_exit, json_logs, without_secrets

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
    """The addon: hooks only copy finished flows to the audit process, and report out."""

    def __init__(self) -> None:
        self.max_body = DEFAULT_MAX_BODY
        self.backlog = 256
        #: the latest results (bounded), for a look at what the proxy is doing
        self.recent: deque[ExchangeResult] = deque(maxlen=RECENT_RESULTS)
        self.ignored = 0
        self.metrics: Any = None  # harness.audit.metrics.AuditMetrics with --metrics
        self.flows = 0
        self.dropped = 0  # exchanges not taken: the audit was `backlog` behind, or stopped
        self.written: dict[str, Path] = {}
        self._pending: dict[str, Any] = {}  # flow id -> flow whose request arrived
        self.process: AuditProcess | None = None

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

        # the audit process reads them when it starts (when the proxy starts)
        if "tck_max_body" in updated:
            self.max_body = max(0, int(ctx.options.tck_max_body))
        if "tck_backlog" in updated:
            self.backlog = max(1, int(ctx.options.tck_backlog))
        if "tck_log_format" in updated and ctx.options.tck_log_format == "json":
            json_logs(log)
        if "tck_metrics" in updated and ctx.options.tck_metrics and self.metrics is None:
            from agent_tck.harness.audit.metrics import AuditMetrics

            host, _, port = ctx.options.tck_metrics.rpartition(":")
            self.metrics = AuditMetrics()
            self.metrics.serve(host.strip("[]") or "127.0.0.1", int(port))

    # -- hooks --------------------------------------------------------------------------------

    def running(self) -> None:
        self.start()

    def request(self, flow: Any) -> None:
        try:
            self._pending[flow.id] = flow
        except Exception:  # never break the flow
            log.exception("agent-tck: could not note %s", _where(flow))

    def responseheaders(self, flow: Any) -> None:
        try:
            if flow.response is not None and is_event_stream(flow.response.headers):
                tee = Tee(self.max_body)
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
            for flow in waiting:  # reached us, never answered: taken past the backlog
                self._hand_over(flow, note="the proxy stopped before the response arrived: "
                                           "request-side rules only", force=True)
            if waiting:  # one line for them all (issue 26.9), never one per request
                log.warning("agent-tck: %d requests were still waiting for their response at "
                            "the stop: audited on their request side, connections closed",
                            len(waiting))
            self.write_reports()
        except Exception:
            log.exception("agent-tck: writing the audit reports failed")

    # -- work ---------------------------------------------------------------------------------

    def _hand_over(self, flow: Any, note: str | None = None, force: bool = False) -> None:
        """In the event loop: copy what the audit needs from the flow, queue it, return."""
        try:
            self._pending.pop(str(getattr(flow, "id", "")), None)
            if flow.metadata.get(_SEEN) or getattr(flow, "request", None) is None:
                return
            flow.metadata[_SEEN] = True
            tee = flow.metadata.get(_TEE)
            self.flows += 1
            raw = without_secrets(flow_to_raw(flow, f"flow {self.flows}",
                                              tee.body() if tee is not None else None,
                                              tee.truncated if tee is not None else False))
            if note is not None:
                from dataclasses import replace

                raw = replace(raw, notes=(*raw.notes, note))
            if not self.start().submit(raw, force=force):
                self.dropped += 1
                if self.metrics is not None:
                    self.metrics.dropped.inc()
        except Exception:  # contained: the flow goes on whatever happens here
            log.exception("agent-tck: auditing %s failed", _where(flow))

    def start(self) -> AuditProcess:
        """The audit process, started once (at the proxy's start) with the options then."""
        if self.process is None:
            from mitmproxy import ctx

            config = {"report_dir": str(ctx.options.tck_report_dir),
                      "source": ctx.options.tck_source, "name": ctx.options.tck_name,
                      "max_body": self.max_body}
            self.process = AuditProcess(config, self.backlog, self._result, self._stopped)
            try:
                self.process.start()
            except Exception:  # no audit: the proxy still passes every flow
                log.exception("agent-tck: the audit process could not be started")
            if self.metrics is not None:
                self.metrics.up.set(1 if self.process.alive else 0)
        return self.process

    def _result(self, result: ExchangeResult, open_conversations: int) -> None:
        """On the reader thread: one audited exchange came back."""
        self.recent.append(result)
        self.ignored += result.dialect is None
        if self.metrics is not None:
            self.metrics.observe(result, open_conversations)

    def _stopped(self, lost: int) -> None:
        """On the reader thread: the audit process stopped before the end."""
        code = self.process.returncode if self.process is not None else None
        log.error("agent-tck: the audit process stopped (%s): %d exchanges it held were not "
                  "audited, and later requests pass through unaudited; results.jsonl keeps "
                  "what was audited", describe_exit(code), lost)
        if self.metrics is not None:
            self.metrics.up.set(0)
            self.metrics.dropped.inc(lost)

    def audited(self) -> tuple[ExchangeResult, ...]:
        """The latest audited (LLM) exchanges' results, oldest first."""
        return tuple(x for x in self.recent if x.dialect is not None)

    def flush(self) -> None:
        """Wait until every exchange handed over so far has been audited."""
        if self.process is not None:
            self.process.flush()

    def close(self) -> None:
        """End the audit process without reports (results.jsonl stays a truncated run)."""
        if self.process is not None:
            self.process.close()

    def write_reports(self) -> dict[str, Path]:
        """Let the audit process catch up and write every report; wait for its exit."""
        from mitmproxy import ctx

        process = self.start()
        written = process.finish(self.dropped, f"the audit fell more than {process.backlog} "
                                               "exchanges behind")
        folder = Path(ctx.options.tck_report_dir)
        if written is None:
            lost = self.dropped + process.lost
            log.error("agent-tck: the audit did not finish (the audit process: %s): %d "
                      "exchanges were not audited; the views in %s are rendered from the "
                      "truncated results.jsonl", describe_exit(process.returncode), lost,
                      folder)
            if (folder / "results.jsonl").exists():
                from agent_tck.harness.reports import render_folder

                render_folder(folder)
            return {}
        self.written = {name: Path(path) for name, path in written.items()}
        return self.written


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
