"""The audit engine: captured exchanges in, findings, conversations and notes out.

:class:`Auditor` is fed one :class:`~harness.audit.capture.RawExchange` at a time (by the
mitmproxy addon as flows complete, or by ``agent-tck audit --read``). For each it decodes the
bodies, runs the pure wire rules (:func:`harness.audit.rules.audit_exchange`) and places
the request in a conversation (:class:`harness.audit.tracker.ConversationTracker`).
It never raises: a check that throws becomes a :class:`~harness.audit.rules.CheckError`
on that exchange, and so does a failure of decoding or tracking. Only summaries are kept
(method, URL, status, findings), never bodies, so memory stays small on long captures.
"""

from __future__ import annotations

import math
import time
import traceback
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from agent_tck.harness.audit.capture import DEFAULT_MAX_BODY, RawExchange, Unauditable, to_exchange
from agent_tck.harness.audit.checks import dialect_of
from agent_tck.harness.audit.findings import Finding
from agent_tck.harness.audit.rules import (
    TOOLS_READ,
    WIRE_CHECKS,
    CheckError,
    ExchangeAudit,
    audit_exchange,
)
from agent_tck.harness.audit.tracker import Conversation, ConversationTracker

#: recent audits kept to carry findings over to the next request of a conversation (each holds
#: a reference to its request's messages: memory is bounded by this many requests)
RECENT_AUDITS = 16

#: the times a report can show: 0001-01-01 to 9999-12-31 (seconds since the epoch)
_EARLIEST, _LATEST = -62135596800.0, 253402300799.0


def valid_time(value: float | None) -> tuple[float | None, str | None]:
    """(the start time, or None, and a note when the capture's time was unusable)."""
    if value is None:
        return None, None
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(
            value) or not _EARLIEST <= value <= _LATEST:
        return None, f"the capture's start time {str(value)[:40]} is not a usable time; ignored"
    return float(value), None


#: rules a conversation placement checks (see harness.audit.tracker)
CONVERSATION_RULES: tuple[str, ...] = tuple(
    dict.fromkeys((*WIRE_CHECKS["conversation-prefix"], *WIRE_CHECKS["conversation-head"]))
)


@dataclass(frozen=True)
class ExchangeResult:
    """What the audit learnt from one exchange (no bodies)."""

    index: int
    ref: str
    method: str
    url: str
    status: int | None
    error: str | None
    started: float | None
    dialect: str | None  # None: not LLM traffic (ignored) or not auditable
    conversation: str | None = None
    placement: str | None = None  # new | continuation | fork
    parent: str | None = None
    #: the message a WA-D006 finding names, before and after: {"kind", "at", "before", "after"}
    rewrite: Mapping[str, Any] | None = None
    checked: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()
    errors: tuple[CheckError, ...] = ()
    notes: tuple[str, ...] = ()
    duration_ms: float = 0.0

    @property
    def path(self) -> str:
        try:
            return urlsplit(self.url).path or "/"
        except ValueError:
            return self.url


@dataclass(frozen=True)
class AuditResult:
    exchanges: tuple[ExchangeResult, ...]
    conversations: tuple[Conversation, ...]
    ignored: int  # non-LLM exchanges passed through and not audited
    notes: tuple[str, ...] = ()  # capture-level notes (a damaged record...)

    @property
    def audited(self) -> tuple[ExchangeResult, ...]:
        return tuple(x for x in self.exchanges if x.dialect is not None)

    @property
    def findings(self) -> list[tuple[ExchangeResult, Finding]]:
        return [(x, f) for x in self.exchanges for f in x.findings]

    @property
    def errored(self) -> int:
        """Audited exchanges on which a check (or the audit itself) could not run."""
        return sum(1 for x in self.audited if x.errors)

    @property
    def exit_code(self) -> int:
        """1 when an error-severity finding exists or a request could not be audited (an
        errored check is no pass), else 0."""
        failed = any(f.severity == "error" for _, f in self.findings)
        return 1 if failed or self.errored else 0


