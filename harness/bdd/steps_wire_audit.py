"""Steps for features/wire_audit.feature.

Requests are written as tables (one row per block or member) and turned into the captured
exchange JSON that ``wire.check`` takes; conversations are tables of requests (one row each,
messages in a ``role:text ; role:text`` shorthand) turned into the ``{"exchanges": [...]}``
that ``wire.conversation`` takes (vectors/wire-audit/README.md). Every call goes through
``tck_target``, so ``pytest --impl CMD`` runs the scenarios against another implementation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from agent_tck.harness.run.outcome import CallResult, Output, Rejected

ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
CHAT_URL = "https://api.openai.com/v1/chat/completions"


@dataclass
class WireScenario:
    exchange: dict[str, Any] = field(default_factory=dict)
    exchanges: list[dict[str, Any]] = field(default_factory=list)
    result: CallResult | None = None


@pytest.fixture
def wire_scenario() -> WireScenario:
    return WireScenario()


def _rows(table: list[list[str]]) -> list[dict[str, str]]:
    header = [c.strip().lower() for c in table[0]]
    return [dict(zip(header, (c.strip() for c in cells), strict=True)) for cells in table[1:]]


def _call_value(value: str) -> tuple[str, str, str]:
    ident, name, args = value.split(" ", 2)
    return ident, name, args


# --- building requests ---------------------------------------------------------------------------


def _messages_block(kind: str, value: str) -> dict[str, Any]:
    if kind == "text":
        return {"type": "text", "text": value}
    if kind == "thinking":
        return {"type": "thinking", "thinking": value, "signature": "sig"}
    if kind == "tool_use":
        ident, name, args = _call_value(value)
        return {"type": "tool_use", "id": ident, "name": name, "input": json.loads(args)}
    if kind == "tool_result":
        ident, text = value.split(" ", 1)
        return {"type": "tool_result", "tool_use_id": ident, "content": text}
    return {"type": kind, "data": value}


def _messages_request(rows: list[dict[str, str]]) -> list[dict[str, Any]]:
    messages: dict[str, dict[str, Any]] = {}
    for row in rows:
        msg = messages.setdefault(row["message"], {"role": row["role"], "content": []})
        if row["block"] != "(none)":
            msg["content"].append(_messages_block(row["block"], row["value"]))
    return list(messages.values())


def _chat_request(rows: list[dict[str, str]]) -> list[dict[str, Any]]:
    messages: dict[str, dict[str, Any]] = {}
    for row in rows:
        msg = messages.setdefault(row["message"], {"role": row["role"], "content": []})
        kind, value = row["block"], row["value"]
        if kind == "text":
            msg["content"].append({"type": "text", "text": value})
        elif kind == "tool call":
            ident, name, args = _call_value(value)
            msg.setdefault("tool_calls", []).append(
                {"id": ident, "type": "function", "function": {"name": name, "arguments": args}}
            )
        elif kind == "tool":
            ident, text = value.split(" ", 1)
            msg["tool_call_id"] = ident
            msg["content"] = text
        elif kind != "(none)":
            msg[kind] = value  # a member: reasoning_content, reasoning...
    for msg in messages.values():
        if msg["role"] == "assistant" and not msg["content"]:
            msg["content"] = None
    return list(messages.values())


@given("a captured Messages request:", target_fixture="wire_scenario")
def given_messages_request(datatable: list[list[str]]) -> WireScenario:
    body = {"model": "claude-test", "max_tokens": 1024,
            "messages": _messages_request(_rows(datatable))}
    return WireScenario(exchange={"method": "POST", "url": ANTHROPIC_URL,
                                  "request": {"body": body}, "response": None})


@given("a captured Chat Completions request:", target_fixture="wire_scenario")
def given_chat_request(datatable: list[list[str]]) -> WireScenario:
    body = {"model": "gpt-test", "messages": _chat_request(_rows(datatable))}
    return WireScenario(exchange={"method": "POST", "url": CHAT_URL,
                                  "request": {"body": body}, "response": None})


@given("a captured Messages request whose body could not be read as JSON",
       target_fixture="wire_scenario")
def given_unreadable_request() -> WireScenario:
    return WireScenario(exchange={"method": "POST", "url": ANTHROPIC_URL, "response": None,
                                  "request": {"body_error": "not-json: Expecting value"}})


@given(parsers.parse('the request offers the tool "{name}" with string parameters '
                     '"{parameters}" all required'))
def given_tool(wire_scenario: WireScenario, name: str, parameters: str) -> None:
    names = [p.strip() for p in parameters.split(",") if p.strip()]
    schema = {"type": "object", "properties": {n: {"type": "string"} for n in names},
              "required": names}
    wire_scenario.exchange["request"]["body"].setdefault("tools", []).append(
        {"name": name, "description": "a tool", "input_schema": schema}
    )


@given(parsers.parse('it was sent to "{url}"'))
def given_url(wire_scenario: WireScenario, url: str) -> None:
    wire_scenario.exchange["url"] = url


# --- conversations -------------------------------------------------------------------------------


def _shorthand(text: str) -> list[dict[str, Any]]:
    out = []
    for part in (p.strip() for p in text.split(" ; ")):
        role, _, words = part.partition(":")
        as_block = role.endswith("[]")
        role = role.removesuffix("[]")
        cached = words.endswith(" (cached)")
        words = words.removesuffix(" (cached)")
        if role == "assistant":
            content: Any = [{"type": "text", "text": words}]
        elif as_block or cached:
            block: dict[str, Any] = {"type": "text", "text": words}
            if cached:
                block["cache_control"] = {"type": "ephemeral"}
            content = [block]
        else:
            content = words
        out.append({"role": role, "content": content})
    return out


@given(parsers.parse('a Messages conversation under the system prompt "{system}" with the tool '
                     '"{tool}":'), target_fixture="wire_scenario")
def given_conversation(system: str, tool: str, datatable: list[list[str]]) -> WireScenario:
    exchanges = []
    tools = [{"name": tool, "description": "a tool",
              "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}}]
    for row in _rows(datatable):
        body = {"model": "claude-test", "max_tokens": 1024,
                "system": row.get("system") or system, "tools": tools,
                "messages": _shorthand(row["messages"])}
        response = {"status": 200, "headers": {"content-type": "application/json"},
                    "body": {"type": "message", "role": "assistant", "stop_reason": "end_turn",
                             "content": [{"type": "text", "text": row["reply"]}]}}
        exchanges.append({"method": "POST", "url": ANTHROPIC_URL, "request": {"body": body},
                          "response": response})
    return WireScenario(exchanges=exchanges)


# --- calls ---------------------------------------------------------------------------------------


@when("the wire audit checks it")
def when_check(wire_scenario: WireScenario, tck_target: Any) -> None:
    wire_scenario.result = tck_target.call("wire.check", wire_scenario.exchange)


@when("the wire audit follows the conversations")
def when_follow(wire_scenario: WireScenario, tck_target: Any) -> None:
    wire_scenario.result = tck_target.call("wire.conversation",
                                           {"exchanges": wire_scenario.exchanges})


def _output(scenario: WireScenario) -> Any:
    result = scenario.result
    if isinstance(result, Rejected):
        pytest.fail(f"the implementation rejected the input with {result.code}: "
                    f"{result.message}")
    assert isinstance(result, Output), result
    return result.value


def _triples(findings: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    return sorted((f["rule"], f["severity"], f["pointer"]) for f in findings)


# --- outcomes ------------------------------------------------------------------------------------


@then("the findings are exactly:")
def then_findings(wire_scenario: WireScenario, datatable: list[list[str]]) -> None:
    expected = sorted((r["rule"], r["severity"], r["pointer"]) for r in _rows(datatable))
    assert _triples(_output(wire_scenario)) == expected


@then("there is no finding")
def then_no_finding(wire_scenario: WireScenario) -> None:
    assert _output(wire_scenario) == []


@then(parsers.parse("there is one {rule} {severity} at {pointer}"))
def then_one_finding(wire_scenario: WireScenario, rule: str, severity: str, pointer: str) -> None:
    assert _triples(_output(wire_scenario)) == [(rule, severity, pointer)]


@then("the requests form the conversations:")
def then_conversations(wire_scenario: WireScenario, datatable: list[list[str]]) -> None:
    got = _output(wire_scenario)["conversations"]
    expected = []
    for row in _rows(datatable):
        expected.append({
            "id": row["conversation"],
            "requests": [int(r) - 1 for r in row["requests"].split(",")],
            "parent": row["parent"] or None,
            "fork_at": int(row["fork at"]) if row["fork at"] else None,
        })
    assert [{k: c[k] for k in ("id", "requests", "parent", "fork_at")} for c in got] == expected


@then("there is no conversation finding")
def then_no_conversation_finding(wire_scenario: WireScenario) -> None:
    assert _output(wire_scenario)["findings"] == []


@then("the conversation findings are exactly:")
def then_conversation_findings(wire_scenario: WireScenario, datatable: list[list[str]]) -> None:
    got = sorted((f["exchange"], f["rule"], f["severity"], f["pointer"])
                 for f in _output(wire_scenario)["findings"])
    expected = sorted((int(r["request"]) - 1, r["rule"], r["severity"], r["pointer"])
                      for r in _rows(datatable))
    assert got == expected
