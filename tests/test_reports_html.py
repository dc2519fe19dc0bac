"""report.html: self-contained, well-formed, a labelled matrix, failing cases one click away."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser

import pytest
from reports_sample_runs import (
    SECRETS,
    case,
    failing_records,
    footer,
    header,
    hostile_records,
    passing_records,
    truncated_records,
)

from agent_tck.harness.reports import html
from agent_tck.harness.reports.rule_texts import RuleText
from agent_tck.harness.reports.stream import parse_lines
from agent_tck.harness.run.results import CheckResult

VOID = {"meta", "br", "img", "input", "link", "hr", "col", "wbr", "source"}


class Page(HTMLParser):
    """Checks nesting as it parses; collects elements, attributes and text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        if tag not in VOID:
            self.stack.append(tag)
        if tag in ("script", "style"):
            self._in = tag
            (self.scripts if tag == "script" else self.styles).append("")

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-3:]}"
        self.stack.pop()
        self._in = None

    def handle_data(self, data):
        if self._in == "script":
            self.scripts[-1] += data
        elif self._in == "style":
            self.styles[-1] += data
        else:
            self.text.append(data)

    def ids(self) -> set[str]:
        return {a["id"] for _, a in self.elements if a.get("id")}

    def find(self, tag: str, **attrs: str) -> list[dict[str, str | None]]:
        return [a for t, a in self.elements
                if t == tag and all(a.get(k) == v for k, v in attrs.items())]


def render(records) -> tuple[str, Page]:
    text = html.render(parse_lines(json.dumps(r) for r in records))
    text.encode("utf-8")
    page = Page()
    page.feed(text)
    page.close()
    assert page.stack == [], f"unclosed: {page.stack}"
    return text, page


@pytest.mark.parametrize("records", [passing_records(), failing_records(), hostile_records(),
                                     truncated_records()],
                         ids=["passing", "failing", "hostile", "truncated"])
def test_well_formed_self_contained_and_locked_down(records):
    text, page = render(records)
    assert text.startswith("<!DOCTYPE html>")
    # no external asset of any kind
    assert not page.find("link") and not page.find("img") and not page.find("iframe")
    for _, attrs in page.elements:
        assert not attrs.get("src")
        assert not (attrs.get("href") or "#").startswith(("http", "//", "javascript", "data"))
    # exactly our one script and one style, each allowed by hash in the CSP
    assert len(page.scripts) == 1 and len(page.styles) == 1
    csp = page.find("meta", **{"http-equiv": "Content-Security-Policy"})[0]["content"]
    for body in (page.scripts[0], page.styles[0]):
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in csp
    assert "default-src 'none'" in csp


def test_the_matrix_groups_rules_by_family_with_level_title_and_labelled_status():
    text, _page = render(failing_records())
    assert text.index("block-omission <span") < text.index("in-history-update <span")
    row = re.search(r'<tr id="rule-BO-001">(.*?)</tr>', text).group(1)
    assert '<td class="lvl">MUST</td>' in row
    assert "Omit reasoning blocks from user input" in row
    # status in colour and in words: never colour alone
    assert '<span class="st st-fail">✗ fail</span>' in row
    for status, words in [("BO-003", "⚠ errored"), ("BO-D001", "– n/a"),
                          ("IH-001", "✗ expected fail")]:
        row = re.search(rf'<tr id="rule-{status}"(?: class="ok")?>(.*?)</tr>', text).group(1)
        assert words in row
    assert '<span class="dec" title="a suite decision, ours">decision</span>' in text


def test_each_failing_chip_links_to_details_with_input_expected_and_actual():
    text, page = render(failing_records())
    links = [a["href"] for a in page.find("a") if (a.get("href") or "").startswith("#case-")]
    assert links and {href[1:] for href in links} <= page.ids()
    details = {a["id"]: a for a in page.find("details", **{"class": "case"})}
    assert len(details) == 4  # fail, errored, expected-fail, stale; not pass or n/a
    block = re.search(r'<details class="case" id="case-0">(.*?)</details>', text, re.S).group(1)
    assert "bo-reasoning-2" in block
    for heading in ("Input", "Expected", "Actual"):
        assert f"<h4>{heading}</h4><pre>" in block
    assert "&quot;messages&quot;: []" in block  # the actual output, pretty-printed
    errored = re.search(r'<details class="case" id="case-1">(.*?)</details>', text, re.S).group(1)
    assert "<h4>Transcript</h4>" in errored and "&lt;&lt; exit 7" in errored
    assert "Transcript" not in block
    assert "known bug" in text  # the baseline entry behind an expected failure


