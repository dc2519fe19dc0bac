"""reference_impl.wire.normal_form: each equivalence the provider grants, each difference kept."""

from __future__ import annotations

import copy
import json

import pytest

from agent_tck.harness.run.compare import compare
from agent_tck.reference_impl.wire.normal_form import (
    NotARequest,
    align_openai_chat,
    normalize_anthropic_messages,
    normalize_openai_chat,
    same_openai_content,
)


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
            {"type": "thinking", "thinking": "plan", "signature": "sig-1"},
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


def _updates(*messages: dict) -> dict:
    return {"messages": [{"role": "user", "content": "u"}, *messages,
                         {"role": "assistant", "content": "ok"}]}


def test_anthropic_consecutive_system_updates_fold_in_order() -> None:
    two = _updates({"role": "system", "content": "a"}, {"role": "system", "content": [_text("b")]})
    one = _updates({"role": "system", "content": [_text("a"), _text("b")]})
    assert a_same(one, two)
    # IHU-D001 keeps the order: folding never reorders the blocks
    assert not a_same(_updates({"role": "system", "content": [_text("b"), _text("a")]}), two)


def test_anthropic_system_updates_apart_are_not_folded() -> None:
    # an update moved past a turn boundary is a different request, folded or not
    apart = {"messages": [{"role": "user", "content": "u"}, {"role": "system", "content": "a"},
                          {"role": "assistant", "content": "ok"},
                          {"role": "user", "content": "v"}, {"role": "system", "content": "b"}]}
    together = {"messages": [{"role": "user", "content": "u"},
                             {"role": "system", "content": [_text("a"), _text("b")]},
                             {"role": "assistant", "content": "ok"},
                             {"role": "user", "content": "v"}]}
    assert not a_same(apart, together)


def test_anthropic_an_empty_system_update_is_not_folded_away() -> None:
    one = _updates({"role": "system", "content": "a"})
    with_empty = _updates({"role": "system", "content": "a"}, {"role": "system", "content": []})
    assert not a_same(one, with_empty)


def _thinking(**extra: object) -> dict:
    return {"type": "thinking", "thinking": "assistant thinks", **extra}


def _assistant(*blocks: dict) -> dict:
    return {"messages": [{"role": "user", "content": "q"},
                         {"role": "assistant", "content": [*blocks, _text("answer")]},
                         {"role": "user", "content": "more"}]}


def test_anthropic_unsigned_assistant_thinking_is_compared() -> None:
    # Decision (reference_impl/wire/equivalences.py, assistant-reasoning-messages): the source
    # runtime sends reasoning without replay metadata as a thinking block without signature
    # (llm-deepseek/src/serialize.ts), and BO-011 keeps assistant reasoning: dropping it differs.
    assert not a_same(_assistant(_thinking()), _assistant())
    assert a_same(_assistant(_thinking()), _assistant(_thinking(signature=None)))  # null member
    assert not a_same(_assistant(_thinking()), _assistant(_thinking(signature="s")))


def test_anthropic_thinking_in_its_own_assistant_turn_combines() -> None:
    # the provider combines consecutive assistant turns, blocks in order
    split = {"messages": [{"role": "user", "content": "q"},
                          {"role": "assistant", "content": [_thinking()]},
                          {"role": "assistant", "content": [_text("answer")]},
                          {"role": "user", "content": "more"}]}
    assert a_same(split, _assistant(_thinking()))
    assert not a_same(split, _assistant())


def test_anthropic_signed_assistant_thinking_is_compared() -> None:
    signed = _assistant(_thinking(signature="sig-1"))
    assert not a_same(signed, _assistant())  # BO-011: dropped
    assert not a_same(signed, _assistant(_thinking()))  # signature lost
    assert not a_same(signed, _assistant(_thinking(signature="sig-2")))
    changed = {"type": "thinking", "thinking": "other", "signature": "sig-1"}
    assert not a_same(signed, _assistant(changed))


def test_anthropic_unsigned_thinking_turned_into_text_is_visible() -> None:
    assert not a_same(_assistant(_thinking()), _assistant(_text("assistant thinks")))


def test_anthropic_unsigned_thinking_outside_assistant_turns_is_visible() -> None:
    plain = {"messages": [{"role": "user", "content": [_text("q")]}]}
    for block in (_thinking(), _thinking(signature="")):
        user = {"messages": [{"role": "user", "content": [_text("q"), block]}]}
        assert not a_same(plain, user)


def test_anthropic_turn_of_unsigned_thinking_only_is_kept() -> None:
    only = {"messages": [{"role": "user", "content": "q"},
                         {"role": "assistant", "content": [_thinking()]},
                         {"role": "user", "content": "more"}]}
    skipped = {"messages": [{"role": "user", "content": "q"}, {"role": "user", "content": "more"}]}
    assert not a_same(only, skipped)
    assert normalize_anthropic_messages(only)["messages"][1] == {"role": "assistant",
                                                                 "content": [_thinking()]}


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


def _o(*messages: dict) -> dict:
    return {"messages": list(messages)}


NOTICE = [_text("Background subagent finished.\n"), _text("  child answer  ")]


