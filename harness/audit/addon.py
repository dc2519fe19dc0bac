"""The agent-tck audit as a mitmproxy addon: ``mitmdump -s harness/audit/addon.py``.

A thin shell (STYLE 7): the hooks hand each completed flow (references to its bytes) to a
worker thread that runs :class:`harness.audit.engine.Auditor`, so traffic never waits for the
rules, and never touch the traffic. Request and response bytes reach the other side unchanged;
a Server-Sent Events response is streamed through at once, with a tee on
``flow.response.stream`` keeping a bounded copy for the audit; every hook and the worker
contain their own exceptions (a failing audit is logged and reported, never a broken flow);
non-LLM traffic passes and is ignored. Reports are written when mitmproxy shuts down (Ctrl-C,
SIGTERM), after the worker has caught up. If the audit falls more than ``tck_backlog``
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

import logging
import queue
import sys
import threading
from pathlib import Path
from typing import Any

try:  # loaded by path from a checkout that is not installed
    import harness  # noqa: F401
except ImportError:  # pragma: no cover - depends on how mitmdump was started
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from harness.audit.capture import DEFAULT_MAX_BODY, RawExchange
from harness.audit.engine import Auditor
from harness.audit.readers import flow_to_raw
from harness.audit.redact import Scrubber

log = logging.getLogger("agent_tck.audit")

_TEE = "agent_tck_tee"
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
        self.auditor = Auditor()
        self.scrub = Scrubber()
        self.flows = 0
        self.dropped = 0
        self.written: dict[str, Path] = {}
        self._queue: queue.Queue[RawExchange | None] = queue.Queue(maxsize=256)
        self._worker: threading.Thread | None = None
        self._lock = threading.Lock()

    # -- options ------------------------------------------------------------------------------

    def load(self, loader: Any) -> None:
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

    def configure(self, updated: Any) -> None:
        from mitmproxy import ctx

        if "tck_max_body" in updated:
            self.auditor.max_body = max(0, int(ctx.options.tck_max_body))
        if "tck_backlog" in updated and self._worker is None:
            self._queue = queue.Queue(maxsize=max(1, int(ctx.options.tck_backlog)))

    # -- hooks --------------------------------------------------------------------------------

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
            self.flush()
            self.write_reports()
        except Exception:
            log.exception("agent-tck: writing the audit reports failed")

    # -- work ---------------------------------------------------------------------------------

    def _hand_over(self, flow: Any) -> None:
        """In the event loop: take references to the flow's bytes, queue them, return."""
        try:
            if flow.metadata.get(_SEEN) or getattr(flow, "request", None) is None:
                return
            flow.metadata[_SEEN] = True
            tee = flow.metadata.get(_TEE)
            self.flows += 1
            raw = flow_to_raw(flow, f"flow {self.flows}",
                              tee.body() if tee is not None else None,
                              tee.truncated if tee is not None else False)
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

    def _audit(self, raw: RawExchange) -> None:
        with self._lock:
            result = self.auditor.observe(raw)
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

        from harness.audit.report import write_reports

        self.stop()
        with self._lock:
            if self.dropped:
                self.auditor.note(f"{self.dropped} exchanges were not audited: the audit fell "
                                  f"more than {self._queue.maxsize} exchanges behind")
                self.dropped = 0
            result = self.auditor.result()
        folder = Path(ctx.options.tck_report_dir)
        self.written = write_reports(folder, result, source=ctx.options.tck_source,
                                     name=ctx.options.tck_name, scrub=self.scrub)
        errors = sum(1 for _, f in result.findings if f.severity == "error")
        warnings = sum(1 for _, f in result.findings if f.severity == "warning")
        log.warning("agent-tck: audited %d LLM requests (%d other ignored): %d errors, "
                    "%d warnings; reports in %s", len(result.audited), result.ignored, errors,
                    warnings, folder)
        return self.written


def _where(flow: Any) -> str:
    try:
        return f"{flow.request.method} {flow.request.path.split('?')[0]}"
    except Exception:
        return "a flow"


addons = [AgentTckAudit()]
