"""report.html: one self-contained page, read at a glance.

* the verdict, per family and overall (or a truncation banner: no footer, no verdict);
* a rule-by-result matrix: rows are the run's rules grouped by family, with level and title;
  each row's status is colour-coded *and* labelled in words and symbols; each citing case is a
  chip, and a failing or errored chip links to its details;
* the details of every failing, errored, stale or expected-to-fail case in ``<details>``
  elements: description, input, expected and actual output, and the transcript for errored ones.

No external asset. A Content-Security-Policy allows only this page's own style and its one
small script (which opens the ``<details>`` a link points at), by hash, so even markup that
slipped past escaping could not run. Every untrusted string is redacted, made visible
(control and bidi characters) and HTML-escaped.
"""

from __future__ import annotations

import base64
import hashlib
from html import escape

from agent_tck.harness.reports._text import h, label, one_line, pretty_json, visible
from agent_tck.harness.reports.stream import Run
from agent_tck.harness.results import (
    CONFORMANT,
    NO_VIOLATION,
    NOT_CONFORMANT,
    NOT_EXERCISED,
    RECOMMENDED,
    VIOLATION,
    CaseResult,
    RuleInfo,
)

MAX_DETAILED = 1000  # cases with full details; the rest are in results.jsonl
MAX_CHIPS = 60  # case chips per rule row

STATUS_LABEL = {
    "pass": "✓ pass",
    "fail": "✗ fail",
    "errored": "⚠ errored",
    "not-applicable": "– n/a",
    "untested": "? untested",
    "expected-fail": "✗ expected fail",
    "stale": "↻ stale",
}
_CHIP = {"pass": "✓", "fail": "✗", "errored": "!", "not-applicable": "–",
         "expected-fail": "x", "stale": "↻"}
_VERDICT_CLASS = {RECOMMENDED: "v-rec", CONFORMANT: "v-ok", NOT_CONFORMANT: "v-no",
                  NO_VIOLATION: "v-ok", VIOLATION: "v-no", NOT_EXERCISED: "v-none"}
_DETAILED = ("fail", "errored", "stale", "expected-fail")

_CSS = """
:root{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;
background:#fff;line-height:1.4}
body{margin:1.5rem auto;max-width:78rem;padding:0 1rem}
h1{font-size:1.4rem;margin:.2rem 0}h2{font-size:1.15rem;margin-top:2rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{border-bottom:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}tbody th.fam{background:#eaeef2;font-size:1rem}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem}
pre{background:#f6f8fa;border:1px solid #d0d7de;padding:.5rem;overflow:auto;max-height:30rem;
white-space:pre-wrap;word-break:break-word}
.st{display:inline-block;border-radius:.8rem;padding:0 .55rem;font-weight:600;white-space:nowrap;
border:1px solid transparent}
.st-pass{background:#dafbe1;color:#116329;border-color:#4ac26b}
.st-fail{background:#ffebe9;color:#a40e26;border-color:#ff8182}
.st-errored{background:#fff1e5;color:#953800;border-color:#fb8f44}
.st-not-applicable{background:#f6f8fa;color:#57606a;border-color:#d0d7de}
.st-untested{background:#fff8c5;color:#7d4e00;border-color:#d4a72c}
.st-expected-fail{background:#ddf4ff;color:#0550ae;border-color:#54aeff}
.st-stale{background:#fbefff;color:#8250df;border-color:#c297ff}
.chip{display:inline-block;min-width:1.2rem;text-align:center;margin:0 .1rem .1rem 0;
border-radius:.25rem;font-size:.8rem;text-decoration:none;border:1px solid transparent}
.verdict{display:inline-block;padding:.3rem .8rem;border-radius:.4rem;font-weight:700}
.v-rec,.v-ok{background:#dafbe1;color:#116329}.v-no{background:#ffebe9;color:#a40e26}
.v-none{background:#fff8c5;color:#7d4e00}
.banner{border:2px solid #d4a72c;background:#fff8c5;padding:.6rem 1rem;margin:1rem 0}
.muted{color:#57606a}.lvl{font-weight:600}.dec{font-size:.75rem;border:1px solid #8c959f;
border-radius:.3rem;padding:0 .3rem;margin-left:.3rem;color:#57606a}
td code{white-space:nowrap}
details.case{border:1px solid #d0d7de;border-radius:.4rem;margin:.4rem 0;padding:.3rem .6rem}
details.case[open]{background:#fcfcfd}details.case:target{outline:3px solid #54aeff}
details.case summary{cursor:pointer}
.io{display:grid;grid-template-columns:repeat(auto-fit,minmax(20rem,1fr));gap:.6rem}
.io h4{margin:.4rem 0 .2rem}dl.facts{display:grid;grid-template-columns:max-content 1fr;
gap:.1rem 1rem;margin:.5rem 0}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
""".strip()

