"""Schemathesis against the mock provider's OpenAPI document, on the real server.

Every operation gets generated requests, valid and invalid (schemathesis's examples, coverage
and fuzzing phases); every response must pass schemathesis's checks (no 5xx, documented status
and content type, body and each SSE event valid against the document, invalid input rejected
with 4xx) and, when it is an error, be shaped as the provider of that path shapes it.
Bounded: a handful of examples per operation, a few seconds in all.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from agent_tck.harness.mock_provider.server import MockProviderServer, start

pytestmark = pytest.mark.slow

DOCUMENT = (
    Path(__file__).resolve().parent.parent
    / "harness"
    / "mock_provider"
    / "openapi"
    / ("mock-provider.openapi.json")
)
schema = schemathesis.openapi.from_path(DOCUMENT)

SCRIPT = {
    "version": 1,
    "on_exhausted": "cycle",
    "replies": [
        {
            "content": [
                {"type": "thinking", "thinking": "plan"},
                {"type": "text", "text": "hi"},
                {"type": "tool_call", "name": "read", "input": {"path": "a"}},
            ]
        },
        {"content": [{"type": "text", "text": "plain text"}], "stop_reason": "max_tokens"},
        {"content": [{"type": "redacted_thinking", "data": "opaque"}]},
    ],
}

ANTHROPIC_PATHS = {"/v1/messages", "/anthropic/v1/messages"}
OPENAI_PATHS = {"/v1/chat/completions", "/chat/completions"}


@pytest.fixture(scope="module")
def mock_provider() -> Iterator[tuple[MockProviderServer, str]]:
    server, url = start(SCRIPT)
    yield server, url
    server.close()


def provider_error_shape(ctx: Any, response: Any, case: Any) -> None:
    """Errors as the real providers shape them, whatever the status (405s included)."""
    if response.status_code < 400 or case.method.upper() == "HEAD":
        return
    body = json.loads(response.content)
    if case.path in ANTHROPIC_PATHS:
        assert body["type"] == "error", body
        assert isinstance(body["error"]["type"], str) and isinstance(body["error"]["message"], str)
        assert set(body) <= {"type", "error", "request_id"}
    elif case.path in OPENAI_PATHS or case.path == "/openapi.json":
        assert set(body) == {"error"}, body
        assert set(body["error"]) == {"message", "type", "param", "code"}, body
        assert isinstance(body["error"]["message"], str)
        assert body["error"]["param"] is None or isinstance(body["error"]["param"], str)


@schema.parametrize()
@settings(max_examples=8, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_the_mock_provider_conforms_to_its_openapi_document(
    case: Any, mock_provider: tuple[MockProviderServer, str]
) -> None:
    _, url = mock_provider
    response = case.call_and_validate(base_url=url, additional_checks=[provider_error_shape])
    assert response.status_code < 500


def test_schemathesis_exercised_successes_streams_and_rejections(
    mock_provider: tuple[MockProviderServer, str],
) -> None:
    """Guards the test above against passing vacuously (runs after it: same module server)."""
    server, _ = mock_provider
    seen = {(e.api, e.status, e.stream) for e in server.exchanges}
    if not seen:
        pytest.skip("run together with the schemathesis test above")
    for api in ("anthropic", "openai"):
        assert (api, 200, False) in seen and (api, 200, True) in seen
        assert (api, 400, False) in seen
    assert all(e.status is not None and e.status < 500 for e in server.exchanges)
