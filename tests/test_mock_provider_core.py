"""Unit and property tests of the sans-I/O mock provider core (harness.mock_provider.model).

No sockets here: requests go straight to ``MockProvider.respond`` and the plans it returns are
read back as bytes. The OpenAPI document's own schemas judge every body the core produces.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import referencing
import referencing.jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tck.harness.mock_provider.model import MockProvider
from agent_tck.harness.mock_provider.plan import (
    Abort,
    Finish,
    HttpRequest,
    Pause,
    Plan,
    ProviderState,
    SendBytes,
    SendHead,
)
from agent_tck.harness.mock_provider.script import parse_script
from agent_tck.harness.mock_provider.server import load_openapi_document
from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.wire.sse import decode_sse, encode_sse

ROOT = Path(__file__).resolve().parent.parent
SCRIPT_SCHEMA = json.loads(
    (ROOT / "vectors" / "schema" / "provider-script.schema.json").read_text(encoding="utf-8")
)
OPENAPI = load_openapi_document()
_REGISTRY = referencing.Registry().with_resource(
    "urn:doc", referencing.jsonschema.DRAFT202012.create_resource(OPENAPI)
)
PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ANTHROPIC_PATHS = ("/v1/messages", "/anthropic/v1/messages")
OPENAI_PATHS = ("/v1/chat/completions", "/chat/completions")


@functools.cache
def component(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(
        {"$ref": f"urn:doc#/components/schemas/{name}"}, registry=_REGISTRY
    )


def assert_valid(name: str, value: Any) -> None:
    errors = list(component(name).iter_errors(value))
    assert not errors, f"{name}: {errors[0].message} at {list(errors[0].absolute_path)}"


def provider(script: dict[str, Any]) -> MockProvider:
    return MockProvider(parse_script(script), OPENAPI)


def text_script(*texts: str, **top: Any) -> dict[str, Any]:
    replies = [{"content": [{"type": "text", "text": t}]} for t in texts]
    return {"version": 1, "replies": replies, **top}


def anthropic_body(**extra: Any) -> bytes:
    body = {
        "model": "claude-test",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": "hi"}],
    }
    return json.dumps({**body, **extra}).encode()


def openai_body(**extra: Any) -> bytes:
    body = {"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}]}
    return json.dumps({**body, **extra}).encode()


def post(path: str, body: bytes, *headers: tuple[str, str]) -> HttpRequest:
    return HttpRequest("POST", path, (("content-type", "application/json"), *headers), body)


def head_of(plan: Plan) -> SendHead:
    return next(s for s in plan.steps if isinstance(s, SendHead))


def body_of(plan: Plan) -> bytes:
    return b"".join(s.data for s in plan.steps if isinstance(s, SendBytes))


def json_of(plan: Plan) -> Any:
    return json.loads(body_of(plan))


def one(script: dict[str, Any], request: HttpRequest) -> Plan:
    return provider(script).respond(ProviderState(), request)[1]


# ------------------------------------------------------------------------------------------
# Accumulators written independently of the core: what a client makes of a stream
# ------------------------------------------------------------------------------------------
def accumulate_anthropic(frames: list[tuple[str | None, str]]) -> dict[str, Any]:
    message: dict[str, Any] | None = None
    partial: dict[int, str] = {}
    for event, data in frames:
        payload = json.loads(data)
        assert event == payload["type"], "event name must equal the data's type"
        kind = payload["type"]
        if kind == "message_start":
            message = payload["message"]
            assert message["content"] == [] and message["stop_reason"] is None
        elif kind == "content_block_start":
            assert message is not None and payload["index"] == len(message["content"])
            message["content"].append(payload["content_block"])
        elif kind == "content_block_delta":
            assert message is not None
            block, delta = message["content"][payload["index"]], payload["delta"]
            if delta["type"] == "text_delta":
                block["text"] += delta["text"]
            elif delta["type"] == "thinking_delta":
                block["thinking"] += delta["thinking"]
            elif delta["type"] == "signature_delta":
                block["signature"] = delta["signature"]
            elif delta["type"] == "input_json_delta":
                partial[payload["index"]] = (
                    partial.get(payload["index"], "") + delta["partial_json"]
                )
        elif kind == "content_block_stop":
            assert message is not None
            if payload["index"] in partial:
                message["content"][payload["index"]]["input"] = json.loads(
                    partial[payload["index"]]
                )
        elif kind == "message_delta":
            assert message is not None
            message["stop_reason"] = payload["delta"]["stop_reason"]
            message["stop_sequence"] = payload["delta"]["stop_sequence"]
            message["usage"]["output_tokens"] = payload["usage"]["output_tokens"]
        elif kind == "message_stop":
            assert message is not None
            return message
    raise AssertionError("no message_stop")


def accumulate_openai(frames: list[tuple[str | None, str]]) -> dict[str, Any]:
    assert frames[-1] == ("message", "[DONE]")
    message: dict[str, Any] = {}
    calls: list[dict[str, Any]] = []
    finish = None
    usage = None
    first = json.loads(frames[0][1])
    for event, data in frames[:-1]:
        assert event == "message"  # no event line: the SSE default name
        chunk = json.loads(data)
        assert chunk["object"] == "chat.completion.chunk" and chunk["id"] == first["id"]
        if chunk.get("usage"):
            usage = chunk["usage"]
        for choice in chunk["choices"]:
            delta = choice["delta"]
            for key, value in delta.items():
                if key == "tool_calls":
                    for call in value:
                        if call["index"] == len(calls):
                            calls.append(
                                {
                                    "id": call["id"],
                                    "type": call["type"],
                                    "function": {"name": call["function"]["name"], "arguments": ""},
                                }
                            )
                        calls[call["index"]]["function"]["arguments"] += call["function"].get(
                            "arguments", ""
                        )
                elif key == "role":
                    message["role"] = value
                elif value is None:
                    message.setdefault(key, None)
                else:
                    message[key] = (message.get(key) or "") + value
            finish = choice["finish_reason"] or finish
    if calls:
        message["tool_calls"] = calls
    return {"message": message, "finish_reason": finish, "usage": usage}


# ------------------------------------------------------------------------------------------
# Scripts: the JSON Schema and the core's parser agree
# ------------------------------------------------------------------------------------------
GOOD_SCRIPTS = [
    {"version": 1, "replies": []},
    text_script("a", on_exhausted="cycle", defaults={"chunk_chars": 3, "ping": False}),
    {
        "version": 1,
        "replies": [
            {
                "name": "t",
                "match": {
                    "api": "openai",
                    "stream": True,
                    "model": "m",
                    "last_user_text_contains": "x",
                },
                "content": [
                    {"type": "thinking", "thinking": "", "signature": "s"},
                    {"type": "redacted_thinking", "data": "d"},
                    {"type": "tool_call", "name": "f", "input": {"a": [1]}, "id": "c1"},
                ],
                "stop_reason": "max_tokens",
                "finish_reason": "length",
                "usage": {"input_tokens": 0, "output_tokens": 7},
                "model": "x",
                "chunk_chars": 1,
                "faults": [
                    {"kind": "delay", "seconds": 0.5},
                    {"kind": "delay", "seconds": 0, "after_events": 2},
                    {"kind": "malformed_chunk", "data": "{oops"},
                    {
                        "kind": "http_error",
                        "status": 503,
                        "code": "c",
                        "headers": {"Retry-After": "2"},
                    },
                ],
            }
        ],
        "defaults": {"reasoning_field": "omit", "max_body_bytes": 10, "model": "fixed"},
        "description": "all fields",
        "$schema": "x",
    },
]

BAD_SCRIPTS = [
    ({"replies": []}, ""),
    ({"version": 2, "replies": []}, "/version"),
    ({"version": 1, "replies": {}}, "/replies"),
    ({"version": 1, "replies": [], "extra": 1}, "/extra"),
    ({"version": 1, "replies": [], "on_exhausted": "loop"}, "/on_exhausted"),
    ({"version": 1, "replies": [], "defaults": {"chunk_chars": 0}}, "/defaults/chunk_chars"),
    ({"version": 1, "replies": [{"content": [{"type": "image"}]}]}, "/replies/0/content/0/type"),
    ({"version": 1, "replies": [{"content": [{"type": "text"}]}]}, "/replies/0/content/0"),
    (
        {
            "version": 1,
            "replies": [{"content": [{"type": "tool_call", "name": "f", "input": [1]}]}],
        },
        "/replies/0/content/0/input",
    ),
    (
        {"version": 1, "replies": [{"content": [{"type": "tool_call", "name": ""}]}]},
        "/replies/0/content/0/name",
    ),
    ({"version": 1, "replies": [{"stop_reason": "stop"}]}, "/replies/0/stop_reason"),
    ({"version": 1, "replies": [{"finish_reason": "end_turn"}]}, "/replies/0/finish_reason"),
    ({"version": 1, "replies": [{"match": {"api": "gemini"}}]}, "/replies/0/match/api"),
    ({"version": 1, "replies": [{"faults": [{"kind": "explode"}]}]}, "/replies/0/faults/0/kind"),
    (
        {"version": 1, "replies": [{"faults": [{"kind": "delay", "seconds": -1}]}]},
        "/replies/0/faults/0/seconds",
    ),
    (
        {"version": 1, "replies": [{"faults": [{"kind": "delay", "seconds": 601}]}]},
        "/replies/0/faults/0/seconds",
    ),
    (
        {"version": 1, "replies": [{"faults": [{"kind": "http_error", "status": 200}]}]},
        "/replies/0/faults/0/status",
    ),
    (
        {
            "version": 1,
            "replies": [
                {
                    "faults": [
                        {"kind": "http_error", "status": 500, "headers": {"content-length": "1"}}
                    ]
                }
            ],
        },
        "/replies/0/faults/0/headers/content-length",
    ),
    (
        {
            "version": 1,
            "replies": [
                {
                    "faults": [
                        {"kind": "http_error", "status": 500, "headers": {"x-a": "1\r\nx-b: 2"}}
                    ]
                }
            ],
        },
        "/replies/0/faults/0/headers/x-a",
    ),
    (
        {"version": 1, "replies": [{"faults": [{"kind": "stream_error", "error_type": "oops"}]}]},
        "/replies/0/faults/0/error_type",
    ),
]


@pytest.mark.parametrize("script", GOOD_SCRIPTS, ids=range(len(GOOD_SCRIPTS)))
def test_good_scripts_pass_schema_and_parser(script: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator(SCRIPT_SCHEMA).validate(script)
    parsed = parse_script(script)
    assert len(parsed.replies) == len(script["replies"])


@pytest.mark.parametrize(("script", "pointer"), BAD_SCRIPTS, ids=[p or "/" for _, p in BAD_SCRIPTS])
def test_bad_scripts_fail_schema_and_parser(script: dict[str, Any], pointer: str) -> None:
    assert list(jsonschema.Draft202012Validator(SCRIPT_SCHEMA).iter_errors(script))
    with pytest.raises(TckError) as caught:
        parse_script(script)
    assert caught.value.code == "INVALID_SCRIPT"
    assert caught.value.pointer == (pointer or "/")


def test_the_parser_checks_what_the_schema_cannot() -> None:
    # Two terminal faults, repeated tool call ids, a "malformed" chunk that is valid JSON.
    two_terminal = {
        "version": 1,
        "replies": [{"faults": [{"kind": "drop"}, {"kind": "stream_error"}]}],
    }
    same_ids = {
        "version": 1,
        "replies": [
            {
                "content": [
                    {"type": "tool_call", "name": "f", "id": "a"},
                    {"type": "tool_call", "name": "g", "id": "a"},
                ]
            }
        ],
    }
    json_data = {"version": 1, "replies": [{"faults": [{"kind": "malformed_chunk", "data": "{}"}]}]}
    for script, pointer in (
        (two_terminal, "/replies/0/faults/1"),
        (same_ids, "/replies/0/content"),
        (json_data, "/replies/0/faults/0/data"),
    ):
        jsonschema.Draft202012Validator(SCRIPT_SCHEMA).validate(script)
        with pytest.raises(TckError) as caught:
            parse_script(script)
        assert caught.value.pointer == pointer


def test_the_script_schema_and_openapi_document_are_valid_schemas() -> None:
    jsonschema.Draft202012Validator.check_schema(SCRIPT_SCHEMA)
    assert OPENAPI["openapi"].startswith("3.1")
    for schema in OPENAPI["components"]["schemas"].values():
        jsonschema.Draft202012Validator.check_schema(schema)
    for route in (
        "/v1/messages",
        "/anthropic/v1/messages",
        "/v1/chat/completions",
        "/chat/completions",
    ):
        responses = OPENAPI["paths"][route]["post"]["responses"]
        assert {"200", "400", "413", "default"} <= set(responses)
        assert set(responses["200"]["content"]) == {"application/json", "text/event-stream"}


# ------------------------------------------------------------------------------------------
# Hypothesis: any reply, in both APIs, plain and streamed, agrees with itself and the doc
# ------------------------------------------------------------------------------------------
json_leaf = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8)
json_value = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
parts = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, st.text(max_size=40)),
    st.builds(lambda t: {"type": "thinking", "thinking": t}, st.text(max_size=40)),
    st.builds(
        lambda t, s: {"type": "thinking", "thinking": t, "signature": s},
        st.text(max_size=20),
        st.text(min_size=1, max_size=10),
    ),
    st.builds(lambda d: {"type": "redacted_thinking", "data": d}, st.text(min_size=1, max_size=10)),
    st.builds(
        lambda n, i: {"type": "tool_call", "name": n, "input": i},
        st.text(min_size=1, max_size=10),
        st.dictionaries(st.text(max_size=6), json_value, max_size=4),
    ),
)
replies = st.fixed_dictionaries(
    {"content": st.lists(parts, max_size=5)},
    optional={
        "chunk_chars": st.integers(1, 12),
        "stop_reason": st.sampled_from(["end_turn", "max_tokens", "tool_use", "refusal"]),
        "usage": st.fixed_dictionaries(
            {"input_tokens": st.integers(0, 99), "output_tokens": st.integers(0, 99)}
        ),
    },
)


@PROPS
@given(
    reply=replies,
    include_usage=st.booleans(),
    ping=st.booleans(),
    reasoning=st.sampled_from(["reasoning_content", "reasoning", "omit"]),
)
def test_streams_assemble_to_the_plain_reply_and_match_the_openapi_document(
    reply: dict[str, Any], include_usage: bool, ping: bool, reasoning: str
) -> None:
    script = {
        "version": 1,
        "replies": [reply],
        "defaults": {"ping": ping, "reasoning_field": reasoning},
    }
    core = provider(script)
    state = ProviderState()

    def run(path: str, body: bytes) -> Plan:
        return core.respond(state, post(path, body), created=1_700_000_000)[1]

    # Anthropic: the plain message is a valid Message; the stream's events are valid events,
    # in the documented order, and assemble to the same message.
    plain = run("/v1/messages", anthropic_body())
    assert head_of(plain).status == 200 and not head_of(plain).chunked
    message = json_of(plain)
    assert_valid("AnthropicMessage", message)
    streamed = run("/v1/messages", anthropic_body(stream=True))
    assert head_of(streamed).chunked
    assert dict(head_of(streamed).headers)["content-type"].startswith("text/event-stream")
    assert isinstance(streamed.steps[-1], Finish)
    frames = decode_sse(body_of(streamed))
    for event, data in frames:
        assert_valid("AnthropicStreamEvent", {"event": event, "data": data})
        assert_valid("AnthropicStreamEventData", json.loads(data))
    names = [e for e, _ in frames]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    assert ("ping" in names) == ping
    assembled = accumulate_anthropic(frames)
    for m in (assembled, message):
        m["usage"].pop("input_tokens")  # the streamed request body is longer by "stream":true
    assert assembled == message

    # OpenAI: the same for chat.completion and chat.completion.chunk.
    plain = run("/v1/chat/completions", openai_body())
    completion = json_of(plain)
    assert_valid("OpenAIChatCompletion", completion)
    options = {"stream_options": {"include_usage": True}} if include_usage else {}
    streamed = run("/v1/chat/completions", openai_body(stream=True, **options))
    frames = decode_sse(body_of(streamed))
    for _, data in frames:
        assert_valid("OpenAIStreamEvent", {"data": data})
        if data != "[DONE]":
            assert_valid("OpenAIChatCompletionChunk", json.loads(data))
    assembled = accumulate_openai(frames)
    choice = completion["choices"][0]
    expected = {k: v for k, v in choice["message"].items() if k != "refusal"}
    assert assembled["message"] == expected
    assert assembled["finish_reason"] == choice["finish_reason"]
    assert (assembled["usage"] is not None) == include_usage
    if reasoning == "omit" or not any(p["type"] == "thinking" for p in reply["content"]):
        assert "reasoning_content" not in expected and "reasoning" not in expected


def test_a_reply_renders_each_part_as_each_provider_does() -> None:
    script = {
        "version": 1,
        "replies": [
            {
                "content": [
                    {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                    {"type": "redacted_thinking", "data": "xyz"},
                    {"type": "text", "text": "Reading."},
                    {"type": "tool_call", "name": "read", "input": {"path": "a"}, "id": "T1"},
                    {"type": "tool_call", "name": "list", "input": {}},
                ]
            }
        ],
        "on_exhausted": "repeat_last",
    }
    message = json_of(one(script, post("/v1/messages", anthropic_body())))
    assert message["content"] == [
        {"type": "thinking", "thinking": "hmm", "signature": "sig"},
        {"type": "redacted_thinking", "data": "xyz"},
        {"type": "text", "text": "Reading."},
        {"type": "tool_use", "id": "T1", "name": "read", "input": {"path": "a"}},
        {"type": "tool_use", "id": "toolu_mock_000001_4", "name": "list", "input": {}},
    ]
    assert message["stop_reason"] == "tool_use" and message["id"] == "msg_mock_000001"
    completion = json_of(one(script, post("/v1/chat/completions", openai_body())))
    msg = completion["choices"][0]["message"]
    assert msg["content"] == "Reading." and msg["reasoning_content"] == "hmm"
    assert [c["id"] for c in msg["tool_calls"]] == ["T1", "call_mock_000001_4"]
    assert msg["tool_calls"][0]["function"] == {"name": "read", "arguments": '{"path":"a"}'}
    assert completion["choices"][0]["finish_reason"] == "tool_calls"
    assert completion["usage"]["total_tokens"] == (
        completion["usage"]["prompt_tokens"] + completion["usage"]["completion_tokens"]
    )


def test_anthropic_stream_event_sequence_is_the_real_one() -> None:
    script = {
        "version": 1,
        "replies": [
            {
                "chunk_chars": 4,
                "content": [
                    {"type": "thinking", "thinking": "abcdef"},
                    {"type": "text", "text": "hello"},
                    {"type": "tool_call", "name": "f", "input": {"k": 1}},
                ],
            }
        ],
    }
    frames = decode_sse(body_of(one(script, post("/v1/messages", anthropic_body(stream=True)))))
    events = [json.loads(d) for _, d in frames]
    shape = [(e["type"], e.get("delta", {}).get("type")) for e in events]
    assert shape == [
        ("message_start", None),
        ("ping", None),
        ("content_block_start", None),
        ("content_block_delta", "thinking_delta"),
        ("content_block_delta", "thinking_delta"),
        ("content_block_delta", "signature_delta"),
        ("content_block_stop", None),
        ("content_block_start", None),
        ("content_block_delta", "text_delta"),
        ("content_block_delta", "text_delta"),
        ("content_block_stop", None),
        ("content_block_start", None),
        ("content_block_delta", "input_json_delta"),
        ("content_block_delta", "input_json_delta"),
        ("content_block_delta", "input_json_delta"),
        ("content_block_stop", None),
        ("message_delta", None),
        ("message_stop", None),
    ]
    assert events[2]["content_block"] == {"type": "thinking", "thinking": "", "signature": ""}
    assert events[11]["content_block"]["input"] == {}
    assert events[12]["delta"]["partial_json"] == ""  # the real API opens tool input empty
    assert events[-2]["delta"]["stop_reason"] == "tool_use"
    assert body_of(one(script, post("/v1/messages", anthropic_body(stream=True)))).startswith(
        b"event: message_start\ndata: {"
    )


def test_openai_stream_chunks_are_the_real_shape() -> None:
    script = {
        "version": 1,
        "replies": [
            {
                "chunk_chars": 100,
                "content": [
                    {"type": "thinking", "thinking": "why"},
                    {"type": "text", "text": "Hi"},
                    {"type": "tool_call", "name": "f", "input": {"a": 1}, "id": "c9"},
                ],
            }
        ],
    }
    raw = body_of(one(script, post("/chat/completions", openai_body(stream=True))))
    assert raw.endswith(b"data: [DONE]\n\n") and b"event:" not in raw
    chunks = [json.loads(d) for _, d in decode_sse(raw)[:-1]]
    deltas = [c["choices"][0]["delta"] for c in chunks]
    assert deltas == [
        {"role": "assistant", "content": ""},
        {"reasoning_content": "why"},
        {"content": "Hi"},
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "c9",
                    "type": "function",
                    "function": {"name": "f", "arguments": ""},
                }
            ]
        },
        {"tool_calls": [{"index": 0, "function": {"arguments": '{"a":1}'}}]},
        {},
    ]
    assert [c["choices"][0]["finish_reason"] for c in chunks] == [None] * 5 + ["tool_calls"]
    assert {c["id"] for c in chunks} == {"chatcmpl-mock-000001"}


# ------------------------------------------------------------------------------------------
# Errors, shaped as each provider shapes them
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "anthropic_message", "openai_param", "openai_code"),
    [
        (b"{not json", "not valid JSON", None, None),
        (b"\xff\xfe", "not valid JSON", None, None),
        (b'{"a": NaN}', "not valid JSON", None, None),
        (b"[]", "body: expected an object", None, "invalid_type"),
        (
            b'{"max_tokens": 5, "messages": [{"role": "user", "content": "x"}]}',
            "model: Field required",
            "model",
            "missing_required_parameter",
        ),
    ],
)
def test_request_errors_have_each_providers_shape(
    body: bytes, anthropic_message: str, openai_param: str | None, openai_code: str | None
) -> None:
    script = text_script("x")
    plan = one(script, post("/v1/messages", body))
    assert head_of(plan).status == 400
    error = json_of(plan)
    assert_valid("AnthropicError", error)
    assert error["type"] == "error" and error["error"]["type"] == "invalid_request_error"
    assert anthropic_message in error["error"]["message"]
    assert dict(head_of(plan).headers)["request-id"] == error["request_id"]
    plan = one(script, post("/v1/chat/completions", body))
    assert head_of(plan).status == 400
    error = json_of(plan)
    assert_valid("OpenAIError", error)
    assert set(error["error"]) == {"message", "type", "param", "code"}
    assert error["error"]["type"] == "invalid_request_error"
    assert error["error"]["param"] == openai_param and error["error"]["code"] == openai_code


def test_schema_violations_name_the_parameter() -> None:
    script = text_script("x")
    bad_role = json.dumps({"model": "m", "messages": [{"role": "robot", "content": "x"}]}).encode()
    error = json_of(one(script, post("/v1/chat/completions", bad_role)))["error"]
    assert (error["param"], error["code"]) == ("messages[0].role", "invalid_value")
    error = json_of(one(script, post("/v1/messages", anthropic_body(max_tokens="9"))))["error"]
    assert error["message"].startswith("max_tokens: expected an integer")
    error = json_of(one(script, post("/v1/chat/completions", openai_body(n=2))))["error"]
    assert (error["param"], error["code"]) == ("n", "integer_above_max_value")
    error = json_of(one(script, post("/v1/messages", anthropic_body(messages=[]))))["error"]
    assert error["message"].startswith("messages: empty array")


def test_lone_surrogates_are_rejected_and_paired_ones_echoed() -> None:
    script = text_script("x", on_exhausted="repeat_last")
    lone = b'{"model":"\\ud800","max_tokens":1,"messages":[{"role":"user","content":"x"}]}'
    assert head_of(one(script, post("/v1/messages", lone))).status == 400
    pair = b'{"model":"\\ud83d\\ude00","max_tokens":1,"messages":[{"role":"user","content":"x"}]}'
    plan = one(script, post("/v1/messages", pair))
    assert head_of(plan).status == 200 and json_of(plan)["model"] == "\U0001f600"


def test_routes_methods_and_sizes() -> None:
    script = text_script("x", defaults={"max_body_bytes": 200})
    core = provider(script)
    state = ProviderState()

    def go(method: str, path: str, body: bytes = b"", *headers: tuple[str, str]) -> Plan:
        return core.respond(state, HttpRequest(method, path, headers, body))[1]

    plan = go("GET", "/v1/messages")
    assert head_of(plan).status == 405 and dict(head_of(plan).headers)["allow"] == "POST"
    assert json_of(plan)["type"] == "error"
    plan = go("PATCH", "/v1/chat/completions")
    assert head_of(plan).status == 405 and "error" in json_of(plan)
    plan = go("HEAD", "/v1/messages")
    assert head_of(plan).status == 405 and body_of(plan) == b""
    assert int(dict(head_of(plan).headers)["content-length"]) > 0
    plan = go("POST", "/v2/other", b"", ("anthropic-version", "2023-06-01"))
    assert head_of(plan).status == 404 and json_of(plan)["error"]["type"] == "not_found_error"
    plan = go("POST", "/v2/other")
    assert head_of(plan).status == 404
    assert json_of(plan)["error"]["message"] == "Invalid URL (POST /v2/other)"
    plan = go("GET", "/openapi.json")
    assert head_of(plan).status == 200 and json_of(plan) == OPENAPI
    assert head_of(go("DELETE", "/openapi.json")).status == 405
    assert head_of(go("POST", "/v1/messages?beta=true", anthropic_body())).status == 200
    assert head_of(go("POST", "http://api.example/v1/messages", anthropic_body())).status == 200
    big = anthropic_body(metadata={"pad": "x" * 300})
    plan = go("POST", "/v1/messages", big)
    assert head_of(plan).status == 413 and json_of(plan)["error"]["type"] == "request_too_large"
    unread = HttpRequest("POST", "/v1/chat/completions", (), b"", unread_body_size=10**9)
    plan = core.respond(state, unread)[1]
    assert head_of(plan).status == 413 and set(json_of(plan)["error"]) == {
        "message",
        "type",
        "param",
        "code",
    }


methods = st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "BREW"])
paths = st.sampled_from([*ANTHROPIC_PATHS, *OPENAI_PATHS, "/openapi.json", "/", "/v1/models"])
bodies = st.one_of(
    st.binary(max_size=64),
    st.builds(lambda v: json.dumps(v).encode(), json_value),
    st.builds(
        lambda m, t, msgs, s: json.dumps(
            {"model": m, "max_tokens": t, "messages": msgs, "stream": s}
        ).encode(),
        st.text(max_size=4),
        st.integers(-2, 3) | st.text(max_size=2),
        json_value,
        st.booleans() | st.none(),
    ),
    st.builds(
        lambda msgs, extra: json.dumps(
            {"model": "m", "max_tokens": 1, "messages": msgs, **extra}
        ).encode(),
        st.lists(
            st.fixed_dictionaries(
                {
                    "role": st.sampled_from(["user", "assistant", "tool", "system"]),
                    "content": json_value,
                }
            ),
            max_size=3,
        ),
        st.dictionaries(
            st.sampled_from(["stream", "stream_options", "n", "tools", "system", "temperature"]),
            json_value,
            max_size=3,
        ),
    ),
)


@PROPS
@given(method=methods, path=paths, body=bodies, anthropic_headers=st.booleans())
def test_no_input_gets_a_5xx_and_every_error_is_provider_shaped(
    method: str, path: str, body: bytes, anthropic_headers: bool
) -> None:
    script = text_script("x", "y", on_exhausted="cycle")
    headers = (("x-api-key", "k"),) if anthropic_headers else ()
    state, plan = provider(script).respond(
        ProviderState(), HttpRequest(method, path, headers, body)
    )
    status = head_of(plan).status
    assert status < 500
    if status >= 400 and method != "HEAD":
        error = json_of(plan)
        is_anthropic = path in ANTHROPIC_PATHS or (path not in OPENAI_PATHS and anthropic_headers)
        assert_valid("AnthropicError" if is_anthropic else "OpenAIError", error)
    assert state.requests == 1
    assert (state.consumed == frozenset({0})) == (status == 200 and path != "/openapi.json")


# ------------------------------------------------------------------------------------------
# Choosing replies: order, match, exhaustion
# ------------------------------------------------------------------------------------------
def served(core: MockProvider, requests: list[HttpRequest]) -> list[tuple[int, int | None]]:
    state = ProviderState()
    out = []
    for request in requests:
        state, plan = core.respond(state, request)
        out.append((head_of(plan).status, plan.exchange.reply))
    return out


def test_replies_are_used_once_in_order_and_exhaustion_follows_the_policy() -> None:
    reqs = [post("/v1/messages", anthropic_body())] * 4
    assert served(provider(text_script("a", "b")), reqs) == [
        (200, 0),
        (200, 1),
        (400, None),
        (400, None),
    ]
    assert served(provider(text_script("a", "b", on_exhausted="repeat_last")), reqs) == [
        (200, 0),
        (200, 1),
        (200, 1),
        (200, 1),
    ]
    assert served(provider(text_script("a", "b", on_exhausted="cycle")), reqs) == [
        (200, 0),
        (200, 1),
        (200, 0),
        (200, 1),
    ]
    assert served(provider(text_script(on_exhausted="repeat_last")), reqs[:1]) == [(400, None)]
    plan = one(text_script(), post("/v1/chat/completions", openai_body()))
    assert "no reply left for request #1" in json_of(plan)["error"]["message"]


def test_match_picks_the_first_unused_reply_that_fits() -> None:
    script = {
        "version": 1,
        "replies": [
            {"match": {"api": "openai"}, "content": [{"type": "text", "text": "oa"}]},
            {
                "match": {"last_user_text_contains": "child"},
                "content": [{"type": "text", "text": "c"}],
            },
            {
                "match": {"stream": True, "model": "claude-test"},
                "content": [{"type": "text", "text": "s"}],
            },
            {"content": [{"type": "text", "text": "any"}]},
        ],
    }
    child = anthropic_body(
        messages=[
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t",
                        "content": [{"type": "text", "text": "to the child"}],
                    }
                ],
            }
        ]
    )
    got = served(
        provider(script),
        [
            post("/v1/messages", anthropic_body()),  # not openai, no "child", not stream
            post("/v1/messages", anthropic_body(stream=True)),
            post("/v1/messages", child),
            post("/v1/chat/completions", openai_body()),
            post("/v1/chat/completions", openai_body()),
        ],
    )
    assert got == [(200, 3), (200, 2), (200, 1), (200, 0), (400, None)]


def test_replies_are_not_consumed_by_rejected_requests() -> None:
    reqs = [
        post("/v1/messages", b"{}"),
        HttpRequest("GET", "/v1/messages"),
        post("/v1/messages", anthropic_body()),
    ]
    assert served(provider(text_script("a")), reqs) == [(400, None), (405, None), (200, 0)]


# ------------------------------------------------------------------------------------------
# Faults, woven into the plan
# ------------------------------------------------------------------------------------------
def fault_plan(
    faults: list[dict[str, Any]],
    *,
    stream: bool = True,
    api: str = "anthropic",
) -> Plan:
    script = {
        "version": 1,
        "replies": [
            {"content": [{"type": "text", "text": "abcdefgh"}], "chunk_chars": 4, "faults": faults}
        ],
        "defaults": {"ping": False},
    }
    if api == "anthropic":
        return one(script, post("/v1/messages", anthropic_body(stream=stream)))
    return one(script, post("/v1/chat/completions", openai_body(stream=stream)))


def kinds(plan: Plan) -> list[str]:
    return [type(s).__name__ for s in plan.steps]


def test_delay_before_head_and_between_events() -> None:
    plan = fault_plan(
        [{"kind": "delay", "seconds": 1.5}, {"kind": "delay", "seconds": 0.25, "after_events": 2}]
    )
    assert kinds(plan)[:2] == ["Pause", "SendHead"]
    assert plan.steps[0] == Pause(1.5)
    sends = [i for i, s in enumerate(plan.steps) if isinstance(s, SendBytes)]
    assert plan.steps[sends[1] + 1] == Pause(0.25) and len(sends) == 7
    assert isinstance(plan.steps[-1], Finish)
    assert kinds(fault_plan([{"kind": "delay", "seconds": 2}], stream=False)) == [
        "Pause",
        "SendHead",
        "SendBytes",
        "Finish",
    ]


def test_drop_mid_stream_and_before_a_plain_response() -> None:
    plan = fault_plan([{"kind": "drop", "after_events": 3}])
    assert kinds(plan) == ["SendHead", "SendBytes", "SendBytes", "SendBytes", "Abort"]
    assert plan.exchange.status == 200
    plan = fault_plan([{"kind": "drop", "after_events": 99}], api="openai")
    assert isinstance(plan.steps[-1], Abort) and body_of(plan).endswith(b"data: [DONE]\n\n")
    plan = fault_plan([{"kind": "drop"}], stream=False)
    assert plan.steps == (Abort(),) and plan.exchange.status is None


def test_malformed_chunk_inserts_one_non_json_event_and_the_stream_goes_on() -> None:
    plan = fault_plan([{"kind": "malformed_chunk", "after_events": 2}])
    frames = decode_sse(body_of(plan))
    bad = [i for i, (_, d) in enumerate(frames) if not _json_ok(d)]
    assert bad == [2]
    assert frames[2][0] == frames[3][0] == "content_block_delta"  # named as the event it spoils
    assert frames[3][1].startswith(frames[2][1])
    assert frames[-1][0] == "message_stop"
    plan = fault_plan(
        [{"kind": "malformed_chunk", "after_events": 0, "data": "line1\nline2"}], api="openai"
    )
    assert decode_sse(body_of(plan))[0] == ("message", "line1\nline2")
    plain = fault_plan([{"kind": "malformed_chunk"}], stream=False)
    assert head_of(plain).status == 200 and not _json_ok(body_of(plain).decode())
    assert int(dict(head_of(plain).headers)["content-length"]) == len(body_of(plain))


def test_stream_error_ends_the_stream_with_the_providers_error_event() -> None:
    plan = fault_plan(
        [{"kind": "stream_error", "after_events": 1, "error_type": "api_error", "message": "boom"}]
    )
    frames = decode_sse(body_of(plan))
    assert frames[-1] == (
        "error",
        json.dumps({"type": "error", "error": {"type": "api_error", "message": "boom"}}),
    )
    assert len(frames) == 2 and isinstance(plan.steps[-1], Finish)
    plan = fault_plan([{"kind": "stream_error"}], api="openai")
    ((event, data),) = decode_sse(body_of(plan))
    assert event == "message"  # no event line: the SSE default name
    assert json.loads(data)["error"]["type"] == "server_error"
    assert_valid("OpenAIError", json.loads(data))
    plain = fault_plan([{"kind": "stream_error", "error_type": "rate_limit_error"}], stream=False)
    assert head_of(plain).status == 429 and json_of(plain)["error"]["type"] == "rate_limit_error"


@pytest.mark.parametrize(
    ("status", "anthropic_type", "openai_type", "openai_code"),
    [
        (400, "invalid_request_error", "invalid_request_error", None),
        (401, "authentication_error", "invalid_request_error", "invalid_api_key"),
        (429, "rate_limit_error", "requests", "rate_limit_exceeded"),
        (500, "api_error", "server_error", None),
        (529, "overloaded_error", "server_error", None),
        (418, "invalid_request_error", "invalid_request_error", None),
    ],
)
def test_http_error_defaults_by_status(
    status: int, anthropic_type: str, openai_type: str, openai_code: str | None
) -> None:
    for stream in (True, False):
        plan = fault_plan(
            [{"kind": "http_error", "status": status, "headers": {"Retry-After": "3"}}],
            stream=stream,
        )
        assert head_of(plan).status == status and not head_of(plan).chunked
        assert dict(head_of(plan).headers)["retry-after"] == "3"
        error = json_of(plan)
        assert_valid("AnthropicError", error)
        assert error["error"]["type"] == anthropic_type
        plan = fault_plan([{"kind": "http_error", "status": status}], stream=stream, api="openai")
        error = json_of(plan)["error"]
        assert (error["type"], error["code"], error["param"]) == (openai_type, openai_code, None)
    plan = fault_plan(
        [
            {
                "kind": "http_error",
                "status": 400,
                "error_type": "x",
                "message": "m",
                "code": "c",
                "param": "p",
            }
        ],
        api="openai",
    )
    assert json_of(plan) == {"error": {"message": "m", "type": "x", "param": "p", "code": "c"}}


def _json_ok(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def test_sse_encoding_round_trips() -> None:
    frame = encode_sse("e", "a\nb")
    assert frame == b"event: e\ndata: a\ndata: b\n\n"
    assert decode_sse(frame + b": comment\n\ndata: x\r\n\r\ndata: tail-without-end") == (
        ("e", "a\nb"),
        ("message", "x"),
    )


def test_plans_are_values_and_the_core_keeps_no_state() -> None:
    core = provider(text_script("a"))
    state = ProviderState()
    request = post("/v1/messages", anthropic_body())
    first = core.respond(state, request)
    assert core.respond(state, request) == first  # same inputs, same outputs
    assert state == ProviderState()  # the input state was not changed
    with pytest.raises(AttributeError):
        first[0].requests = 5  # type: ignore[misc]
    assert any(isinstance(s, Abort) for s in fault_plan([{"kind": "drop"}]).steps)


def test_the_example_script_in_the_docs_is_valid() -> None:
    text = (ROOT / "docs" / "MOCK_PROVIDER.md").read_text(encoding="utf-8")
    example = text.split("## The script", 1)[1].split("```json", 1)[1].split("```", 1)[0]
    script = json.loads(example)
    jsonschema.Draft202012Validator(SCRIPT_SCHEMA).validate(script)
    core = provider(script)
    child = anthropic_body(messages=[{"role": "user", "content": "You are a sub-agent. Go."}])
    reqs = [
        post("/v1/messages", anthropic_body()),  # the first reply answers anything
        post("/v1/messages", anthropic_body()),  # 1 wants the child, 2 a stream: 3 answers
        post("/v1/chat/completions", openai_body(stream=True)),
        post("/v1/messages", child),
        post("/v1/messages", anthropic_body()),
        post("/v1/messages", anthropic_body()),
    ]
    assert served(core, reqs) == [(200, 0), (429, 3), (200, 2), (200, 1), (200, 4), (400, None)]
