"""Round trips with the real ``anthropic`` and ``openai`` SDKs against the real server on 127.0.0.1.

Each test starts its own server (a free port, a thread) with the script it needs; clients
never retry (``max_retries=0``) so a scripted fault surfaces as exactly one exception.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from lazy_import import lazy

from agent_tck.harness.mock_provider.server import MockProviderServer, load_openapi_document, start

anthropic = lazy("anthropic")  # imported on first use (tests/lazy_import.py)
openai = lazy("openai")  # imported on first use (tests/lazy_import.py)

pytestmark = pytest.mark.slow

USER = [{"role": "user", "content": "Read the hosts file."}]
THINK_TEXT_TOOL = [
    {"type": "thinking", "thinking": "The user wants a file read; use the tool."},
    {"type": "text", "text": "I'll read it now — one moment."},
    {
        "type": "tool_call",
        "name": "read_file",
        "input": {"path": "/etc/hosts", "lines": [1, 2]},
        "id": "toolu_01",
    },
]


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[MockProviderServer] = []

    def _serve(*replies: dict[str, Any], **top: Any) -> tuple[MockProviderServer, str]:
        server, url = start({"version": 1, "replies": list(replies), **top})
        servers.append(server)
        return server, url

    yield _serve
    for server in servers:
        server.close()


def claude(url: str) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=url, api_key="sk-ant-test", max_retries=0, timeout=10)


def gpt(url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=url + "/v1", api_key="sk-test", max_retries=0, timeout=10)


def create(client: anthropic.Anthropic, **extra: Any) -> Any:
    return client.messages.create(model="claude-test", max_tokens=256, messages=USER, **extra)


def chat(client: openai.OpenAI, **extra: Any) -> Any:
    return client.chat.completions.create(model="gpt-test", messages=USER, **extra)


# ------------------------------------------------------------------------------------------
# Anthropic
# ------------------------------------------------------------------------------------------
def test_anthropic_plain_and_streamed_replies_agree(serve: Any) -> None:
    _, url = serve({"content": THINK_TEXT_TOOL, "chunk_chars": 5}, on_exhausted="repeat_last")
    client = claude(url)
    message = create(client)
    assert [b.type for b in message.content] == ["thinking", "text", "tool_use"]
    assert message.content[0].thinking == THINK_TEXT_TOOL[0]["thinking"]
    assert message.content[0].signature  # a default signature is always present
    assert message.content[1].text == "I'll read it now — one moment."
    assert message.content[2].input == {"path": "/etc/hosts", "lines": [1, 2]}
    assert message.content[2].name == "read_file" and message.stop_reason == "tool_use"
    assert message.model == "claude-test" and message.usage.output_tokens > 0

    with client.messages.stream(model="claude-test", max_tokens=256, messages=USER) as stream:
        texts = list(stream.text_stream)
        final = stream.get_final_message()
    assert "".join(texts) == message.content[1].text and len(texts) > 1
    assert final.model_dump(include={"content", "stop_reason", "role", "model"}) == (
        message.model_dump(include={"content", "stop_reason", "role", "model"})
    )

    raw = [event.type for event in create(client, stream=True)]
    assert raw[0] == "message_start" and raw[-2:] == ["message_delta", "message_stop"]
    assert raw.count("content_block_start") == raw.count("content_block_stop") == 3


def test_anthropic_on_deepseeks_path_and_async_client(serve: Any) -> None:
    server, url = serve(
        {"content": [{"type": "text", "text": "async hello"}]},
        {"content": [{"type": "text", "text": "deepseek"}]},
    )

    async def go() -> str:
        client = anthropic.AsyncAnthropic(base_url=url, api_key="k", max_retries=0)
        async with client.messages.stream(model="m", max_tokens=9, messages=USER) as stream:
            return (await stream.get_final_message()).content[0].text

    assert asyncio.run(go()) == "async hello"
    assert create(claude(url + "/anthropic")).content[0].text == "deepseek"
    assert [e.path for e in server.exchanges] == ["/v1/messages", "/anthropic/v1/messages"]
    assert json.loads(server.received[1].body)["messages"] == USER


def test_anthropic_errors_are_the_sdks_typed_errors(serve: Any) -> None:
    _, url = serve(
        {"faults": [{"kind": "http_error", "status": 429, "headers": {"retry-after": "7"}}]},
        {"faults": [{"kind": "http_error", "status": 529, "message": "busy"}]},
    )
    client = claude(url)
    with pytest.raises(anthropic.BadRequestError) as bad:
        client.messages.create(model="m", max_tokens=0, messages=USER)
    assert bad.value.body["error"]["type"] == "invalid_request_error"  # type: ignore[index]
    assert bad.value.body["error"]["message"].startswith("max_tokens:")  # type: ignore[index]
    assert bad.value.request_id and bad.value.request_id.startswith("req_mock_")
    with pytest.raises(anthropic.RateLimitError) as limited:
        create(client)
    assert limited.value.response.headers["retry-after"] == "7"
    assert limited.value.body["error"]["type"] == "rate_limit_error"  # type: ignore[index]
    with pytest.raises(anthropic.InternalServerError) as overloaded:
        create(client, stream=True)
    assert overloaded.value.status_code == 529
    assert overloaded.value.body["error"] == {"type": "overloaded_error", "message": "busy"}  # type: ignore[index]
    with pytest.raises(anthropic.BadRequestError, match="no reply left"):
        create(client)


def test_anthropic_stream_faults(serve: Any) -> None:
    text = [{"type": "text", "text": "0123456789" * 3}]
    _, url = serve(
        {
            "content": text,
            "chunk_chars": 5,
            "faults": [{"kind": "stream_error", "after_events": 4}],
        },
        {"content": text, "chunk_chars": 5, "faults": [{"kind": "drop", "after_events": 4}]},
        {
            "content": text,
            "chunk_chars": 5,
            "faults": [{"kind": "malformed_chunk", "after_events": 4}],
        },
        {"content": text, "faults": [{"kind": "drop"}]},
    )
    client = claude(url)

    def events_until_failure(**kw: Any) -> tuple[list[str], BaseException]:
        seen: list[str] = []
        with pytest.raises(Exception) as caught:
            for event in create(client, stream=True, **kw):
                seen.append(event.type)
        return seen, caught.value

    seen, error = events_until_failure()
    assert isinstance(error, anthropic.APIStatusError)
    assert error.body == {
        "type": "error",
        "error": {
            "type": "overloaded_error",  # type: ignore[union-attr]
            "message": "Overloaded",
        },
    }
    assert seen == ["message_start", "content_block_start", "content_block_delta"]  # ping skipped
    seen, error = events_until_failure()
    assert isinstance(error, httpx2.RemoteProtocolError | anthropic.APIConnectionError)
    assert len(seen) == 3
    seen, error = events_until_failure()
    assert isinstance(error, ValueError)  # json.JSONDecodeError from the SDK's SSE decoding
    assert len(seen) == 3
    with pytest.raises(anthropic.APIConnectionError):
        create(client)  # a plain request's drop: no response at all


# ------------------------------------------------------------------------------------------
# OpenAI
# ------------------------------------------------------------------------------------------
def test_openai_plain_and_streamed_replies_agree(serve: Any) -> None:
    _, url = serve({"content": THINK_TEXT_TOOL, "chunk_chars": 4}, on_exhausted="repeat_last")
    client = gpt(url)
    completion = chat(client)
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "I'll read it now — one moment."
    assert choice.message.model_extra["reasoning_content"] == THINK_TEXT_TOOL[0]["thinking"]
    (call,) = choice.message.tool_calls or []
    assert call.function.name == "read_file"
    assert json.loads(call.function.arguments) == {"path": "/etc/hosts", "lines": [1, 2]}
    assert completion.usage is not None and completion.usage.total_tokens > 0

    chunks = list(chat(client, stream=True, stream_options={"include_usage": True}))
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == choice.message.content
    reasoning = "".join(
        (c.choices[0].delta.model_extra or {}).get("reasoning_content", "")
        for c in chunks
        if c.choices
    )
    assert reasoning == THINK_TEXT_TOOL[0]["thinking"]

    with client.chat.completions.stream(model="gpt-test", messages=USER) as stream:
        for _ in stream:
            pass
        final = stream.get_final_completion()
    streamed = final.choices[0]
    assert streamed.message.content == choice.message.content
    assert streamed.finish_reason == "tool_calls"
    assert [
        (c.id, c.function.name, c.function.arguments) for c in streamed.message.tool_calls or []
    ] == [(call.id, call.function.name, call.function.arguments)]


def test_openai_on_deepseeks_path_and_async_client(serve: Any) -> None:
    server, url = serve(
        {"content": [{"type": "text", "text": "async"}]},
        {"content": [{"type": "text", "text": "deepseek"}]},
    )

    async def go() -> str:
        client = openai.AsyncOpenAI(base_url=url + "/v1", api_key="k", max_retries=0)
        stream = await client.chat.completions.create(model="m", messages=USER, stream=True)
        return "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])

    assert asyncio.run(go()) == "async"
    deepseek = openai.OpenAI(base_url=url, api_key="k", max_retries=0)
    assert chat(deepseek).choices[0].message.content == "deepseek"
    assert [e.path for e in server.exchanges] == ["/v1/chat/completions", "/chat/completions"]


def test_openai_errors_are_the_sdks_typed_errors(serve: Any) -> None:
    _, url = serve(
        {"faults": [{"kind": "http_error", "status": 429}]},
        {"faults": [{"kind": "http_error", "status": 401, "message": "Incorrect API key"}]},
    )
    client = gpt(url)
    with pytest.raises(openai.BadRequestError) as bad:
        client.chat.completions.create(model="m", messages=[])
    assert (bad.value.code, bad.value.param, bad.value.type) == (
        "empty_array",
        "messages",
        "invalid_request_error",
    )
    with pytest.raises(openai.RateLimitError) as limited:
        chat(client)
    assert limited.value.code == "rate_limit_exceeded"
    with pytest.raises(openai.AuthenticationError) as denied:
        chat(client, stream=True)
    assert denied.value.code == "invalid_api_key" and "Incorrect API key" in denied.value.message


def test_openai_stream_faults(serve: Any) -> None:
    text = [{"type": "text", "text": "0123456789" * 3}]
    _, url = serve(
        {
            "content": text,
            "chunk_chars": 5,
            "faults": [{"kind": "stream_error", "after_events": 3, "error_type": "api_error"}],
        },
        {"content": text, "chunk_chars": 5, "faults": [{"kind": "drop", "after_events": 3}]},
        {
            "content": text,
            "chunk_chars": 5,
            "faults": [{"kind": "malformed_chunk", "after_events": 3}],
        },
        {"content": text, "faults": [{"kind": "drop"}]},
        {"content": text, "faults": [{"kind": "malformed_chunk"}]},
    )
    client = gpt(url)

    def chunks_until_failure() -> tuple[int, BaseException]:
        seen = 0
        with pytest.raises(Exception) as caught:
            for _ in chat(client, stream=True):
                seen += 1
        return seen, caught.value

    seen, error = chunks_until_failure()
    assert isinstance(error, openai.APIError) and seen == 3
    assert error.body == {
        "message": "Overloaded",
        "type": "server_error",
        "param": None,  # type: ignore[union-attr]
        "code": None,
    }
    seen, error = chunks_until_failure()
    assert isinstance(error, openai.APIConnectionError | httpx2.RemoteProtocolError) and seen == 3
    seen, error = chunks_until_failure()
    assert isinstance(error, ValueError) and seen == 3
    with pytest.raises(openai.APIConnectionError):
        chat(client)
    with pytest.raises(ValueError):  # a 200 whose JSON body is cut short
        chat(client)


# ------------------------------------------------------------------------------------------
# The shell: streaming without buffering, HTTP details, clean shutdown
# ------------------------------------------------------------------------------------------
def test_events_leave_as_they_are_written(serve: Any) -> None:
    _, url = serve(
        {
            "content": [{"type": "text", "text": "abcdef"}],
            "chunk_chars": 2,
            "faults": [{"kind": "delay", "seconds": 0.6, "after_events": 3}],
        }
    )
    started = time.monotonic()
    arrivals = []
    with (
        httpx2.Client() as client,
        client.stream(
            "POST",
            url + "/v1/messages",
            json={"model": "m", "max_tokens": 5, "messages": USER, "stream": True},
        ) as response,
    ):
        assert response.headers["transfer-encoding"] == "chunked"
        for _ in response.iter_raw():
            arrivals.append(time.monotonic() - started)
    # The events before the pause arrived before it ended: nothing waits for the whole body.
    assert arrivals[-1] - arrivals[0] >= 0.5
    assert arrivals[-1] >= 0.6


def _raw(url: str, payload: bytes) -> bytes:
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(payload)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
        return data


def test_http_details(serve: Any) -> None:
    server, url = serve(
        {"content": [{"type": "text", "text": "chunked ok"}]}, defaults={"max_body_bytes": 4096}
    )
    body = json.dumps({"model": "m", "max_tokens": 5, "messages": USER}).encode()
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in (body[:10], body[10:])) + b"0\r\n\r\n"
    reply = _raw(
        url,
        b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n" + chunked,
    )
    assert reply.startswith(b"HTTP/1.1 200") and b"chunked ok" in reply
    reply = _raw(url, b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n")
    assert reply.startswith(b"HTTP/1.1 413") and b'"request_too_large"' in reply
    reply = _raw(url, b"BREW /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert reply.startswith(b"HTTP/1.1 405") and b'"param":null' in reply
    conn = http.client.HTTPConnection(*url.removeprefix("http://").split(":"), timeout=5)
    conn.request("GET", "/openapi.json")
    response = conn.getresponse()
    assert response.status == 200 and json.loads(response.read()) == load_openapi_document()
    conn.request("HEAD", "/openapi.json")  # the same keep-alive connection
    head = conn.getresponse()
    assert head.status == 200 and head.read() == b"" and int(head.headers["content-length"]) > 0
    conn.close()
    assert [e.method for e in server.exchanges] == ["POST", "POST", "BREW", "GET", "HEAD"]


def test_close_is_prompt_with_idle_connections_and_pending_pauses() -> None:
    server, url = start(
        {
            "version": 1,
            "replies": [
                {"content": [{"type": "text", "text": "x"}]},
                {
                    "content": [{"type": "text", "text": "slow"}],
                    "faults": [{"kind": "delay", "seconds": 60}],
                },
            ],
        }
    )
    client = claude(url)
    create(client)  # leaves an idle keep-alive connection open
    failure: list[BaseException] = []

    def slow() -> None:
        try:
            create(client)
        except BaseException as exc:
            failure.append(exc)

    waiter = threading.Thread(target=slow)
    waiter.start()
    time.sleep(0.2)
    started = time.monotonic()
    server.close()
    waiter.join(5)
    assert time.monotonic() - started < 2
    assert not waiter.is_alive() and isinstance(failure[0], anthropic.APIConnectionError)
    with pytest.raises(anthropic.APIConnectionError):
        create(client)  # the port is released
    host, port = url.removeprefix("http://").split(":")
    again = MockProviderServer((host, int(port)), server.provider)  # and can be bound again
    again.server_close()


def test_openapi_document_file_is_what_is_served() -> None:
    path = (
        Path(__file__).resolve().parent.parent
        / "harness"
        / "mock_provider"
        / "openapi"
        / ("mock-provider.openapi.json")
    )
    assert json.loads(path.read_text(encoding="utf-8")) == load_openapi_document()


def test_bad_framing_and_core_failures_still_get_provider_shaped_answers(
    serve: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, url = serve({"content": [{"type": "text", "text": "fine"}]})
    reply = _raw(url, b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: \xb2\r\n\r\n")
    assert reply.startswith(b"HTTP/1.1 400") and b"could not be read" in reply
    assert b'"type":"error"' in reply
    reply = _raw(
        url,
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"-1\r\n{}\r\n0\r\n\r\n",
    )
    assert reply.startswith(b"HTTP/1.1 400") and b'"code":null' in reply

    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(server.provider, "respond", broken)
    with pytest.raises(anthropic.InternalServerError) as caught:
        create(claude(url))
    assert caught.value.body["error"]["type"] == "api_error"  # type: ignore[index]
    monkeypatch.undo()
    assert create(claude(url)).content[0].text == "fine"  # still serving


def test_parallel_requests_each_get_one_reply(serve: Any) -> None:
    n = 12
    replies = [{"content": [{"type": "text", "text": f"reply {i}"}]} for i in range(n)]
    server, url = serve(*replies)
    client = gpt(url)
    texts: list[str] = []
    lock = threading.Lock()

    def ask() -> None:
        text = chat(client).choices[0].message.content
        with lock:
            texts.append(text)

    threads = [threading.Thread(target=ask) for _ in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert sorted(texts) == sorted(f"reply {i}" for i in range(n))
    assert sorted(e.ordinal for e in server.exchanges) == list(range(1, n + 1))
    assert sorted(e.reply for e in server.exchanges) == list(range(n))  # type: ignore[type-var]