def test_verdicts_are_shown_with_the_failing_must_rules_named():
    text, _ = render(failing_records())
    assert '<span class="verdict v-no">✗ not conformant</span>' in text
    assert "MUST not passing: BO-001, BO-002" in text
    text, _ = render(passing_records())
    assert '<span class="verdict v-ok">✓ conformant, recommended</span>' in text


def test_a_truncated_run_is_shown_as_such_without_a_verdict():
    text, _page = render(truncated_records())
    assert '<div class="banner" role="alert"><strong>Truncated run.</strong>' in text
    assert "✓ conformant" not in text and "✗ not conformant" not in text
    assert "incomplete: truncated run" in text
    assert "— (no footer)" in text


def test_hostile_content_is_escaped_and_secrets_are_gone():
    text, page = render(hostile_records())
    for secret in SECRETS:
        assert secret not in text and secret.split()[-1] not in text
    assert "plain-key-value-04" not in text
    assert "sk-ant-[REDACTED]" in text and "authorization: [REDACTED]" in text
    assert not page.find("img")  # the planted <img onerror> stayed text
    assert len(page.scripts) == 1
    for _, attrs in page.elements:
        assert not any(name.startswith("on") for name in attrs)
    body = "".join(page.text)
    assert "<script>alert('x')</script>" in body  # shown literally, as text
    for raw in ("\x00", "\x1b", "\x07", "\u202e", "\ud800"):
        assert raw not in text
    assert "\\x1b[31mred" in body and "\\u202e" in body
    assert "中文" in body and "\U0001f600" in body


def test_big_inputs_and_many_cases_are_capped():
    records = failing_records()
    huge = {"text": "y" * 200_000}
    records[2] = {**records[2], "input": huge}
    text, _ = render(records)
    assert "more characters in results.jsonl" in text
    assert len(text) < 120_000


# --- issue 23: a report a person reads at a glance -------------------------------------------


def _case_block(text: str, index: int) -> str:
    return re.search(rf'<details class="case" id="case-{index}">(.*?)</details>\s*(?=<details '
                     rf'class="case"|<script|<p class="muted">…)', text, re.S).group(1)


def test_the_difference_is_listed_by_path_and_highlighted_in_both_columns():
    cases = [case(1, "bo-sig", ["BO-001"], "fail", message="output differs",
                  expected={"output": {"messages": [{"role": "assistant", "content": [
                      {"type": "thinking", "thinking": "t", "signature": "s1"}]}]}},
                  actual={"output": {"messages": [{"role": "assistant", "content": [
                      {"type": "thinking", "thinking": "t"}]}], "extra": True}})]
    text, _ = render([header(), *cases, footer(cases)])
    block = _case_block(text, 0)
    assert "Differences (2 paths)" in block
    assert '<tr class="d-missing"><td>/output/messages/0/content/0/signature</td>' in block
    assert '<tr class="d-extra"><td>/output/extra</td>' in block
    expected = block.split("<h4>Expected</h4>")[1].split("<h4>Actual</h4>")[0]
    actual = block.split("<h4>Actual</h4>")[1]
    assert re.search(r'<span class="hl hl-missing"> +&quot;signature&quot;: &quot;s1&quot;</span>',
                     expected)
    assert '<span class="hl hl-extra">    &quot;extra&quot;: true</span>' in actual
    assert expected.count('class="hl ') == 1 and actual.count('class="hl ') == 1


def test_a_rejection_is_diffed_on_its_code_only_and_an_errored_case_not_at_all():
    cases = [case(1, "bo-code", ["BO-001"], "fail", expected={"error": {"code": "A"}},
                  actual={"error": {"code": "B", "message": "m"}}),
             case(2, "bo-err", ["BO-001"], "errored")]
    text, _ = render([header(), *cases, footer(cases)])
    assert "Differences (1 path)" in _case_block(text, 0)
    assert '<tr class="d-changed"><td>/error/code</td>' in text
    assert "Differences" not in _case_block(text, 1)


