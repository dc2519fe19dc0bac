"""harness.compare_wire: each equivalence the provider grants, each difference a rule keeps."""

from __future__ import annotations

import copy
import json

import pytest

from harness.compare import compare
from harness.compare_wire import NotARequest, normalize_anthropic_messages, normalize_openai_chat


def _text(text: str) -> dict:
    return {"type": "text", "text": text}


def a_same(one: dict, other: dict) -> bool:
    return normalize_anthropic_messages(one) == normalize_anthropic_messages(other)


def o_same(one: dict, other: dict) -> bool:
    return normalize_openai_chat(one) == normalize_openai_chat(other)


BASE_A = {
    "system": "policy",
    "messages": [
        {"role": "user", "content": [_text("hello")]},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "plan"},
            {"type": "tool_use", "id": "a", "name": "read", "input": {"path": "a", "n": 1}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "a", "content": [_text("x")],
             "is_error": False},
            _text("more"),
        ]},
        {"role": "system", "content": [_text("updated")]},
    ],
}

BASE_O = {
    "messages": [
        {"role": "system", "content": "policy"},
        {"role": "user", "content": [_text("hello")]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function",
             "function": {"name": "read", "arguments": '{"path":"a"}'}},
        ]},
        {"role": "tool", "tool_call_id": "a", "content": "x"},
        {"role": "user", "content": [_text("more")]},
    ],
}


# --- Anthropic: equivalences ------------------------------------------------------------------


def test_anthropic_key_order_does_not_matter() -> None:
    reordered = json.loads(json.dumps(BASE_A, sort_keys=True))
    reordered["messages"] = [dict(reversed(list(m.items()))) for m in reordered["messages"]]
    assert a_same(BASE_A, reordered)


def test_anthropic_string_content_is_one_text_block() -> None:
    one = {"messages": [{"role": "user", "content": "hello"}]}
    other = {"messages": [{"role": "user", "content": [_text("hello")]}]}
    assert a_same(one, other)


def test_anthropic_consecutive_user_turns_combine() -> None:
    split = copy.deepcopy(BASE_A)
    turn = split["messages"][2]
    split["messages"][2:3] = [
        {"role": "user", "content": [turn["content"][0]]},
        {"role": "user", "content": "more"},
    ]
    assert a_same(BASE_A, split)


def test_anthropic_consecutive_assistant_turns_combine() -> None:
    split = copy.deepcopy(BASE_A)
    turn = split["messages"][1]
    split["messages"][1:2] = [{"role": "assistant", "content": [c]} for c in turn["content"]]
    assert a_same(BASE_A, split)


@pytest.mark.parametrize("system", ["policy", [_text("policy")],
                                    [{"type": "text", "text": "policy", "cache_control": {
                                        "type": "ephemeral"}}]])
def test_anthropic_system_forms(system: object) -> None:
    assert a_same(BASE_A, {**BASE_A, "system": system})


@pytest.mark.parametrize("empty", [None, "", [], [_text("")]])
def test_anthropic_empty_system_is_absent(empty: object) -> None:
    without = {k: v for k, v in BASE_A.items() if k != "system"}
    assert a_same(without, {**without, "system": empty})


def test_anthropic_tool_input_as_json_text() -> None:
    other = copy.deepcopy(BASE_A)
    other["messages"][1]["content"][1]["input"] = '{"n": 1, "path": "a"}'
    assert a_same(BASE_A, other)


@pytest.mark.parametrize("content", [None, "", []])
def test_anthropic_empty_tool_result_content_forms(content: object) -> None:
    def body(block: dict) -> dict:
        return {"messages": [{"role": "user", "content": [block]}]}

    base = body({"type": "tool_result", "tool_use_id": "a", "content": []})
    other = {"type": "tool_result", "tool_use_id": "a"}
    if content is not None:
        other["content"] = content
    assert a_same(base, body(other))


def test_anthropic_tool_result_string_content_and_absent_is_error() -> None:
    other = copy.deepcopy(BASE_A)
    result = other["messages"][2]["content"][0]
    result["content"] = "x"
    del result["is_error"]
    assert a_same(BASE_A, other)


def test_anthropic_cache_control_is_ignored() -> None:
    other = copy.deepcopy(BASE_A)
    other["messages"][0]["content"][0]["cache_control"] = {"type": "ephemeral"}
    other["messages"][2]["content"][0]["content"][0]["cache_control"] = {"type": "ephemeral"}
    other["tools"] = [{"name": "t", "input_schema": {}, "cache_control": {"type": "ephemeral"}}]
    assert a_same({**BASE_A, "tools": [{"name": "t", "input_schema": {}}]}, other)


