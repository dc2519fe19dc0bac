"""summary.md: headline verdict, per-family table, capped listings, inert untrusted text."""

from __future__ import annotations

import json
import re

from reports_sample_runs import (
    HOSTILE,
    SECRETS,
    case,
    failing_records,
    footer,
    header,
    hostile_records,
    passing_records,
    truncated_records,
)

from agent_tck.harness.reports import markdown
from agent_tck.harness.reports.stream import parse_lines


def render(records) -> str:
    return markdown.render(parse_lines(json.dumps(r) for r in records))


def table_rows(text: str) -> dict[str, list[str]]:
    rows = {}
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith("| family"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            rows[cells[0]] = cells[1:]
    return rows


def test_headline_and_family_table_of_a_passing_run():
    text = render(passing_records())
    assert text.startswith("## ✅ agent-tck: demo-impl 1.2.3: conformant, recommended\n")
    assert table_rows(text) == {
        "block-omission": ["✅ conformant, recommended", "3", "0", "0", "1", "0"],
        "in-history-update": ["✅ conformant, recommended", "1", "0", "0", "0", "0"],
    }
    assert "Every rule of the run passes or does not apply." in text


def test_failing_rules_with_their_failing_cases_and_the_baseline_sections():
    text = render(failing_records())
    assert text.startswith("## ❌ agent-tck: demo-impl 1.2.3: not conformant\n")
    assert table_rows(text)["block-omission"] == ["❌ not conformant", "0", "2", "1", "1", "0",
                                                  "0"]
    assert "- **BO-001** MUST fail: Omit reasoning blocks from user input (1 case)" in text
    assert ("  - bo-reasoning-2 \\[anthropic.serialize\\] fail: kept a thinking block in user "
            "content") in text
    assert "- **BO-003** SHOULD errored" in text
    assert "### Known failures, listed in the baseline (1)" in text
    assert "- **IH-001** MUST: Reject an update whose user input is all omitted: known bug" in text
    assert "### Stale baseline entries (1)" in text
    assert "Every rule" not in text


def test_untested_must_rules_are_listed():
    cases = [case(1, "bo-1", ["BO-001"], "pass")]
    text = render([header(), *cases, footer(cases)])
    untested = text.split("### Untested MUST rules (2)", 1)[1]
    assert "- **BO-002** Omit tool-call blocks" in untested
    assert "- **IH-001**" in untested


def test_filters_and_strict_are_stated_beside_the_verdict():
    records = passing_records()
    records[0] = header(filters={"family": ["block-omission"], "rule": [], "k": "reasoning"},
                        strict=True)
    text = render(records)
    assert ("**partial** --family block-omission -k reasoning (the verdict covers these only)"
            in text)
    assert "**strict** (SHOULD rules gate)" in text


def test_a_truncated_run_says_so_and_gives_no_verdict():
    text = render(truncated_records())
    assert text.startswith("## ⚠️ agent-tck: demo-impl 1.2.3: run truncated, no verdict")
    assert "> **Truncated run**" in text and "Only 2 case results" in text
    assert "conformant" not in text.split("\n", 1)[0]
    assert all(cells[0] == "⚠️ incomplete" for cells in table_rows(text).values())


def test_a_big_run_stays_small_and_says_how_much_more_there_is():
    rules = [{"id": f"BO-{i:03d}", "family": "block-omission", "level": "MUST",
              "title": f"rule {i} " + "long title " * 8, "decision": False} for i in range(1, 301)]
    cases = [case(n, f"case-{n}", [f"BO-{1 + n % 300:03d}"], "fail", message="x" * 500)
             for n in range(3000)]
    text = render([header(rules=rules, families=["block-omission"]), *cases,
                   footer(cases, rules)])
    assert len(text.encode()) < 16_000
    assert "### Failing or errored rules (300)" in text
    assert "- … and 280 more rules (see report.html)" in text
    assert text.count("  - … and 7 more") == 20  # 10 cases per rule, 3 shown


def test_hostile_strings_are_inert_and_secrets_gone():
    text = render(hostile_records())
    for secret in SECRETS:
        assert secret not in text and secret.split()[-1] not in text
    assert "plain-key-value-04" not in text
    assert "<" not in text and "\x1b" not in text and "\x00" not in text and "\u202e" not in text
    assert "&lt;script&gt;" in text
    # every line that untrusted text reaches is a list item, never a table row or heading
    for line in text.splitlines():
        if "alert" in line:
            assert line.startswith(("- ", "  - "))


def test_md_escapes_markup_and_breaks_autolinks():
    out = markdown.md(HOSTILE, limit=1000)
    assert "<" not in out and ">" not in out.replace("&gt;", "")
    assert "http://" not in out and "http\\://evil.test" in out
    assert "\\*bold\\*" in out and "\\[link\\]" in out and "\\`tick\\`" in out
    assert " \\| pipe \\| " in out
    assert "\n" not in out and "\u2028" not in out
    assert markdown.md("a   b\n\nc") == "a b c"
