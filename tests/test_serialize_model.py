"""reference_impl.serialize.model: parsing the canonical history, and INVALID_HISTORY with
its pointer."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.serialize import model

SCHEMA = json.loads(
    (Path(__file__).resolve().parent.parent / "vectors/schema/history.schema.json").read_text()
)
VALIDATOR = Draft202012Validator(SCHEMA)


def test_schema_is_a_valid_json_schema() -> None:
    Draft202012Validator.check_schema(SCHEMA)


GOOD = {
    "history": [
        {"role": "system", "content": [{"type": "text", "text": "head"}]},
        {"role": "user", "id": "m1", "source": {"kind": "user"}, "createdAt": "2026-01-01",
         "content": [
             {"type": "text", "text": "hi"},
             {"type": "reasoning", "text": "r", "signature": "s"},
             {"type": "tool-call", "id": "c", "name": "n", "arguments": "{}"},
             {"type": "image", "attachment": {"mediaType": "image/png", "data": "AA=="}},
             {"type": "plugin:note", "anything": [1, 2]},
         ]},
        {"role": "assistant", "content": [{"type": "tool-call", "id": "a", "name": "r",
                                           "arguments": "{\"x\":1}"}]},
        {"role": "tool", "toolCallId": "a", "isError": False, "content": []},
        {"role": "system", "content": [{"type": "text", "text": "update"}]},
        {"role": "developer", "content": [{"type": "tool-addition", "toolName": "search"}]},
    ],
    "tools": [{"name": "r", "description": "read", "inputSchema": {"type": "object"}}],
}


def test_a_good_input_parses_and_matches_the_schema() -> None:
    assert not list(VALIDATOR.iter_errors(GOOD))
    parsed = model.parse_serialize_input(GOOD)
    assert [m.role for m in parsed.history.head] == ["system"]
    assert [m.role for m in parsed.history.body] == [
        "user", "assistant", "tool", "system", "developer"]
    kinds = [type(b) for b in parsed.history.body[0].content]
    assert kinds == [model.Text, model.Reasoning, model.ToolCall, model.Image, model.Other]
    assert parsed.history.body[0].content[4] == model.Other("plugin:note", "/history/1/content/4")
    assert parsed.history.body[2].tool_call_id == "a"
    assert parsed.history.body[2].is_error is False
    assert parsed.tools is not None
    assert parsed.tools[0].input_schema() == {"type": "object"}


def test_the_head_is_only_the_leading_system_messages() -> None:
    history = model.parse_history([
        {"role": "system", "content": []}, {"role": "system", "content": []},
        {"role": "user", "content": []}, {"role": "system", "content": []}])
    assert len(history.head) == 2
    assert [m.role for m in history.body] == ["user", "system"]
    assert model.parse_history([]).head == ()


def test_values_are_frozen_and_detached() -> None:
    raw = json.loads(json.dumps(GOOD))
    parsed = model.parse_serialize_input(raw)
    with pytest.raises(dataclasses.FrozenInstanceError):
        parsed.history.body[0].role = "assistant"  # type: ignore[misc]
    raw["tools"][0]["inputSchema"]["type"] = "changed"
    assert parsed.tools is not None
    assert parsed.tools[0].input_schema() == {"type": "object"}


BAD = [
    ({"history": "x"}, "/history"),
    ([], ""),
    ({}, ""),
    ({"history": [], "extra": 1}, "/extra"),
    ({"history": [1]}, "/history/0"),
    ({"history": [{"content": []}]}, "/history/0"),
    ({"history": [{"role": "bot", "content": []}]}, "/history/0/role"),
    ({"history": [{"role": "user"}]}, "/history/0/content"),
    ({"history": [{"role": "user", "content": "hi"}]}, "/history/0/content"),
    ({"history": [{"role": "user", "content": [], "toolCallId": "a"}]}, "/history/0/toolCallId"),
    ({"history": [{"role": "user", "content": [], "name": "x"}]}, "/history/0/name"),
    ({"history": [{"role": "tool", "content": []}]}, "/history/0"),
    ({"history": [{"role": "tool", "toolCallId": "", "content": []}]}, "/history/0/toolCallId"),
    ({"history": [{"role": "tool", "toolCallId": "a", "isError": "no", "content": []}]},
     "/history/0/isError"),
    ({"history": [{"role": "user", "content": ["hi"]}]}, "/history/0/content/0"),
    ({"history": [{"role": "user", "content": [{"text": "hi"}]}]}, "/history/0/content/0"),
    ({"history": [{"role": "user", "content": [{"type": ""}]}]}, "/history/0/content/0/type"),
    ({"history": [{"role": "user", "content": [{"type": "text", "text": 1}]}]},
     "/history/0/content/0/text"),
    ({"history": [{"role": "user", "content": [{"type": "reasoning"}]}]},
     "/history/0/content/0"),
    ({"history": [{"role": "user", "content": [
        {"type": "tool-call", "id": "a", "name": "n", "arguments": {}}]}]},
     "/history/0/content/0/arguments"),
    ({"history": [{"role": "user", "content": [{"type": "image"}]}]},
     "/history/0/content/0/attachment"),
    ({"history": [{"role": "user", "content": [
        {"type": "image", "attachment": {"mediaType": "image/png"}}]}]},
     "/history/0/content/0/attachment"),
    ({"history": [{"role": "developer", "content": [{"type": "tool-addition"}]}]},
     "/history/0/content/0"),
    ({"history": [], "tools": {}}, "/tools"),
    ({"history": [], "tools": [{"name": "t"}]}, "/tools/0/inputSchema"),
    ({"history": [], "tools": [{"name": "t", "inputSchema": {}, "strict": True}]},
     "/tools/0/strict"),
]


@pytest.mark.parametrize(("payload", "pointer"), BAD)
def test_malformed_input_is_invalid_history_with_a_pointer(payload: object, pointer: str) -> None:
    with pytest.raises(TckError) as caught:
        model.parse_serialize_input(payload)
    assert caught.value.code == "INVALID_HISTORY"
    assert caught.value.pointer == pointer
    assert caught.value.message


@pytest.mark.parametrize(("payload", "pointer"), BAD)
def test_the_schema_agrees_that_it_is_malformed(payload: object, pointer: str) -> None:
    assert list(VALIDATOR.iter_errors(payload)), pointer


def test_system_text_joins_text_and_refuses_other_blocks() -> None:
    message = model.parse_message(
        {"role": "system",
         "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
        "/history/0")
    assert model.system_text(message) == "ab"
    bad = model.parse_message(
        {"role": "system", "content": [{"type": "reasoning", "text": "x"}]}, "/history/3")
    with pytest.raises(TckError) as caught:
        model.system_text(bad)
    assert (caught.value.code, caught.value.pointer) == ("UNSUPPORTED_CONTENT",
                                                         "/history/3/content/0")


@pytest.mark.parametrize(("arguments", "value"), [
    ('{"a": 1}', {"a": 1}), ("{", {}), ("", {}), ("[]", {}), ("null", {}), ("3", {}),
    ('"text"', {}),
])
def test_tool_input_is_an_object_or_empty(arguments: str, value: dict) -> None:
    assert model.tool_input(arguments) == value
