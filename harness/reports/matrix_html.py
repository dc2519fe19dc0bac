"""matrix.html: the conformance matrix of real clients in the look of every other report
(harness/reports/page.py): one row per rule, grouped by family, one column per client and
API; a legend; amber ``warn`` cells (a SHOULD rule) apart from red ``FAIL`` cells (a MUST
rule); every cell opens on click (``<details>``, not a hover tooltip) to the scenarios behind it
and its findings with their request excerpts; a failures-only toggle; a small chart per
column; each rule row opens to the rule's statement and the note's words.

A pure function of the matrix document (matrix/schema/matrix.schema.json). Every string in it
came from a client's traffic or our own files: all of it is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from agent_tck.harness.reports._text import h
from agent_tck.harness.reports.page import chart, failures_toggle, legend, page, status
from agent_tck.harness.reports.rule_texts import RuleText, rule_texts

_ORDER = ("pass", "fail", "warn", "not-exercised", "could-not-run")
_NOTES = {"pass": "every scenario naming the rule passed (pass*: some could not be expressed "
                  "by the client)",
          "fail": "a MUST rule broken", "warn": "a SHOULD rule broken",
          "not-exercised": "not exercised: not expressible by the client, or not checked on "
                           "that API",
          "could-not-run": "could not run: a scenario did not run (its log says why)"}


def cell_state(cell: Mapping[str, Any]) -> str:
    """A cell's display state: ``warn`` is a failure of SHOULD rules only."""
    if cell["status"] == "fail":
        return "fail" if cell.get("severity") == "error" else "warn"
    return str(cell["status"])


_WORDS = {"pass": "✓ pass", "fail": "✗ FAIL", "warn": "▲ warn", "not-exercised": "— n/e",
          "could-not-run": "⊘ n/r"}


def _cell_words(cell: Mapping[str, Any]) -> str:
    state = cell_state(cell)
    text = _WORDS.get(state, state)
    if state == "pass" and any("not expressible" in n for n in cell.get("notes", ())):
        text += "*"
    return f'<span class="st st-{escape(state)}">{escape(text)}</span>'


def _anchor(column: Mapping[str, Any], rule_id: str) -> str:
    return f"{column['id']}-{rule_id}".replace("/", "-")


def _finding(f: Mapping[str, Any]) -> str:
    return (f"<li>scenario <code>{h(f['scenario'])}</code>, request {h(f['exchange'])}, "
            f"<code>{h(f['pointer'])}</code>: {h(f['message'])}"
            + (f"<pre>{h(f['excerpt'])}</pre>" if f.get("excerpt") else "")
            + f' <a href="{h(f["report"])}/report.html">audit report</a>'
            + (f' <a href="{h(f["vector"])}">regression vector</a>' if f.get("vector")
               else "") + "</li>")


def _cell(column: Mapping[str, Any], rule_id: str, cell: Mapping[str, Any]) -> str:
    notes = "".join(f"<li>{h(n)}</li>" for n in cell.get("notes", ()))
    findings = cell.get("findings") or []
    notes += "".join(f"<li>{h(f['scenario'])}: {h(f['severity'])} at request {h(f['exchange'])}"
                     f" <code>{h(f['pointer'])}</code></li>" for f in findings)
    more = (f'<p><a href="#{h(_anchor(column, rule_id))}">{len(findings)} finding'
            f"{'s' if len(findings) != 1 else ''} below</a></p>") if findings else ""
    return (f'<td class="cell"><details><summary>{_cell_words(cell)}</summary>'
            f"<ul>{notes}</ul>{more}</details></td>")


def _rule_head(rule: Mapping[str, Any], text: RuleText | None) -> str:
    level = f' <span class="lvl">{h(rule["level"])}</span>' if rule.get("level") else ""
    body = ""
    if text is not None:
        body = (f'<p class="rule-text">{h(text.statement)}</p>'
                + (f"<blockquote>“{h(text.quote)}” <span class=\"muted\">— {h(text.note)}"
                   "</span></blockquote>" if text.quote else ""))
    return (f'<th scope="row"><details><summary><code>{h(rule["id"])}</code>{level} '
            f'<span class="muted">{h(rule.get("title", ""))}</span></summary>{body}'
            "</details></th>")


