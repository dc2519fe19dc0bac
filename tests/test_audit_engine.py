"""harness.audit.engine and .report: exchanges in, findings and report files out."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from agent_tck.harness.audit import checks
from agent_tck.harness.audit import rules as wr
from agent_tck.harness.audit.capture import RawExchange, RawMessage, RawResponse
from agent_tck.harness.audit.engine import Auditor
from agent_tck.harness.audit.redact import Scrubber
from agent_tck.harness.audit.report import records, to_json
from agent_tck.harness.audit.sink import write_reports
from agent_tck.harness.audit.tracker import ConversationTracker
from agent_tck.harness.reports import read

A_URL = "https://api.anthropic.com/v1/messages"
KEYS = ("sk-ant-api03-PLANTEDanthropicKEY0123456789", "sk-proj-PLANTEDopenaiKEY0123456789",
        "PLANTEDbearerTOKEN0123456789")


def request(messages: list[Any], url: str = A_URL, headers: tuple[tuple[str, str], ...] = (),
            response: RawResponse | None = None, error: str | None = None) -> RawExchange:
    body = json.dumps({"model": "m", "system": "S", "messages": messages}).encode()
    return RawExchange("t", "POST", url, RawMessage(headers, body), response, error, 1.7e9)


def ok(text: str) -> RawResponse:
    return RawResponse((("content-type", "application/json"),), json.dumps(
        {"type": "message", "role": "assistant", "content": [{"type": "text", "text": text}]}
    ).encode(), status=200)


def run(*exchanges: RawExchange) -> Any:
    auditor = Auditor()
    for x in exchanges:
        auditor.observe(x)
    return auditor.result()


def test_findings_conversations_and_ignored_traffic() -> None:
    result = run(
        request([{"role": "user", "content": "q1"}], response=ok("a1")),
        RawExchange("t", "GET", "https://api.anthropic.com/v1/models", RawMessage()),
        request([{"role": "user", "content": "q1"}, {"role": "assistant", "content": "a1"},
                 {"role": "user", "content": [{"type": "text", "text": "q2"},
                                              {"type": "thinking", "thinking": "t"}]}],
                response=ok("a2")),
    )
    assert result.ignored == 1
    assert [(x.index, x.conversation, x.placement) for x in result.audited] == [
        (0, "c1", "new"), (2, "c1", "continuation")]
    assert [(x.index, f.rule) for x, f in result.findings] == [(2, "BO-001")]
    assert result.exit_code == 1
    assert "WA-D006" in result.audited[1].checked and "BO-001" in result.audited[1].checked


def test_warnings_alone_exit_zero() -> None:
    result = run(request([{"role": "user", "content": [{"type": "hologram"}]}]))
    assert [f.severity for _, f in result.findings] == ["warning"]
    assert result.exit_code == 0


def _boom(req: checks.Request) -> checks.Emit:
    raise RuntimeError("a bug in a rule")
    yield  # pragma: no cover


def test_a_crashing_rule_and_a_crashing_tracker_are_contained(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wr, "CHECKS", (*wr.CHECKS, wr.Check(
        "boom", frozenset({"anthropic"}), ("unknown-block",), _boom)))
    result = run(request([{"role": "user", "content": [{"type": "thinking", "thinking": "t"}]}]))
    (x,) = result.audited
    assert [e.check for e in x.errors] == ["boom"]
    assert [f.rule for f in x.findings] == ["BO-001"]  # the other rules still ran

    def broken(self: Any, ref: Any, exchange: Any) -> Any:
        raise KeyError("tracker bug")

    monkeypatch.setattr(ConversationTracker, "observe", broken)
    result = run(request([{"role": "user", "content": "hi"}]))
    (x,) = result.audited
    assert [e.check for e in x.errors] == ["boom", "conversation"]
    case = {r["case"]: r for r in records(result, source="test") if r["type"] == "case"}
    assert case["exchange-0.WA-D006"]["status"] == "errored"
    assert case["exchange-0.WA-D006"]["transcript"]
    assert case["exchange-0.WA-D003"]["status"] == "errored"  # the rule the crashed check owns
    # a rule that saw nothing has no record of the request: one per-rule record says so
    assert "exchange-0.BO-D001" not in case
    assert case["audit.BO-D001"]["status"] == "pass"
    assert case["audit.BO-D001"]["message"] == "no violation seen in 1 of 1 request"


def test_a_20_mb_body_is_audited_in_bounded_time() -> None:
    filler = "x" * (20 * 1024 * 1024)
    messages = [{"role": "user", "content": filler},
                {"role": "assistant", "content": "ok"},
                {"role": "user", "content": [{"type": "text", "text": "end"},
                                             {"type": "thinking", "thinking": "t"}]}]
    started = time.perf_counter()
    result = run(request(messages))
    assert time.perf_counter() - started < 20
    assert [f.pointer for _, f in result.findings] == ["/request/body/messages/2/content/1"]


def test_bodies_the_audit_cannot_read_become_notes_or_warnings() -> None:
    result = run(
        RawExchange("t", "POST", A_URL, RawMessage((), b"{\"model\":", truncated=True)),
        RawExchange("t", "POST", A_URL, RawMessage((), b"not json")),
        request([{"role": "user", "content": "hi"}], error="Server connection refused"),
    )
    truncated, not_json, refused = result.audited
    assert truncated.checked == () and "not audited" in truncated.notes[0]
    assert [f.rule for f in not_json.findings] == ["WA-D004"]
    assert refused.notes == ("transport error: Server connection refused",)
    statuses = {r["case"]: r["status"] for r in records(result, source="t")
                if r["type"] == "case"}
    assert statuses["exchange-0.not-audited"] == "not-applicable"
    assert statuses["exchange-1.WA-D004"] == "fail"
    assert statuses["exchange-2.notes"] == "not-applicable"


def test_reports_timeline_and_no_secret_anywhere(tmp_path: Path) -> None:
    headers = (("x-api-key", KEYS[0]), ("Authorization", f"Bearer {KEYS[2]}"),
               ("cookie", f"session={KEYS[1]}"))
    result = run(
        request([{"role": "user", "content": f"my key is {KEYS[0]} and {KEYS[1]}"}],
                url=f"{A_URL}?key={KEYS[1]}", headers=headers, response=ok("noted")),
        request([{"role": "user", "content": "x"}, {"role": "assistant", "content": "noted"},
                 {"role": "user", "content": [{"type": "tool_use", "id": "a", "name": "n",
                                               "input": {"k": KEYS[0]}}]}],
                headers=headers, error=f"upstream said: invalid x-api-key {KEYS[0]}"),
    )
    paths = write_reports(tmp_path, result, source=f"proxy with Bearer {KEYS[2]}",
                          name="agent", scrub=Scrubber(b"salt"))
    assert {"results.jsonl", "junit.xml", "summary.md", "report.html", "audit.json"} <= set(
        paths)
    run_ = read(paths["results.jsonl"])  # schema-valid, with a footer
    assert run_.footer is not None and run_.footer.exit_code == 1
    statuses = {c.case: c.status for c in run_.cases}
    assert statuses["exchange-1.BO-002"] == "fail"
    families = {c.family for c in run_.cases}
    assert {"block-omission", "wire-audit"} <= families
    page = paths["report.html"].read_text()
    assert '<h2 id="conversations">Conversations</h2>' in page
    assert page.index("Conversations</h2>") < page.index("<h2>Rules</h2>")
    assert "WA-D006" in page  # the dropped-history warning is on the timeline
    for path in tmp_path.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            for key in KEYS:
                assert key not in text, f"{key} leaked into {path.name}"
    assert "[REDACTED" in (tmp_path / "results.jsonl").read_text()


def test_to_json_counts_and_exit_code() -> None:
    result = run(request([{"role": "user", "content": ""}]))
    doc = to_json(result, source="s")
    assert doc["format"] == "agent-tck-audit/1"
    assert doc["counts"]["error"] == 1 and doc["exit_code"] == 1
    assert doc["exchanges"][0]["findings"][0]["rule"] == "BO-D001"
    assert doc["conversations"][0]["requests"] == [0]


def test_an_empty_audit_still_writes_valid_reports(tmp_path: Path) -> None:
    paths = write_reports(tmp_path, run(), source="nothing")
    run_ = read(paths["results.jsonl"])
    assert run_.cases == () and run_.footer is not None and run_.footer.exit_code == 0