@pytest.mark.parametrize("sep", ["", "\n", "\n\n"])
@pytest.mark.parametrize("role", ["user", "system", "developer", "assistant"])
def test_openai_text_parts_and_their_join_are_the_same(sep: str, role: str) -> None:
    parts = {"role": role, "content": NOTICE}
    joined = {"role": role, "content": sep.join(p["text"] for p in NOTICE)}
    assert compare(_o(parts), _o(joined), "openai-chat") is None
    assert compare(_o(joined), _o(parts), "openai-chat") is None


@pytest.mark.parametrize("sep", ["", "\n", "\n\n"])
def test_openai_tool_message_parts_and_their_join_are_the_same(sep: str) -> None:
    parts = {"role": "tool", "tool_call_id": "a", "content": [_text("one"), _text("two")]}
    joined = {"role": "tool", "tool_call_id": "a", "content": f"one{sep}two"}
    assert compare(_o(parts), _o(joined), "openai-chat") is None


def test_openai_each_user_message_joined_on_its_own_is_the_same() -> None:
    # two recorded user messages, each sent as one string: the provider combines them
    expected = _o({"role": "user", "content": [_text("a"), _text("b"), _text("c")]})
    actual = _o({"role": "user", "content": "a\nb"}, {"role": "user", "content": "c"})
    assert compare(expected, actual, "openai-chat") is None


def test_openai_a_run_of_text_beside_an_image_joins() -> None:
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}}
    expected = _o({"role": "user", "content": [_text("a"), _text("b"), image]})
    assert compare(expected, _o({"role": "user", "content": [_text("a\nb"), image]}),
                   "openai-chat") is None
    # the image still counts
    assert compare(expected, _o({"role": "user", "content": "a\nb"}), "openai-chat") is not None


@pytest.mark.parametrize("actual", [
    "Background subagent finished.\n child answer",  # text trimmed (BO-007)
    "Background subagent finished.\n   child answer  ",  # a space joined in
    "Background subagent finished.\n",  # a part missing
    "  child answer  Background subagent finished.\n",  # parts reordered
    "Background subagent finished.\nchild reasoning  child answer  ",  # omitted block joined in
    "Background subagent finished.\n\n\n\n  child answer  ",  # no allowed separator
])
def test_openai_joined_text_must_still_be_exact(actual: str) -> None:
    expected = _o({"role": "user", "content": NOTICE})
    assert compare(expected, _o({"role": "user", "content": actual}), "openai-chat") is not None


def test_openai_an_empty_text_part_never_joins() -> None:
    assert compare(_o({"role": "user", "content": "a\nb"}),
                   _o({"role": "user", "content": [_text("a"), _text(""), _text("b")]}),
                   "openai-chat") is not None
    assert compare(_o({"role": "tool", "tool_call_id": "a", "content": "a"}),
                   _o({"role": "tool", "tool_call_id": "a", "content": [_text("a"), _text("")]}),
                   "openai-chat") is not None


def test_openai_join_is_per_message_and_role() -> None:
    expected = _o({"role": "user", "content": [_text("a"), _text("b")]})
    assert compare(expected, _o({"role": "system", "content": "a\nb"}), "openai-chat") is not None
    moved = _o({"role": "user", "content": "a"}, {"role": "system", "content": "x"},
               {"role": "user", "content": "b"})
    assert compare(_o({"role": "user", "content": "a\nb"}, {"role": "system", "content": "x"}),
                   moved, "openai-chat") is not None


def test_openai_same_content_directly() -> None:
    a, b, c = _text("a"), _text("b"), _text("c")
    assert same_openai_content([a, b, c], [_text("ab"), c])
    assert same_openai_content([_text("a\n\nb"), c], [a, b, c])
    assert not same_openai_content([a, b, c], [_text("a b"), c])
    assert not same_openai_content([a, b], [a])
    assert not same_openai_content([{**a, "extra": 1}, b], [_text("ab")])
    assert not same_openai_content("ab", [a, b])


def test_openai_alignment_is_pure_and_keeps_other_differences() -> None:
    expected = normalize_openai_chat(_o({"role": "user", "content": NOTICE}))
    actual = normalize_openai_chat(_o({"role": "user", "content": "".join(
        p["text"] for p in NOTICE), "name": "x"}))
    before = copy.deepcopy(actual)
    aligned = align_openai_chat(expected, actual)
    assert actual == before
    assert aligned["messages"][0]["content"] == expected["messages"][0]["content"]
    assert aligned["messages"][0]["name"] == "x"  # only the content was aligned
    assert compare(_o({"role": "user", "content": NOTICE}),
                   _o({"role": "user", "content": "".join(p["text"] for p in NOTICE),
                       "name": "x"}), "openai-chat") == '/messages/0/name: unexpected member "x"'


def _image(**extra: object) -> dict:
    return _o({"role": "user", "content": [
        _text("look"), {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA==",
                                                          **extra}}]})


def test_openai_image_detail_auto_is_the_default() -> None:
    assert o_same(_image(), _image(detail="auto"))
    assert not o_same(_image(), _image(detail="low"))
    assert not o_same(_image(detail="auto"), _image(detail="high"))


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
    from agent_tck.reference_impl.wire.normal_form import normalize_anthropic_messages as norm

    tool = {"name": "t", "input_schema": {"type": "object"}}
    plain = {"messages": [], "tools": [tool]}
    explicit = {"messages": [], "tools": [{**tool, "defer_loading": False}]}
    deferred = {"messages": [], "tools": [{**tool, "defer_loading": True}]}
    assert norm(plain) == norm(explicit)
    assert norm(plain) != norm(deferred)
