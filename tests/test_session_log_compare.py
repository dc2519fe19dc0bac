"""The ``canonical-history`` comparison of ``session.resume`` (chunk-free-persistence README,
"Comparison of session.resume"): each documented equivalence compares equal, and a real
difference in the history still fails."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tck.harness.run.compare import compare, mode_for, normalize_canonical_history

ROOT = Path(__file__).resolve().parent.parent
MODE = "canonical-history"


def _expected() -> dict[str, Any]:
    return {
        "tools": [{"name": "read_file", "description": "Read a file.",
                   "inputSchema": {"type": "object"}}],
        "history": [
            {"role": "system", "content": [{"type": "text", "text": "Be careful."}]},
            {"role": "user", "content": [{"type": "text", "text": "Read README.md"}]},
            {"role": "assistant", "content": [
                {"type": "reasoning", "text": "Read it."},
                {"type": "tool-call", "id": "call-1", "name": "read_file",
                 "arguments": "{\"path\":\"README.md\"}"}]},
            {"role": "tool", "toolCallId": "call-1",
             "content": [{"type": "text", "text": "# agent-tck"}]},
            {"role": "tool", "toolCallId": "call-2", "isError": True,
             "content": [{"type": "text", "text": "denied"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
        ],
    }


def _same(actual: Any, expected: Any = None) -> bool:
    return compare(_expected() if expected is None else expected, actual, MODE) is None


def test_session_resume_defaults_to_the_canonical_history_mode() -> None:
    assert mode_for("session.resume", None) == MODE
    assert mode_for("session.resume", "json") == "json"
    # the wire operations keep their vectors' explicit wire modes; load folds only the order
    # among one message's tool results (canonical-transcript)
    assert mode_for("session.load", None) == "canonical-transcript"


def test_the_vector_schema_accepts_the_mode_name() -> None:
    schema = json.loads((ROOT / "vectors/schema/vector-file.schema.json").read_text("utf-8"))
    modes = schema["$defs"]["expectation"]["oneOf"][0]["properties"]["compare"]["enum"]
    assert MODE in modes


def test_an_identical_history_compares_equal() -> None:
    assert _same(_expected())


@pytest.mark.parametrize("member, value", [
    ("id", "m-1"), ("source", {"kind": "model", "provider": "deepseek"}),
    ("createdAt", "2026-01-01T00:00:00Z"),
])
def test_message_metadata_never_decides(member: str, value: Any) -> None:
    actual = _expected()
    for message in actual["history"]:
        message[member] = value
    assert _same(actual)
    # and on the expected side too (a vector may keep a recorded id)
    assert _same(_expected(), expected=actual)


def test_is_error_false_equals_absent_on_a_tool_message() -> None:
    actual = _expected()
    actual["history"][3]["isError"] = False
    assert _same(actual)


@pytest.mark.parametrize("tools", [[], None, "absent"])
def test_no_tools_absent_null_and_empty_are_equal(tools: Any) -> None:
    expected = {**_expected(), "tools": None}
    actual = _expected()
    if tools == "absent":
        del actual["tools"]
    else:
        actual["tools"] = tools
    assert _same(actual, expected)
    assert _same(expected, actual)


def _mutations() -> dict[str, Any]:
    def dropped_message(h: dict[str, Any]) -> None:
        del h["history"][5]

    def extra_message(h: dict[str, Any]) -> None:
        h["history"].insert(2, {"role": "assistant", "content": []})

    def changed_text(h: dict[str, Any]) -> None:
        h["history"][5]["content"][0]["text"] = "Done!"

    def swapped_messages(h: dict[str, Any]) -> None:
        # governed: an assistant message before the results of its calls
        h["history"][2], h["history"][3] = h["history"][3], h["history"][2]

    def changed_role(h: dict[str, Any]) -> None:
        h["history"][0]["role"] = "user"

    def dropped_reasoning(h: dict[str, Any]) -> None:
        del h["history"][2]["content"][0]

    def changed_arguments(h: dict[str, Any]) -> None:
        h["history"][2]["content"][1]["arguments"] = "{\"path\": \"README.md\"}"

    def changed_call_id(h: dict[str, Any]) -> None:
        h["history"][3]["toolCallId"] = "call-9"

    def error_flag_lost(h: dict[str, Any]) -> None:
        del h["history"][4]["isError"]

    def error_flag_false(h: dict[str, Any]) -> None:
        h["history"][4]["isError"] = False

    def success_marked_error(h: dict[str, Any]) -> None:
        h["history"][3]["isError"] = True

    def tools_dropped(h: dict[str, Any]) -> None:
        h["tools"] = None

    def tool_schema_changed(h: dict[str, Any]) -> None:
        h["tools"][0]["inputSchema"] = {}

    def unknown_member(h: dict[str, Any]) -> None:
        h["history"][1]["name"] = "alice"

    return {f.__name__: f for f in (
        dropped_message, extra_message, changed_text, swapped_messages, changed_role,
        dropped_reasoning, changed_arguments, changed_call_id, error_flag_lost,
        error_flag_false, success_marked_error, tools_dropped, tool_schema_changed,
        unknown_member)}


def test_the_results_of_one_message_compare_in_any_order() -> None:
    # no rule orders one assistant message's tool results among themselves
    actual = _expected()
    actual["history"][3], actual["history"][4] = actual["history"][4], actual["history"][3]
    assert _same(actual)


@pytest.mark.parametrize("name", sorted(_mutations()))
def test_a_real_difference_still_fails(name: str) -> None:
    actual = _expected()
    _mutations()[name](actual)
    diff = compare(_expected(), actual, MODE)
    assert diff is not None, f"{name} compared equal"
    assert diff.startswith("/")


def test_a_non_history_output_fails() -> None:
    assert compare(_expected(), "not a history", MODE) is not None
    assert compare(_expected(), {"messages": []}, MODE) is not None
    assert compare(_expected(), {"history": None, "tools": None}, MODE) is not None


def test_normalization_is_pure_and_idempotent() -> None:
    value = _expected()
    value["history"][3]["isError"] = False
    value["history"][0]["id"] = "s1"
    before = copy.deepcopy(value)
    once = normalize_canonical_history(value)
    assert value == before
    assert normalize_canonical_history(once) == once


_METADATA = st.fixed_dictionaries({}, optional={
    "id": st.text(max_size=5), "source": st.dictionaries(st.text(max_size=3), st.integers(),
                                                          max_size=2),
    "createdAt": st.text(max_size=8)})


@settings(max_examples=40, deadline=None)
@given(st.lists(_METADATA, min_size=6, max_size=6), st.booleans())
def test_any_metadata_with_false_error_flags_compares_equal(metadata: list[dict[str, Any]],
                                                            flag_false: bool) -> None:
    actual = _expected()
    for message, extra in zip(actual["history"], metadata, strict=True):
        message.update(extra)
        if flag_false and message["role"] == "tool" and "isError" not in message:
            message["isError"] = False
    assert _same(actual)


# ---- the live view (session.record-live): CFP-008 orders none of its entries -------------------

LIVE = [{"turn": 1, "step": 1, "index": 0, "type": "reasoning", "text": "Read it"},
        {"turn": 1, "step": 1, "index": 1, "type": "text", "text": "I will read"},
        {"turn": 1, "step": 2, "index": 0, "type": "text", "text": "Done."}]


def test_the_live_view_compares_in_any_order_but_not_with_other_entries() -> None:
    mode = mode_for("session.record-live", None)
    assert mode == "canonical-transcript"
    assert compare({"live": LIVE}, {"live": LIVE[::-1]}, mode) is None
    changed = [*LIVE[:2], {**LIVE[2], "text": "Done!"}]
    assert compare({"live": LIVE}, {"live": changed[::-1]}, mode) is not None
    assert compare({"live": LIVE}, {"live": [*LIVE, LIVE[0]]}, mode) is not None
    assert compare({"live": LIVE}, {"live": LIVE[1:]}, mode) is not None
