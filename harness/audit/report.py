"""Audit results as the runner's report records, and as ``audit.json`` entries (pure).

Findings map onto case records of the results stream (vectors/schema/results.schema.json).
Each audited exchange gets a record per rule it **violated** (status ``fail``, the findings in
``actual``) or whose check raised (``errored``), and one ``not-applicable`` record for its
notes, or for why it could not be audited at all (a truncated capture, a body over the limit).
A request on which nothing was seen gets one rule-less record (a row of the report's timeline)
while the audit is in its first :data:`TIMELINE_REQUESTS` requests, and none after: the report
would otherwise grow by one record per rule per request (25 for a one-message request, 2.5
million for a 100,000-entry HAR). When the audit ends, each rule checked gets one ``pass``
record, ``audit.<RULE>``, saying on how many requests no violation of it was seen
(:class:`AuditTally`); a rule the traffic never exercised has no record and reads as
*untested*. The record's family is the cited rule's family
(block-omission, developer-messages, wire-audit...), its ``input`` a reference to the exchange
(index, method, URL, conversation; never a body). ``audit.json`` lists every audited exchange
(:func:`exchange_entry`). :mod:`harness.audit.sink` writes both as the audit goes, so memory
follows the findings and the open conversations, never the number of requests.

Severity and level agree (a test holds them together): error findings belong to MUST rules,
warnings to SHOULD rules, so warnings never fail the verdict unless ``--strict``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from agent_tck.harness import __version__
from agent_tck.harness.audit.engine import CONVERSATION_RULES, AuditResult, ExchangeResult
from agent_tck.harness.audit.findings import RULES, Finding
from agent_tck.harness.audit.redact import Scrubber
from agent_tck.harness.families import family_names, prefix_table
from agent_tck.harness.run.results import RESULTS_FORMAT, Header, RuleInfo

AUDIT_FORMAT = "agent-tck-audit/1"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _iso(ts: float | None) -> str | None:
    try:
        return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds") if ts else None
    except (OverflowError, ValueError, OSError):  # the engine drops such times with a note
        return None


def rule_infos(ids: Iterable[str]) -> list[dict[str, Any]]:
    """Header entries (id, family, level, title, decision) from the catalogue.

    A rule the catalogue does not (yet) hold is described from the wire rule table: its
    family from its prefix, MUST for error findings and SHOULD for warnings.
    """
    try:
        from agent_tck.harness.contract.catalogue import load_catalogue

        catalogue = load_catalogue()
        known = catalogue.by_id
    except Exception:  # an unreadable catalogue must not lose an audit
        known = {}
    severity = dict(RULES.values())
    prefix_family = prefix_table()
    out = []
    for rid in sorted(set(ids)):
        rule = known.get(rid)
        if rule is not None:
            out.append({"id": rid, "family": rule.family, "level": rule.level,
                        "title": rule.title or rule.statement, "decision": rule.decision})
        else:
            out.append({"id": rid, "family": prefix_family.get(rid.split("-")[0], "wire-audit"),
                        "level": "MUST" if severity.get(rid) == "error" else "SHOULD",
                        "title": f"{rid} (not in the catalogue)", "decision": True})
    return out


def _finding_json(f: Finding) -> dict[str, str]:
    return f.to_json()


def _exchange_input(x: ExchangeResult, scrub: Scrubber) -> dict[str, Any]:
    out: dict[str, Any] = {
        "exchange": x.index, "ref": scrub.text(x.ref), "method": x.method,
        "url": scrub.url(x.url), "status": x.status, "time": _iso(x.started),
        "conversation": x.conversation, "placement": x.placement, "parent": x.parent,
    }
    if x.error:
        out["error"] = scrub.text(x.error)
    if x.rewrite is not None:  # the message WA-D006 names, both sides, scrubbed and cut short
        out["rewrite"] = {
            "kind": x.rewrite["kind"], "at": x.rewrite["at"],
            **{side: _excerpt(scrub, x.rewrite.get(side)) for side in ("before", "after")}}
    return out


#: characters of each side of a rewrite kept in the report
REWRITE_EXCERPT = 4000


def _excerpt(scrub: Scrubber, message: Any) -> str | None:
    if message is None:
        return None
    text = json.dumps(message, ensure_ascii=False, indent=1, sort_keys=True)
    if len(text) > REWRITE_EXCERPT:
        text = text[:REWRITE_EXCERPT] + f"\n... ({len(text) - REWRITE_EXCERPT} more characters)"
    return scrub.text(text)


def _describe(x: ExchangeResult) -> str:
    status = x.status if x.status is not None else (f"no response ({x.error})" if x.error
                                                    else "no response")
    where = f", conversation {x.conversation} ({x.placement})" if x.conversation else ""
    return f"{x.method} {x.path} -> {status}{where}"


def exchange_records(x: ExchangeResult, scrub: Scrubber,
                     families: Mapping[str, str]) -> list[dict[str, Any]]:
    """The case records (without ``seq``) of one audited exchange, redacted."""
    records: list[dict[str, Any]] = []
    add = records.append
    if x.dialect is None:
        return records
    base_input = _exchange_input(x, scrub)
    description = scrub.text(_describe(x))
    if not x.checked and not x.errors:
        add({"type": "case", "case": f"exchange-{x.index}.not-audited",
             "family": "wire-audit", "operation": "wire.check", "rules": [],
             "status": "not-applicable", "description": description,
             "input": base_input, "expected": {"output": []}, "actual": None,
             "message": scrub.text("; ".join(x.notes) or "not audited"),
             "duration_ms": x.duration_ms})
        return [scrub.value(r) for r in records]
    errored: dict[str, Any] = {}
    for err in x.errors:
        for rid in err.rules or x.checked:
            errored.setdefault(rid, err)
    if x.errors and not errored:  # the audit itself could not run: one errored record
        err = x.errors[0]
        add({"type": "case", "case": f"exchange-{x.index}.{err.check}",
             "family": "wire-audit", "operation": "wire.check", "rules": [],
             "status": "errored", "description": description, "input": base_input,
             "expected": {"output": []}, "actual": None,
             "message": scrub.text(f"{err.check}: {err.error}"),
             "transcript": [scrub.text(line) for line in err.traceback],
             "duration_ms": x.duration_ms})
    failing = {f.rule for f in x.findings}
    for rid in sorted(failing | set(errored)):
        mine = [f for f in x.findings if f.rule == rid]
        operation = "wire.conversation" if rid in CONVERSATION_RULES else "wire.check"
        record: dict[str, Any] = {
            "type": "case", "case": f"exchange-{x.index}.{rid}",
            "family": families.get(rid, "wire-audit"), "operation": operation,
            "rules": [rid], "description": description, "input": base_input,
            "expected": {"output": []}, "duration_ms": x.duration_ms,
        }
        if mine:
            first = mine[0]
            more = f" (and {len(mine) - 1} more)" if len(mine) > 1 else ""
            record.update(status="fail",
                          actual={"output": [_finding_json(f) for f in mine]},
                          message=scrub.text(f"{first.severity} at {first.pointer}: "
                                             f"{first.message}{more}"))
        else:
            err = errored[rid]
            record.update(status="errored", actual=None,
                          message=scrub.text(f"check {err.check} raised {err.error}"),
                          transcript=[scrub.text(line) for line in err.traceback])
        add(record)
    if x.notes:
        add({"type": "case", "case": f"exchange-{x.index}.notes", "family": "wire-audit",
             "operation": "wire.check", "rules": [], "status": "not-applicable",
             "description": description, "input": base_input,
             "expected": {"output": []}, "actual": None,
             "message": scrub.text("; ".join(x.notes)), "duration_ms": 0.0})
    return [scrub.value(r) for r in records]


def families_of(rules: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    return {r["id"]: r["family"] for r in rules}


def header_record(rules: list[dict[str, Any]], *, source: str, name: str,
                  scrub: Scrubber) -> dict[str, Any]:
    """The results stream's header for an audit that checks ``rules`` (from rule_infos)."""
    present = {r["family"] for r in rules}
    return Header(
        format=RESULTS_FORMAT, tck_version=__version__, started=_now(),
        implementation={"name": scrub.text(name), "version": "",
                        "operations": ["wire.check", "wire.conversation"]},
        target={"kind": "proxy" if source.startswith("proxy ") else "capture",
                "command": scrub.text(source)},
        filters={"family": [], "rule": [], "k": None}, strict=False,
        rules=tuple(RuleInfo(**r) for r in rules),
        families=tuple(f for f in family_names() if f in present),
    ).to_json()


