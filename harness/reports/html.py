"""report.html: one self-contained page, read at a glance (the look: harness/reports/page.py).

* a toolbar: a contents list by family, the failing cases, and a failures-only toggle;
* the verdict per family and overall, each family with a small chart of its rules (pass, fail,
  errored, untested) drawn as inline SVG (or a truncation banner: no footer, no verdict);
* a rule-by-result matrix: rows are the run's rules grouped by family, with level and title;
  each row's status is colour-coded *and* labelled in words and symbols; each row opens on
  click to the rule's statement, the note's quoted words and the cases citing it with their
  vector file; each citing case is a chip, and a failing or errored chip links to its details;
* the details of every failing, errored, stale or expected-to-fail case (harness/reports/
  html_case.py): which check failed and whose rule, a structural diff of expected and actual
  with the differing paths highlighted beside the raw input, expected and actual columns, and
  the transcript for errored ones. Every rule id links to its row.

No external asset; a Content-Security-Policy allows only the page's own style and script, by
hash. Every untrusted string is redacted, made visible and HTML-escaped.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

from agent_tck.harness.reports._text import h, label, one_line
from agent_tck.harness.reports.html_case import DETAILED, anchor, details
from agent_tck.harness.reports.page import (
    STATUS_LABEL,
    chart,
    failures_toggle,
    legend,
    page,
    status,
    verdict_badge,
)
from agent_tck.harness.reports.rule_texts import RuleText, case_file, rule_texts
from agent_tck.harness.reports.stream import Run
from agent_tck.harness.run.results import CaseResult, RuleInfo, Verdict

MAX_DETAILED = 1000  # cases with full details; the rest are in results.jsonl
MAX_CHIPS = 60  # case chips per rule row
MAX_RULE_CASES = 30  # cases listed in an opened rule row
_CHIP = {"pass": "✓", "fail": "✗", "errored": "!", "not-applicable": "–",
         "expected-fail": "x", "stale": "↻"}
_OK = ("pass", "not-applicable")  # hidden by the failures-only toggle
_RULE_LEGEND = ("pass", "fail", "errored", "untested", "not-applicable", "expected-fail",
                "stale")
_LEGEND_NOTES = {"untested": "a MUST rule no declared operation covers",
                 "not-applicable": "no case ran that the implementation declares",
                 "expected-fail": "listed in the --expect baseline",
                 "stale": "a baseline entry that passes now"}



def _badge(verdict: Verdict | None) -> str:
    """A family's (or the overall) verdict badge, in its words (``Verdict.text``)."""
    if verdict is None:
        return verdict_badge(None)
    return verdict_badge(verdict.verdict, shown=verdict.text)

def fam_anchor(family: str) -> str:
    return "fam-" + "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in family)


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
        rows.append(("filters", "; ".join(  # every filter the header names, old and new
            f"{k}: {', '.join(map(str, v)) if isinstance(v, list) else v}"
            for k, v in f.items() if v) + " (the verdict covers these only)"))
    counts = run.counts
    rows.append(("cases", f"{len(run.cases)}: " + ", ".join(
        f"{counts.get(k, 0)} {k}" for k in STATUS_LABEL if counts.get(k))))
    body = "".join(f"<dt>{escape(k)}</dt><dd>{h(v)}</dd>" for k, v in rows if v)
    if run.sources:
        items = "".join(
            f"<li><code>{h(s.get('results'))}</code>: {h(s.get('implementation'))} "
            f"(agent-tck {h(s.get('tck_version'))}, started {h(s.get('started'))}): "
            f"{h(s.get('verdict'))}</li>" for s in run.sources)
        body += f"<dt>merged from</dt><dd><ol>{items}</ol></dd>"
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


def _families(run: Run) -> list[str]:
    return [f for f in run.families if run.rules_of(f)]


