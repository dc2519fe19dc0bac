"""matrix.html in the look of every report: legend, amber warn cells apart from red FAIL
cells, cells that open on click, a failures-only toggle, rule rows with the rule's words."""

from __future__ import annotations

import re
from typing import Any

from test_reports_html import Page

from agent_tck.harness.reports import matrix_html
from agent_tck.harness.reports.page import CSS
from agent_tck.harness.reports.rule_texts import RuleText


def _finding(rule: str, severity: str) -> dict[str, Any]:
    return {"rule": rule, "severity": severity, "exchange": 2, "pointer": "/messages/1",
            "message": f"{rule} broken <b>", "excerpt": '{"type": "<thinking>"}',
            "scenario": "s1", "report": "cells/a.s1/audit", "log": "cells/a.s1/log.txt"}


def _doc() -> dict[str, Any]:
    cells = [
        {"rule": "BO-001", "status": "fail", "severity": "error", "notes": ["s1: pass"],
         "findings": [_finding("BO-001", "error")]},
        {"rule": "BO-D006", "status": "fail", "severity": "warning", "notes": [],
         "findings": [_finding("BO-D006", "warning")]},
        {"rule": "IHU-001", "status": "pass", "notes": ["s1: pass"]},
        {"rule": "IHU-002", "status": "not-exercised", "notes": ["s1: not exercised: x"]},
    ]
    rules = [{"id": "BO-001", "level": "MUST", "title": "Omit reasoning",
              "family": "block-omission"},
             {"id": "BO-D006", "level": "SHOULD", "title": "Images", "family": "block-omission"},
             {"id": "IHU-001", "level": "MUST", "title": "Reject", "family": "in-history-update"},
             {"id": "IHU-002", "level": "MUST", "title": "At end", "family": "in-history-update"}]
    return {"format": "agent-tck-matrix/1", "generated": "today", "tck_version": "0",
            "rules": rules, "scenarios": [],
            "columns": [{"id": "a/anthropic", "client": "a", "package": "pkg-a", "also": [],
                         "language": "python", "version": "1.0", "api": "anthropic",
                         "api_name": "Messages", "cells": cells}],
            "runs": [{"cell": "a.s2", "column": "a/anthropic", "scenario": "s2",
                      "status": "could-not-run", "reason": "no driver", "requests": 0,
                      "findings": 0, "log": "cells/a.s2/log.txt", "report": ""}],
            "agents": [], "counts": {}}


def test_the_matrix_page_is_locked_down_and_escaped() -> None:
    text = matrix_html.render(_doc(), texts={})
    page = Page()
    page.feed(text)
    page.close()
    assert page.stack == []
    assert len(page.scripts) == 1 and page.styles == [CSS]
    assert "default-src 'none'" in page.find("meta", **{"http-equiv": "Content-Security-Policy"}
                                             )[0]["content"]
    assert "<thinking>" not in text and "&lt;thinking&gt;" in text and "<b>" not in text


def test_warn_is_amber_fail_is_red_and_there_is_a_legend() -> None:
    text = matrix_html.render(_doc(), texts={})
    assert '<span class="st st-fail">✗ FAIL</span>' in text
    assert '<span class="st st-warn">▲ warn</span>' in text
    assert ".st-warn{background:#fff3cd" in CSS  # amber, not the red of .st-fail
    legend = re.search(r'<div class="legend".*?</div>', text, re.S).group(0)
    for words in ("a MUST rule broken", "a SHOULD rule broken", "not exercised",
                  "could not run"):
        assert words in legend


def test_cells_open_on_click_and_rules_open_to_their_words() -> None:
    texts = {"BO-001": RuleText("Reasoning in user input is left out.", "000_x.txt",
                                "omits reasoning")}
    text = matrix_html.render(_doc(), texts=texts)
    assert ' title="' not in text.split("<table")[1]  # no hover-only tooltips in the table
    row = re.search(r'<tr id="rule-BO-001">(.*?)</tr>', text, re.S).group(1)
    assert row.count("<details>") == 2  # the rule head and its one cell
    assert "Reasoning in user input is left out." in row and "note 000" in row
    assert '<a href="#a-anthropic-BO-001">1 finding below</a>' in row
    assert 'id="a-anthropic-BO-001"' in text
    assert '<tr id="rule-IHU-001" class="ok">' in text  # hidden by the failures-only toggle
    assert 'id="only-failures"' in text
    assert '<a href="cells/a.s2/log.txt">log</a>' in text