@dataclass
class Auditor:
    """Feed exchanges with :meth:`observe`; read the result with :meth:`result`.

    ``keep=False``: the results are only returned, not kept (the caller streams them to a
    :class:`harness.audit.sink.ReportSink`), and :meth:`result` has no exchanges: memory is then
    bounded by the tracker's open conversations, whatever the number of requests."""

    max_body: int = DEFAULT_MAX_BODY
    keep: bool = True
    _tracker: ConversationTracker = field(default_factory=ConversationTracker)
    _recent: deque[ExchangeAudit] = field(default_factory=lambda: deque(maxlen=RECENT_AUDITS))
    _results: list[ExchangeResult] = field(default_factory=list)
    _notes: list[str] = field(default_factory=list)
    _ignored: int = 0
    _count: int = 0

    def note(self, message: str) -> None:
        self._notes.append(message)

    def observe(self, raw: RawExchange) -> ExchangeResult:
        started = time.perf_counter()
        index = self._count
        self._count += 1
        status = raw.response.status if raw.response is not None else None
        started_at, time_note = valid_time(raw.started)
        if time_note is not None:
            from dataclasses import replace

            raw = replace(raw, started=None, notes=(*raw.notes, time_note))
        base: dict[str, Any] = {"index": index, "ref": raw.ref, "method": raw.method.upper(),
                                "url": raw.url, "status": status, "error": raw.error,
                                "started": started_at}
        probe = {"method": raw.method, "url": raw.url}
        dialect = dialect_of(probe)
        if dialect is None:
            self._ignored += 1
            result = ExchangeResult(**base, dialect=None, notes=raw.notes)
            if self.keep:
                self._results.append(result)
            return result
        try:
            result = self._audit(raw, base, dialect)
        except Unauditable as exc:  # a body the strict reader refuses: errored, no traceback
            result = ExchangeResult(**base, dialect=dialect, notes=raw.notes, errors=(
                CheckError("audit", (), str(exc), ()),))
        except Exception as exc:  # decoding or bookkeeping failed: contained and reported
            result = ExchangeResult(**base, dialect=dialect, notes=raw.notes, errors=(CheckError(
                "audit", (), f"{type(exc).__name__}: {exc}",
                tuple(traceback.format_exc().splitlines()[-12:])),))
        result = _with_duration(result, started)
        if self.keep:
            self._results.append(result)
        return result

    def _audit(self, raw: RawExchange, base: dict[str, Any], dialect: str) -> ExchangeResult:
        decoded = to_exchange(raw, self.max_body)
        if decoded.exchange is None:
            return ExchangeResult(**base, dialect=dialect, notes=decoded.notes)
        normals: dict[int, dict[str, Any]] = {}  # normalized once, shared with the tracker
        audit = audit_exchange(decoded.exchange, previous=reversed(self._recent),
                               normals=normals)
        if audit.messages is not None and not audit.errors:
            self._recent.append(audit)
        findings = list(audit.findings)
        errors = list(audit.errors)
        checked = list(audit.checked)
        conversation = placement = parent = rewrite = None
        try:
            placed = self._tracker.observe(base["index"], decoded.exchange,
                                           audit.compared, normals, audit.dialect,
                                           tools=audit.read.get(TOOLS_READ))
        except Exception as exc:  # a tracker bug must not end the audit
            errors.append(CheckError("conversation", CONVERSATION_RULES,
                                     f"{type(exc).__name__}: {exc}",
                                     tuple(traceback.format_exc().splitlines()[-12:])))
            checked.extend(CONVERSATION_RULES)
        else:
            if placed is not None:
                conversation, placement, parent = (placed.conversation, placed.kind,
                                                   placed.parent)
                at = next((f.pointer for f in placed.findings if f.rule == "WA-D006"), None)
                if at is not None:
                    rewrite = {"kind": placed.rewrite[0] if placed.rewrite else "changed",
                               "at": at, "before": placed.before, "after": placed.after}
                findings.extend(placed.findings)
                checked.extend(CONVERSATION_RULES)
        return ExchangeResult(
            **base, dialect=dialect, conversation=conversation, placement=placement,
            parent=parent, rewrite=rewrite, checked=tuple(sorted(set(checked))),
            findings=tuple(sorted(set(findings))), errors=tuple(errors), notes=decoded.notes,
        )

    @property
    def open_conversations(self) -> int:
        return self._tracker.open_conversations

    def observe_all(self, items: Iterable[RawExchange]) -> None:
        for raw in items:
            self.observe(raw)

    def result(self) -> AuditResult:
        return AuditResult(tuple(self._results), self._tracker.result().conversations,
                           self._ignored, tuple(self._notes))


def _with_duration(result: ExchangeResult, started: float) -> ExchangeResult:
    from dataclasses import replace

    return replace(result, duration_ms=round((time.perf_counter() - started) * 1000, 3))
