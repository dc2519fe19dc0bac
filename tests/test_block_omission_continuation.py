"""Note 000's verification paragraph, end to end through the reference and the mock provider.

"Verification covers user and tool-result filtering, unchanged durable content, HTTP
continuation, and a headless Session replay." The vectors pin the serializer; here the kit
checks the path around it: a conversation recorded under Chat Completions, whose history holds
a saved settlement notice with the child's reasoning and tool call, continues over HTTP on the
Messages wire (request bodies from ``anthropic.serialize``, answered by the mock provider,
checked by the wire audit), and the same history replayed headless (serialized again from the
durable records alone) gives the same requests. No network: the mock provider's pure core.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from agent_tck.harness.audit.rules import check_exchange
from agent_tck.harness.mock_provider.model import MockProvider
from agent_tck.harness.mock_provider.plan import HttpRequest, ProviderState
from agent_tck.harness.mock_provider.script import parse_script
from agent_tck.harness.mock_provider.server import load_openapi_document
from agent_tck.reference_impl.serialize.ops import anthropic_serialize, openai_serialize
from agent_tck.reference_impl.session_log.ops import resume_anthropic

URLS = {"anthropic": "https://api.anthropic.com/v1/messages",
        "openai": "https://api.openai.com/v1/chat/completions"}
PATHS = {"anthropic": "/v1/messages", "openai": "/v1/chat/completions"}

# A saved settlement notice from before the text-only producer: child reasoning and a child
# tool call inside the parent's user message (the note's "Saved subagent settlement notices").
NOTICE = {"role": "user", "source": {"kind": "subagent-settled"}, "content": [
    {"type": "text", "text": "Subagent c1 settled (completed): the cache is stale after 5 min."},
    {"type": "reasoning", "text": "I should check the TTL first.", "signature": "sig-c1"},
    {"type": "tool-call", "id": "c1-call-1", "name": "read", "arguments": "{\"path\":\"ttl\"}"},
]}


def _provider() -> MockProvider:
    replies = [{"content": [{"type": "text", "text": f"reply {i}"}]} for i in range(1, 5)]
    return MockProvider(parse_script({"version": 1, "replies": replies}),
                        load_openapi_document())


def _send(provider: MockProvider, state: ProviderState, wire: str,
          body: dict[str, Any]) -> tuple[ProviderState, int, list[Any]]:
    """POST one request body; the status and what the wire audit finds in it."""
    raw = json.dumps(body).encode()
    state, plan = provider.respond(
        state, HttpRequest("POST", PATHS[wire], (("content-type", "application/json"),), raw))
    exchange = {"method": "POST", "url": URLS[wire], "request": {"body": body}}
    return state, plan.status or 0, check_exchange(exchange)


def _request(wire: str, history: list[dict[str, Any]]) -> dict[str, Any]:
    serialize = anthropic_serialize if wire == "anthropic" else openai_serialize
    body = serialize({"history": history})
    extra = {"model": "m", "max_tokens": 64} if wire == "anthropic" else {"model": "m"}
    return {**extra, **body}


def _conversation() -> tuple[list[dict[str, Any]], list[tuple[str, int, list[Any]]]]:
    """Two turns under Chat Completions (the second after the saved notice), then the switch
    to Messages for a third: the history and, per request, (wire, status, findings)."""
    provider, state = _provider(), ProviderState()
    history: list[dict[str, Any]] = [{"role": "user", "content": [
        {"type": "text", "text": "Find why the cache misses."}]}]
    seen = []
    for wire, then in (("openai", NOTICE),
                       ("openai", {"role": "user", "content": [{"type": "text",
                                                                 "text": "Switching model."}]}),
                       ("anthropic", None)):
        state, status, findings = _send(provider, state, wire, _request(wire, history))
        seen.append((wire, status, findings))
        history.append({"role": "assistant", "content": [
            {"type": "text", "text": f"reply {len(seen)}"}]})
        if then is not None:
            history.append(copy.deepcopy(then))
    return history, seen


def test_a_chat_completions_conversation_continues_over_http_on_messages():
    _, seen = _conversation()
    assert [(w, s) for w, s, _ in seen] == [("openai", 200), ("openai", 200), ("anthropic", 200)]
    assert [f for _, _, f in seen] == [[], [], []]


def test_the_continuation_leaves_the_durable_notice_unchanged():
    history, _ = _conversation()
    assert NOTICE in history  # BO-008 "without changing Session records"
    body = _request("anthropic", history)
    notice = next(m for m in body["messages"]
                  if m["role"] == "user" and "settled" in json.dumps(m))
    assert [b["type"] for b in notice["content"]] == ["text"]


def test_a_serializer_that_forwards_notice_blocks_is_caught_on_the_wire():
    """The check has teeth: the notice's blocks sent as-is in a Messages user turn are found."""
    history, _ = _conversation()
    body = _request("anthropic", history)
    for m in body["messages"]:
        if m["role"] == "user" and "settled" in json.dumps(m):
            m["content"] += [{"type": "thinking", "thinking": "I should check the TTL first.",
                              "signature": "sig-c1"},
                             {"type": "tool_use", "id": "c1-call-1", "name": "read",
                              "input": {"path": "ttl"}}]
    _, _, findings = _send(_provider(), ProviderState(), "anthropic", body)
    assert {f.rule for f in findings} >= {"BO-001", "BO-002"}