def test_anthropic_absent_tools_and_other_request_fields() -> None:
    assert a_same(BASE_A, {**BASE_A, "tools": [], "model": "m", "max_tokens": 10, "stream": True})


# --- Anthropic: differences a rule keeps ------------------------------------------------------


def test_anthropic_an_omitted_block_is_visible() -> None:
    other = copy.deepcopy(BASE_A)
    other["messages"][0]["content"].append({"type": "thinking", "thinking": "child"})
    assert not a_same(BASE_A, other)


def test_anthropic_an_empty_user_turn_is_not_merged_away() -> None:
    for empty in ([], ""):
        other = copy.deepcopy(BASE_A)
        other["messages"].insert(1, {"role": "user", "content": empty})
        assert not a_same(BASE_A, other)
    other = copy.deepcopy(BASE_A)
    other["messages"].insert(0, {"role": "user", "content": []})
    assert not a_same(BASE_A, other)


def test_anthropic_an_empty_text_block_is_visible() -> None:
    other = copy.deepcopy(BASE_A)
    other["messages"][0]["content"].append(_text(""))
    assert not a_same(BASE_A, other)


def test_anthropic_a_relocated_update_is_visible() -> None:
    other = copy.deepcopy(BASE_A)
    update = other["messages"].pop()
    other["messages"].insert(1, update)
    assert not a_same(BASE_A, other)
    moved_to_system = copy.deepcopy(BASE_A)
    moved_to_system["messages"].pop()
    moved_to_system["system"] = "updated"
    assert not a_same(BASE_A, moved_to_system)


def test_anthropic_system_updates_are_not_combined() -> None:
    two = {"messages": [{"role": "user", "content": "u"}, {"role": "system", "content": "a"},
                        {"role": "system", "content": "b"}]}
    one = {"messages": [{"role": "user", "content": "u"},
                        {"role": "system", "content": [_text("a"), _text("b")]}]}
    assert not a_same(one, two)


def test_anthropic_tool_result_order_is_kept() -> None:
    other = copy.deepcopy(BASE_A)
    other["messages"][2]["content"].reverse()
    assert not a_same(BASE_A, other)


def test_anthropic_split_text_is_not_joined_text() -> None:
    one = {"messages": [{"role": "user", "content": [_text("a"), _text("b")]}]}
    assert not a_same(one, {"messages": [{"role": "user", "content": "ab"}]})


def test_anthropic_is_error_true_is_not_absent() -> None:
    other = copy.deepcopy(BASE_A)
    other["messages"][2]["content"][0]["is_error"] = True
    assert not a_same(BASE_A, other)


def test_anthropic_thinking_in_assistant_output_counts() -> None:
    other = copy.deepcopy(BASE_A)
    del other["messages"][1]["content"][0]
    assert not a_same(BASE_A, other)


def test_anthropic_different_tool_input_differs() -> None:
    other = copy.deepcopy(BASE_A)
    other["messages"][1]["content"][1]["input"] = {"path": "b", "n": 1}
    assert not a_same(BASE_A, other)


# --- Chat Completions: equivalences -----------------------------------------------------------


def test_openai_string_content_is_one_part() -> None:
    other = copy.deepcopy(BASE_O)
    other["messages"][1]["content"] = "hello"
    other["messages"][0]["content"] = [_text("policy")]
    other["messages"][3]["content"] = [_text("x")]
    assert o_same(BASE_O, other)