def _toolbar(run: Run, failing: int) -> str:
    links = "".join(f'<li><a href="#{fam_anchor(f)}">{h(f)}</a></li>' for f in _families(run))
    return ('<nav class="toolbar toc" aria-label="contents"><strong>Contents</strong>'
            '<a href="#verdicts">verdicts</a>'
            f'<span>rules by family:</span><ol class="inline">{links}</ol>'
            f'<a href="#failing">failing cases ({failing})</a>'
            f"{failures_toggle()}</nav>")


def _verdicts(run: Run) -> str:
    verdicts = run.verdicts
    rows = []
    for family in [*_families(run), "overall"]:
        v = verdicts.get(family) if verdicts else None
        failing = (f' <span class="muted">MUST not passing: {h(", ".join(v.failing[:30]))}'
                   f'{" …" if len(v.failing) > 30 else ""}</span>') if v and v.failing else ""
        counts = run.rule_counts(None if family == "overall" else family)
        tally = ", ".join(f"{n} {STATUS_LABEL[k].split(' ', 1)[1]}" for k, n in counts.items()
                          if n)
        name = ("<strong>overall</strong>" if family == "overall"
                else f'<a href="#{fam_anchor(family)}">{h(family)}</a>')
        rows.append(f'<tr><th scope="row">{name}</th>'
                    f"<td>{_badge(v)}{failing}</td>"
                    f"<td>{chart(counts, f'{family} rules')}</td>"
                    f"<td>{escape(tally)}</td></tr>")
    return ('<table id="verdicts"><thead><tr><th scope="col">family</th>'
            '<th scope="col">verdict</th><th scope="col">rules (chart)</th>'
            '<th scope="col">rules</th></tr></thead><tbody>' + "".join(rows)
            + "</tbody></table>")


