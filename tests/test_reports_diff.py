"""The structural diff behind report.html's highlighted columns (harness/reports/diff.py)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agent_tck.harness.reports.diff import annotated_lines, differences, under

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner,
                                                                max_size=4),
    max_leaves=20)


@given(JSON)
def test_annotated_lines_are_exactly_json_dumps_indent_2(value: Any) -> None:
    lines, cut = annotated_lines(value)
    assert not cut
    assert "\n".join(line for _, line in lines) == json.dumps(value, indent=2,
                                                               ensure_ascii=False)


@given(JSON)
def test_a_value_never_differs_from_itself(value: Any) -> None:
    assert differences(value, value) == ("", [])


def test_an_inserted_item_is_one_extra_item_not_every_later_one_changed() -> None:
    _, diffs = differences({"m": [1, 2, 3, 4]}, {"m": [1, 9, 2, 3, 4]})
    assert [(d.kind, d.pointer) for d in diffs] == [("extra", "/m/1")]
    _, diffs = differences({"m": [{"a": 1}, {"b": 2}]}, {"m": [{"a": 1}, {"b": 3}]})
    assert [(d.kind, d.pointer, d.expected, d.actual) for d in diffs] == [
        ("changed", "/m/1/b", 2, 3)]


def test_types_differ_even_when_python_calls_them_equal() -> None:
    _, diffs = differences({"n": 1}, {"n": True})
    assert [d.kind for d in diffs] == ["changed"]
    _, diffs = differences({"a/b": {"~": 1}}, {"a/b": {}})
    assert diffs[0].pointer == "/a~1b/~0"


def test_alternatives_are_diffed_against_the_closest_one() -> None:
    expected = {"alternatives": [{"error": {"code": "A"}}, {"output": {"x": 1, "y": 2}}]}
    prefix, diffs = differences(expected, {"output": {"x": 1, "y": 3}})
    assert prefix == "/alternatives/1" and [d.pointer for d in diffs] == ["/output/y"]


def test_under_marks_a_pointer_and_its_descendants_only() -> None:
    marked = frozenset({"/a/1"})
    assert under("/a/1", marked) and under("/a/1/x", marked)
    assert not under("/a/10", marked) and not under("/a", marked)
    assert under("/anything", frozenset({""}))


def test_the_diff_and_the_lines_are_capped() -> None:
    _, diffs = differences(list(range(500)), [str(i) for i in range(500)], limit=10)
    assert len(diffs) == 10
    lines, cut = annotated_lines(list(range(5000)), limit=100)
    assert cut and len(lines) == 100


def test_very_long_lists_are_compared_item_by_item() -> None:
    _, diffs = differences(list(range(1000)), [*range(999), -1])
    assert [(d.kind, d.pointer) for d in diffs] == [("changed", "/999")]