def test_openai_consecutive_user_messages_combine() -> None:
    one = {"messages": [{"role": "user", "content": [_text("a"), _text("b")]}]}
    two = {"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]}
    assert o_same(one, two)


def test_openai_arguments_compare_as_json_and_type_defaults() -> None:
    other = copy.deepcopy(BASE_O)
    call = other["messages"][2]["tool_calls"][0]
    call["function"]["arguments"] = '{ "path" : "a" }'
    del call["type"]
    assert o_same(BASE_O, other)


@pytest.mark.parametrize("content", [None, "", [], "<absent>"])
def test_openai_assistant_empty_content_forms(content: object) -> None:
    other = copy.deepcopy(BASE_O)
    if content == "<absent>":
        del other["messages"][2]["content"]
    else:
        other["messages"][2]["content"] = content
    assert o_same(BASE_O, other)


@pytest.mark.parametrize("carrier", [
    {"reasoning_content": "thinking"},
    {"reasoning": "thinking"},
    {"reasoning_details": [{"type": "reasoning.text", "text": "thinking"}]},
    {"content": [{"type": "reasoning", "text": "thinking"}]},
])
def test_openai_assistant_reasoning_never_decides(carrier: dict) -> None:
    other = copy.deepcopy(BASE_O)
    other["messages"][2].update(carrier)
    assert o_same(BASE_O, other)


def test_openai_null_members_and_absent_tools() -> None:
    other = copy.deepcopy(BASE_O)
    other["messages"][1]["name"] = None
    other["tools"] = None
    other["model"] = "m"
    assert o_same(BASE_O, other)


def test_openai_empty_tool_message_content_forms() -> None:
    one = {"messages": [{"role": "tool", "tool_call_id": "a", "content": ""}]}
    assert o_same(one, {"messages": [{"role": "tool", "tool_call_id": "a", "content": []}]})


# --- Chat Completions: differences a rule keeps -----------------------------------------------


def test_openai_reasoning_in_user_or_tool_messages_counts() -> None:
    for index in (1, 3):
        other = copy.deepcopy(BASE_O)
        other["messages"][index]["reasoning_content"] = "child reasoning"
        assert not o_same(BASE_O, other)
    other = copy.deepcopy(BASE_O)
    other["messages"][1]["content"].append({"type": "reasoning", "text": "child"})
    assert not o_same(BASE_O, other)


def test_openai_an_empty_user_message_is_not_merged_away() -> None:
    for empty in ("", []):
        other = copy.deepcopy(BASE_O)
        other["messages"].insert(2, {"role": "user", "content": empty})
        assert not o_same(BASE_O, other)


def test_openai_tool_calls_count() -> None:
    other = copy.deepcopy(BASE_O)
    other["messages"][2]["tool_calls"].append(
        {"id": "b", "type": "function", "function": {"name": "x", "arguments": "{}"}})
    assert not o_same(BASE_O, other)
    other = copy.deepcopy(BASE_O)
    other["messages"][2]["tool_calls"][0]["function"]["arguments"] = '{"path":"b"}'
    assert not o_same(BASE_O, other)


def test_openai_tool_messages_are_not_combined_and_keep_order() -> None:
    other = copy.deepcopy(BASE_O)
    other["messages"][3], other["messages"][4] = other["messages"][4], other["messages"][3]
    assert not o_same(BASE_O, other)


def test_openai_plugin_text_in_user_content_counts() -> None:
    other = copy.deepcopy(BASE_O)
    other["messages"][4]["content"].append(_text("opaque plugin"))
    assert not o_same(BASE_O, other)


# --- both: purity, idempotence, bad input -------------------------------------------------------


@pytest.mark.parametrize(("normalize", "body"), [
    (normalize_anthropic_messages, BASE_A), (normalize_openai_chat, BASE_O)])
def test_normalizers_are_pure_and_idempotent(normalize, body) -> None:  # type: ignore[no-untyped-def]
    before = copy.deepcopy(body)
    once = normalize(body)
    assert body == before
    assert normalize(once) == once
    again = copy.deepcopy(once)
    normalize(once)
    assert once == again


@pytest.mark.parametrize("bad", [None, [], "x", {"messages": "x"}, {"messages": [1]},
                                 {"messages": [{"content": "x"}]}])
def test_not_a_request_is_reported(bad: object) -> None:
    with pytest.raises(NotARequest):
        normalize_anthropic_messages(bad)
    with pytest.raises(NotARequest):
        normalize_openai_chat(bad)


def test_compare_modes_use_these_normalizers() -> None:
    expected = {"messages": [{"role": "user", "content": [_text("a")]}]}
    assert compare(expected, {"messages": [{"role": "user", "content": "a"}]},
                   "anthropic-messages") is None
    assert compare(expected, {"messages": [{"role": "user", "content": "b"}]},
                   "openai-chat") is not None
    assert compare(expected, "garbage", "anthropic-messages") is not None


def test_defer_loading_false_is_the_provider_default():
    from harness.compare_wire import normalize_anthropic_messages as norm

    tool = {"name": "t", "input_schema": {"type": "object"}}
    plain = {"messages": [], "tools": [tool]}
    explicit = {"messages": [], "tools": [{**tool, "defer_loading": False}]}
    deferred = {"messages": [], "tools": [{**tool, "defer_loading": True}]}
    assert norm(plain) == norm(explicit)
    assert norm(plain) != norm(deferred)
