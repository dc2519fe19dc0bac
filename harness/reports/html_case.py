"""One failing, errored or baseline case in report.html: where it lives, why it failed, which
check failed and whose rule it is, the structural diff of expected and actual with the
differing paths highlighted, and the raw input, expected and actual columns.

Every untrusted string is redacted, made visible (control and bidi characters) and escaped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from html import escape
from typing import Any

from agent_tck.harness.reports._text import h, json_visible, one_line, pretty_json, visible
from agent_tck.harness.reports.diff import Difference, annotated_lines, differences, under
from agent_tck.harness.reports.page import status
from agent_tck.harness.reports.redact import redact
from agent_tck.harness.reports.rule_texts import case_file
from agent_tck.harness.run.results import CaseResult

MAX_CHARS = 65536  # of one highlighted column; the rest is in results.jsonl
#: statuses a case's details are shown for
DETAILED = ("fail", "errored", "stale", "expected-fail")


def anchor(index: int) -> str:
    return f"case-{index}"


def rule_link(rule_id: str, known: frozenset[str]) -> str:
    """A rule id, linked to its row when the run has one."""
    if rule_id in known:
        return f'<a href="#rule-{h(rule_id)}"><code>{h(rule_id)}</code></a>'
    return f"<code>{h(rule_id)}</code>"


def _field(check: Any, key: str) -> str:
    value = check.get(key) if isinstance(check, Mapping) else getattr(check, key, None)
    return "" if value is None else str(value)


def checks_of(case: CaseResult) -> list[tuple[str, str, str, str]]:
    """(check, rule, status, message) of a per-check record (results format 2); [] before."""
    return [(_field(c, "check"), _field(c, "rule"), _field(c, "status"), _field(c, "message"))
            for c in getattr(case, "checks", None) or ()]


def _checks(case: CaseResult, known: frozenset[str]) -> str:
    checks = checks_of(case)
    if not checks:
        return ""
    order = {"fail": 0, "errored": 1}
    rows = "".join(
        f'<tr class="{"" if state in order else "ok"}"><td><code>{h(name)}</code></td>'
        f"<td>{rule_link(rule, known)}</td><td>{status(state)}</td>"
        f"<td>{h(one_line(message, 400))}</td></tr>"
        for name, rule, state, message in sorted(checks, key=lambda c: order.get(c[2], 2)))
    failed = [c for c in checks if c[2] in order]
    said = (f"{len(failed)} of {len(checks)} checks did not pass: "
            + ", ".join(f"{c[0]} ({c[1]})" for c in failed[:6])) if failed else \
        f"all {len(checks)} checks pass"
    return (f"<h4>Checks</h4><p>{h(said)}</p><table class=\"checks\"><thead><tr>"
            '<th scope="col">check</th><th scope="col">rule</th><th scope="col">status</th>'
            '<th scope="col">message</th></tr></thead><tbody>' + rows + "</tbody></table>")


def _short(value: Any, limit: int = 200) -> str:
    text = json_visible(json.dumps(redact(value), ensure_ascii=False, default=repr))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _diff_table(prefix: str, diffs: list[Difference]) -> str:
    words = {"missing": "missing from the actual", "extra": "not expected",
             "changed": "differs"}
    rows = []
    for d in diffs:
        expected = "" if d.expected_at is None else _short(d.expected)
        actual = "" if d.actual_at is None else _short(d.actual)
        rows.append(f'<tr class="d-{d.kind}"><td>{h(d.pointer)}</td>'
                    f"<td>{escape(words[d.kind])}</td><td><code>{escape(expected)}</code></td>"
                    f"<td><code>{escape(actual)}</code></td></tr>")
    alt = (f' <span class="muted">(against the closest accepted alternative, '
           f"{h(prefix)})</span>") if prefix else ""
    return (f"<h4>Differences ({len(diffs)} path{'s' if len(diffs) != 1 else ''}){alt}</h4>"
            '<p class="muted">Where the raw expected and actual values part ways, highlighted '
            "in the columns below (the comparison may treat some forms as the same request; "
            "the message above says what failed).</p>"
            '<table class="diff"><thead><tr><th scope="col">path</th><th scope="col">what'
            '</th><th scope="col">expected</th><th scope="col">actual</th></tr></thead><tbody>'
            + "".join(rows) + "</tbody></table>")


def highlighted(value: Any, marked: Mapping[str, str]) -> str:
    """``value`` pretty-printed as JSON, lines at or under a ``marked`` pointer (pointer ->
    kind) wrapped in a highlight."""
    lines, cut = annotated_lines(redact(value))
    kinds = {kind: frozenset(p for p, k in marked.items() if k == kind)
             for kind in ("missing", "extra", "changed")}
    out, size = [], 0
    for pointer, line in lines:
        text = escape(json_visible(line))
        kind = next((k for k, ps in kinds.items() if ps and under(pointer, ps)), None)
        out.append(f'<span class="hl hl-{kind}">{text}</span>' if kind else text)
        size += len(line)
        if size > MAX_CHARS:
            cut = True
            break
    if cut:
        out.append("… (the rest is in results.jsonl)")
    return "\n".join(out)


def _io(case: CaseResult) -> tuple[str, str]:
    """(differences section, the three columns)."""
    expected, actual = case.expected, case.actual
    prefix, diffs = ("", []) if actual is None else differences(expected, actual)
    left = {prefix + d.expected_at: d.kind for d in diffs if d.expected_at is not None}
    right = {d.actual_at: d.kind for d in diffs if d.actual_at is not None}
    columns = (
        '<div class="io">'
        f"<div><h4>Input</h4><pre>{escape(pretty_json(case.input))}</pre></div>"
        f"<div><h4>Expected</h4><pre>{highlighted(expected, left)}</pre></div>"
        f"<div><h4>Actual</h4><pre>{highlighted(actual, right)}</pre></div>"
        "</div>"
    )
    shown = diffs and case.status in ("fail", "expected-fail", "stale")
    return (_diff_table(prefix, diffs) if shown else ""), columns


def details(index: int, case: CaseResult, known: frozenset[str]) -> str:
    """The ``<details>`` block of one case (``known``: the run's rule ids, for links)."""
    why = f" — {h(one_line(case.message, 240))}" if case.message else ""
    rules = ", ".join(rule_link(r, known) for r in case.rules)
    parts = [
        f'<details class="case" id="{anchor(index)}"><summary>{status(case.status)} '
        f"<code>{h(case.case)}</code> · <code>{h(case.operation)}</code> · "
        f"{rules}{why}</summary>"
    ]
    where = case_file(case.case, getattr(case, "file", None))
    parts.append(f"<p><strong>Case</strong> <code>{h(case.case)}</code>"
                 + (f" in <code>{h(where)}</code>" if where else "") + "</p>")
    if case.description:
        parts.append(f"<p>{h(case.description)}</p>")
    if case.message:
        parts.append(f"<p><strong>Why:</strong> {h(case.message)}</p>")
    if case.baseline:
        parts.append(f"<p><strong>Baseline:</strong> {h(case.baseline_text)}</p>")
    parts.append(_checks(case, known))
    diff, columns = _io(case)
    parts += [diff, columns]
    if case.transcript:
        lines = "\n".join(visible(line) for line in case.transcript)
        parts.append(f"<h4>Transcript</h4><pre>{escape(lines)}</pre>")
    parts.append("</details>")
    return "".join(parts)
