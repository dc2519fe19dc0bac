"""The reference serializers: unit checks and hypothesis properties.

The properties hold an independent oracle against the serializers: which histories must be
rejected (and why), what must never reach the wire, and where updates may stand.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tck.harness.families import operations as reference_operations
from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.serialize import anthropic_messages as serialize_anthropic
from agent_tck.reference_impl.serialize import openai_chat as serialize_openai
from agent_tck.reference_impl.wire.normal_form import (
    normalize_anthropic_messages,
    normalize_openai_chat,
)

OPERATIONS = reference_operations()


def t(text: str) -> dict:
    return {"type": "text", "text": text}


def call(id_: str, args: str = "{}") -> dict:
    return {"type": "tool-call", "id": id_, "name": "read", "arguments": args}


def test_operations_are_registered() -> None:
    assert OPERATIONS["anthropic.serialize"].__module__ == "agent_tck.reference_impl.serialize.ops"
    assert OPERATIONS["openai.serialize"].__module__ == "agent_tck.reference_impl.serialize.ops"


def test_public_signatures_take_plain_history_and_tools() -> None:
    history = [{"role": "user", "content": [t("hi")]}]
    tools = [{"name": "read", "description": "Read a file", "inputSchema": {"type": "object"}},
             {"name": "bare", "inputSchema": {}}]
    assert serialize_anthropic.serialize(history, tools) == {
        "messages": [{"role": "user", "content": [t("hi")]}],
        "tools": [{"name": "read", "description": "Read a file",
                   "input_schema": {"type": "object"}},
                  {"name": "bare", "input_schema": {}}],
    }
    assert serialize_openai.serialize(history, tools) == {
        "messages": [{"role": "user", "content": [t("hi")]}],
        "tools": [{"type": "function", "function": {"name": "read", "description": "Read a file",
                                                    "parameters": {"type": "object"}}},
                  {"type": "function", "function": {"name": "bare", "parameters": {}}}],
    }
    assert "tools" not in serialize_anthropic.serialize(history)
    assert "tools" not in serialize_openai.serialize(history, [])


def test_outputs_do_not_share_objects_with_the_input() -> None:
    tools = [{"name": "read", "inputSchema": {"type": "object", "properties": {}}}]
    body = serialize_anthropic.serialize([{"role": "user", "content": [t("hi")]}], tools)
    body["tools"][0]["input_schema"]["type"] = "changed"
    assert tools[0]["inputSchema"]["type"] == "object"


def test_head_is_the_latest_leading_snapshot_and_must_be_text() -> None:
    history = [{"role": "system", "content": [t("old")]},
               {"role": "system", "content": [t("part one"), t(" and two")]},
               {"role": "user", "content": [t("hi")]}]
    assert serialize_anthropic.serialize(history)["system"] == "part one and two"
    assert serialize_openai.serialize(history)["messages"][0] == {
        "role": "system", "content": "part one and two"}
    bad = [{"role": "system", "content": [{"type": "reasoning", "text": "x"}]},
           {"role": "system", "content": [t("current")]}, {"role": "user", "content": [t("hi")]}]
    for serialize in (serialize_anthropic.serialize, serialize_openai.serialize):
        with pytest.raises(TckError) as caught:
            serialize(bad)
        assert (caught.value.code, caught.value.pointer) == ("UNSUPPORTED_CONTENT",
                                                             "/history/0/content/0")


def test_rejections_name_the_offending_element() -> None:
    history = [{"role": "user", "content": [t("hi"), {"type": "plugin:x"}]}]
    with pytest.raises(TckError) as caught:
        serialize_anthropic.serialize(history)
    assert caught.value.pointer == "/history/0/content/1"
    update = [{"role": "user", "content": [t("hi")]}, {"role": "assistant", "content": [t("a")]},
              {"role": "system", "content": [t("u")]}, {"role": "user", "content": []}]
    with pytest.raises(TckError) as caught:
        serialize_anthropic.serialize(update)
    assert (caught.value.code, caught.value.pointer) == ("UNSUPPORTED_CONTENT", "/history/2")


def test_assistant_details() -> None:
    history = [{"role": "user", "content": [t("go")]},
               {"role": "assistant", "content": [
                   {"type": "reasoning", "text": "", "signature": "signed"}, t("a"), t("b"),
                   call("x", "{"), call("y", '"text"')]},
               {"role": "tool", "toolCallId": "x", "content": [t("1"), t("2")]},
               {"role": "tool", "toolCallId": "y", "content": []}]
    anthropic = serialize_anthropic.serialize(history)["messages"][1]["content"]
    assert anthropic[0] == {"type": "thinking", "thinking": "", "signature": "signed"}
    assert [b.get("input") for b in anthropic[3:]] == [{}, {}]
    messages = serialize_openai.serialize(history)["messages"]
    assert messages[1]["content"] == [t("a"), t("b")]
    assert messages[1]["reasoning_content"] == ""
    assert [c["function"]["arguments"] for c in messages[1]["tool_calls"]] == ["{", '"text"']
    assert messages[2]["content"] == [t("1"), t("2")]
    assert messages[3]["content"] == ""


@pytest.mark.parametrize("block", [{"type": "image", "attachment": {"mediaType": "image/png",
                                                                      "data": "AA=="}},
                                   {"type": "plugin:x"}])
def test_assistant_blocks_without_a_wire_form_are_rejected(block: dict) -> None:
    history = [{"role": "user", "content": [t("hi")]}, {"role": "assistant", "content": [block]}]
    for serialize in (serialize_anthropic.serialize, serialize_openai.serialize):
        with pytest.raises(TckError, match="assistant"):
            serialize(history)


def test_chat_completions_tool_message_image_is_unsupported() -> None:
    image = {"type": "image", "attachment": {"mediaType": "image/png", "data": "AA=="}}
    history = [{"role": "user", "content": [t("go")]},
               {"role": "assistant", "content": [call("a")]},
               {"role": "tool", "toolCallId": "a", "content": [image]}]
    with pytest.raises(TckError):
        serialize_openai.serialize(history)
    result = serialize_anthropic.serialize(history)["messages"][2]["content"][0]
    assert result["content"] == [{"type": "image", "source": {
        "type": "base64", "media_type": "image/png", "data": "AA=="}}]


def test_chat_completions_places_tool_messages_right_after_the_calls() -> None:
    history = [{"role": "user", "content": [t("go")]},
               {"role": "assistant", "content": [call("a")]},
               {"role": "system", "content": [t("updated")]},
               {"role": "user", "content": [t("note")]},
               {"role": "tool", "toolCallId": "a", "content": [t("r")]},
               {"role": "assistant", "content": [call("b")]},
               {"role": "system", "content": [t("second")]},
               {"role": "user", "content": [{"type": "reasoning", "text": "x"}]}]
    roles = [m["role"] for m in serialize_openai.serialize(history)["messages"]]
    assert roles == ["user", "assistant", "tool", "system", "user", "assistant", "system"]


def test_developer_messages_become_system_updates_on_messages() -> None:
    developer = {"role": "developer", "content": [
        {"type": "tool-addition", "toolName": "search"}, {"type": "tool-removal", "toolName": "f"},
        t(""), t("search replaces f")]}
    history = [{"role": "user", "content": [t("hello")]}, developer,
               {"role": "assistant", "content": [t("ok")]}]
    assert serialize_anthropic.serialize(history)["messages"][1] == {"role": "system", "content": [
        {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "search"}},
        {"type": "tool_removal", "tool": {"type": "tool_reference", "name": "f"}},
        t("search replaces f")]}
    empty = [{"role": "user", "content": [t("hello")]}, {"role": "developer", "content": [t("")]}]
    assert serialize_anthropic.serialize(empty)["messages"] == [
        {"role": "user", "content": [t("hello")]}]
    for bad in ([developer], [{"role": "user", "content": [t("x")]},
                              {"role": "developer", "content": [{"type": "plugin:n"}]}]):
        with pytest.raises(TckError) as caught:
            serialize_anthropic.serialize(bad)
        assert caught.value.code == "UNSUPPORTED_CONTENT"
    with pytest.raises(TckError):
        serialize_openai.serialize(history)
    text_only = [{"role": "user", "content": [t("x")]}, {"role": "developer", "content": [t("d")]}]
    assert serialize_openai.serialize(text_only)["messages"][-1] == {"role": "system",
                                                                      "content": "d"}


# --- properties --------------------------------------------------------------------------------

_counter = st.integers(min_value=0, max_value=10**6)


@st.composite
def histories(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Histories with unique markers: ``UI<n>`` in user-input reasoning/tool calls (must never be
    sent), ``KEEP<n>`` in retained user/tool text, ``AR<n>`` in assistant reasoning."""
    serial = iter(range(10**6))

    def user_block(allow_other: bool) -> Any:
        options = ["text", "empty", "reasoning", "call", "image"] + (["other"] if allow_other
                                                                     else [])
        kind = draw(st.sampled_from(options))
        n = next(serial)
        return {
            "text": {"type": "text", "text": f" KEEP{n} \n"},
            "empty": {"type": "text", "text": ""},
            "reasoning": {"type": "reasoning", "text": f"UI{n}"},
            "call": {"type": "tool-call", "id": f"UI{n}", "name": f"UI{n}n",
                     "arguments": json.dumps({"UI": f"UI{n}"})},
            "image": {"type": "image", "attachment": {"mediaType": "image/png", "data": "AA=="}},
            "other": {"type": "plugin:x", "text": f"UI{n}"},
        }[kind]

    allow_other = draw(st.booleans())
    out: list[dict[str, Any]] = []
    if draw(st.booleans()):
        out.append({"role": "system", "content": [t(draw(st.sampled_from(["head", ""])))]})
    pending_calls: list[str] = []
    for _ in range(draw(st.integers(min_value=0, max_value=9))):
        kind = draw(st.sampled_from(["user", "user", "assistant", "update", "tool"]))
        if kind == "tool" and pending_calls:
            call_id = pending_calls.pop(0)
            content = [user_block(allow_other) for _ in range(draw(st.integers(0, 3)))]
            content = [b for b in content if b["type"] != "image"]  # Chat Completions has none
            message: dict[str, Any] = {"role": "tool", "toolCallId": call_id, "content": content}
            if draw(st.booleans()):
                message["isError"] = draw(st.booleans())
            out.append(message)
        elif kind == "assistant":
            if pending_calls:  # answer open calls first
                continue
            blocks: list[dict[str, Any]] = []
            for _ in range(draw(st.integers(1, 3))):
                n = next(serial)
                choice = draw(st.sampled_from(["text", "reasoning", "call"]))
                if choice == "text":
                    blocks.append(t(f"A{n}"))
                elif choice == "reasoning":
                    blocks.append({"type": "reasoning", "text": f"AR{n}"})
                else:
                    blocks.append(call(f"c{n}", json.dumps({"n": n})))
                    pending_calls.append(f"c{n}")
            out.append({"role": "assistant", "content": blocks})
        elif kind == "update":
            text = draw(st.sampled_from(["update", "update", ""]))
            out.append({"role": "system", "content": [t(f"{text}{next(serial)}" if text else "")]})
        else:
            content = [user_block(allow_other) for _ in range(draw(st.integers(0, 3)))]
            out.append({"role": "user", "content": content})
    out.extend({"role": "tool", "toolCallId": c, "content": [t(f" KEEP-late-{c} ")]}
               for c in pending_calls)
    return out


