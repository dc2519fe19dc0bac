"""Conversation tracking on real client traffic: the anthropic and openai SDKs, through the real
proxy (mitmdump with the audit addon) in front of the mock provider.

Covers: two sessions with the same opening; a session whose tools change (with a distractor
sharing its opening under the new tools); a dropped assistant message; an inserted system
message; tool arguments re-serialized compactly; a fork and its parent interleaved; two
unrelated conversations interleaved; a resumed session whose first request carries history.
Each request is tagged with ``?tck=<scenario>`` so the test finds its exchange in audit.json.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from lazy_import import lazy

from agent_tck.harness.commands.audit import mitmdump_command
from agent_tck.harness.mock_provider.server import start
from tests.test_audit_e2e import free_port, mitmdump, stop, text, wait_for_port

anthropic = lazy("anthropic")  # imported on first use (tests/lazy_import.py)
openai = lazy("openai")  # imported on first use (tests/lazy_import.py)

pytestmark = pytest.mark.slow
pytest.importorskip("mitmproxy")

SYSTEM = "You are a careful agent."
TOOLS = [{"name": "lookup", "description": "Look something up.",
          "input_schema": {"type": "object", "properties": {"q": {"type": "string"}},
                           "required": ["q"]}}]
MORE_TOOLS = [*TOOLS, {"name": "report", "description": "Report.",
                       "input_schema": {"type": "object"}}]
OTOOLS = [{"type": "function", "function": {"name": "lookup",
                                            "parameters": TOOLS[0]["input_schema"]}}]

SCRIPT = {"version": 1, "on_exhausted": "error", "replies": [
    text("same-open", "Hello from session A."), text("same-open", "Hello from session B."),
    text("same-next", "A goes on."), text("same-next", "B goes on."),
    text("tools-q1", "t1"), text("tools-q1", "distractor"), text("tools-q2", "t2"),
    text("drop-q1", "d1"), text("drop-q2", "d2"), text("drop-q3", "d3"),
    text("ins-q1", "i1"), text("ins-q2", "i2"), text("ins-q3", "i3"),
    {"name": "args-1", "match": {"last_user_text_contains": "args-q1"},
     "content": [{"type": "tool_call", "name": "lookup", "input": {"q": "y", "n": [1, 2]}}]},
    text("args-result", "y is 2."), text("args-q2", "done"),
    text("ifork-q1", "p1"), text("ifork-q2", "p2"), text("ifork-task", "c1"),
    text("ifork-q3", "p3"), text("ifork-task2", "c2"),
    text("x-q1", "x1"), text("y-q1", "y1"), text("x-q2", "x2"), text("y-q2", "y2"),
    text("resume-q2", "r2"), text("resume-q3", "r3"),
]}


def u(t: Any) -> dict[str, Any]:
    return {"role": "user", "content": t}


def traffic(base: str) -> None:
    client = anthropic.Anthropic(base_url=base, api_key="sk-test", max_retries=0, timeout=120)

    def ask(tag: str, messages: list[Any], tools: Any = TOOLS) -> Any:
        reply = client.messages.create(model="claude-test", max_tokens=64, system=SYSTEM,
                                       tools=tools, messages=messages,
                                       extra_query={"tck": tag})
        return {"role": "assistant", "content": reply.content}

    # two sessions with the same opening, interleaved: each next request echoes its own answer
    opening = [u("same-open: hi")]
    a1 = ask("same-a", opening)
    b1 = ask("same-b", opening)
    ask("same-b", [*opening, b1, u("same-next: b")])
    ask("same-a", [*opening, a1, u("same-next: a")])

    # tools change mid-session; a distractor opens the same way under the new tools
    t1 = ask("tools", [u("tools-q1")])
    ask("tools-distractor", [u("tools-q1")], MORE_TOOLS)
    ask("tools", [u("tools-q1"), t1, u("tools-q2")], MORE_TOOLS)

    # a dropped assistant message (a cut-off turn)
    d1 = ask("drop", [u("drop-q1")])
    d2 = ask("drop", [u("drop-q1"), d1, u("drop-q2")])
    ask("drop", [u("drop-q1"), u("drop-q2"), d2, u("drop-q3")])

    # a fork and its parent interleaved
    p1 = ask("ifork-parent", [u("ifork-q1")])
    p2 = ask("ifork-parent", [u("ifork-q1"), p1, u("ifork-q2")])
    c1 = ask("ifork-child", [u("ifork-q1"), p1, u("ifork-task: you are a fork")])
    ask("ifork-parent", [u("ifork-q1"), p1, u("ifork-q2"), p2, u("ifork-q3")])
    ask("ifork-child", [u("ifork-q1"), p1, u("ifork-task: you are a fork"), c1,
                        u("ifork-task2")])

    # two unrelated conversations interleaved
    x1 = ask("x", [u("x-q1")])
    y1 = ask("y", [u("y-q1")])
    ask("x", [u("x-q1"), x1, u("x-q2")])
    ask("y", [u("y-q1"), y1, u("y-q2")])

    # a resumed session: its first request already carries history
    resumed = [u("resume-q1"), {"role": "assistant", "content": "an earlier answer"},
               u("resume-q2")]
    r2 = ask("resume", resumed)
    ask("resume", [*resumed, r2, u("resume-q3")])
    client.close()

    oclient = openai.OpenAI(base_url=base + "/v1", api_key="sk-test", max_retries=0,
                            timeout=120)

    def chat(tag: str, messages: list[Any]) -> dict[str, Any]:
        done = oclient.chat.completions.create(model="gpt-test", messages=messages,
                                               tools=OTOOLS, extra_query={"tck": tag})
        return done.choices[0].message.model_dump(exclude_none=True)

    # an inserted system message, mid-history
    sysm = {"role": "system", "content": SYSTEM}
    i1 = chat("insert", [sysm, u("ins-q1")])
    i2 = chat("insert", [sysm, u("ins-q1"), i1, u("ins-q2")])
    chat("insert", [sysm, u("ins-q1"), i1, {"role": "system", "content": "Be brief."},
                    u("ins-q2"), i2, u("ins-q3")])

    # tool arguments parsed and re-serialized with other spacing before being sent back
    first = chat("args", [sysm, u("args-q1")])
    call = first["tool_calls"][0]
    raw = call["function"]["arguments"]
    compact = json.dumps(json.loads(raw), separators=(",", ":"))
    other = compact if compact != raw else json.dumps(json.loads(raw))
    assert other != raw
    echoed = {**first, "tool_calls": [{**call, "function": {**call["function"],
                                                            "arguments": other}}]}
    chat("args", [sysm, u("args-q1"), echoed,
                  {"role": "tool", "tool_call_id": call["id"], "content": "args-result"},
                  u("args-q2")])
    oclient.close()


@pytest.fixture(scope="module")
def audit(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("audit-tracking")
    binary = mitmdump()
    server, upstream = start(SCRIPT)
    port = free_port()
    report_dir = tmp / "reports"
    cmd = mitmdump_command(mitmdump=binary, mode="reverse", upstream=upstream,
                           host="127.0.0.1", port=port, confdir=tmp / "confdir",
                           report_dir=report_dir, name="tracking", max_body=None)
    with (tmp / "mitmdump.log").open("w") as log:
        proxy = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port, proxy)
        traffic(f"http://127.0.0.1:{port}")
    finally:
        assert stop(proxy) == 0
        server.close()
    yield json.loads(Path(report_dir / "audit.json").read_text())


def tagged(audit: dict[str, Any], tag: str) -> list[dict[str, Any]]:
    return [x for x in audit["exchanges"]
            if parse_qs(urlsplit(x["url"]).query).get("tck") == [tag]]


def conversation_findings(x: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((f["rule"], f["pointer"]) for f in x["findings"]
                  if f["rule"] in ("WA-D006", "WA-D007", "WA-001"))


def one_conversation(audit: dict[str, Any], tag: str) -> str:
    xs = tagged(audit, tag)
    assert xs and len({x["conversation"] for x in xs}) == 1, [
        (x["conversation"], x["placement"]) for x in xs]
    assert [x["placement"] for x in xs[1:]] == ["continuation"] * (len(xs) - 1)
    return str(xs[0]["conversation"])


def test_two_sessions_with_the_same_opening_keep_their_own_links(audit: dict) -> None:
    a, b = one_conversation(audit, "same-a"), one_conversation(audit, "same-b")
    assert a != b
    assert all(conversation_findings(x) == [] for x in tagged(audit, "same-a")
               + tagged(audit, "same-b"))


def test_a_session_whose_tools_change_stays_one_conversation(audit: dict) -> None:
    conv = one_conversation(audit, "tools")
    (distractor,) = tagged(audit, "tools-distractor")
    assert distractor["conversation"] != conv
    assert [conversation_findings(x) for x in tagged(audit, "tools")] == [
        [], [("WA-D007", "/request/body/tools/1")]]


def test_a_dropped_assistant_message_is_named(audit: dict) -> None:
    one_conversation(audit, "drop")
    assert [conversation_findings(x) for x in tagged(audit, "drop")] == [
        [], [], [("WA-D006", "/request/body/messages/1")]]


def test_an_inserted_system_message_is_named(audit: dict) -> None:
    one_conversation(audit, "insert")
    assert [conversation_findings(x) for x in tagged(audit, "insert")] == [
        [], [], [("WA-D006", "/request/body/messages/3")]]


def test_compactly_reserialized_tool_arguments_are_no_rewrite(audit: dict) -> None:
    one_conversation(audit, "args")
    assert [conversation_findings(x) for x in tagged(audit, "args")] == [[], []]


def test_a_fork_interleaved_with_its_parent(audit: dict) -> None:
    parent = one_conversation(audit, "ifork-parent")
    child = one_conversation(audit, "ifork-child")
    first = tagged(audit, "ifork-child")[0]
    assert child != parent
    assert (first["placement"], first["parent"]) == ("fork", parent)
    assert all(conversation_findings(x) == [] for x in tagged(audit, "ifork-parent")
               + tagged(audit, "ifork-child"))


def test_two_unrelated_conversations_interleaved(audit: dict) -> None:
    assert one_conversation(audit, "x") != one_conversation(audit, "y")


def test_a_resumed_session_starts_with_history(audit: dict) -> None:
    one_conversation(audit, "resume")
    first = tagged(audit, "resume")[0]
    assert first["placement"] == "new"
    assert all(conversation_findings(x) == [] for x in tagged(audit, "resume"))
