"""The per-conversation timeline of an audit, as a section of report.html.

Rendered from the parsed results stream alone (like every view): the audit's case records
carry, in ``input``, the exchange index, time, method, URL, status and the conversation the
request was placed in. One table per conversation lists its requests in order with their
placement (new, continuation, fork) and the rules that failed on them.

harness/reports/html.py renders it before the "Rules" heading, so ``agent-tck report``
re-renders it too; it uses only that page's own CSS classes, so the page's
Content-Security-Policy still holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_tck.harness.reports._text import h
from agent_tck.harness.reports.stream import Run
from agent_tck.harness.run.results import CaseResult

MAX_ROWS = 2000


def _exchanges(run: Run) -> dict[int, list[CaseResult]]:
    out: dict[int, list[CaseResult]] = {}
    for case in run.cases:
        inp = case.input
        if case.operation.startswith("wire.") and isinstance(inp, Mapping) and isinstance(
            inp.get("exchange"), int
        ):
            out.setdefault(inp["exchange"], []).append(case)
    return dict(sorted(out.items()))


def _findings_cell(cases: list[CaseResult]) -> str:
    bad = [c for c in cases if c.status in ("fail", "errored")]
    notes = [c.message for c in cases if c.status == "not-applicable" and c.message]
    parts = []
    for case in bad:
        rule = ", ".join(case.rules) or "audit"
        label = "✗" if case.status == "fail" else "⚠ errored"
        parts.append(f'<span class="st st-{case.status}">{label} {h(rule)}</span> '
                     f'<span class="muted">{h(case.message)}</span>')
    for note in notes:
        parts.append(f'<span class="st st-not-applicable">– note</span> '
                     f'<span class="muted">{h(note)}</span>')
    if not parts:
        said = next((c.message for c in cases if c.status == "pass"), "no violation seen")
        return f'<span class="st st-pass">✓ {h(said)}</span>'
    return "<br>".join(parts)


#: the target kinds of an audit's results stream: a live proxy or a read capture
AUDIT_TARGETS = frozenset({"proxy", "capture"})


def render_section(run: Run) -> str:
    """The "Conversations" section (an HTML fragment), or ``""`` for a run without audit
    records."""
    by_exchange = _exchanges(run)
    # an audit's stream (harness/audit/report.py header_record), never a conformance run of an
    # implementation that declares wire.check (the reference does): that is no audit
    audit = (run.header.target or {}).get("kind") in AUDIT_TARGETS
    if not by_exchange and not audit:
        return ""
    groups: dict[str, list[tuple[int, list[CaseResult]]]] = {}
    parents: dict[str, Any] = {}
    for index, cases in by_exchange.items():
        inp = cases[0].input
        conv = inp.get("conversation") or "not placed"
        groups.setdefault(conv, []).append((index, cases))
        if inp.get("placement") == "fork" and conv not in parents:
            parents[conv] = inp.get("parent")
    parts = [
        '<h2 id="seen">What the audit saw</h2>', seen_section(run) if audit else "",
        '<h2 id="conversations">Conversations</h2>',
        '<p class="muted">Requests grouped by content into conversations (no client '
        "cooperation), in capture order; a fork inherits its parent's head and messages. "
        "Each row names the rules that failed on that request. After the first 2,000 "
        "requests, only those with a finding or a note have a row (audit.json lists every "
        "request).</p>",
    ]
    rows = 0
    for conv, depth in _tree(list(groups), parents):
        members = groups[conv]
        fails = sum(1 for _, cs in members for c in cs if c.status == "fail")
        fork = f" · fork of {h(parents[conv])}" if conv in parents else ""
        branch = "│  " * max(depth - 1, 0) + "└─ " if depth else ""
        summary = (f"{branch}<strong>{h(conv)}</strong> · {len(members)} request"
                   f"{'s' if len(members) != 1 else ''}{fork} · "
                   + (f'<span class="st st-fail">✗ {fails} failing</span>' if fails
                      else '<span class="st st-pass">✓ no finding</span>'))
        parts.append(f'<details class="case" open><summary>{summary}</summary>')
        parts.append("<table><thead><tr><th>#</th><th>time</th><th>request</th>"
                     "<th>placement</th><th>findings</th></tr></thead><tbody>")
        for index, cases in members:
            rows += 1
            if rows > MAX_ROWS:
                break
            inp = cases[0].input
            status = inp.get("status")
            status_text = str(status) if status is not None else (
                f"no response: {inp.get('error')}" if inp.get("error") else "no response")
            parts.append(
                f"<tr><td>{index}</td><td>{h(inp.get('time') or '')}</td>"
                f"<td><code>{h(inp.get('method', ''))} {h(inp.get('url', ''))}</code> → "
                f"{h(status_text)}</td><td>{h(inp.get('placement') or '')}</td>"
                f"<td>{_findings_cell(cases)}</td></tr>"
            )
            if isinstance(inp.get("rewrite"), Mapping):
                parts.append(_rewrite_row(inp["rewrite"]))
        parts.append("</tbody></table></details>")
        if rows > MAX_ROWS:
            parts.append(f'<p class="muted">… the timeline stops at {MAX_ROWS} requests; '
                         "every request is in results.jsonl.</p>")
            break
    return "".join(parts)


def seen_section(run: Run) -> str:
    """A passive audit certifies nothing (issue 21 E): what it saw, in how many requests,
    which rules it checked and which the traffic never exercised."""
    overall = run.verdicts.get("overall") if run.verdicts else None
    said = h(overall.text) if overall else "incomplete: the audit was stopped before its end"
    checked = [r.id for r in run.header.rules if run.rule_status.get(r.id) != "untested"]
    never = [r.id for r in run.header.rules if run.rule_status.get(r.id) == "untested"]
    failing = [r.id for r in run.header.rules if run.rule_status.get(r.id) == "fail"]
    return (f"<p><strong>{said}</strong>. An audit of traffic shows only what that traffic "
            "exercised; it is no conformance verdict.</p>"
            f"<p>Rules checked ({len(checked)}): {h(', '.join(checked) or 'none')}.</p>"
            + (f"<p>Rules with a violation ({len(failing)}): {h(', '.join(failing))}.</p>"
               if failing else "")
            + f'<p class="muted">Rules never exercised ({len(never)}): '
            f"{h(', '.join(never) or 'none')}.</p>")


def _tree(convs: list[str], parents: Mapping[str, Any]) -> list[tuple[str, int]]:
    """The conversations in tree order: each fork right after its parent's subtree starts,
    with its depth (forks are drawn as branches of their parent)."""
    children: dict[Any, list[str]] = {}
    for conv in convs:
        parent = parents.get(conv)
        children.setdefault(parent if parent in convs else None, []).append(conv)
    out: list[tuple[str, int]] = []
    stack = [(conv, 0) for conv in reversed(children.get(None, []))]
    while stack:
        conv, depth = stack.pop()
        out.append((conv, depth))
        stack.extend((child, depth + 1) for child in reversed(children.get(conv, [])))
    return out


def _rewrite_row(rewrite: Mapping[str, Any]) -> str:
    """The message a WA-D006 finding names, the previous request's beside this one's."""
    def side(text: Any) -> str:
        return f"<pre>{h(text)}</pre>" if text else '<span class="muted">(not kept)</span>'

    return (f'<tr><td></td><td colspan="4"><details><summary>{h(rewrite.get("kind", ""))} at '
            f'<code>{h(rewrite.get("at", ""))}</code>: the two requests side by side</summary>'
            "<table><thead><tr><th>previous request</th><th>this request</th></tr></thead>"
            f"<tbody><tr><td>{side(rewrite.get('before'))}</td>"
            f"<td>{side(rewrite.get('after'))}</td></tr></tbody></table></details></td></tr>")
