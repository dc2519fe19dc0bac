"""The audit report's timeline: forks drawn as branches of their parent, and each rewrite
with the two requests' messages side by side at the point of change."""

from __future__ import annotations

from pathlib import Path

from agent_tck.harness.audit.redact import Scrubber
from agent_tck.harness.audit.sink import write_reports
from tests.test_audit_engine import ok, request, run

KEY = "sk-ant-api03-PLANTEDtimelineKEY0123456789"


def u(text: str) -> dict:
    return {"role": "user", "content": text}


def a(text: str) -> dict:
    return {"role": "assistant", "content": text}


def test_the_timeline_draws_the_tree_and_the_rewrite_side_by_side(tmp_path: Path) -> None:
    result = run(
        request([u("q1")], response=ok("a1")),
        request([u("other session")], response=ok("o1")),
        request([u("q1"), a("a1"), u("q2")], response=ok("a2")),
        request([u("q1"), a("a1"), u("fork task")], response=ok("f1")),  # a fork of c1 at 2
        request([u("q1"), a("a1"), u("q2"), a("a2"), u("q3")], response=ok("a3")),
        # message 2 edited, with a planted key: the diff shows both sides, scrubbed
        request([u("q1"), a("a1"), u(f"q2, reworded with {KEY}"), a("a2"), u("q3"), a("a3"),
                 u("q4")], response=ok("a4")),
    )
    assert [(x.conversation, x.placement) for x in result.audited] == [
        ("c1", "new"), ("c2", "new"), ("c1", "continuation"), ("c3", "fork"),
        ("c1", "continuation"), ("c1", "continuation")]
    rewrite = result.audited[-1].rewrite
    assert rewrite is not None and rewrite["kind"] == "edited"
    assert rewrite["at"] == "/request/body/messages/2"
    paths = write_reports(tmp_path, result, source="test", name="agent",
                          scrub=Scrubber(b"salt"))
    page = paths["report.html"].read_text()
    # tree order: c1, its fork c3 drawn as a branch, then c2
    c1, c3, c2 = (page.index(f"<strong>{c}</strong>") for c in ("c1", "c3", "c2"))
    assert c1 < c3 < c2
    assert "└─ <strong>c3</strong>" in page
    assert "edited at <code>/request/body/messages/2</code>" in page
    assert "&quot;q2&quot;" in page and "q2, reworded with" in page  # both sides
    assert KEY not in page and KEY not in paths["results.jsonl"].read_text()