_SCRIPT = (
    "function o(){var h=decodeURIComponent(location.hash.slice(1));if(!h)return;"
    "var e=document.getElementById(h);if(e&&e.tagName==='DETAILS'){e.open=true;}}"
    "addEventListener('hashchange',o);o();"
)


def _hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def _status(status: str) -> str:
    return f'<span class="st st-{escape(status)}">{escape(STATUS_LABEL.get(status, status))}</span>'


def _anchor(index: int) -> str:
    return f"case-{index}"


def _verdict_badge(text: str | None) -> str:
    if text is None:
        return '<span class="verdict v-none">⚠ incomplete: truncated run</span>'
    mark = {NOT_CONFORMANT: "✗", VIOLATION: "✗", NOT_EXERCISED: "–"}.get(text, "✓")
    return f'<span class="verdict {_VERDICT_CLASS.get(text, "v-no")}">{mark} {h(text)}</span>'


def _facts(run: Run) -> str:
    hd = run.header
    impl = hd.implementation
    rows = [
        ("implementation", run.implementation_label),
        ("language", impl.get("language")),
        ("homepage", impl.get("homepage")),
        ("target", hd.target.get("command") or hd.target.get("kind")),
        ("started", hd.started),
        ("finished", run.footer.finished if run.footer else "— (no footer)"),
        ("agent-tck", hd.tck_version),
        ("strict", "yes: SHOULD rules gate the exit code" if hd.strict else "no"),
    ]
    if hd.filtered:
        f = hd.filters
        rows.append(("filters", "; ".join(
            f"{k}: {', '.join(v) if isinstance(v, list) else v}"
            for k, v in (("family", f.get("family")), ("rule", f.get("rule")), ("k", f.get("k")))
            if v) + " (the verdict covers these only)"))
    counts = run.counts
    rows.append(("cases", f"{len(run.cases)}: " + ", ".join(
        f"{counts.get(k, 0)} {k}" for k in STATUS_LABEL if counts.get(k))))
    body = "".join(f"<dt>{escape(k)}</dt><dd>{h(v)}</dd>" for k, v in rows if v)
    return f'<dl class="facts">{body}</dl>'


def _banners(run: Run) -> str:
    out = []
    if run.truncated:
        notes = "".join(f"<br>{h(n)}" for n in run.notes)
        out.append(
            '<div class="banner" role="alert"><strong>Truncated run.</strong> The results '
            f"stream has no footer: the run stopped after {len(run.cases)} case results. "
            "Statuses below are provisional (rules whose cases never ran show as untested) "
            f"and no verdict is given.{notes}</div>"
        )
    if run.disagreements:
        out.append(
            '<div class="banner" role="alert"><strong>Inconsistent stream.</strong> The '
            "footer's rule statuses disagree with the case records for "
            f"{h(', '.join(run.disagreements[:20]))}.</div>"
        )
    return "".join(out)


def _verdicts(run: Run) -> str:
    verdicts = run.verdicts
    rows = []
    for family in [*run.families, "overall"]:
        if family != "overall" and not run.rules_of(family):
            continue
        v = verdicts.get(family) if verdicts else None
        failing = (f' <span class="muted">MUST not passing: {h(", ".join(v.failing[:30]))}'
                   f'{" …" if len(v.failing) > 30 else ""}</span>') if v and v.failing else ""
        counts = run.rule_counts(None if family == "overall" else family)
        tally = ", ".join(f"{n} {STATUS_LABEL[k].split(' ', 1)[1]}" for k, n in counts.items()
                          if n)
        name = "<strong>overall</strong>" if family == "overall" else h(family)
        rows.append(f"<tr><th scope=\"row\">{name}</th>"
                    f"<td>{_verdict_badge(v.verdict if v else None)}{failing}</td>"
                    f"<td>{escape(tally)}</td></tr>")
    return ('<table><thead><tr><th scope="col">family</th><th scope="col">verdict</th>'
            '<th scope="col">rules</th></tr></thead><tbody>' + "".join(rows)
            + "</tbody></table>")


def _chips(cases: tuple[CaseResult, ...], anchors: dict[int, int]) -> str:
    out = []
    for case in cases[:MAX_CHIPS]:
        mark = escape(_CHIP.get(case.status, "?"))
        tip = h(f"{case.case} [{case.operation}]: {case.status}"
                + (f": {one_line(case.message, 200)}" if case.message else ""))
        cls = f"chip st-{escape(case.status)}"
        index = anchors.get(id(case))
        if index is not None:
            out.append(f'<a class="{cls}" href="#{_anchor(index)}" title="{tip}" '
                       f'aria-label="{tip}">{mark}</a>')
        else:
            out.append(f'<span class="{cls}" title="{tip}" aria-label="{tip}">{mark}</span>')
    if len(cases) > MAX_CHIPS:
        out.append(f'<span class="muted">+{len(cases) - MAX_CHIPS} more</span>')
    return "".join(out)


