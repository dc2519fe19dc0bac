"""junit.xml: valid XML, one suite per family, one testcase per case, everything escaped."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

from reports_sample_runs import (
    HOSTILE,
    SECRETS,
    failing_records,
    hostile_records,
    passing_records,
    truncated_records,
)

from agent_tck.harness.reports import junit
from agent_tck.harness.reports.stream import parse_lines

_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def render(records):
    text = junit.render(parse_lines(json.dumps(r) for r in records))
    text.encode("utf-8")  # encodable: no lone surrogate
    assert not _XML_ILLEGAL.search(text)
    return text, ET.fromstring(text.encode("utf-8"))


def test_one_suite_per_family_one_testcase_per_case_with_the_status_mapped():
    _, root = render(failing_records())
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {"block-omission", "in-history-update"}
    bo = suites["block-omission"]
    assert [(c.get("classname"), c.get("name")) for c in bo.iter("testcase")] == [
        ("block-omission", "bo-reasoning [anthropic.serialize]"),
        ("block-omission", "bo-reasoning-2 [anthropic.serialize]"),
        ("block-omission", "bo-empty-result [anthropic.serialize]"),
        ("block-omission", "bo-chat-other [openai.serialize]"),
    ]
    kinds = {c.get("name").split()[0]: [child.tag for child in c] for c in root.iter("testcase")}
    assert kinds == {"bo-reasoning": [], "bo-reasoning-2": ["failure"],
                     "bo-empty-result": ["error"], "bo-chat-other": ["skipped"],
                     "ih-omitted": ["skipped"], "ih-stale": ["failure"]}
    assert (bo.get("tests"), bo.get("failures"), bo.get("errors"), bo.get("skipped")) == (
        "4", "1", "1", "1")
    assert (root.get("tests"), root.get("failures"), root.get("errors"),
            root.get("skipped")) == ("6", "2", "1", "2")
    assert bo.find("testcase").get("time") == "0.001500"


def test_failure_and_error_elements_carry_message_expected_actual_and_transcript():
    _, root = render(failing_records())
    failure = root.find(".//testcase[@name='bo-reasoning-2 [anthropic.serialize]']/failure")
    assert failure.get("message") == "kept a thinking block in user content"
    assert "rules: BO-001, BO-002" in failure.text
    assert '"messages": []' in failure.text  # the actual output
    error = root.find(".//testcase[@name='bo-empty-result [anthropic.serialize]']/error")
    assert error.get("message") == "adapter crashed"
    assert "<< exit 7" in error.text
    stale = root.find(".//testcase[@name='ih-stale [anthropic.serialize]']/failure")
    assert stale.get("type") == "stale" and "passes now" in stale.get("message")
    xfail = root.find(".//testcase[@name='ih-omitted [anthropic.serialize]']/skipped")
    assert xfail.get("type") == "expected-fail" and "known bug" in xfail.get("message")


def test_suite_properties_name_the_implementation_and_verdict():
    _, root = render(failing_records())
    props = {p.get("name"): p.get("value")
             for p in root.find("testsuite").iter("property")}
    assert props["implementation"] == "demo-impl 1.2.3"
    assert props["verdict"] == "not conformant"


def test_a_passing_run_has_no_failure_elements():
    _, root = render(passing_records())
    assert not list(root.iter("failure")) and not list(root.iter("error"))
    assert root.get("failures") == "0" and root.get("errors") == "0"


def test_hostile_strings_stay_text_and_secrets_are_gone():
    text, root = render(hostile_records())
    for secret in SECRETS:
        assert secret not in text and secret.split()[-1] not in text
    assert "plain-key-value-04" not in text
    failure = root.find(".//failure")
    # the markup is text, shown literally; control characters are made visible
    assert "<script>alert('x')</script>" in failure.get("message")
    assert "\\x1b[31mred" in failure.text and "\\x00nul" in failure.text
    assert "\\u202e" in failure.text and "\\ud800" in failure.text
    assert "中文" in failure.text and "\U0001f600" in failure.text
    assert "\n" not in failure.get("message")
    error = root.find(".//error")
    assert "authorization: [REDACTED]" in error.text
    # a long message is cut to one short line in the attribute; the element text keeps it all
    long_message = hostile_records()[1]["message"] * 5
    records = hostile_records()
    records[1] = {**records[1], "message": long_message}
    _, root = render(records)
    failure = root.find(".//failure")
    assert len(failure.get("message")) <= 300 and failure.get("message").endswith("…")
    assert len(HOSTILE) * 5 <= len(failure.text)


def test_a_truncated_run_gets_an_erroring_testcase_so_ci_notices():
    _text, root = render(truncated_records())
    suite = root.find("testsuite[@name='agent-tck']")
    error = suite.find("testcase/error")
    assert error.get("type") == "truncated"
    assert "no footer" in error.get("message") and "2 case results" in error.get("message")
    assert root.get("errors") == "1" and root.get("tests") == "3"
    props = {p.get("name"): p.get("value") for p in root.find("testsuite").iter("property")}
    assert props["verdict"] == "incomplete (truncated run)"