def _retained(message: dict[str, Any]) -> bool:
    return message["role"] == "tool" or any(
        (b["type"] == "text" and b["text"]) or b["type"] == "image" for b in message["content"])


def _oracle_anthropic(history: list[dict[str, Any]]) -> str | None:
    """Expected rejection reason on the Messages wire (None: accepted), written independently."""
    body_start = next((i for i, m in enumerate(history) if m["role"] != "system"), len(history))
    body = history[body_start:]
    for m in body:
        if m["role"] in ("user", "tool") and any(b["type"] == "plugin:x" for b in m["content"]):
            return "other-block"
    if any(m["role"] == "system" and not "".join(b["text"] for b in m["content"]) for m in body):
        return "empty-update"
    segment: list[dict[str, Any]] = []
    for m in [*body, {"role": "assistant", "content": []}]:
        if m["role"] == "assistant":
            if any(x["role"] == "system" for x in segment) and not any(
                    x["role"] in ("user", "tool") and _retained(x) for x in segment):
                return "no-turn"
            segment = []
        else:
            segment.append(m)
    return None


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)] + [str(k) for k in value]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


PROPERTY = settings(max_examples=200, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(histories())
def test_serializers_never_mutate_their_input_and_are_deterministic(history: list) -> None:
    # BO-008: "without changing Session records"
    payload = {"history": history}
    before = copy.deepcopy(payload)
    for name in ("anthropic.serialize", "openai.serialize"):
        results = []
        for _ in range(2):
            try:
                results.append(("out", OPERATIONS[name](payload)))
            except TckError as err:
                results.append(("err", (err.code, err.pointer)))
            assert payload == before
        assert results[0] == results[1]


@PROPERTY
@given(histories())
def test_messages_wire_properties(history: list) -> None:
    expected = _oracle_anthropic(history)
    try:
        body = serialize_anthropic.serialize(history)
    except TckError as err:
        assert expected is not None, f"rejected {err} but the oracle accepts"
        assert err.code == "UNSUPPORTED_CONTENT"
        assert err.pointer is not None and err.pointer.startswith("/history/")
        return
    assert expected is None, f"accepted, but the oracle expects rejection: {expected}"
    normalized = normalize_anthropic_messages(body)
    assert normalize_anthropic_messages(normalized) == normalized
    sent = " ".join(_strings(body))
    assert "UI" not in sent  # BO-001..004, BO-015: nothing of omitted user input is sent
    kept = [b["text"] for m in history if m["role"] in ("user", "tool") for b in m["content"]
            if b["type"] == "text" and b["text"].startswith(" KEEP")]
    sent_texts = [b["text"] for m in body["messages"] if m["role"] == "user"
                  for b in m["content"] for b in ([b] + (b.get("content") or [])
                                                  if b["type"] == "tool_result" else [b])
                  if b["type"] == "text"]
    assert sorted(kept) == sorted(sent_texts)  # BO-007: each retained text, exactly once
    reasoning = [b["text"] for m in history if m["role"] == "assistant" for b in m["content"]
                 if b["type"] == "reasoning"]
    thinking = [b["thinking"] for m in body["messages"] if m["role"] == "assistant"
                for b in m["content"] if b["type"] == "thinking"]
    assert reasoning == thinking  # BO-011
    tool_messages = [m["toolCallId"] for m in history if m["role"] == "tool"]
    results = [b["tool_use_id"] for m in body["messages"] if m["role"] == "user"
               for b in m["content"] if b["type"] == "tool_result"]
    assert tool_messages == results  # BO-D003: every tool result kept
    messages = body["messages"]
    for i, m in enumerate(messages):
        if m["role"] == "user":
            assert m["content"]  # BO-D001
            kinds = [b["type"] == "tool_result" for b in m["content"]]
            assert kinds == sorted(kinds, reverse=True)  # BO-D005
            assert all(b["type"] != "text" or b["text"] for b in m["content"])  # BO-D008
        if m["role"] == "system":  # IHU-D001 / IHU-D003: after a user turn, never first
            before = [x for x in messages[:i] if x["role"] != "system"]
            assert before and before[-1]["role"] == "user"
            after = [x for x in messages[i + 1:] if x["role"] != "system"]
            assert not after or after[0]["role"] == "assistant"
    heads = history[: next((i for i, m in enumerate(history) if m["role"] != "system"),
                           len(history))]
    head_text = "".join(b["text"] for b in heads[-1]["content"]) if heads else ""
    assert body.get("system", "") == head_text  # IHU-D005


@PROPERTY
@given(histories())
def test_chat_completions_properties(history: list) -> None:
    body_start = next((i for i, m in enumerate(history) if m["role"] != "system"), len(history))
    empty_update = any(m["role"] == "system" and not m["content"][0]["text"]
                       for m in history[body_start:])
    try:
        body = serialize_openai.serialize(history)
    except TckError as err:
        assert empty_update, f"rejected: {err}"
        return
    assert not empty_update
    normalized = normalize_openai_chat(body)
    assert normalize_openai_chat(normalized) == normalized
    sent = " ".join(_strings(body))
    assert "UI" not in sent  # BO-001..004, BO-015 and BO-D004 (plugin text never sent)
    calls = [b["id"] for m in history if m["role"] == "assistant" for b in m["content"]
             if b["type"] == "tool-call"]
    sent_calls = [c["id"] for m in body["messages"] for c in m.get("tool_calls", [])]
    assert calls == sent_calls  # BO-012
    assert all(m["content"] for m in body["messages"] if m["role"] == "user")  # BO-D002
    assert [m["toolCallId"] for m in history if m["role"] == "tool"] == [
        m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