def _tally(cases: tuple[CaseResult, ...]) -> str:
    counts: dict[str, int] = {}
    for case in cases:
        counts[case.status] = counts.get(case.status, 0) + 1
    return ", ".join(f"{n} {s}" for s, n in counts.items())


def _matrix(run: Run, anchors: dict[int, int]) -> str:
    groups = []
    for family in run.families:
        rules: tuple[RuleInfo, ...] = run.rules_of(family)
        if not rules:
            continue
        v = run.verdicts.get(family) if run.verdicts else None
        verdict = v.verdict if v else "incomplete"
        rows = [f'<tr><th class="fam" colspan="5" scope="rowgroup">{h(family)} '
                f'<span class="muted">({len(rules)} rules · {h(verdict)})</span></th></tr>']
        for rule in rules:
            cases = run.cases_by_rule.get(rule.id, ())
            status = run.rule_status[rule.id]
            dec = '<span class="dec" title="a suite decision, ours">decision</span>' \
                if rule.decision else ""
            rows.append(
                f'<tr id="rule-{h(rule.id)}"><td><code>{h(rule.id)}</code>{dec}</td>'
                f'<td class="lvl">{h(rule.level)}</td><td>{h(rule.title)}</td>'
                f"<td>{_status(status)}</td>"
                f'<td>{_chips(cases, anchors)} <span class="muted">{h(_tally(cases))}</span>'
                "</td></tr>"
            )
        groups.append("<tbody>" + "".join(rows) + "</tbody>")
    return ('<table class="matrix"><thead><tr><th scope="col">rule</th><th scope="col">level'
            '</th><th scope="col">title</th><th scope="col">status</th><th scope="col">cases'
            "</th></tr></thead>" + "".join(groups) + "</table>")


def _details(index: int, case: CaseResult) -> str:
    why = f" — {h(one_line(case.message, 240))}" if case.message else ""
    parts = [
        f'<details class="case" id="{_anchor(index)}"><summary>{_status(case.status)} '
        f"<code>{h(case.case)}</code> · <code>{h(case.operation)}</code> · "
        f"{h(', '.join(case.rules))}{why}</summary>"
    ]
    if case.description:
        parts.append(f"<p>{h(case.description)}</p>")
    if case.message:
        parts.append(f"<p><strong>Why:</strong> {h(case.message)}</p>")
    if case.baseline:
        parts.append(f"<p><strong>Baseline:</strong> {h(case.baseline_text)}</p>")
    parts.append(
        '<div class="io">'
        f"<div><h4>Input</h4><pre>{escape(pretty_json(case.input))}</pre></div>"
        f"<div><h4>Expected</h4><pre>{escape(pretty_json(case.expected))}</pre></div>"
        f"<div><h4>Actual</h4><pre>{escape(pretty_json(case.actual))}</pre></div>"
        "</div>"
    )
    if case.transcript:
        lines = "\n".join(visible(line) for line in case.transcript)
        parts.append(f"<h4>Transcript</h4><pre>{escape(lines)}</pre>")
    parts.append("</details>")
    return "".join(parts)


def _audit_timeline(run: Run) -> str:
    """The per-conversation timeline of an ``agent-tck audit`` run ("" for other runs)."""
    from agent_tck.harness.audit.timeline import render_section

    return render_section(run)


def render(run: Run) -> str:
    """The run as one self-contained HTML page."""
    detailed = [c for c in run.cases if c.status in _DETAILED]
    shown = detailed[:MAX_DETAILED]
    anchors = {id(case): i for i, case in enumerate(shown)}
    overall = run.verdicts.get("overall") if run.verdicts else None
    title = f"agent-tck: {label(run.implementation_label) or 'implementation'}"
    csp = (f"default-src 'none'; style-src '{_hash(_CSS)}'; script-src '{_hash(_SCRIPT)}'; "
           "base-uri 'none'; form-action 'none'")
    details = "".join(_details(i, c) for i, c in enumerate(shown))
    more = (f'<p class="muted">… and {len(detailed) - MAX_DETAILED} more; every case is in '
            "results.jsonl.</p>") if len(detailed) > MAX_DETAILED else ""
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<header><h1>{escape(title)}</h1>",
        f"<p>{_verdict_badge(overall.verdict if overall else None)}</p></header>",
        _banners(run),
        _facts(run),
        "<h2>Verdicts</h2>", _verdicts(run),
        _audit_timeline(run),
        "<h2>Rules</h2>",
        '<p class="muted">Each rule of the run, its status over the cases citing it, and one '
        "chip per case (failing ones link to their details below).</p>",
        _matrix(run, anchors),
        f"<h2>Failing, errored and baseline cases ({len(detailed)})</h2>",
        details or '<p class="muted">None.</p>', more,
        f"<script>{_SCRIPT}</script></body></html>\n",
    ])