def test_every_rule_id_links_to_its_row_which_opens_to_the_rules_words():
    texts = {"BO-001": RuleText("A reasoning block in user input is left out.",
                                "000_abc.txt", "The serializer omits reasoning blocks.")}
    text = html.render(parse_lines(json.dumps(r) for r in failing_records()), texts=texts)
    page = Page()
    page.feed(text)
    rule_links = {a["href"][1:] for a in page.find("a")
                  if (a.get("href") or "").startswith("#rule-")}
    assert {"rule-BO-001", "rule-BO-002"} <= rule_links <= page.ids()
    row = re.search(r'<tr id="rule-BO-001">(.*?)</tr>', text, re.S).group(1)
    assert "<details><summary>Omit reasoning blocks from user input</summary>" in row
    assert "A reasoning block in user input is left out." in row and ">MUST</strong>" in row
    assert "“The serializer omits reasoning blocks.”" in row and "note 000" in row
    assert "Cases citing it (2)" in row and 'href="#case-0"' in row
    other = re.search(r'<tr id="rule-BO-002">(.*?)</tr>', text, re.S).group(1)
    assert "has no text for this rule" in other


def test_a_builtin_case_names_its_vector_file():
    from agent_tck.harness.reports.rule_texts import case_file, case_files

    some_id, where = next(iter(case_files().items()))
    assert where.startswith("vectors/") and where.endswith(".json")
    assert case_file(f"2:{some_id}") == where  # a merged run's prefix
    assert case_file("no-such-case") is None
    cases = [case(1, some_id, ["BO-001"], "fail")]
    text, _ = render([header(), *cases, footer(cases)])
    assert f"in <code>{where}</code>" in _case_block(text, 0)


def test_contents_failures_only_toggle_and_a_chart_per_family():
    text, page = render(failing_records())
    assert page.find("input", id="only-failures", type="checkbox")
    assert "body:has(#only-failures:checked) .ok{display:none}" in page.styles[0]
    nav = re.search(r'<nav class="toolbar toc".*?</nav>', text, re.S).group(0)
    for target in ("#verdicts", "#fam-block-omission", "#fam-in-history-update", "#failing"):
        assert f'href="{target}"' in nav
    assert {"fam-block-omission", "fam-in-history-update", "failing", "verdicts"} <= page.ids()
    charts = [a for t, a in page.elements if t == "svg"]
    labels = [a["aria-label"] for a in charts]
    assert "block-omission rules: 0 pass, 2 fail, 1 errored, 0 untested" in labels
    # passing and n/a rows hide under the toggle; failing ones stay
    assert '<tr id="rule-BO-D001" class="ok">' in text and '<tr id="rule-BO-001">' in text


def test_per_check_outcomes_are_shown_with_their_rules():
    run = parse_lines(json.dumps(r) for r in failing_records())
    failing = next(c for c in run.cases if c.status == "fail")
    object.__setattr__(failing, "checks", (
        CheckResult("outcome", "BO-001", "pass"),
        CheckResult("output:/messages/0", "BO-002", "fail", "kept a thinking block")))
    text = html.render(run)
    block = _case_block(text, 0)
    assert "1 of 2 checks did not pass: output:/messages/0 (BO-002)" in block
    row = re.search(r"<tr class=\"\"><td><code>output:/messages/0</code></td>(.*?)</tr>",
                    block).group(1)
    assert '<a href="#rule-BO-002"><code>BO-002</code></a>' in row and "✗ fail" in row


def test_a_run_of_an_implementation_declaring_wire_check_is_no_audit():
    # the reference declares wire.check (the wire-audit family's operation): its run report
    # is a conformance report, with no "What the audit saw" and no Conversations section
    ops = ["anthropic.serialize", "wire.check", "wire.conversation"]
    records = [header(implementation={"name": "demo-impl", "version": "1", "operations": ops}),
               *passing_records()[1:]]
    text, _ = render(records)
    assert 'id="seen"' not in text and 'id="conversations"' not in text
    audit = [header(implementation={"name": "capture", "version": "", "operations": ops},
                    target={"kind": "capture", "command": "traffic.jsonl"}),
             *passing_records()[1:]]
    assert 'id="seen"' in render(audit)[0]