def every_wire_rule() -> list[dict[str, Any]]:
    """Header entries of every rule the audit can check (a live stream's header is written
    before the first request, so it lists them all)."""
    from agent_tck.harness.audit.rules import WIRE_CHECKS

    return rule_infos({rid for ids in WIRE_CHECKS.values() for rid in ids})




def exchange_entry(x: ExchangeResult, scrub: Scrubber) -> dict[str, Any]:
    """The ``audit.json`` entry of one audited exchange, redacted. Only the free text is
    scrubbed (the ref, URL and error in :func:`_exchange_input`; findings, errors and notes
    here): method, dialect, placement and conversation ids cannot hold a secret."""
    return {
        **_exchange_input(x, scrub), "dialect": x.dialect,
        "findings": scrub.value([_finding_json(f) for f in x.findings]) if x.findings else [],
        "errors": scrub.value([e.to_json() for e in x.errors]) if x.errors else [],
        "notes": [scrub.text(n) for n in x.notes],
    }


#: the first requests each get a record even when nothing was seen on them (the rows of the
#: report's conversation timeline, which shows as many); later clean requests are counted only
TIMELINE_REQUESTS = 2000


class AuditTally:
    """What the audit has seen so far, in counts: per rule, the requests it was checked on and
    those with a finding of it or an errored check; findings by severity; errored and ignored
    exchanges. :meth:`records` turns an exchange into its case records (numbered), and
    :meth:`closing` gives the per-rule ``pass`` records and the footer when the audit ends.
    Memory: a few integers per rule, plus the status of each record written (for the footer)."""

    def __init__(self, rules: list[dict[str, Any]], scrub: Scrubber) -> None:
        self.rules = rules
        self.scrub = scrub
        self.families = families_of(rules)
        self.checked: dict[str, int] = {}
        self.flagged: dict[str, int] = {}
        self.severity: dict[str, int] = {"error": 0, "warning": 0}
        self.audited = 0
        self.errored = 0
        self.errored_checks = 0
        self.ignored = 0
        self.seq = 0
        self.statuses: list[tuple[tuple[str, ...], str]] = []  # (rules, status) per record
        self.by_family: dict[str, int] = {}  # requests on which a rule of the family was checked

    def records(self, x: ExchangeResult) -> list[dict[str, Any]]:
        """The case records of exchange ``x`` (none for a clean one), with their ``seq``."""
        if x.dialect is None:
            self.ignored += 1
            return []
        self.audited += 1
        self.errored += bool(x.errors)
        self.errored_checks += len(x.errors)
        for f in x.findings:
            self.severity[f.severity] = self.severity.get(f.severity, 0) + 1
        bad = {f.rule for f in x.findings} | {r for e in x.errors for r in (e.rules or x.checked)}
        families: set[str] = set()
        for rid in set(x.checked) | bad:
            families.add(self.families.get(rid, "wire-audit"))
            self.checked[rid] = self.checked.get(rid, 0) + 1
            if rid in bad:
                self.flagged[rid] = self.flagged.get(rid, 0) + 1
        for family in families:
            self.by_family[family] = self.by_family.get(family, 0) + 1
        out = exchange_records(x, self.scrub, self.families)
        if not out and self.audited <= TIMELINE_REQUESTS:  # a row for the timeline, no rule
            n = len(x.checked)
            out = [{"type": "case", "case": f"exchange-{x.index}", "family": "wire-audit",
                    "operation": "wire.check", "rules": [], "status": "pass",
                    "description": self.scrub.text(_describe(x)),
                    "input": _exchange_input(x, self.scrub), "expected": {"output": []},
                    "actual": {"output": []}, "duration_ms": x.duration_ms,
                    "message": f"no violation seen ({n} rule{'s' if n != 1 else ''} checked)"}]
        for record in out:
            self.seq += 1
            record["seq"] = self.seq
            self.statuses.append((tuple(record["rules"]), record["status"]))
        return out

    @property
    def exit_code(self) -> int:
        """1 when an error-severity finding exists or a request could not be audited."""
        return 1 if self.severity.get("error") or self.errored else 0

    def counts(self) -> dict[str, int]:
        return {**self.severity, "exchanges": self.audited, "errored_exchanges": self.errored}

    def closing(self) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """(one ``pass`` record per rule with a request on which it saw no violation, the
        footer)."""
        from agent_tck.harness.run.results import summarize

        out = []
        for rid in sorted(self.checked):
            clean = self.checked[rid] - self.flagged.get(rid, 0)
            if clean <= 0:
                continue
            self.seq += 1
            seen = f"{self.checked[rid]} request{'s' if self.checked[rid] != 1 else ''}"
            out.append({
                "type": "case", "seq": self.seq, "case": f"audit.{rid}",
                "family": self.families.get(rid, "wire-audit"),
                "operation": "wire.conversation" if rid in CONVERSATION_RULES else "wire.check",
                "rules": [rid], "status": "pass",
                "description": f"{rid} checked on {seen}",
                "input": {"requests": self.checked[rid], "clean": clean},
                "expected": {"output": []}, "actual": {"output": []},
                "message": f"no violation seen in {clean} of {seen}", "duration_ms": 0.0})
            self.statuses.append(((rid,), "pass"))
        cases = [{"rules": r, "status": s} for r, s in self.statuses]
        summary = summarize(self.rules, cases)
        footer = summary.footer(finished=_now(), exit_code=self.exit_code).to_json()
        footer["verdicts"] = self.verdicts(summary.rule_status)
        return out, footer

    def verdicts(self, status: Mapping[str, str]) -> dict[str, dict[str, Any]]:
        """What the audit saw, per family and overall (issue 21 E: a passive audit certifies
        nothing, so never "conformant"): *violation seen* when a rule of the family had a
        finding, *no violation seen* (in N requests) when its rules were checked without one,
        *not exercised* when the traffic exercised none of them. ``failing`` names the MUST
        rules that failed or whose check errored."""
        from agent_tck.harness.run.results import NO_VIOLATION, NOT_EXERCISED, VIOLATION

        out: dict[str, dict[str, Any]] = {}
        every: list[dict[str, Any]] = []
        for family in dict.fromkeys(r["family"] for r in self.rules):
            rules = [r for r in self.rules if r["family"] == family]
            every += rules
            out[family] = _verdict(rules, status, self.by_family.get(family, 0))
        overall = _verdict(every, status, self.audited)
        out["overall"] = overall
        assert {v["verdict"] for v in out.values()} <= {NO_VIOLATION, NOT_EXERCISED, VIOLATION}
        return out