def _columns_head(cols: Sequence[Mapping[str, Any]]) -> str:
    out = []
    for c in cols:
        counts: dict[str, int] = {}
        for cell in c["cells"]:
            state = cell_state(cell)
            counts[state] = counts.get(state, 0) + 1
        name = f"{c['package']} {c['api_name']}"
        out.append(f'<th scope="col">{h(c["package"])} {h(c["version"])}<br><small>'
                   f"{h(c['language'])}, {h(c['api_name'])}</small><br>"
                   f"{chart(counts, name, _ORDER, 110, 10)}</th>")
    return "".join(out)


def _rows(doc: Mapping[str, Any], texts: Mapping[str, RuleText]) -> str:
    cols = doc["columns"]
    groups: dict[str, list[str]] = {}
    for i, rule in enumerate(doc["rules"]):
        cells = [c["cells"][i] for c in cols]
        bad = any(cell_state(cell) in ("fail", "warn", "could-not-run") for cell in cells)
        tds = "".join(_cell(c, rule["id"], cell) for c, cell in zip(cols, cells, strict=True))
        groups.setdefault(str(rule.get("family") or ""), []).append(
            f'<tr id="rule-{h(rule["id"])}"{"" if bad else " class=\"ok\""}>'
            f"{_rule_head(rule, texts.get(rule['id']))}{tds}</tr>")
    span = len(cols) + 1
    return "".join(
        "<tbody>" + (f'<tr><th class="fam" colspan="{span}" scope="rowgroup">{h(family)}'
                     "</th></tr>" if family else "") + "".join(rows) + "</tbody>"
        for family, rows in groups.items())


def _findings(doc: Mapping[str, Any]) -> str:
    out = []
    for i, rule in enumerate(doc["rules"]):
        for c in doc["columns"]:
            cell = c["cells"][i]
            if cell.get("findings"):
                items = "".join(_finding(f) for f in cell["findings"])
                out.append(f'<h3 id="{h(_anchor(c, rule["id"]))}">{_cell_words(cell)} '
                           f'<a href="#rule-{h(rule["id"])}">{h(rule["id"])}</a> in '
                           f"{h(c['package'])} ({h(c['language'])}, {h(c['api_name'])})</h3>"
                           f"<ul>{items}</ul>")
    return "".join(out) or '<p class="muted">None.</p>'


def render(doc: Mapping[str, Any], texts: Mapping[str, RuleText] | None = None) -> str:
    """The matrix document as one self-contained HTML page."""
    texts = rule_texts() if texts is None else texts
    bad = "".join(f"<li><code>{h(r['cell'])}</code>: {status(str(r['status']))} "
                  f"{h(r['reason'])}"
                  + (f' (<a href="{h(r["log"])}">log</a>)' if r["log"] else "") + "</li>"
                  for r in doc["runs"] if r["status"] != "ran") or "<li>None.</li>"
    agents = "".join(f"<li><code>{h(a['package'])}</code>: {h(a['reason'])}</li>"
                     for a in doc["agents"]) or "<li>None listed.</li>"
    return page("agent-tck conformance matrix", "".join([
        "<header><h1>Conformance matrix</h1>",
        f"<p>Generated {h(doc['generated'])} by agent-tck {h(doc['tck_version'])}: one row "
        "per rule, one column per client and API. Click a cell for the scenarios behind it "
        "and its findings; click a rule for its statement and the note's words.</p></header>",
        '<nav class="toolbar" aria-label="contents"><a href="#matrix">matrix</a>'
        '<a href="#findings">findings</a><a href="#runs">runs that did not complete</a>'
        f'<a href="#agents">agents</a>{failures_toggle("rules with a finding")}</nav>',
        legend(_ORDER, _NOTES, _WORDS),
        f'<table class="matrix" id="matrix"><thead><tr><th scope="col">rule</th>'
        f"{_columns_head(doc['columns'])}</tr></thead>{_rows(doc, texts)}</table>",
        f'<h2 id="findings">Findings</h2>{_findings(doc)}',
        f'<h2 id="runs">Runs that did not complete</h2><ul>{bad}</ul>',
        f'<h2 id="agents">Agents</h2><ul>{agents}</ul>',
    ]))