def _log(*events: dict[str, Any]) -> str:
    header = {"type": "session", "version": 4, "id": "ses-parent", "createdAt": 1760000000000}
    lines = [header] + [{**e, "seq": i, "time": 1760000000000 + i}
                        for i, e in enumerate(events, start=1)]
    return "".join(json.dumps(line) + "\n" for line in lines)


def _assistant(turn: int, text: str, provider: str) -> dict[str, Any]:
    return {"type": "assistant/message", "data": {"turn": turn, "step": 1, "message": {
        "id": f"a{turn}", "role": "assistant", "content": [{"type": "text", "text": text}],
        "source": {"kind": "model", "provider": provider, "model": "m"}}}}


def test_a_headless_replay_of_a_recorded_session_with_a_saved_notice():
    """A session log recorded under Chat Completions, whose notice holds the child's reasoning
    and tool call, resumed headless on the Messages wire: accepted, no finding, log intact."""
    log = _log(
        {"type": "turn/start", "data": {"turn": 1}},
        {"type": "user/message", "data": {"id": "u1", "role": "user", "source": {"kind": "user"},
                                          "content": [{"type": "text", "text": "Why misses?"}]}},
        _assistant(1, "I asked c1.", "openai"),
        {"type": "turn/end", "data": {"turn": 1, "reason": {"kind": "completed"}}},
        {"type": "turn/start", "data": {"turn": 2}},
        {"type": "user/message", "data": {"id": "n1", **copy.deepcopy(NOTICE)}},
        _assistant(2, "The TTL is 5 min.", "openai"),
        {"type": "turn/end", "data": {"turn": 2, "reason": {"kind": "completed"}}},
    )
    payload = {"log": log, "user": [{"type": "text", "text": "Continue on Claude."}]}
    before = copy.deepcopy(payload)
    body = {"model": "m", "max_tokens": 64, **resume_anthropic(payload)}
    _, status, findings = _send(_provider(), ProviderState(), "anthropic", body)
    assert (status, findings) == (200, [])
    assert payload == before  # the durable records are read, never rewritten
    notice = body["messages"][2]
    assert notice == {"role": "user", "content": [NOTICE["content"][0]]}


def test_a_replay_of_the_recorded_history_sends_the_same_requests():
    """Replay reads only the durable records (a JSON round trip: no live objects) and
    serializes them again for both wires: the requests equal the live ones."""
    history, _ = _conversation()
    replayed = json.loads(json.dumps(history))
    for wire in ("anthropic", "openai"):
        assert _request(wire, replayed) == _request(wire, history)
    assert replayed == history
