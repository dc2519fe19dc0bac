"""summary.md: a short Markdown summary fit for ``$GITHUB_STEP_SUMMARY``.

Headline verdict, a per-family table of rule statuses, the rules that fail or error with a few
of their failing cases, the untested MUST rules and stale baseline entries. Listings are capped
(the count of what is left out is given), so a run of any size stays a few kilobytes. Every
untrusted string is redacted, put on one line, HTML-escaped (GitHub renders HTML in summaries)
and stripped of Markdown meaning.
"""

from __future__ import annotations

import re

from agent_tck.harness.reports._text import one_line
from agent_tck.harness.reports.stream import Run
from agent_tck.harness.run.results import NOT_CONFORMANT, RECOMMENDED, CaseResult, RuleInfo
from agent_tck.harness.run.verdicts import filter_text

MAX_RULES = 20  # failing rules listed
MAX_CASES = 3  # failing cases listed per rule
MAX_UNTESTED = 25
MAX_STALE = 10
_MD_SPECIAL = re.compile(r"([\\`*_\[\]#!|~])")
_AUTOLINK = re.compile(r"(?i)\b(https?|ftp|mailto)(:)|\b(www)(\.)")
_MARK = {RECOMMENDED: "✅", "conformant": "✅", NOT_CONFORMANT: "❌", "partial": "⚠️",
         "not declared": "➖", "no violation seen": "✅", "violation seen": "❌",
         "not exercised": "➖"}


def md(text: object, limit: int = 160) -> str:
    """Untrusted text as inert Markdown: one line, HTML-escaped, punctuation backslashed."""
    line = one_line("" if text is None else str(text), limit)
    line = line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    line = _MD_SPECIAL.sub(r"\\\1", line)
    # no autolinks from untrusted text: "http\://", "www\."
    return _AUTOLINK.sub(lambda m: "".join(g for g in (m.group(1), m.group(3)) if g)
                         + "\\" + (m.group(2) or m.group(4)), line)


def _more(n: int, what: str) -> str:
    return f"- … and {n} more {what} (see report.html)"


def _headline(run: Run) -> list[str]:
    head = f"agent-tck: {md(run.implementation_label or 'implementation')}"
    if run.truncated:
        lines = [f"## ⚠️ {head}: run truncated, no verdict", "",
                 f"> **Truncated run**: the results stream has no footer. Only "
                 f"{len(run.cases)} case results were recorded; statuses below are "
                 "provisional and no verdict is given."]
        lines += [f"> {md(note)}" for note in run.notes]
    else:
        assert run.verdicts is not None
        overall = run.verdicts.get("overall")
        text = overall.verdict if overall else NOT_CONFORMANT
        lines = [f"## {_MARK.get(text, '❌')} {head}: {text}"]
    return [*lines, ""]


def _facts(run: Run) -> list[str]:
    h = run.header
    counts = run.counts
    parts = [f"**cases** {len(run.cases)}: " + ", ".join(
        f"{counts.get(k, 0)} {k}" for k in ("pass", "fail", "errored", "not-applicable",
                                             "expected-fail", "stale") if counts.get(k))]
    target = h.target.get("command") or h.target.get("kind")
    parts.append(f"**target** {md(target)}")
    if h.implementation.get("language"):
        parts.append(f"**language** {md(h.implementation['language'])}")
    if h.filtered:
        parts.append(f"**partial** {md(filter_text(h.filters))} (the verdict covers these only)")
    if h.strict:
        parts.append("**strict** (SHOULD rules gate)")
    parts.append(f"agent-tck {md(h.tck_version)}")
    lines = [" · ".join(parts), ""]
    if run.sources:
        lines += [f"**merged from** {len(run.sources)} results files:", ""]
        lines += [f"{n}. {md(s.get('results'), 120)}: {md(s.get('implementation'), 60)} "
                  f"(agent-tck {md(s.get('tck_version'), 20)}, started "
                  f"{md(s.get('started'), 40)}): {md(s.get('verdict'), 40)}"
                  for n, s in enumerate(run.sources, 1)]
        lines.append("")
    if run.disagreements:
        lines += [f"> ⚠️ The footer disagrees with the case records on "
                  f"{len(run.disagreements)} rule(s): "
                  f"{md(', '.join(run.disagreements[:10]))}. Trust the cases.", ""]
    return lines


