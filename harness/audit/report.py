"""Audit results as the runner's report files, and as ``audit.json`` for machines.

Findings map onto case records of the results stream (vectors/schema/results.schema.json):
one record per (audited exchange, rule checked), status ``fail`` when the exchange has a
finding of that rule, ``errored`` when the check that enforces it raised, else ``pass``. The
record's family is the cited rule's family (block-omission, developer-messages, wire-audit...),
its ``input`` a reference to the exchange (index, method, URL, conversation; never a body),
``expected`` the empty list of findings and ``actual`` the findings of that rule. An exchange
the audit could not read (a truncated capture, a body over the limit) gets one
``not-applicable`` record naming why, so every request has a line in the report.

Severity and level agree (a test holds them together): error findings belong to MUST rules,
warnings to SHOULD rules, so warnings never fail the verdict unless ``--strict``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
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


def case_records(result: AuditResult, scrub: Scrubber,
                 families: Mapping[str, str]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for x in result.audited:
        for record in exchange_records(x, scrub, families):
            record["seq"] = len(records) + 1
            records.append(record)
    return records


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
    for rid in sorted(set(x.checked) | set(errored)):
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
        elif rid in errored:
            err = errored[rid]
            record.update(status="errored", actual=None,
                          message=scrub.text(f"check {err.check} raised {err.error}"),
                          transcript=[scrub.text(line) for line in err.traceback])
        else:
            record.update(status="pass", actual={"output": []}, message="")
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


class LiveStream:
    """results.jsonl written as the audit goes (``audit --listen``): the header at once, each
    exchange's records flushed when it is audited, so a proxy killed with ``kill -9`` leaves
    a truncated stream ``agent-tck report`` renders; :func:`write_reports` at shutdown
    replaces it with the finished one. Not thread-safe: the caller serialises."""

    def __init__(self, folder: str | os.PathLike[str], *, source: str, name: str,
                 scrub: Scrubber) -> None:
        from agent_tck.harness.reports.stream import Writer

        self.scrub = scrub
        self.rules = every_wire_rule()
        self.families = families_of(self.rules)
        self.seq = 0
        self.writer = Writer(Path(folder) / "results.jsonl")
        self.writer.write(header_record(self.rules, source=source, name=name, scrub=scrub))

    def add(self, x: ExchangeResult) -> None:
        for record in exchange_records(x, self.scrub, self.families):
            self.seq += 1
            record["seq"] = self.seq
            self.writer.write(record)

    def close(self) -> None:
        self.writer.close()


def records(result: AuditResult, *, source: str, name: str = "audited agent",
            scrub: Scrubber | None = None) -> list[dict[str, Any]]:
    """The whole results stream (header, cases, footer) of an audit."""
    from agent_tck.harness.run.results import summarize

    scrub = scrub or Scrubber()
    checked = {rid for x in result.exchanges for rid in x.checked}
    checked |= {rid for x in result.exchanges for e in x.errors for rid in e.rules}
    rules = rule_infos(checked)
    header = header_record(rules, source=source, name=name, scrub=scrub)
    cases = case_records(result, scrub, families_of(rules))
    summary = summarize(rules, cases)
    footer = summary.footer(finished=_now(), exit_code=result.exit_code).to_json()
    return [header, *cases, footer]


def to_json(result: AuditResult, *, source: str, scrub: Scrubber | None = None) -> dict[str, Any]:
    """``audit.json`` / ``--format json``: every audited exchange with its findings."""
    scrub = scrub or Scrubber()
    exchanges = []
    for x in result.audited:
        exchanges.append({
            **_exchange_input(x, scrub), "dialect": x.dialect,
            "findings": [_finding_json(f) for f in x.findings],
            "errors": [e.to_json() for e in x.errors],
            "notes": list(x.notes),
        })
    counts = {"error": 0, "warning": 0}
    for _, f in result.findings:
        counts[f.severity] = counts.get(f.severity, 0) + 1
    doc = {
        "format": AUDIT_FORMAT, "tck_version": __version__, "source": source,
        "exchanges": exchanges,
        "conversations": [c.to_json() for c in result.conversations],
        "ignored": result.ignored, "notes": list(result.notes),
        "counts": {**counts, "exchanges": len(exchanges),
                   "errored_checks": sum(len(x.errors) for x in result.audited),
                   "errored_exchanges": result.errored},
        "exit_code": result.exit_code,
    }
    return scrub.value(doc)


def write_reports(folder: str | os.PathLike[str], result: AuditResult, *, source: str,
                  name: str = "audited agent", scrub: Scrubber | None = None) -> dict[str, Path]:
    """results.jsonl, junit.xml, summary.md, report.html (with the conversation timeline),
    badges, and audit.json, in ``folder``."""
    from agent_tck.harness.reports import write_all

    scrub = scrub or Scrubber()
    folder = Path(folder)
    paths = write_all(folder, records(result, source=source, name=name, scrub=scrub))
    audit_json = folder / "audit.json"
    audit_json.write_text(json.dumps(to_json(result, source=source, scrub=scrub), indent=2,
                                     ensure_ascii=False) + "\n", encoding="utf-8")
    paths["audit.json"] = audit_json
    return paths
