"""End to end: a real mitmdump in reverse mode, with the audit addon, in front of the mock
provider; the real ``anthropic`` and ``openai`` SDKs (and raw HTTP) as clients; 127.0.0.1
only, free ports, bounded waits.

One module fixture runs all the traffic through one proxy (mitmdump takes seconds to start),
stops it (which writes the reports) and hands the tests what happened: the audit, the bytes
each side saw, timings. ``agent-tck audit --listen`` itself is run against an unreachable
upstream in the last test.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import brotli
import httpx2 as httpx
import pytest
from lazy_import import lazy

from agent_tck.harness.commands.audit import find_mitmdump, mitmdump_command
from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.mock_provider.plan import ProviderState, SendBytes
from agent_tck.harness.mock_provider.server import make_provider, start

anthropic = lazy("anthropic")  # imported on first use (tests/lazy_import.py)
openai = lazy("openai")  # imported on first use (tests/lazy_import.py)

pytestmark = pytest.mark.slow
pytest.importorskip("mitmproxy")

try:
    from compression import zstd  # type: ignore[import-not-found]
except ImportError:
    from backports import zstd  # type: ignore[import-not-found,no-redef]

ANTHROPIC_KEY = "sk-ant-api03-PLANTEDe2eANTHROPICkey0123456789"
OPENAI_KEY = "sk-proj-PLANTEDe2eOPENAIkey0123456789"
BODY_KEY = "sk-ant-api03-PLANTEDe2eBODYkey0123456789"
KEYS = (ANTHROPIC_KEY, OPENAI_KEY, BODY_KEY)
SYSTEM = "You are a careful agent."
TOOLS = [{"name": "lookup", "description": "Look something up.",
          "input_schema": {"type": "object", "properties": {"q": {"type": "string"}},
                           "required": ["q"]}}]
OTOOLS = [{"type": "function", "function": {"name": "lookup", "parameters": TOOLS[0][
    "input_schema"]}}]


def text(marker: str, words: str) -> dict[str, Any]:
    return {"name": marker, "match": {"last_user_text_contains": marker},
            "content": [{"type": "text", "text": words}]}


SCRIPT = {"version": 1, "on_exhausted": "error", "replies": [
    text("bytes-plain", "plain bytes"),
    {"name": "bytes-stream", "match": {"last_user_text_contains": "bytes-stream"},
     "content": [{"type": "thinking", "thinking": "Stream it."},
                 {"type": "text", "text": "streamed bytes, \u00e9\u00e8 \u2603"}]},
    {"name": "slow", "match": {"last_user_text_contains": "slow-stream"},
     "content": [{"type": "text", "text": "first part then the rest after a pause"}],
     "chunk_chars": 8, "faults": [{"kind": "delay", "seconds": 2.5, "after_events": 3}]},
    {"name": "conform-1", "match": {"last_user_text_contains": "conform-q1"},
     "content": [{"type": "thinking", "thinking": "I should look it up."},
                 {"type": "text", "text": "Looking."},
                 {"type": "tool_call", "name": "lookup", "input": {"q": "x"}}]},
    text("conform-result", "x is 1."),
    text("conform-thanks", "Bye."),
    text("thinking-case", "noted"),
    text("tooluse-case", "noted"),
    text("empty-case", "noted"),
    text("changed-q1", "c-a1"), text("changed-q2", "c-a2"), text("changed-q3", "c-a3"),
    text("cache-q1", "k-a1"), text("cache-q2", "k-a2"),
    text("fork-q1", "f-a1"), text("fork-q2", "f-a2"), text("fork-q3", "f-a3"),
    text("fork-task", "f-child"),
    text("openai-reasoning", "noted"),
    {"name": "oconf-1", "match": {"last_user_text_contains": "oconf-q1"},
     "content": [{"type": "text", "text": "Checking."},
                 {"type": "tool_call", "name": "lookup", "input": {"q": "y"}}]},
    text("oconf-q1", "y is 2."),  # Chat Completions matching reads user messages, not tools
    text("big-body", "big"),
    text("gzip-case", "z"), text("br-case", "z"), text("zstd-case", "z"),
]}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[Any], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the proxy exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(f"nothing listens on {port} after {timeout}s")


def stop(process: subprocess.Popen[Any], timeout: float = 120.0) -> int:
    process.send_signal(signal.SIGINT)
    try:
        return process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)
        raise


@dataclass
class Run:
    """What happened, for the tests to hold against expectations."""

    audit: dict[str, Any] = field(default_factory=dict)
    report_dir: Path = Path()
    log: str = ""
    sent: dict[str, bytes] = field(default_factory=dict)  # scenario -> request body sent
    received: dict[str, bytes] = field(default_factory=dict)  # scenario -> body at the mock
    client_got: dict[str, bytes] = field(default_factory=dict)  # scenario -> raw response
    mock_sent: dict[str, bytes] = field(default_factory=dict)  # scenario -> what mock sent
    timings: dict[str, float] = field(default_factory=dict)
    statuses: dict[str, int] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    proxy_exit: int | None = None

    def exchanges(self, scenario: str) -> list[dict[str, Any]]:
        return [x for x in self.audit["exchanges"]
                if parse_qs(urlsplit(x["url"]).query).get("tck") == [scenario]]

    def findings(self, scenario: str) -> list[list[tuple[str, str, str]]]:
        return [sorted((f["rule"], f["severity"], f["pointer"]) for f in x["findings"])
                for x in self.exchanges(scenario)]


def _q(scenario: str) -> dict[str, str]:
    return {"tck": scenario}


def anthropic_sdk_traffic(base: str, run: Run) -> None:
    """Conforming and rule-breaking conversations (one per kind of finding), through the real
    Anthropic SDK."""
    client = anthropic.Anthropic(base_url=base, api_key=ANTHROPIC_KEY, max_retries=0,
                                 timeout=120)
    u = lambda t: {"role": "user", "content": t}  # noqa: E731

    # conforming, streamed, with thinking and a tool round trip
    history: list[Any] = [u("conform-q1: what is x?")]
    with client.messages.stream(model="claude-test", max_tokens=256, system=SYSTEM,
                                tools=TOOLS, messages=history,
                                extra_query=_q("conform")) as stream:
        first = stream.get_final_message()
    call = next(b for b in first.content if b.type == "tool_use")
    history += [{"role": "assistant", "content": [b.model_dump() for b in first.content]},
                u([{"type": "tool_result", "tool_use_id": call.id,
                    "content": "conform-result: 1"}])]
    second = client.messages.create(model="claude-test", max_tokens=256, system=SYSTEM,
                                    tools=TOOLS, messages=history, extra_query=_q("conform"))
    history += [{"role": "assistant", "content": second.content}, u("conform-thanks")]
    client.messages.create(model="claude-test", max_tokens=256, system=SYSTEM, tools=TOOLS,
                           messages=history, extra_query=_q("conform"))

    # thinking and a tool_use in user content (a saved subagent notice)
    client.messages.create(model="claude-test", max_tokens=64, system=SYSTEM, messages=[
        u([{"type": "text", "text": "thinking-case: the child said"},
           {"type": "thinking", "thinking": "child reasoning", "signature": "s"}])],
        extra_query=_q("thinking"))
    client.messages.create(model="claude-test", max_tokens=64, system=SYSTEM, messages=[
        u([{"type": "text", "text": f"tooluse-case: with {BODY_KEY}"},
           {"type": "tool_use", "id": "toolu_child", "name": "grep", "input": {}}])],
        extra_query=_q("tooluse"))

    # an empty user message
    try:
        client.messages.create(model="claude-test", max_tokens=64, system=SYSTEM, messages=[
            u(""), {"role": "assistant", "content": "ok"}, u("empty-case")],
            extra_query=_q("empty"))
    except anthropic.APIStatusError as exc:  # the mock may refuse it: the audit still sees it
        run.errors["empty"] = str(exc.status_code)

    # an earlier message changed between turns
    a1 = client.messages.create(model="claude-test", max_tokens=64, system=SYSTEM,
                                messages=[u("changed-q1")], extra_query=_q("changed"))
    a2 = client.messages.create(model="claude-test", max_tokens=64, system=SYSTEM, messages=[
        u("changed-q1"), {"role": "assistant", "content": a1.content}, u("changed-q2")],
        extra_query=_q("changed"))
    client.messages.create(model="claude-test", max_tokens=64, system=SYSTEM, messages=[
        u("changed-q1, reworded"), {"role": "assistant", "content": a1.content},
        u("changed-q2"), {"role": "assistant", "content": a2.content}, u("changed-q3")],
        extra_query=_q("changed"))

    # a moved cache_control breakpoint; the same text as a string and as one text block
    cc = {"type": "ephemeral"}
    k1 = client.messages.create(
        model="claude-test", max_tokens=64,
        system=[{"type": "text", "text": SYSTEM, "cache_control": cc}],
        messages=[u([{"type": "text", "text": "cache-q1", "cache_control": cc}])],
        extra_query=_q("cache"))
    client.messages.create(model="claude-test", max_tokens=64, system=SYSTEM, messages=[
        u("cache-q1"), {"role": "assistant", "content": k1.content},
        u([{"type": "text", "text": "cache-q2", "cache_control": cc}])], extra_query=_q("cache"))

    # a parent, then a fork child with the parent's head
    turns: list[Any] = []
    replies = []
    for q in ("fork-q1", "fork-q2", "fork-q3"):
        turns.append(u(q))
        r = client.messages.create(model="claude-test", max_tokens=64, system=SYSTEM,
                                   tools=TOOLS, messages=turns, extra_query=_q("fork"))
        replies.append(r)
        turns.append({"role": "assistant", "content": r.content})
    child = [*turns[:4], u("fork-task: you are a fork; check w and send_message a result")]
    client.messages.create(model="claude-test", max_tokens=64, system=SYSTEM, tools=TOOLS,
                           messages=child, extra_query=_q("fork-child"))
    client.close()


def openai_sdk_traffic(base: str) -> None:
    """A reasoning notice and a conforming streamed tool round trip, through the real OpenAI
    SDK."""
    oclient = openai.OpenAI(base_url=base + "/v1", api_key=OPENAI_KEY, max_retries=0,
                            timeout=120)
    oclient.chat.completions.create(model="gpt-test", messages=[
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "openai-reasoning: notice",  # type: ignore[misc,list-item]
         "reasoning_content": "child reasoning"}], extra_query=_q("openai-reasoning"))
    messages: list[Any] = [{"role": "system", "content": SYSTEM},
                           {"role": "user", "content": "oconf-q1: what is y?"}]
    content, calls = "", {}
    for chunk in oclient.chat.completions.create(model="gpt-test", messages=messages,
                                                 tools=OTOOLS, stream=True,
                                                 extra_query=_q("oconf")):
        delta = chunk.choices[0].delta if chunk.choices else None
        if delta is None:
            continue
        content += delta.content or ""
        for tc in delta.tool_calls or ():
            slot = calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
            slot["id"] = tc.id or slot["id"]
            if tc.function is not None:
                slot["name"] = tc.function.name or slot["name"]
                slot["arguments"] += tc.function.arguments or ""
    echoed = [{"id": c["id"], "type": "function",
               "function": {"name": c["name"], "arguments": c["arguments"]}}
              for _, c in sorted(calls.items())]
    messages += [{"role": "assistant", "content": content or None, "tool_calls": echoed},
                 {"role": "tool", "tool_call_id": echoed[0]["id"], "content": "oconf-result: 2"}]
    oclient.chat.completions.create(model="gpt-test", messages=messages, tools=OTOOLS,
                                    extra_query=_q("oconf"))
    oclient.close()


def raw_traffic(base: str, run: Run) -> None:
    """Byte-exactness, streaming, encodings, bad and very large bodies, non-LLM traffic."""
    headers = {"x-api-key": ANTHROPIC_KEY, "anthropic-version": "2023-06-01",
               "content-type": "application/json"}
    with httpx.Client(base_url=base, timeout=120) as http:
        # bytes both ways: odd spacing, key order and escapes must arrive as sent
        for scenario, stream in (("bytes-plain", False), ("bytes-stream", True)):
            flag = "true" if stream else "false"
            body = ('{ "stream" : ' + flag + ',"model":"claude-test", "max_tokens": 64,\n'
                    '  "messages": [{"content": "' + scenario + ' \\u00e9 \\ud83d\\ude00",'
                    ' "role": "user"}] }').encode()
            run.sent[scenario] = body
            with http.stream("POST", "/v1/messages", params=_q(scenario), content=body,
                             headers=headers) as response:
                run.client_got[scenario] = b"".join(response.iter_raw())
                run.statuses[scenario] = response.status_code

        # an SSE stream is not buffered: its first events arrive before the pause ends
        body = json.dumps({"model": "claude-test", "max_tokens": 64, "stream": True,
                           "messages": [{"role": "user", "content": "slow-stream"}]}).encode()
        started = time.monotonic()
        first_at = None
        with http.stream("POST", "/v1/messages", params=_q("slow"), content=body,
                         headers=headers) as response:
            for chunk in response.iter_raw():
                if first_at is None and b"message_start" in chunk:
                    first_at = time.monotonic() - started
        run.timings["slow-first"] = first_at if first_at is not None else float("inf")
        run.timings["slow-total"] = time.monotonic() - started

        # content-encoded request bodies: the audit decodes them, the mock gets the bytes
        encoders = {"gzip": gzip.compress, "br": brotli.compress, "zstd": zstd.compress}
        for coding, encode in encoders.items():
            plain = json.dumps({"model": "claude-test", "max_tokens": 64, "messages": [
                {"role": "user", "content": [{"type": "text", "text": f"{coding}-case"},
                                             {"type": "thinking", "thinking": "t"}]}]}).encode()
            run.sent[coding] = encode(plain)
            r = http.post("/v1/messages", params=_q(coding), content=run.sent[coding],
                          headers={**headers, "content-encoding": coding})
            run.statuses[coding] = r.status_code

        # malformed and non-JSON bodies
        for scenario, body, ctype in (("malformed", b'{"model": "claude-test", "messages": [',
                                       "application/json"),
                                      ("non-json", b"hello there", "text/plain")):
            r = http.post("/v1/messages", params=_q(scenario), content=body,
                          headers={**headers, "content-type": ctype})
            run.statuses[scenario] = r.status_code

        # a 20 MB body, audited, and unchanged at the mock
        big = json.dumps({"model": "claude-test", "max_tokens": 64, "messages": [
            {"role": "user", "content": "x" * (20 * 1024 * 1024)},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": [{"type": "text", "text": "big-body"},
                                         {"type": "thinking", "thinking": "t"}]}]}).encode()
        run.sent["big"] = big
        started = time.monotonic()
        r = http.post("/v1/messages", params=_q("big"), content=big, headers=headers)
        run.timings["big"] = time.monotonic() - started
        run.statuses["big"] = r.status_code

        # non-LLM traffic passes through
        run.statuses["openapi"] = http.get("/openapi.json").status_code

    # a request cut off mid-body: the proxy survives it
    host, port = urlsplit(base).hostname, urlsplit(base).port
    with socket.create_connection((host, port), timeout=10) as s:
        s.sendall(b"POST /v1/messages?tck=truncated HTTP/1.1\r\nHost: x\r\n"
                  b"Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n{\"model\":")
    with httpx.Client(base_url=base, timeout=120) as http:
        run.statuses["after-truncated"] = http.get("/openapi.json").status_code


def mitmdump() -> str:
    try:
        return find_mitmdump(None)
    except HarnessError:
        pytest.skip("mitmdump is not installed")


@pytest.fixture(scope="module")
def e2e(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    tmp = tmp_path_factory.mktemp("audit-e2e")
    binary = mitmdump()
    server, upstream = start(SCRIPT)
    port = free_port()
    run = Run(report_dir=tmp / "reports")
    cmd = mitmdump_command(mitmdump=binary, mode="reverse", upstream=upstream,
                           host="127.0.0.1", port=port, confdir=tmp / "confdir",
                           report_dir=run.report_dir, name="e2e agent", max_body=None)
    log_path = tmp / "mitmdump.log"
    with log_path.open("w") as log:
        proxy = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port, proxy)
        base = f"http://127.0.0.1:{port}"
        raw_traffic(base, run)
        anthropic_sdk_traffic(base, run)
        openai_sdk_traffic(base)
    finally:
        run.proxy_exit = stop(proxy)
        server.close()
    run.log = log_path.read_text(errors="replace")
    run.audit = json.loads((run.report_dir / "audit.json").read_text())
    # what the mock received, and (replaying its pure core) exactly what it sent back
    provider, state = make_provider(SCRIPT), ProviderState()
    for request in server.received:
        state, plan = provider.respond(state, request)
        scenario = parse_qs(urlsplit(request.target).query).get("tck", [""])[0]
        run.received[scenario] = request.body
        run.mock_sent[scenario] = b"".join(s.data for s in plan.steps
                                           if isinstance(s, SendBytes))
    yield run


def test_the_proxy_stopped_cleanly_and_wrote_every_report(e2e: Run) -> None:
    assert e2e.proxy_exit == 0
    for name in ("results.jsonl", "junit.xml", "summary.md", "report.html", "audit.json"):
        assert (e2e.report_dir / name).is_file(), name
    assert "Conversations</h2>" in (e2e.report_dir / "report.html").read_text()


def test_sdk_conversations_get_exactly_the_expected_findings(e2e: Run) -> None:
    bo = "/request/body/messages"
    expected = {
        "conform": [[], [], []],
        "thinking": [[("BO-001", "error", f"{bo}/0/content/1")]],
        "tooluse": [[("BO-002", "error", f"{bo}/0/content/1")]],
        "empty": [[("BO-D001", "error", f"{bo}/0/content")]],
        "changed": [[], [], [("WA-D006", "warning", f"{bo}/0")]],
        "cache": [[], []],
        "fork": [[], [], []],
        "fork-child": [[]],
        "openai-reasoning": [[("BO-001", "error", f"{bo}/1/reasoning_content")]],
        "oconf": [[], []],
    }
    for scenario, findings in expected.items():
        assert e2e.findings(scenario) == findings, scenario


def test_conversations_are_grouped_and_the_fork_recognized(e2e: Run) -> None:
    placements = {s: [(x["conversation"], x["placement"]) for x in e2e.exchanges(s)]
                  for s in ("conform", "changed", "cache", "fork", "fork-child", "oconf")}
    for scenario in ("conform", "changed", "cache", "fork", "oconf"):
        convs = {c for c, _ in placements[scenario]}
        assert len(convs) == 1, (scenario, placements[scenario])
        assert [p for _, p in placements[scenario]][1:] == ["continuation"] * (
            len(placements[scenario]) - 1)
    (child,) = e2e.exchanges("fork-child")
    assert child["placement"] == "fork"
    assert child["parent"] == placements["fork"][0][0]


def test_bytes_reach_the_other_side_unchanged(e2e: Run) -> None:
    digest = lambda b: hashlib.sha256(b).hexdigest()  # noqa: E731
    for scenario in ("bytes-plain", "bytes-stream", "gzip", "br", "zstd", "big"):
        assert digest(e2e.received[scenario]) == digest(e2e.sent[scenario]), scenario
    for scenario in ("bytes-plain", "bytes-stream"):
        assert e2e.statuses[scenario] == 200
        assert digest(e2e.client_got[scenario]) == digest(e2e.mock_sent[scenario]), scenario


def test_an_event_stream_is_not_buffered(e2e: Run) -> None:
    assert e2e.timings["slow-total"] >= 2.5
    assert e2e.timings["slow-first"] < e2e.timings["slow-total"] - 1.5
    assert e2e.findings("slow") == [[]]
    (x,) = e2e.exchanges("slow")
    assert x["status"] == 200 and not x["notes"]


def test_encoded_malformed_and_large_bodies_give_findings_not_crashes(e2e: Run) -> None:
    for coding in ("gzip", "br", "zstd"):
        assert e2e.findings(coding) == [[("BO-001", "error",
                                          "/request/body/messages/0/content/1")]], coding
    for scenario in ("malformed", "non-json"):
        assert e2e.findings(scenario) == [[("WA-D004", "warning", "/request/body")]], scenario
    assert e2e.statuses["big"] == 200
    assert e2e.findings("big") == [[("BO-001", "error", "/request/body/messages/2/content/1")]]
    assert e2e.timings["big"] < 60
    assert e2e.statuses["after-truncated"] == 200
    (cut,) = e2e.exchanges("truncated")
    assert cut["findings"] == [] and cut["error"]
    assert any("not audited" in n for n in cut["notes"])
    assert all(not x["errors"] for x in e2e.audit["exchanges"])


def test_non_llm_traffic_passes_and_is_ignored(e2e: Run) -> None:
    assert e2e.statuses["openapi"] == 200
    assert e2e.audit["ignored"] >= 2
    assert all(urlsplit(x["url"]).path.endswith(("/v1/messages", "/chat/completions"))
               for x in e2e.audit["exchanges"])


def test_no_planted_key_reaches_any_artifact(e2e: Run) -> None:
    artifacts = {p.name: p.read_text(errors="replace")
                 for p in e2e.report_dir.rglob("*") if p.is_file()}
    artifacts["mitmdump output"] = e2e.log
    assert len(artifacts) >= 6
    for name, content in artifacts.items():
        for key in KEYS:
            assert key not in content, f"{key[:14]}... leaked into {name}"
    assert not any(p.suffix in (".flows", ".har", ".mitm") for p in e2e.report_dir.rglob("*"))


def test_the_audit_command_survives_an_unreachable_upstream(tmp_path: Path) -> None:
    mitmdump()
    dead, port = free_port(), free_port()
    report_dir = tmp_path / "reports"
    cmd = [sys.executable, "-m", "agent_tck", "audit", "--listen", f"127.0.0.1:{port}",
           "--upstream", f"http://127.0.0.1:{dead}", "--report-dir", str(report_dir),
           "--format", "json"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    cli = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                           cwd=Path(__file__).resolve().parent.parent)
    try:
        wait_for_port(port, cli)
        body = json.dumps({"model": "m", "max_tokens": 8, "messages": [
            {"role": "user", "content": [{"type": "text", "text": "hi"},
                                         {"type": "thinking", "thinking": "t"}]}]})
        r = httpx.post(f"http://127.0.0.1:{port}/v1/messages", content=body, timeout=120,
                       headers={"x-api-key": ANTHROPIC_KEY, "content-type": "application/json"})
        assert r.status_code == 502
    finally:
        code = stop(cli)
    out, err = cli.stdout.read().decode(), cli.stderr.read().decode()  # type: ignore[union-attr]
    assert code == 1, err[-2000:]  # the request itself had an error-severity finding
    doc = json.loads(out)
    (x,) = doc["exchanges"]
    assert x["status"] is None and x["error"]
    assert any("transport error" in n for n in x["notes"])
    assert [f["rule"] for f in x["findings"]] == ["BO-001"]
    results = (report_dir / "results.jsonl").read_text()
    assert "exchange-0.notes" in results and "transport error" in results
    for content in (out, err, *(p.read_text() for p in report_dir.rglob("*") if p.is_file())):
        assert ANTHROPIC_KEY not in content
