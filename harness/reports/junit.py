"""junit.xml: one ``testsuite`` per family, one ``testcase`` per case result.

Mapping: pass -> no child; fail -> ``failure``; errored -> ``error`` (with the transcript);
not-applicable -> ``skipped``; expected-fail -> ``skipped`` (as pytest reports xfail); stale ->
``failure`` (a baseline entry that passes now fails the run). A truncated run adds a suite
``agent-tck`` with one erroring testcase, so CI cannot mistake it for a finished one.
Everything is escaped by the XML writer after control characters are made visible (XML 1.0
cannot carry them even escaped) and secrets are redacted.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from agent_tck.harness.reports._text import label, one_line, pretty_json, visible
from agent_tck.harness.reports.stream import Run
from agent_tck.harness.run.results import CaseResult

_FAILING = {"fail", "stale"}
_SKIPPED = {"not-applicable", "expected-fail"}


def _seconds(case: CaseResult) -> str:
    return f"{(case.duration_ms or 0.0) / 1000:.6f}"


def _describe(case: CaseResult) -> str:
    parts = [f"case: {visible(case.case)}", f"operation: {visible(case.operation)}",
             f"rules: {visible(', '.join(case.rules))}"]
    if case.description:
        parts.append(f"description: {visible(case.description)}")
    if case.message:
        parts.append(f"message: {visible(case.message)}")
    parts.append("expected:\n" + pretty_json(case.expected, limit=16384))
    parts.append("actual:\n" + pretty_json(case.actual, limit=16384))
    return "\n".join(parts)


def _message(case: CaseResult) -> str:
    if case.status == "stale":
        return one_line("stale baseline entry: the case passes now; remove it from the "
                        "baseline" + (f" ({_baseline(case)})" if case.baseline else ""))
    if case.status == "expected-fail":
        return one_line(f"expected failure (baseline): {_baseline(case) or case.message}")
    if case.status == "not-applicable":
        return one_line(case.message or f"not applicable: {case.operation} is not declared")
    return one_line(case.message or case.status)


def _baseline(case: CaseResult) -> str:
    return case.baseline_text


def _testcase(parent: ET.Element, case: CaseResult) -> None:
    node = ET.SubElement(parent, "testcase", {
        "classname": visible(case.family),
        "name": visible(f"{case.case} [{case.operation}]"),
        "time": _seconds(case),
    })
    if case.status in _FAILING:
        child = ET.SubElement(node, "failure", {"type": case.status, "message": _message(case)})
        child.text = _describe(case)
    elif case.status == "errored":
        child = ET.SubElement(node, "error", {"type": "errored", "message": _message(case)})
        transcript = "\n".join(visible(line) for line in case.transcript)
        child.text = _describe(case) + ("\ntranscript:\n" + transcript if transcript else "")
    elif case.status in _SKIPPED:
        ET.SubElement(node, "skipped", {"type": case.status, "message": _message(case)})


def _tally(cases: list[CaseResult]) -> dict[str, str]:
    return {
        "tests": str(len(cases)),
        "failures": str(sum(c.status in _FAILING for c in cases)),
        "errors": str(sum(c.status == "errored" for c in cases)),
        "skipped": str(sum(c.status in _SKIPPED for c in cases)),
        "time": f"{sum((c.duration_ms or 0.0) for c in cases) / 1000:.6f}",
    }


def render(run: Run) -> str:
    """The run as JUnit XML (a string, UTF-8 declaration included)."""
    header = run.header
    impl = header.implementation
    root = ET.Element("testsuites", {"name": "agent-tck"})
    all_cases: list[CaseResult] = []
    verdicts = run.verdicts or {}
    for family in run.families:
        cases = [c for c in run.cases if c.family == family]
        if not cases:
            continue
        all_cases.extend(cases)
        suite = ET.SubElement(root, "testsuite", {"name": visible(family), **_tally(cases)})
        props = ET.SubElement(suite, "properties")
        verdict = verdicts.get(family)
        for name, value in (
            ("implementation", run.implementation_label),
            ("language", impl.get("language")),
            ("target", header.target.get("command") or header.target.get("kind")),
            ("tck_version", header.tck_version),
            ("verdict", verdict.text if verdict else "incomplete (truncated run)"),
        ):
            if value:
                ET.SubElement(props, "property", {"name": name, "value": one_line(label(value))})
        for case in cases:
            _testcase(suite, case)
    if run.truncated:
        suite = ET.SubElement(root, "testsuite", {"name": "agent-tck", "tests": "1",
                                                  "failures": "0", "errors": "1",
                                                  "skipped": "0", "time": "0"})
        node = ET.SubElement(suite, "testcase", {"classname": "agent-tck",
                                                 "name": "run completed", "time": "0"})
        error = ET.SubElement(node, "error", {
            "type": "truncated",
            "message": f"truncated run: the results stream has no footer; "
                       f"{len(run.cases)} case results were recorded before it stopped",
        })
        error.text = "\n".join(visible(n) for n in run.notes) or None
    totals = _tally(all_cases)
    if run.truncated:
        totals["tests"] = str(int(totals["tests"]) + 1)
        totals["errors"] = str(int(totals["errors"]) + 1)
    root.attrib.update(totals)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