def _verdict(rules: list[dict[str, Any]], status: Mapping[str, str],
             requests: int) -> dict[str, Any]:
    from agent_tck.harness.run.results import NO_VIOLATION, NOT_EXERCISED, VIOLATION

    failing = [r["id"] for r in rules
               if r["level"] == "MUST" and status.get(r["id"]) in ("fail", "errored")]
    if any(status.get(r["id"]) == "fail" for r in rules):
        verdict = VIOLATION
    elif requests == 0 or all(status.get(r["id"]) == "untested" for r in rules):
        verdict = NOT_EXERCISED
    else:
        verdict = NO_VIOLATION
    return {"verdict": verdict, "failing": failing, "requests": requests}


def records(result: AuditResult, *, source: str, name: str = "audited agent",
            scrub: Scrubber | None = None) -> list[dict[str, Any]]:
    """The whole results stream (header, cases, footer) of an audit held in memory."""
    scrub = scrub or Scrubber()
    tally = AuditTally(every_wire_rule(), scrub)
    header = header_record(tally.rules, source=source, name=name, scrub=scrub)
    cases = [r for x in result.exchanges for r in tally.records(x)]
    closing, footer = tally.closing()
    return [header, *cases, *closing, footer]


def to_json(result: AuditResult, *, source: str, scrub: Scrubber | None = None) -> dict[str, Any]:
    """``audit.json`` / ``--format json`` of an audit held in memory."""
    scrub = scrub or Scrubber()
    tally = AuditTally([], scrub)
    exchanges = []
    for x in result.exchanges:
        tally.records(x)
        if x.dialect is not None:
            exchanges.append(exchange_entry(x, scrub))
    return audit_document(exchanges, tally, result.conversations, result.notes,
                          source=source, scrub=scrub)


def audit_document(exchanges: Any, tally: AuditTally, conversations: Iterable[Any],
                   notes: Iterable[str], *, source: str, scrub: Scrubber) -> dict[str, Any]:
    """The ``audit.json`` document; ``exchanges`` is the entry list (or a placeholder the
    sink replaces with entries streamed from disk)."""
    return {
        "format": AUDIT_FORMAT, "tck_version": __version__, "source": scrub.text(source),
        "exchanges": exchanges,
        "conversations": [c.to_json() for c in conversations],
        "ignored": tally.ignored, "notes": [scrub.text(n) for n in notes],
        "counts": {**tally.counts(), "errored_checks": tally.errored_checks},
        "exit_code": tally.exit_code,
    }