def _chips(cases: tuple[CaseResult, ...], anchors: Mapping[int, int]) -> str:
    out = []
    for case in cases[:MAX_CHIPS]:
        mark = escape(_CHIP.get(case.status, "?"))
        tip = h(f"{case.case} [{case.operation}]: {case.status}"
                + (f": {one_line(case.message, 200)}" if case.message else ""))
        cls = f"chip st-{escape(case.status)}"
        index = anchors.get(id(case))
        if index is not None:
            out.append(f'<a class="{cls}" href="#{anchor(index)}" title="{tip}" '
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


def _rule_cases(cases: tuple[CaseResult, ...], anchors: Mapping[int, int]) -> str:
    ordered = sorted(cases, key=lambda c: c.status in _OK)
    items = []
    for case in ordered[:MAX_RULE_CASES]:
        index = anchors.get(id(case))
        name = f"<code>{h(case.case)}</code>"
        if index is not None:
            name = f'<a href="#{anchor(index)}">{name}</a>'
        where = case_file(case.case, getattr(case, "file", None))
        items.append(f"<li>{name} [{h(case.operation)}] {h(case.status)}"
                     + (f' <span class="muted">in <code>{h(where)}</code></span>' if where
                        else "") + "</li>")
    more = (f'<li class="muted">… and {len(cases) - MAX_RULE_CASES} more</li>'
            if len(cases) > MAX_RULE_CASES else "")
    return (f"<h4>Cases citing it ({len(cases)})</h4><ul>{''.join(items)}{more}</ul>"
            if cases else '<p class="muted">No case of this run cites it.</p>')


def _rule_body(rule: RuleInfo, text: RuleText | None, cases: tuple[CaseResult, ...],
               anchors: Mapping[int, int]) -> str:
    parts = [f"<details><summary>{h(rule.title) or h(rule.id)}</summary>"]
    if text is not None:
        parts.append(f'<p class="rule-text"><strong>{h(rule.level)}</strong> '
                     f"{h(text.statement)}</p>")
        if text.quote:
            parts.append(f"<blockquote>“{h(text.quote)}” <span class=\"muted\">— "
                         f"{h(text.note)}</span></blockquote>")
        if text.reason:
            parts.append(f'<p class="muted"><strong>Why (a suite decision):</strong> '
                         f"{h(text.reason)}</p>")
    else:
        parts.append(f'<p class="muted">{h(rule.level)}; this kit\'s catalogue has no '
                     "text for this rule.</p>")
    parts.append(_rule_cases(cases, anchors))
    parts.append("</details>")
    return "".join(parts)


def _matrix(run: Run, anchors: Mapping[int, int], texts: Mapping[str, RuleText]) -> str:
    groups = []
    for family in _families(run):
        rules = run.rules_of(family)
        v = run.verdicts.get(family) if run.verdicts else None
        verdict = v.verdict if v else "incomplete"
        counts = run.rule_counts(family)
        rows = [f'<tr><th class="fam" colspan="5" scope="rowgroup">{h(family)} '
                f'<span class="muted">({len(rules)} rule{"s" if len(rules) != 1 else ""} · '
                f"{h(verdict)})</span> "
                f"{chart(counts, f'{family} rules')}</th></tr>"]
        for rule in rules:
            cases = run.cases_by_rule.get(rule.id, ())
            state = run.rule_status[rule.id]
            dec = '<span class="dec" title="a suite decision, ours">decision</span>' \
                if rule.decision else ""
            ok = ' class="ok"' if state in _OK else ""
            rows.append(
                f'<tr id="rule-{h(rule.id)}"{ok}><td><code>{h(rule.id)}</code>{dec}</td>'
                f'<td class="lvl">{h(rule.level)}</td>'
                f"<td>{_rule_body(rule, texts.get(rule.id), cases, anchors)}</td>"
                f"<td>{status(state)}</td>"
                f'<td>{_chips(cases, anchors)} <span class="muted">{h(_tally(cases))}</span>'
                "</td></tr>"
            )
        groups.append(f'<tbody id="{fam_anchor(family)}">' + "".join(rows) + "</tbody>")
    return ('<table class="matrix"><thead><tr><th scope="col">rule</th><th scope="col">level'
            '</th><th scope="col">title (click for the rule)</th><th scope="col">status</th>'
            '<th scope="col">cases</th></tr></thead>' + "".join(groups) + "</table>")


def _audit_timeline(run: Run) -> str:
    """The per-conversation timeline of an ``agent-tck audit`` run ("" for other runs)."""
    from agent_tck.harness.audit.timeline import render_section

    return render_section(run)


def render(run: Run, texts: Mapping[str, RuleText] | None = None) -> str:
    """The run as one self-contained HTML page (``texts``: rule id -> its words; default the
    installed catalogue's)."""
    texts = rule_texts() if texts is None else texts
    detailed = [c for c in run.cases if c.status in DETAILED]
    shown = detailed[:MAX_DETAILED]
    anchors = {id(case): i for i, case in enumerate(shown)}
    known = frozenset(r.id for r in run.header.rules)
    overall = run.verdicts.get("overall") if run.verdicts else None
    title = f"agent-tck: {label(run.implementation_label) or 'implementation'}"
    more = (f'<p class="muted">… and {len(detailed) - MAX_DETAILED} more; every case is in '
            "results.jsonl.</p>") if len(detailed) > MAX_DETAILED else ""
    return page(title, "".join([
        f"<header><h1>{escape(title)}</h1>",
        f"<p>{_badge(overall)}</p></header>",
        _toolbar(run, len(detailed)),
        _banners(run),
        _facts(run),
        "<h2>Verdicts</h2>", _verdicts(run),
        _audit_timeline(run),
        "<h2>Rules</h2>",
        '<p class="muted">Each rule of the run, its status over the cases citing it, and one '
        "chip per case (failing ones link to their details below). Click a title for the "
        "rule's statement, the note's words and the cases citing it.</p>",
        legend(_RULE_LEGEND, _LEGEND_NOTES),
        _matrix(run, anchors, texts),
        f'<h2 id="failing">Failing, errored and baseline cases ({len(detailed)})</h2>',
        "".join(details(i, c, known) for i, c in enumerate(shown))
        or '<p class="muted">None.</p>', more,
    ]))
