"""The HTML reports in a real browser (headless Chromium), when one is installed.

The page's script must run under its own Content-Security-Policy (a link to a case opens the
case: the script is allowed by its hash), the failures-only toggle and the rule links must be
in the live DOM, and a screenshot must come out. Skipped cleanly without Chromium. Nothing
here waits on time: each browser run is bounded, never expected to take a given time.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from reports_sample_runs import failing_records

from agent_tck.harness.reports import html, matrix_html
from agent_tck.harness.reports.stream import parse_lines

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import screenshots  # tools/screenshots.py: the one home of the browser flags

BROWSER = screenshots.find_chromium()
pytestmark = pytest.mark.skipif(BROWSER is None, reason="chromium is not installed")


def _page(tmp_path: Path) -> Path:
    page = tmp_path / "report.html"
    page.write_text(html.render(parse_lines(json.dumps(r) for r in failing_records())),
                    encoding="utf-8")
    return page


def _dom(url: str) -> str:
    assert BROWSER is not None
    proc = screenshots.chromium(BROWSER, "--dump-dom", url)
    assert proc.returncode == 0 and "<html" in proc.stdout, proc.stderr[-2000:]
    return proc.stdout


def test_the_report_script_runs_under_its_csp_and_opens_a_linked_case(tmp_path: Path) -> None:
    page = _page(tmp_path)
    closed = _dom(page.as_uri())
    assert '<details class="case" id="case-0">' in closed
    opened = _dom(page.as_uri() + "#case-0")
    assert '<details class="case" id="case-0" open="">' in opened  # the script ran
    # a rule link opens the rule row's details
    assert '<tr id="rule-BO-001"><td><code>BO-001</code></td><td class="lvl">MUST</td><td>' \
           '<details open="">' in _dom(page.as_uri() + "#rule-BO-001")
    assert 'id="only-failures"' in opened and 'href="#rule-BO-001"' in opened


def test_a_screenshot_of_each_report_comes_out(tmp_path: Path) -> None:
    assert BROWSER is not None
    doc = {"format": "agent-tck-matrix/1", "generated": "now", "tck_version": "0",
           "rules": [{"id": "BO-001", "level": "MUST", "title": "t", "family": "block-omission"}],
           "scenarios": [], "runs": [], "agents": [], "counts": {},
           "columns": [{"id": "c/anthropic", "client": "c", "package": "pkg", "also": [],
                        "language": "python", "version": "1", "api": "anthropic",
                        "api_name": "Messages",
                        "cells": [{"rule": "BO-001", "status": "pass", "notes": ["ok"]}]}]}
    matrix = tmp_path / "matrix.html"
    matrix.write_text(matrix_html.render(doc), encoding="utf-8")
    for page in (_page(tmp_path), matrix):
        png = screenshots.screenshot(BROWSER, page, tmp_path / f"{page.stem}.png", "800,600")
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
