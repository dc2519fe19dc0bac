"""Baselines are linear and compact (issue 26 item 10: 200,000 entries took 74 s and 757 MB).

Linearity is shown by counting operations (entry matches), never by a clock; the speed figure
is benchmarks/bench_baseline.py's. The line reader of the written shape must read every file
exactly as YAML does, or leave it to YAML.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_tck.harness.common.safe_yaml import load
from agent_tck.harness.run import baseline as bl
from agent_tck.harness.run.results import CaseResult


def result(case: str, status: str = "fail", rules: tuple[str, ...] = ("BO-001",),
           operation: str = "anthropic.serialize") -> CaseResult:
    return CaseResult(seq=1, case=case, family="block-omission", operation=operation,
                      rules=rules, status=status, description="", input=None, expected=None,
                      actual=None, message="output differs")


def count_matches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]
    original = bl.Entry.matches

    def counted(self: bl.Entry, res: CaseResult) -> bool:
        calls[0] += 1
        return original(self, res)

    monkeypatch.setattr(bl.Entry, "matches", counted)
    return calls


def _apply(n: int) -> None:
    entries = bl.Entries([bl.Entry(reason="r", case=f"case-{i}", index=i) for i in range(n)]
                         + [bl.Entry(reason="r", rule="IHU-002", index=n)])
    results = [result(f"case-{i}", "fail" if i % 3 else "pass") for i in range(n)]
    judged = [bl.judge_against(r, entries) for r in results]
    assert {r.status for r in judged} == {"expected-fail", "stale"}
    assert len(bl.stale_entries(judged, entries)) == len(range(0, n, 3))


@pytest.mark.parametrize("n", [1_000, 10_000])
def test_matching_costs_a_few_lookups_per_result(n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = count_matches(monkeypatch)
    _apply(n)
    # judge_against and stale_entries each try the one entry of the result's case: 2 per
    # result, whatever the number of entries (a scan was n per result: n * n)
    assert calls[0] == 2 * n


def test_rule_entries_are_found_by_the_result_s_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    entries = bl.Entries([bl.Entry(reason="a", rule="BO-002", index=0),
                          bl.Entry(reason="b", case="c1", operation="openai.serialize", index=1),
                          bl.Entry(reason="c", rule="BO-001", index=2),
                          *(bl.Entry(reason="x", case=f"other-{i}", index=3 + i)
                            for i in range(500))])
    calls = count_matches(monkeypatch)
    judged = bl.judge_against(result("c1", rules=("BO-001", "BO-002", "BO-001")), entries)
    assert judged.status == "expected-fail" and "baseline: a" in judged.message  # file order
    assert calls[0] == 3  # c1's entry and the two rule entries, not 503
    # a plain list (no index) still works, as before
    assert bl.judge_against(result("c1"), list(entries)).message.endswith("[baseline: c]")


def test_load_baseline_returns_the_index(tmp_path: Path) -> None:
    path = tmp_path / "b.yaml"
    path.write_text(bl.write_baseline(
        {"type": "case", "case": f"case-{i}", "operation": "anthropic.serialize",
         "status": "fail", "message": "m"} for i in range(50)), encoding="utf-8")
    entries = bl.load_baseline(path, [f"case-{i}" for i in range(50)], ["BO-001"])
    assert isinstance(entries, bl.Entries) and len(entries) == 50
    assert entries.hits(result("case-7")) == [entries[7]]


def test_a_written_entry_is_compact_and_read_by_lines() -> None:
    message = "output differs at /messages/0:\n" + "expected something, got else\n" * 300
    text = bl.write_baseline([{"type": "case", "case": "bo-a", "operation": "openai.serialize",
                               "status": "fail", "message": message},
                              {"type": "case", "case": "bo-b", "operation": "openai.serialize",
                               "status": "errored", "message": "é \x1b \ud800 " * 80}])
    assert max(map(len, text.splitlines())) < 200 and len(text) < 800  # was 9 KB
    doc = load(text)
    assert doc["expected_failures"][0]["reason"] == "output differs at /messages/0:…"
    assert bl._read_simple(text) in (doc, None)
    first_only = bl.write_baseline([{"type": "case", "case": "bo-a", "operation": "x.y",
                                     "status": "fail", "message": "short"}])
    assert bl._read_simple(first_only) == load(first_only) == {"expected_failures": [
        {"case": "bo-a", "operation": "x.y", "reason": "short"}]}
    empty = bl.write_baseline([])
    assert bl._read_simple(empty) == load(empty) == {"expected_failures": []}


# --- the line reader reads what YAML reads, or nothing -------------------------------------

_ID = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,6}([-.][A-Za-z0-9_]{1,6}){1,3}", fullmatch=True)
_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)
_KEYS = st.sampled_from(["case", "rule", "operation", "reason", "issue"])


@st.composite
def written_shape(draw: Any) -> str:
    lines = [draw(st.sampled_from(["", "# a baseline", "  # indented comment"]))]
    lines.append("expected_failures:" + draw(st.sampled_from(["", "  # c", " "])))
    for _ in range(draw(st.integers(0, 4))):
        keys = draw(st.lists(_KEYS, min_size=1, max_size=5, unique=True))
        for i, key in enumerate(keys):
            value = draw(st.one_of(_ID, _TEXT.map(
                lambda t: json.dumps(t, ensure_ascii=draw(st.booleans()))).filter(
                    lambda v: not bl._UNUSUAL.search(v) and re.fullmatch(bl._QUOTED, v))))
            tail = draw(st.sampled_from(["", "  # say why", " #", "   "]))
            lines.append(f"{'  - ' if i == 0 else '    '}{key}: {value}{tail}")
            if draw(st.booleans()):
                lines.append(draw(st.sampled_from(["", "    # between", "  "])))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


@given(written_shape())
def test_the_written_shape_is_read_as_yaml_reads_it(text: str) -> None:
    simple = bl._read_simple(text)
    assert simple is not None and simple == load(text)


_ODD_LINES = ["expected_failures:", "expected_failures: []", "  - case: bo-x",
              "    reason: \"a\"", "  - rule: yes", "    case: on", "  - case: 2001-12-14",
              "    issue: https://example.org/1", "- case: bo-x", "   case: bo-y",
              "    reason: 'single'", "    reason: \"\\ud83d\\ude00\"", "    reason: \"\\x41\"",
              "      continued", "---", "other: 1", "    case: bo-x#c", "  - {case: bo-z}",
              "    case: bo-x  # c", "\texpected_failures:", "    reason: \"a\" b",
              "expected_failures:\r", "  - case: .inf-x", "    case: bo-x", "# c",
              "    reason: \"a\"\t# tab", "    reason: \"line\u2028sep\"", "\t",
              "    reason: \"\u0085\"", "    reason: \"nbsp\u00a0\"", "\ufeffexpected_failures:"]


@given(st.lists(st.sampled_from(_ODD_LINES), max_size=8))
def test_any_other_shape_is_left_to_yaml(lines: list[str]) -> None:
    text = "\n".join(lines)
    simple = bl._read_simple(text)
    if simple is not None:
        assert simple == load(text)
