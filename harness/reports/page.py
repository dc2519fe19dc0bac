"""The one look of every HTML report: run and audit (report.html) and the matrix (matrix.html).

:func:`page` wraps a body in the shared document: one stylesheet (:data:`CSS`) and one small
script (:data:`SCRIPT`, which opens the ``<details>`` a link points at), both allowed by hash in
a Content-Security-Policy that allows nothing else, so a report is self-contained (no network)
and even markup that slipped past escaping could not run. The pieces every report shows alike
live here too: status labels in words and symbols (never colour alone), verdict badges, the
failures-only toggle (pure CSS, works without the script), legends, and the per-family chart
(inline SVG, presentation attributes only: the CSP forbids style attributes).

Every string given to these helpers as ``text`` is untrusted and escaped with
:func:`harness.reports._text.h`; ``body``/``html`` parameters are markup the caller built.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence
from html import escape

from agent_tck.harness.reports._text import h

STATUS_LABEL = {
    "pass": "✓ pass",
    "fail": "✗ fail",
    "errored": "⚠ errored",
    "not-applicable": "– n/a",
    "untested": "? untested",
    "expected-fail": "✗ expected fail",
    "stale": "↻ stale",
    "warn": "▲ warn",
    "not-exercised": "— not exercised",
    "could-not-run": "⊘ could not run",
}
#: chart colours (fill attributes), matching the status classes of :data:`CSS`
CHART_FILL = {"pass": "#4ac26b", "fail": "#cf222e", "errored": "#fb8f44",
              "untested": "#d4a72c", "not-applicable": "#d0d7de", "expected-fail": "#54aeff",
              "warn": "#bf8700"}
CHART_ORDER = ("pass", "fail", "errored", "untested")
#: verdict words (results.py; ``not declared`` arrives with the per-check model) -> class
VERDICT_CLASS = {"conformant, recommended": "v-ok", "conformant": "v-ok",
                 "not conformant": "v-no", "partial": "v-part", "not declared": "v-none",
                 # an audit's words (it certifies nothing, issue 21 E)
                 "no violation seen": "v-ok", "violation seen": "v-no", "not exercised": "v-none"}

CSS = """
:root{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;
background:#fff;line-height:1.4}
body{margin:1.5rem auto;max-width:80rem;padding:0 1rem}
h1{font-size:1.4rem;margin:.2rem 0}h2{font-size:1.15rem;margin-top:2rem}h3{font-size:1rem}
a{color:#0969da}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{border-bottom:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}tbody th.fam{background:#eaeef2;font-size:1rem}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem}
pre{background:#f6f8fa;border:1px solid #d0d7de;padding:.5rem;overflow:auto;max-height:30rem;
white-space:pre-wrap;word-break:break-word;margin:.2rem 0}
.st{display:inline-block;border-radius:.8rem;padding:0 .55rem;font-weight:600;white-space:nowrap;
border:1px solid transparent}
.st-pass{background:#dafbe1;color:#116329;border-color:#4ac26b}
.st-fail{background:#ffebe9;color:#a40e26;border-color:#ff8182}
.st-errored{background:#fff1e5;color:#953800;border-color:#fb8f44}
.st-not-applicable,.st-not-exercised{background:#f6f8fa;color:#57606a;border-color:#d0d7de}
.st-untested,.st-could-not-run{background:#fff8c5;color:#7d4e00;border-color:#d4a72c}
.st-warn{background:#fff3cd;color:#7a4a00;border-color:#bf8700}
.st-expected-fail{background:#ddf4ff;color:#0550ae;border-color:#54aeff}
.st-stale{background:#fbefff;color:#8250df;border-color:#c297ff}
.chip{display:inline-block;min-width:1.2rem;text-align:center;margin:0 .1rem .1rem 0;
border-radius:.25rem;font-size:.8rem;text-decoration:none;border:1px solid transparent}
.verdict{display:inline-block;padding:.3rem .8rem;border-radius:.4rem;font-weight:700}
.v-ok{background:#dafbe1;color:#116329}.v-no{background:#ffebe9;color:#a40e26}
.v-none{background:#eaeef2;color:#57606a}.v-part{background:#fff8c5;color:#7d4e00}
.banner{border:2px solid #d4a72c;background:#fff8c5;padding:.6rem 1rem;margin:1rem 0}
.muted{color:#57606a}.lvl{font-weight:600}.dec{font-size:.75rem;border:1px solid #8c959f;
border-radius:.3rem;padding:0 .3rem;margin-left:.3rem;color:#57606a}
td code{white-space:nowrap}
details.case{border:1px solid #d0d7de;border-radius:.4rem;margin:.4rem 0;padding:.3rem .6rem}
details.case[open]{background:#fcfcfd}details.case:target,tr:target{outline:3px solid #54aeff}
details summary{cursor:pointer}
.io{display:grid;grid-template-columns:repeat(auto-fit,minmax(20rem,1fr));gap:.6rem}
.io h4,h4{margin:.5rem 0 .2rem}dl.facts{display:grid;grid-template-columns:max-content 1fr;
gap:.1rem 1rem;margin:.5rem 0}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
.toolbar{position:sticky;top:0;background:#fff;border-bottom:1px solid #d0d7de;padding:.4rem 0;
display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;align-items:center;z-index:1}
.toolbar a{text-decoration:none}
body:has(#only-failures:checked) .ok{display:none}
ol.inline{display:flex;flex-wrap:wrap;gap:.2rem .8rem;list-style:none;margin:0;padding:0}
svg.chart{vertical-align:middle}
.rule-text{margin:.3rem 0 .2rem;max-width:60rem}
blockquote{margin:.3rem 0;padding:.2rem .7rem;border-left:3px solid #d0d7de;color:#424a53}
.hl{background:#ffd8b5;display:inline-block;min-width:100%}
.hl-missing{background:#ffcecb}.hl-extra{background:#ffd8b5}.hl-changed{background:#fff0a8}
table.diff td:first-child{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85rem}
tr.d-missing td:first-child{border-left:4px solid #cf222e}
tr.d-extra td:first-child{border-left:4px solid #fb8f44}
tr.d-changed td:first-child{border-left:4px solid #bf8700}
.legend{display:flex;flex-wrap:wrap;gap:.3rem .8rem;margin:.4rem 0;font-size:.85rem}
table.matrix td.cell{text-align:center}
td.cell details summary{list-style:none}
td.cell details summary::-webkit-details-marker{display:none}
td.cell details[open]{text-align:left;min-width:16rem}
td.cell ul{padding-left:1rem;margin:.3rem 0;font-size:.8rem}
td.cell pre{max-height:12rem;max-width:28rem}
.checks td,.checks th{font-size:.85rem}
""".strip()

SCRIPT = (
    "function o(){var h=decodeURIComponent(location.hash.slice(1));if(!h)return;"
    "var e=document.getElementById(h);if(!e)return;"
    "var d=e.tagName==='DETAILS'?e:e.querySelector('details');if(d){d.open=true;}}"
    "addEventListener('hashchange',o);o();"
)


def csp_hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def page(title: str, body: str) -> str:
    """A whole self-contained document: ``title`` is text, ``body`` is markup."""
    csp = (f"default-src 'none'; style-src '{csp_hash(CSS)}'; script-src '{csp_hash(SCRIPT)}'; "
           "base-uri 'none'; form-action 'none'")
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>",
        body,
        f"<script>{SCRIPT}</script></body></html>\n",
    ])


def status(state: str) -> str:
    """A status in colour and in words."""
    return (f'<span class="st st-{escape(state)}">'
            f"{escape(STATUS_LABEL.get(state, state))}</span>")


def verdict_badge(text: str | None, *, none: str = "⚠ incomplete: truncated run",
                  shown: str | None = None) -> str:
    """A verdict word as a badge; ``shown``: the words to show instead (``Verdict.text``:
    "partial (--family x)", "no violation seen in 3 requests")."""
    if text is None:
        return f'<span class="verdict v-part">{escape(none)}</span>'
    cls = VERDICT_CLASS.get(text, "v-no")
    mark = {"v-ok": "✓", "v-no": "✗", "v-part": "◐", "v-none": "–"}[cls]
    return f'<span class="verdict {cls}">{mark} {h(shown or text)}</span>'


def failures_toggle(what: str = "failing rules and cases") -> str:
    """The failures-only checkbox: hides every element of class ``ok`` while checked."""
    return ('<label><input type="checkbox" id="only-failures"> show only '
            f"{escape(what)}</label>")


def legend(states: Sequence[str], notes: Mapping[str, str] | None = None,
           words: Mapping[str, str] | None = None) -> str:
    """A legend of status chips (``words``: a chip's text where it is not the usual label),
    each with an optional explanation."""
    notes, words = notes or {}, words or {}
    chip = {s: (f'<span class="st st-{escape(s)}">{escape(words[s])}</span>' if s in words
                else status(s)) for s in states}
    items = "".join(f"<span>{chip[s]}"
                    + (f' <span class="muted">{escape(notes[s])}</span>' if s in notes else "")
                    + "</span>" for s in states)
    return f'<div class="legend" role="list" aria-label="legend">{items}</div>'


def chart(counts: Mapping[str, int], label: str, order: Sequence[str] = CHART_ORDER,
          width: int = 160, height: int = 14) -> str:
    """A stacked bar of ``counts`` (inline SVG) with a text equivalent; an empty grey bar when
    nothing is counted."""
    total = sum(counts.get(k, 0) for k in order)
    words = ", ".join(f"{counts.get(k, 0)} {k}" for k in order)
    parts = [f'<svg class="chart" role="img" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" aria-label="{h(label)}: {escape(words)}">'
             f"<title>{h(label)}: {escape(words)}</title>"
             f'<rect width="{width}" height="{height}" fill="#eaeef2"/>']
    x = 0.0
    for key in order:
        n = counts.get(key, 0)
        if not n or not total:
            continue
        w = width * n / total
        parts.append(f'<rect x="{x:.1f}" width="{w:.1f}" height="{height}" '
                     f'fill="{CHART_FILL.get(key, "#8c959f")}"><title>{n} {escape(key)}'
                     "</title></rect>")
        x += w
    parts.append("</svg>")
    return "".join(parts)