def _table(run: Run) -> list[str]:
    extra = [k for k in ("expected-fail",) if run.rule_counts()[k]]
    cols = ["pass", "fail", "errored", "not-applicable", "untested", *extra]
    names = {"not-applicable": "n/a"}
    lines = ["Rules per family by status (each number counts rules, not cases):", "",
             "| family | verdict | " + " | ".join(f"{names.get(c, c)} (rules)" for c in cols)
             + " |",
             "|---|---|" + "---:|" * len(cols)]
    verdicts = run.verdicts or {}
    for family in run.families:
        if not run.rules_of(family):
            continue
        v = verdicts.get(family)
        text = f"{_MARK.get(v.verdict, '❌')} {md(v.text)}" if v else "⚠️ incomplete"
        counts = run.rule_counts(family)
        lines.append(f"| {md(family)} | {text} | "
                     + " | ".join(str(counts[c]) for c in cols) + " |")
    return [*lines, ""]


def _case_line(case: CaseResult) -> str:
    why = f": {md(case.message, 120)}" if case.message else ""
    return f"{md(case.case, 80)} \\[{md(case.operation, 60)}\\] {case.status}{why}"


def _failing(run: Run) -> list[str]:
    bad = [r for r in run.header.rules if run.rule_status[r.id] in ("fail", "errored")]
    if not bad:
        return []
    lines = [f"### Failing or errored rules ({len(bad)})", ""]
    for rule in bad[:MAX_RULES]:
        cases = [c for c in run.cases_by_rule.get(rule.id, ())
                 if c.status in ("fail", "errored")]
        status = run.rule_status[rule.id]
        lines.append(f"- **{md(rule.id)}** {rule.level} {status}: {md(rule.title, 90)} "
                     f"({len(cases)} case{'s' if len(cases) != 1 else ''})")
        lines += [f"  - {_case_line(c)}" for c in cases[:MAX_CASES]]
        if len(cases) > MAX_CASES:
            lines.append(f"  - … and {len(cases) - MAX_CASES} more")
    if len(bad) > MAX_RULES:
        lines.append(_more(len(bad) - MAX_RULES, "rules"))
    return [*lines, ""]


def _expected(run: Run) -> list[str]:
    known = [r for r in run.header.rules if run.rule_status[r.id] == "expected-fail"]
    if not known:
        return []
    lines = [f"### Known failures, listed in the baseline ({len(known)})", ""]
    for rule in known[:MAX_RULES]:
        cases = [c for c in run.cases_by_rule.get(rule.id, ()) if c.status == "expected-fail"]
        reasons = sorted({c.baseline_text for c in cases if c.baseline_text})
        why = f": {md('; '.join(reasons), 120)}" if reasons else ""
        lines.append(f"- **{md(rule.id)}** {rule.level}: {md(rule.title, 90)}{why}")
    if len(known) > MAX_RULES:
        lines.append(_more(len(known) - MAX_RULES, "rules"))
    return [*lines, ""]


def _untested(run: Run) -> list[str]:
    rules: list[RuleInfo] = [r for r in run.header.rules
                             if r.level == "MUST" and run.rule_status[r.id] == "untested"]
    if not rules:
        return []
    lines = [f"### Untested MUST rules ({len(rules)})", ""]
    lines += [f"- **{md(r.id)}** {md(r.title, 90)}" for r in rules[:MAX_UNTESTED]]
    if len(rules) > MAX_UNTESTED:
        lines.append(_more(len(rules) - MAX_UNTESTED, "rules"))
    return [*lines, ""]


def _stale(run: Run) -> list[str]:
    stale = [c for c in run.cases if c.status == "stale"]
    if not stale:
        return []
    lines = [f"### Stale baseline entries ({len(stale)})", "",
             "These cases pass now; remove them from the baseline file.", ""]
    lines += [f"- {_case_line(c)}" for c in stale[:MAX_STALE]]
    if len(stale) > MAX_STALE:
        lines.append(_more(len(stale) - MAX_STALE, "entries"))
    return [*lines, ""]


def render(run: Run) -> str:
    """The run as GitHub-flavoured Markdown."""
    lines = [*_headline(run), *_facts(run), *_table(run), *_failing(run), *_expected(run),
             *_untested(run), *_stale(run)]
    if not run.truncated and not any(run.rule_status[r.id] in ("fail", "errored", "untested")
                                     for r in run.header.rules):
        lines += ["Every rule of the run passes or does not apply.", ""]
    return "\n".join(lines).rstrip() + "\n"
