"""Prometheus metrics of a live audit (``agent-tck audit --listen --metrics HOST:PORT``).

The addon feeds :class:`AuditMetrics` each audited exchange (the result the audit process
sends back, harness/audit/worker.py) and counts the exchanges it could not hand over;
``prometheus-client`` serves them on ``http://HOST:PORT/metrics`` (the ``proxy`` extra
installs it). Every metric is named ``agent_tck_audit_*``; docs/AUDIT.md lists them and
examples/grafana-audit-dashboard.json is a dashboard over them.

=========================================  =========  ==========================================
metric                                     type       what
=========================================  =========  ==========================================
``agent_tck_audit_requests_total``         counter    LLM requests audited
``agent_tck_audit_ignored_requests_total`` counter    other requests passed through, not audited
``agent_tck_audit_findings_total``         counter    findings, by ``rule`` and ``level``
                                                      (MUST for errors, SHOULD for warnings)
``agent_tck_audit_errored_requests_total`` counter    requests a check could not be run on
``agent_tck_audit_open_conversations``     gauge      conversations the tracker holds open
``agent_tck_audit_seconds``                histogram  time to audit one request
``agent_tck_audit_dropped_requests_total`` counter    requests not audited: the audit was
                                                      ``tck_backlog`` behind, or had stopped
``agent_tck_audit_up``                     gauge      1 while the audit process runs, else 0
=========================================  =========  ==========================================
"""

from __future__ import annotations

from typing import Any

from agent_tck.harness.audit.engine import ExchangeResult

LEVELS = {"error": "MUST", "warning": "SHOULD"}
BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class AuditMetrics:
    """The audit's metrics in a registry of their own (nothing global is touched)."""

    def __init__(self) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter("agent_tck_audit_requests", "LLM requests audited",
                                registry=r)
        self.ignored = Counter("agent_tck_audit_ignored_requests",
                               "Requests that are not LLM traffic (passed through)", registry=r)
        self.findings = Counter("agent_tck_audit_findings", "Findings by rule and level",
                                ("rule", "level"), registry=r)
        self.errored = Counter("agent_tck_audit_errored_requests",
                               "Requests on which a check could not run", registry=r)
        self.open = Gauge("agent_tck_audit_open_conversations",
                          "Conversations the tracker holds open", registry=r)
        self.latency = Histogram("agent_tck_audit_seconds", "Time to audit one request",
                                 buckets=BUCKETS, registry=r)
        self.dropped = Counter("agent_tck_audit_dropped_requests",
                               "Requests not audited: the audit fell too far behind or stopped",
                               registry=r)
        self.up = Gauge("agent_tck_audit_up", "1 while the audit process runs", registry=r)

    def observe(self, x: ExchangeResult, open_conversations: int) -> None:
        if x.dialect is None:
            self.ignored.inc()
            return
        self.requests.inc()
        for f in x.findings:
            self.findings.labels(rule=f.rule, level=LEVELS.get(f.severity, f.severity)).inc()
        if x.errors:
            self.errored.inc()
        self.open.set(open_conversations)
        self.latency.observe(x.duration_ms / 1000)

    def serve(self, host: str, port: int) -> Any:
        """Serve ``/metrics`` on ``host:port`` from a daemon thread; returns the server."""
        from prometheus_client import start_http_server

        server, _thread = start_http_server(port, addr=host, registry=self.registry)
        return server
