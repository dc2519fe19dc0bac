"""The message-parts vectors, written by hand in Python and dumped to vectors/message-parts/.

Every expected output below is spelled out here from the rules (the helpers only fill in the
constant fields the note's table fixes: surface and default behaviour per kind); nothing is
computed by the reference implementation. ``tests/test_message_parts_vectors.py`` checks that
the JSON files are exactly what this module builds and that the reference passes every case.

Regenerate the JSON after an edit::

    .venv/bin/python tests/message_parts_cases.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FAMILY = "message-parts"
OUT = Path(__file__).resolve().parent.parent / "vectors" / FAMILY

Q = "What is 6 x 7?"
ALICE = "alice"

# ---------------------------------------------------------------------------------------------
# Events.


def start(turn: str = "t1", uid: str = "u1", text: str = Q, author: str = ALICE,
          **extra: Any) -> dict[str, Any]:
    return {"type": "turn.start", "turn": turn,
            "user": {"id": uid, "author": author, "text": text}, **extra}


def branch(turn: str, frm: str) -> dict[str, Any]:
    return {"type": "turn.branch", "turn": turn, "from": frm}


def end(turn: str = "t1") -> dict[str, Any]:
    return {"type": "turn.end", "turn": turn}


def abort(turn: str = "t1") -> dict[str, Any]:
    return {"type": "turn.abort", "turn": turn, "reason": "user pressed stop"}


def ps(pid: str, kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": "part.start", "id": pid, "kind": kind, **fields}


def d(pid: str, text: str, seq: int | None = None) -> dict[str, Any]:
    ev = {"type": "part.delta", "id": pid, "text": text}
    if seq is not None:
        ev["seq"] = seq
    return ev


def fin(pid: str, text: str, **fields: Any) -> dict[str, Any]:
    return {"type": "part.final", "id": pid, "text": text, **fields}


def pe(pid: str, **fields: Any) -> dict[str, Any]:
    return {"type": "part.end", "id": pid, **fields}


def export(pid: str) -> dict[str, Any]:
    return {"type": "part.export", "id": pid}


def link(artifact: str) -> dict[str, Any]:
    return {"type": "answer.link", "artifact": artifact}


def cite(evidence: str) -> dict[str, Any]:
    return {"type": "answer.cite", "evidence": evidence}


def log(channel: str, data: Any) -> dict[str, Any]:
    return {"type": "runtime.log", "channel": channel, "data": data}


def text_part(pid: str, *chunks: str) -> list[dict[str, Any]]:
    """An assistant_text part streamed in chunks and ended without a final."""
    return [ps(pid, "assistant_text"), *(d(pid, c) for c in chunks), pe(pid)]


# ---------------------------------------------------------------------------------------------
# Expected part records: the table's surface and behaviour per kind, the rest as given.


def x_user(pid: str = "u1", text: str = Q, author: str = ALICE) -> dict[str, Any]:
    return {"id": pid, "kind": "user_text", "surface": "Conversation",
            "behaviour": "show_immediately_with_author", "state": "done",
            "author": author, "text": text}


def x_text(pid: str, text: str, final: str = "none", state: str = "done") -> dict[str, Any]:
    return {"id": pid, "kind": "assistant_text", "surface": "Conversation",
            "behaviour": "render_as_final_answer", "state": state, "text": text, "final": final}


def x_rsum(pid: str, text: str, *, state: str = "done", final: str = "none",
           summary: str | None = None, exported: bool = False) -> dict[str, Any]:
    return {"id": pid, "kind": "reasoning_summary", "surface": "Process",
            "behaviour": "collapse_or_summarize", "state": state, "text": text,
            "final": final, "summary": summary, "exported": exported}


def x_rdet(pid: str, text: str, *, state: str = "done", final: str = "none",
           summary: str | None = None, exported: bool = False,
           redacted: bool = False) -> dict[str, Any]:
    return {"id": pid, "kind": "reasoning_detail", "surface": "Process",
            "behaviour": "show_only_if_policy_and_user_allow", "state": state, "text": text,
            "final": final, "summary": summary, "exported": exported, "redacted": redacted}


def x_status(pid: str, surface: str, text: str, *, state: str = "done",
             final: str = "none") -> dict[str, Any]:
    return {"id": pid, "kind": "runtime_status", "surface": surface,
            "behaviour": "compact_status_not_body", "state": state, "text": text,
            "final": final}


def x_call(pid: str, name: str, input_: str, *, state: str = "done", final: str = "none",
           summary: str | None = None, attempt: int = 1, retry_of: str | None = None,
           outcome: str | None = None) -> dict[str, Any]:
    return {"id": pid, "kind": "tool_call", "surface": "Process",
            "behaviour": "compact_step_with_input_summary", "state": state, "name": name,
            "input": input_, "final": final, "summary": summary, "attempt": attempt,
            "retry_of": retry_of, "outcome": outcome}


def x_result(pid: str, call: str, output: str, *, state: str = "done", final: str = "none",
             summary: str | None = None, is_error: bool = False) -> dict[str, Any]:
    return {"id": pid, "kind": "tool_result", "surface": "Process",
            "behaviour": "preview_summary_or_detail_drawer", "state": state, "call": call,
            "output": output, "final": final, "summary": summary, "is_error": is_error}


def x_action(pid: str, prompt: str, payload: Any = None, *, pending: bool = True,
             state: str = "open") -> dict[str, Any]:
    return {"id": pid, "kind": "action_required", "surface": "Task",
            "behaviour": "explicit_cta_with_pending_state", "state": state, "prompt": prompt,
            "payload": payload, "pending": pending}


def x_artifact(pid: str, artifact: str, title: str,
               summary: str | None = None) -> dict[str, Any]:
    return {"id": pid, "kind": "artifact_ref", "surface": "Artifact",
            "behaviour": "summary_card_opens_artifact_workspace", "state": "done",
            "artifact": artifact, "title": title, "summary": summary,
            "opens": "artifact_workspace"}


def x_evidence(pid: str, evidence: str, entry: str, label: str | None = None,
               pack: Any = None) -> dict[str, Any]:
    return {"id": pid, "kind": "evidence_ref", "surface": "Evidence",
            "behaviour": "source_verification_or_replay_entry", "state": "done",
            "evidence": evidence, "entry": entry, "label": label, "pack": pack}


def x_error(pid: str, surface: str, message: str, recoverable: bool, *,
            next_step: str | None = None) -> dict[str, Any]:
    return {"id": pid, "kind": "error", "surface": surface,
            "behaviour": "recoverable_diagnostic_and_next_step", "state": "done",
            "message": message, "recoverable": recoverable, "next_step": next_step}


# Expected views.


def parts_out(*turns: tuple[str, str, list[dict[str, Any]]]) -> dict[str, Any]:
    return {"turns": [{"turn": t, "status": s, "parts": p} for t, s, p in turns]}


def seg(pid: str, text: str) -> dict[str, str]:
    return {"part": pid, "text": text}


def answer_turn(turn: str, status: str, segments: list[dict[str, str]],
                links: list[str] | None = None,
                citations: list[str] | None = None) -> dict[str, Any]:
    return {"turn": turn, "status": status, "segments": segments,
            "links": links or [], "citations": citations or []}


def answer_out(*turns: dict[str, Any]) -> dict[str, Any]:
    return {"turns": list(turns)}


def item(pid: str, projection: str, display: str) -> dict[str, str]:
    return {"part": pid, "projection": projection, "display": display}


def project_out(view: str, *turns: tuple[str, str, list[dict[str, str]]]) -> dict[str, Any]:
    return {"view": view,
            "turns": [{"turn": t, "status": s, "items": i} for t, s, i in turns]}


def titles_out(*titles: tuple[str, str, str | None]) -> dict[str, Any]:
    return {"titles": [{"turn": t, "part": p, "title": x} for t, p, x in titles]}


def branch_turn(turn: str, process: list[str], evidence: list[str], *,
                branch_of: str | None = None, uid: str = "u1", text: str = Q,
                author: str = ALICE, context: list[str] | None = None,
                mode: str | None = None,
                artifacts: list[str] | None = None) -> dict[str, Any]:
    return {"turn": turn, "branch_of": branch_of,
            "user": {"id": uid, "author": author, "text": text},
            "context": context or [], "mode": mode, "artifacts": artifacts or [],
            "process": process, "evidence": evidence}


def made(artifact: str, turn: str, part: str) -> dict[str, str]:
    return {"artifact": artifact, "turn": turn, "part": part}


OK_USER = item("u1", "message", "shown")

# ---------------------------------------------------------------------------------------------
# Cases.

FILES: dict[str, dict[str, Any]] = {}

# The rules that govern a part's reconciliation mark `final` (none / final_only / matched /
# replaced): a case's `message-parts.parts` output carries the marks only if it cites one.
RECONCILIATION = {"MP-080", "MP-087", "MP-088", "MP-089", "MP-104",
                  "MP-D002", "MP-D003", "MP-D004", "MP-D005", "MP-D007"}


def _without_marks(parts: dict[str, Any]) -> dict[str, Any]:
    return {**parts, "turns": [
        {**t, "parts": [{k: v for k, v in p.items() if k != "final"} for p in t["parts"]]}
        for t in parts["turns"]]}


def case(file: str, cid: str, rules: list[str], description: str, events: list[Any], *,
         view: dict[str, Any] | None = None, raw_input: Any = None,
         **expect: Any) -> None:
    """``expect`` maps parts/answer/project/titles/branches to an output, or ``error`` to a
    code expected from the operations named in ``ops`` (default: parts and answer)."""
    doc = FILES.setdefault(file, {"family": FAMILY, "cases": []})
    payload: Any = raw_input if raw_input is not None else {"events": events}
    if view is not None:
        payload["view"] = view
    if "parts" in expect and not RECONCILIATION & set(rules):
        # The reconciliation mark is governed by the reconciliation rules only: a case that
        # cites none of them asks for the parts without it, so a wrong mark never fails it.
        payload["marks"] = False
        expect["parts"] = _without_marks(expect["parts"])
    out: dict[str, Any] = {}
    error = expect.pop("error", None)
    ops = expect.pop("ops", ["parts", "answer"])
    if error is not None:
        for op in ops:
            out[f"message-parts.{op}"] = {"error": {"code": error}}
    for op, value in expect.items():
        out[f"message-parts.{op}"] = {"output": value}
    doc["cases"].append({"id": cid, "rules": rules, "description": description,
                         "input": payload, "expect": out})


# --- kinds.json: the 11 standard parts --------------------------------------------------------

K = "kinds"
case(K, "mp-kind-user-text-shown-at-once", ["MP-010", "MP-001"],
     "A user message is a user_text part on the Conversation surface, with its author, shown "
     "at once while the turn has no assistant output yet.",
     [start()],
     parts=parts_out(("t1", "active", [x_user()])),
     project=project_out("active", ("t1", "active", [OK_USER])),
     answer=answer_out(answer_turn("t1", "active", [])))

case(K, "mp-kind-assistant-text-is-the-answer", ["MP-011", "MP-001", "MP-050"],
     "assistant_text is on the Conversation surface and its text is the final answer.",
     [start(), *text_part("a1", "6 x 7 ", "= 42."), end()],
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "6 x 7 = 42.")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "6 x 7 = 42.")])),
     project=project_out("idle", ("t1", "completed",
                                  [OK_USER, item("a1", "message", "answer")])))

case(K, "mp-kind-reasoning-summary-collapsed", ["MP-012", "MP-082", "MP-053"],
     "A reasoning_summary is a Process part; in a completed turn it is folded in the "
     "timeline archive and its text is not in the answer.",
     [start(), ps("r1", "reasoning_summary"), d("r1", "Multiply six "), d("r1", "by seven."),
      pe("r1"), *text_part("a1", "42"), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_rsum("r1", "Multiply six by seven."), x_text("a1", "42")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "42")])),
     project=project_out("idle", ("t1", "completed", [
         OK_USER, item("r1", "timeline", "collapsed"), item("a1", "message", "answer")])))

DETAIL_EVENTS = [start(), ps("rd1", "reasoning_detail"), d("rd1", "raw chain: 6*7 -> 42"),
                 pe("rd1"), *text_part("a1", "42"), end()]
DETAIL_PARTS = parts_out(("t1", "completed", [
    x_user(), x_rdet("rd1", "raw chain: 6*7 -> 42"), x_text("a1", "42")]))
DETAIL_HIDDEN = project_out("idle", ("t1", "completed", [
    OK_USER, item("rd1", "timeline", "hidden"), item("a1", "message", "answer")]))

case(K, "mp-kind-reasoning-detail-hidden-by-default", ["MP-013", "MP-053", "MP-D010"],
     "A reasoning_detail is a Process part, kept as a part but hidden when the view says "
     "nothing about policy and user settings; it never reaches the answer.",
     DETAIL_EVENTS,
     parts=DETAIL_PARTS, project=DETAIL_HIDDEN,
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "42")])))

case(K, "mp-kind-reasoning-detail-policy-allows-user-does-not", ["MP-013", "MP-D010"],
     "The policy allows reasoning detail but the user's setting does not: hidden.",
     DETAIL_EVENTS, view={"reasoning_detail": {"policy": True, "user": False}},
     project=DETAIL_HIDDEN)

case(K, "mp-kind-reasoning-detail-user-allows-policy-does-not", ["MP-013", "MP-D010"],
     "The user's setting allows reasoning detail but the policy does not: hidden.",
     DETAIL_EVENTS, view={"reasoning_detail": {"policy": False, "user": True}},
     project=DETAIL_HIDDEN)

case(K, "mp-kind-reasoning-detail-both-allow-completed", ["MP-013", "MP-D010", "MP-106"],
     "Policy and user both allow reasoning detail: in a completed turn it is folded in the "
     "timeline archive like other process.",
     DETAIL_EVENTS, view={"reasoning_detail": {"policy": True, "user": True}},
     project=project_out("idle", ("t1", "completed", [
         OK_USER, item("rd1", "timeline", "collapsed"), item("a1", "message", "answer")])))

case(K, "mp-kind-reasoning-detail-both-allow-running", ["MP-013", "MP-035", "MP-D010"],
     "Policy and user both allow reasoning detail: while it streams in a running turn it is "
     "inline with a live body.",
     [start(), ps("rd1", "reasoning_detail"), d("rd1", "Let me")],
     view={"reasoning_detail": {"policy": True, "user": True}},
     parts=parts_out(("t1", "active", [x_user(), x_rdet("rd1", "Let me", state="open")])),
     project=project_out("active", ("t1", "active", [
         OK_USER, item("rd1", "inline", "live")])))

case(K, "mp-kind-runtime-status-process", ["MP-014", "MP-084", "MP-D001", "MP-D008"],
     "A runtime_status on the Process surface is a compact status, archived with the process, "
     "and never answer text.",
     [start(), ps("s1", "runtime_status", surface="Process"), d("s1", "Searching the web"),
      pe("s1"), *text_part("a1", "Found it."), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_status("s1", "Process", "Searching the web"), x_text("a1", "Found it.")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Found it.")])),
     project=project_out("idle", ("t1", "completed", [
         OK_USER, item("s1", "timeline", "status"), item("a1", "message", "answer")])))

case(K, "mp-kind-runtime-status-task", ["MP-014", "MP-D001", "MP-D008"],
     "A runtime_status the runtime puts on the Task surface is a compact status in the task "
     "projection.",
     [start(), ps("s1", "runtime_status", surface="Task"), d("s1", "Build 3/5 running")],
     parts=parts_out(("t1", "active", [
         x_user(), x_status("s1", "Task", "Build 3/5 running", state="open")])),
     project=project_out("active", ("t1", "active", [OK_USER, item("s1", "task", "status")])),
     answer=answer_out(answer_turn("t1", "active", [])))

TOOL_EVENTS = [
    start(), ps("c1", "tool_call", name="calculator"), d("c1", '{"expr": '), d("c1", '"6*7"}'),
    pe("c1", summary="6*7"), ps("res1", "tool_result", call="c1"),
    fin("res1", '{"value": 42, "unit": null}'), *text_part("a1", "It is 42."), end()]
case(K, "mp-kind-tool-call-and-result", ["MP-015", "MP-016", "MP-083", "MP-070", "MP-101"],
     "A tool call keeps its name, streamed input and input summary; its result keeps the raw "
     "JSON output inspectable in the part; both fold into the archive and neither reaches the "
     "answer.",
     TOOL_EVENTS,
     parts=parts_out(("t1", "completed", [
         x_user(),
         x_call("c1", "calculator", '{"expr": "6*7"}', summary="6*7", outcome="succeeded"),
         x_result("res1", "c1", '{"value": 42, "unit": null}', final="final_only"),
         x_text("a1", "It is 42.")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "It is 42.")])),
     project=project_out("idle", ("t1", "completed", [
         OK_USER, item("c1", "timeline", "collapsed"), item("res1", "timeline", "collapsed"),
         item("a1", "message", "answer")])))

APPROVAL = {"tool": "write_file", "path": "./out/report.md", "bytes": 5120}
case(K, "mp-kind-action-required-pending", ["MP-017", "MP-102", "MP-085", "MP-074", "MP-D008"],
     "A pending action_required is a Task part shown as a call to action with a pending "
     "state; its approval payload stays in the part, not in the answer.",
     [start(), ps("act1", "action_required", prompt="Allow writing ./out/report.md?",
                  payload=APPROVAL)],
     parts=parts_out(("t1", "active", [
         x_user(), x_action("act1", "Allow writing ./out/report.md?", APPROVAL)])),
     project=project_out("active", ("t1", "active", [OK_USER, item("act1", "task", "cta")])),
     answer=answer_out(answer_turn("t1", "active", [])))

case(K, "mp-kind-action-required-resolved", ["MP-017", "MP-D008"],
     "Once resolved (part.end) the action is no longer pending and its CTA folds.",
     [start(), ps("act1", "action_required", prompt="Allow writing ./out/report.md?",
                  payload=APPROVAL), pe("act1"), *text_part("a1", "Written."), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_action("act1", "Allow writing ./out/report.md?", APPROVAL,
                            pending=False, state="done"),
         x_text("a1", "Written.")])),
     project=project_out("idle", ("t1", "completed", [
         OK_USER, item("act1", "task", "collapsed"), item("a1", "message", "answer")])))

case(K, "mp-kind-artifact-ref-card", ["MP-018", "MP-103", "MP-086", "MP-062", "MP-097"],
     "An artifact_ref is an Artifact part: a summary card that opens in the Artifact "
     "workspace; the answer links to it by id; the artifact is attributed to its turn.",
     [start(), ps("ar1", "artifact_ref", artifact="art-report", title="Q3 report",
                  summary="3 pages, 2 charts"),
      *text_part("a1", "The report is ready."), link("art-report"), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_artifact("ar1", "art-report", "Q3 report", "3 pages, 2 charts"),
         x_text("a1", "The report is ready.")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "The report is ready.")],
                                   links=["art-report"])),
     project=project_out("idle", ("t1", "completed", [
         OK_USER, item("ar1", "message", "card"), item("a1", "message", "answer")])),
     branches={"turns": [branch_turn("t1", [], [])],
               "artifacts": [made("art-report", "t1", "ar1")]})

PACK = {"files": ["calc.log", "trace.json"], "hash": "sha256:ab12", "lines": 1800}
case(K, "mp-kind-evidence-ref-entries", ["MP-019", "MP-063", "MP-055", "MP-075"],
     "evidence_ref parts are Evidence entries of kind source, verification or replay; the "
     "answer cites one by evidence id and never carries the full pack.",
     [start(), ps("ev1", "evidence_ref", evidence="ev-src", entry="source", label="calc.log",
                  pack=PACK),
      ps("ev2", "evidence_ref", evidence="ev-check", entry="verification"),
      ps("ev3", "evidence_ref", evidence="ev-replay", entry="replay", label="run 7"),
      *text_part("a1", "It is 42."), cite("ev-src"), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_evidence("ev1", "ev-src", "source", "calc.log", PACK),
         x_evidence("ev2", "ev-check", "verification"),
         x_evidence("ev3", "ev-replay", "replay", "run 7"), x_text("a1", "It is 42.")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "It is 42.")],
                                   citations=["ev-src"])),
     project=project_out("idle", ("t1", "completed", [
         OK_USER, item("ev1", "message", "entry"), item("ev2", "message", "entry"),
         item("ev3", "message", "entry"), item("a1", "message", "answer")])))

case(K, "mp-kind-error-process", ["MP-020", "MP-D001", "MP-D008"],
     "An error on the Process surface keeps its diagnostic, whether it is recoverable and the "
     "next step; it is displayed as a diagnostic and is not answer text.",
     [start(), ps("e1", "error", surface="Process", message="calculator timed out",
                  recoverable=True, next_step="Retry the calculation"), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_error("e1", "Process", "calculator timed out", True,
                           next_step="Retry the calculation")])),
     project=project_out("idle", ("t1", "completed", [
         OK_USER, item("e1", "timeline", "diagnostic")])),
     answer=answer_out(answer_turn("t1", "completed", [])))

case(K, "mp-kind-error-task", ["MP-020", "MP-D001", "MP-D008"],
     "An error the runtime puts on the Task surface is a diagnostic in the task projection.",
     [start(), ps("e1", "error", surface="Task", message="quota exhausted", recoverable=False,
                  next_step=None)],
     parts=parts_out(("t1", "active", [
         x_user(), x_error("e1", "Task", "quota exhausted", False)])),
     project=project_out("active", ("t1", "active", [
         OK_USER, item("e1", "task", "diagnostic")])))

ALL_KINDS_EVENTS = [
    start(), ps("r1", "reasoning_summary"), d("r1", "Plan the lookup."), pe("r1"),
    ps("rd1", "reasoning_detail"), d("rd1", "detail"), pe("rd1"),
    ps("s1", "runtime_status", surface="Process"), d("s1", "Searching"), pe("s1"),
    ps("c1", "tool_call", name="search"), d("c1", '{"q": "weather"}'), pe("c1"),
    ps("res1", "tool_result", call="c1"), d("res1", '{"sky": "clear"}'), pe("res1"),
    ps("act1", "action_required", prompt="Share location?"), pe("act1"),
    ps("ar1", "artifact_ref", artifact="art-map", title="Map"),
    ps("ev1", "evidence_ref", evidence="ev-1", entry="source"),
    ps("e1", "error", surface="Process", message="one source failed", recoverable=True),
    *text_part("a1", "Clear skies today."), end()]
case(K, "mp-kind-all-eleven-typed-in-order", ["MP-001", "MP-002", "MP-030"],
     "One turn carrying every one of the 11 kinds: each event becomes a part of its own "
     "kind, in arrival order; only the assistant text is answer.",
     ALL_KINDS_EVENTS,
     parts=parts_out(("t1", "completed", [
         x_user(), x_rsum("r1", "Plan the lookup."), x_rdet("rd1", "detail"),
         x_status("s1", "Process", "Searching"),
         x_call("c1", "search", '{"q": "weather"}', outcome="succeeded"),
         x_result("res1", "c1", '{"sky": "clear"}'),
         x_action("act1", "Share location?", pending=False, state="done"),
         x_artifact("ar1", "art-map", "Map"), x_evidence("ev1", "ev-1", "source"),
         x_error("e1", "Process", "one source failed", True),
         x_text("a1", "Clear skies today.")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Clear skies today.")])))

# --- order.json: part order and interleaving -------------------------------------------------

ORD = "order"
case(ORD, "mp-order-reasoning-not-hoisted", ["MP-031", "MP-030"],
     "Reasoning that arrives after answer text stays after it: it is not hoisted to the head "
     "of the message.",
     [start(), *text_part("a1", "Let me think. "), ps("r1", "reasoning_summary"),
      d("r1", "Six sevens are forty-two."), pe("r1"), *text_part("a2", "It is 42."), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_text("a1", "Let me think. "), x_rsum("r1", "Six sevens are forty-two."),
         x_text("a2", "It is 42.")])),
     project=project_out("idle", ("t1", "completed", [
         OK_USER, item("a1", "message", "answer"), item("r1", "timeline", "collapsed"),
         item("a2", "message", "answer")])))

case(ORD, "mp-order-tools-not-pushed-to-end", ["MP-032", "MP-030", "MP-060", "MP-061"],
     "A tool call and its result that arrive between two answer texts stay between them: "
     "tool rows are not pushed to the end; the explanation before and the conclusion after "
     "are both in the answer.",
     [start(), *text_part("a1", "I'll check the weather. "),
      ps("c1", "tool_call", name="weather"), d("c1", '{"city": "Oslo"}'), pe("c1"),
      ps("res1", "tool_result", call="c1"), fin("res1", '{"sky": "clear"}'),
      *text_part("a2", "Oslo is clear today."), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_text("a1", "I'll check the weather. "),
         x_call("c1", "weather", '{"city": "Oslo"}', outcome="succeeded"),
         x_result("res1", "c1", '{"sky": "clear"}', final="final_only"),
         x_text("a2", "Oslo is clear today.")])),
     answer=answer_out(answer_turn("t1", "completed", [
         seg("a1", "I'll check the weather. "), seg("a2", "Oslo is clear today.")])))

RUNNING = [start(), ps("r1", "reasoning_summary"), d("r1", "I need the wea"),
           ps("c1", "tool_call", name="weather"), d("c1", '{"city": "Os'),
           ps("a1", "assistant_text"), d("a1", "Checking Oslo")]
case(ORD, "mp-order-running-turn-interleaves", ["MP-105", "MP-033", "MP-035", "MP-030"],
     "In a running turn, reasoning, a tool call streaming its input and answer text are shown "
     "interleaved in part order, the running process inline with a live body.",
     RUNNING,
     parts=parts_out(("t1", "active", [
         x_user(), x_rsum("r1", "I need the wea", state="open"),
         x_call("c1", "weather", '{"city": "Os', state="open"),
         x_text("a1", "Checking Oslo", state="open")])),
     project=project_out("active", ("t1", "active", [
         OK_USER, item("r1", "inline", "live"), item("c1", "inline", "live"),
         item("a1", "message", "answer")])),
     answer=answer_out(answer_turn("t1", "active", [seg("a1", "Checking Oslo")])))

case(ORD, "mp-order-status-artifact-evidence-in-place", ["MP-030"],
     "runtime_status, artifact_ref and evidence_ref keep their arrival places among the "
     "answer texts.",
     [start(), ps("s1", "runtime_status", surface="Process"), d("s1", "Drafting"), pe("s1"),
      *text_part("a1", "Draft below. "), ps("ar1", "artifact_ref", artifact="art-d",
                                           title="Draft"),
      ps("ev1", "evidence_ref", evidence="ev-d", entry="replay"),
      *text_part("a2", "Review it."), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_status("s1", "Process", "Drafting"), x_text("a1", "Draft below. "),
         x_artifact("ar1", "art-d", "Draft"), x_evidence("ev1", "ev-d", "replay"),
         x_text("a2", "Review it.")])))

# --- projection.json: live projection and archive --------------------------------------------

V = "projection"
case(V, "mp-view-tool-input-and-progress-visible", ["MP-035", "MP-106", "MP-033"],
     "While the run is active, a tool call whose input is streaming and a tool result "
     "reporting progress are both inline and live.",
     [start(), ps("c1", "tool_call", name="build"), d("c1", '{"target": "al'),
      ps("res1", "tool_result", call="c1"), d("res1", "compiling 3/10\n")],
     parts=parts_out(("t1", "active", [
         x_user(), x_call("c1", "build", '{"target": "al', state="open"),
         x_result("res1", "c1", "compiling 3/10\n", state="open")])),
     project=project_out("active", ("t1", "active", [
         OK_USER, item("c1", "inline", "live"), item("res1", "inline", "live")])))

case(V, "mp-view-pending-action-visible", ["MP-035", "MP-102"],
     "A pending action_required step in a running turn stays visible as a call to action.",
     [start(), ps("r1", "reasoning_summary"), d("r1", "Need approval"),
      ps("act1", "action_required", prompt="Run the migration?")],
     project=project_out("active", ("t1", "active", [
         OK_USER, item("r1", "inline", "live"), item("act1", "task", "cta")])))

case(V, "mp-view-completed-turn-folds-into-archive",
     ["MP-106", "MP-034", "MP-036", "MP-012", "MP-101"],
     "When the running turn above completes, its reasoning and tool parts are folded into "
     "the turn's timeline archive; the answer stays in the message.",
     [*RUNNING, d("r1", "ther."), pe("r1"), d("c1", 'lo"}'), pe("c1"), d("a1", ": clear."),
      pe("a1"), end()],
     project=project_out("idle", ("t1", "completed", [
         OK_USER, item("r1", "timeline", "collapsed"), item("c1", "timeline", "collapsed"),
         item("a1", "message", "answer")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Checking Oslo: clear.")])))

case(V, "mp-view-not-folded-while-running", ["MP-036", "MP-035"],
     "Nothing is folded while it runs: reasoning and tool parts still streaming are live.",
     [*RUNNING, d("r1", "ther.")],
     project=project_out("active", ("t1", "active", [
         OK_USER, item("r1", "inline", "live"), item("c1", "inline", "live"),
         item("a1", "message", "answer")])))

TWO_TURNS = [
    start(), ps("r1", "reasoning_summary"), d("r1", "Look it up."), pe("r1"),
    ps("c1", "tool_call", name="search"), d("c1", '{"q": "a"}'), pe("c1"),
    *text_part("a1", "Found A."), end(),
    start("t2", "u2", "And B?"), ps("r2", "reasoning_summary"), d("r2", "Now B"),
    ps("c2", "tool_call", name="search"), d("c2", '{"q": "b')]
case(V, "mp-view-one-projection-per-fact", ["MP-037", "MP-038", "MP-107", "MP-033"],
     "An earlier completed turn is in its timeline archive while the running turn's "
     "reasoning and tool facts are inline; every fact is projected exactly once.",
     TWO_TURNS,
     project=project_out("active",
                         ("t1", "completed", [
                             OK_USER, item("r1", "timeline", "collapsed"),
                             item("c1", "timeline", "collapsed"),
                             item("a1", "message", "answer")]),
                         ("t2", "active", [
                             item("u2", "message", "shown"), item("r2", "inline", "live"),
                             item("c2", "inline", "live")])))

case(V, "mp-view-finished-fact-of-running-turn-stays-inline", ["MP-D008", "MP-033", "MP-105"],
     "A reasoning part that finished while its turn still runs stays inline, collapsed in "
     "place and in live part order, until the turn completes.",
     [start(), ps("r1", "reasoning_summary"), d("r1", "Plan."), pe("r1"),
      ps("c1", "tool_call", name="search"), d("c1", '{"q": ')],
     project=project_out("active", ("t1", "active", [
         OK_USER, item("r1", "inline", "collapsed"), item("c1", "inline", "live")])))

case(V, "mp-view-aborted-turn-archived", ["MP-D007", "MP-D008"],
     "An aborted turn is finished: its process, aborted mid-stream, is folded in its "
     "timeline archive; its partial answer stays in the message.",
     [start(), ps("r1", "reasoning_summary"), d("r1", "Thinking ab"),
      ps("a1", "assistant_text"), d("a1", "The ans"), abort()],
     project=project_out("idle", ("t1", "aborted", [
         OK_USER, item("r1", "timeline", "collapsed"), item("a1", "message", "answer")])))

# --- titles.json ---------------------------------------------------------------------------

T = "titles"
case(T, "mp-title-no-fragment-while-streaming", ["MP-040", "MP-039"],
     "A reasoning summary still streaming half a word has no title: the fragment never "
     "takes it.",
     [start(), ps("r1", "reasoning_summary"), d("r1", "Let me chec")],
     titles=titles_out(("t1", "r1", None)))

case(T, "mp-title-stable-summary-while-streaming", ["MP-039", "MP-040"],
     "A stable process summary supplied by the runtime is the title while the text streams.",
     [start(), ps("r1", "reasoning_summary", summary="Checking the arithmetic"),
      d("r1", "Six ti")],
     titles=titles_out(("t1", "r1", "Checking the arithmetic")))

case(T, "mp-title-tool-name-not-input-fragment", ["MP-039", "MP-040"],
     "A tool call streaming its input is titled by the tool name, never by the input "
     "fragment.",
     [start(), ps("c1", "tool_call", name="web_search"), d("c1", '{"query": "weath')],
     titles=titles_out(("t1", "c1", "web_search")))

case(T, "mp-title-complete-reasoning-summary", ["MP-039", "MP-D009"],
     "Once complete, a reasoning summary's full text is its title.",
     [start(), ps("r1", "reasoning_summary"), d("r1", "Compared two "), d("r1", "sources."),
      pe("r1")],
     titles=titles_out(("t1", "r1", "Compared two sources.")))

case(T, "mp-title-order-of-stable-sources", ["MP-D009"],
     "Suite decision: a supplied summary (tool input summary) wins over the tool name; a "
     "tool result takes its call's name; a hidden reasoning_detail has no title.",
     [start(), ps("c1", "tool_call", name="web_search"), d("c1", '{"query": "oslo"}'),
      pe("c1", summary="oslo weather"), ps("res1", "tool_result", call="c1"),
      d("res1", "{}"), pe("res1"), ps("rd1", "reasoning_detail", summary="private"),
      ps("r1", "reasoning_summary", summary="Weighing sources"), d("r1", "A vs B"), pe("r1")],
     titles=titles_out(("t1", "c1", "oslo weather"), ("t1", "res1", "web_search"),
                       ("t1", "rd1", None), ("t1", "r1", "Weighing sources")))

# --- answer.json: the final-answer boundary --------------------------------------------------

A = "answer"
case(A, "mp-answer-no-raw-tool-logs", ["MP-051", "MP-D019", "MP-083"],
     "Tool progress logs streamed by a tool result and tool log events stay out of the "
     "answer.",
     [start(), ps("c1", "tool_call", name="fetch"), d("c1", "{}"), pe("c1"),
      ps("res1", "tool_result", call="c1"), d("res1", "GET /forecast 200 (31 ms)\n"),
      log("tool", {"line": "retrying socket"}), pe("res1"), *text_part("a1", "Sunny."), end()],
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Sunny.")])),
     parts=parts_out(("t1", "completed", [
         x_user(), x_call("c1", "fetch", "{}", outcome="succeeded"),
         x_result("res1", "c1", "GET /forecast 200 (31 ms)\n"), x_text("a1", "Sunny.")])))

case(A, "mp-answer-no-queue-events", ["MP-052", "MP-014", "MP-D019"],
     "Queue events (a queue log, a queued status) stay out of the answer.",
     [start(), log("queue", {"position": 2}), ps("s1", "runtime_status", surface="Task"),
      d("s1", "Queued (2 ahead)"), pe("s1"), *text_part("a1", "Done."), end()],
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Done.")])))

case(A, "mp-answer-no-unfiltered-reasoning", ["MP-053", "MP-100", "MP-082"],
     "Neither a reasoning summary nor a raw reasoning detail reaches the answer when not "
     "exported.",
     [start(), ps("r1", "reasoning_summary"), d("r1", "We should say 42."), pe("r1"),
      ps("rd1", "reasoning_detail"), d("rd1", "6*7=42, double-check: 7*6=42"), pe("rd1"),
      *text_part("a1", "42"), end()],
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "42")])))

case(A, "mp-answer-no-runtime-tracing", ["MP-054", "MP-D019"],
     "Runtime traces stay out of the answer and are not message parts.",
     [start(), log("trace", {"span": "llm.call", "ms": 812}), *text_part("a1", "42"), end()],
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "42")])),
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "42")])))

case(A, "mp-answer-no-provider-debug-logs", ["MP-073", "MP-D019"],
     "Provider debug logs stay out of the answer and are not message parts.",
     [start(), ps("a1", "assistant_text"), d("a1", "4"),
      log("debug", {"provider": "deepseek", "request_id": "req-9", "status": 200}),
      d("a1", "2"), pe("a1"), end()],
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "42")])),
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "42")])))

case(A, "mp-answer-citation-not-evidence-payload", ["MP-055", "MP-075", "MP-063"],
     "A cited evidence fact enters the answer as its evidence id; its payload (the full "
     "pack) does not.",
     [start(), ps("ev1", "evidence_ref", evidence="ev-7", entry="verification",
                  label="unit tests", pack=PACK),
      *text_part("a1", "All tests pass."), cite("ev-7"), end()],
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "All tests pass.")],
                                   citations=["ev-7"])))

case(A, "mp-answer-artifact-link", ["MP-062", "MP-086"],
     "The answer links to the turn's artifact by id; the artifact stays in its own part.",
     [start(), ps("ar1", "artifact_ref", artifact="art-9", title="Migration plan"),
      *text_part("a1", "Plan attached."), link("art-9"), end()],
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Plan attached.")],
                                   links=["art-9"])))

case(A, "mp-answer-next-steps-belong-to-the-answer", ["MP-064", "MP-102", "MP-050"],
     "Next steps written as answer text are in the answer; the pending approval is a call to "
     "action on the Task surface, not answer text.",
     [start(), *text_part("a1", "Next: review the diff, then approve the migration."),
      ps("act1", "action_required", prompt="Approve the migration?",
         payload={"migration": "0042_add_index"})],
     answer=answer_out(answer_turn("t1", "active", [
         seg("a1", "Next: review the diff, then approve the migration.")])),
     project=project_out("active", ("t1", "active", [
         OK_USER, item("a1", "message", "answer"), item("act1", "task", "cta")])))

case(A, "mp-answer-no-repeated-final-text", ["MP-071", "MP-104", "MP-080"],
     "A final payload repeating the streamed text leaves the text in the answer once.",
     [start(), ps("a1", "assistant_text"), d("a1", "Forty"), d("a1", "-two."),
      fin("a1", "Forty-two."), end()],
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Forty-two.")])))

case(A, "mp-answer-no-hidden-reasoning-markers", ["MP-072"],
     "A redacted reasoning part (hidden reasoning) leaves no marker in the answer.",
     [start(), ps("rd1", "reasoning_detail", redacted=True), pe("rd1"),
      *text_part("a1", "42"), end()],
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "42")])),
     parts=parts_out(("t1", "completed", [
         x_user(), x_rdet("rd1", "", redacted=True), x_text("a1", "42")])))

case(A, "mp-answer-no-approval-payload", ["MP-074", "MP-085"],
     "An approval's payload stays in its action_required part, out of the answer, after "
     "the approval too.",
     [start(), ps("act1", "action_required", prompt="Delete 3 files?",
                  payload={"delete": ["a.txt", "b.txt", "c.txt"]}), pe("act1"),
      *text_part("a1", "Deleted."), end()],
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Deleted.")])),
     parts=parts_out(("t1", "completed", [
         x_user(), x_action("act1", "Delete 3 files?",
                            {"delete": ["a.txt", "b.txt", "c.txt"]}, pending=False,
                            state="done"),
         x_text("a1", "Deleted.")])))

case(A, "mp-answer-exported-reasoning", ["MP-100", "MP-D012"],
     "A reasoning summary explicitly exported as answer enters the answer at its place and "
     "is displayed as answer.",
     [start(), ps("r1", "reasoning_summary"), d("r1", "Method: multiply. "), pe("r1"),
      export("r1"), *text_part("a1", "Result: 42."), end()],
     answer=answer_out(answer_turn("t1", "completed", [
         seg("r1", "Method: multiply. "), seg("a1", "Result: 42.")])),
     project=project_out("idle", ("t1", "completed", [
         OK_USER, item("r1", "message", "answer"), item("a1", "message", "answer")])),
     parts=parts_out(("t1", "completed", [
         x_user(), x_rsum("r1", "Method: multiply. ", exported=True),
         x_text("a1", "Result: 42.")])))

case(A, "mp-answer-nothing-flattened", ["MP-002", "MP-081"],
     "A turn with reasoning, status, tool, action, artifact, evidence and error parts: the "
     "answer holds the two assistant texts only.",
     [*ALL_KINDS_EVENTS[:-5], *text_part("a0", "First, "), *ALL_KINDS_EVENTS[-5:]],
     answer=answer_out(answer_turn("t1", "completed", [
         seg("a0", "First, "), seg("a1", "Clear skies today.")])))

# --- reconcile.json: reconciliation and stream faults ----------------------------------------

R = "reconcile"


def one_text(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [start(), ps("a1", "assistant_text"), *events]


case(R, "mp-reconcile-final-matches-stream",
     ["MP-080", "MP-087", "MP-088", "MP-104", "MP-089"],
     "Streamed deltas followed by an identical final: the text is there once, marked "
     "matched.",
     one_text([d("a1", "Hel"), d("a1", "lo, "), d("a1", "world"), fin("a1", "Hello, world"),
               end()]),
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "Hello, world", "matched")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Hello, world")])))

case(R, "mp-reconcile-final-differs-replaces", ["MP-080", "MP-087", "MP-088", "MP-D002"],
     "A final that differs from the streamed text replaces it (marked replaced); nothing is "
     "appended.",
     one_text([d("a1", "The answr "), d("a1", "is 42"), fin("a1", "The answer is 42."),
               end()]),
     parts=parts_out(("t1", "completed", [
         x_user(), x_text("a1", "The answer is 42.", "replaced")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "The answer is 42.")])))

case(R, "mp-reconcile-final-only", ["MP-D002"],
     "A part that streamed nothing and got a final shows the final, marked final_only.",
     one_text([fin("a1", "42"), end()]),
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "42", "final_only")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "42")])))

case(R, "mp-reconcile-no-final", ["MP-D005"],
     "Fault: no final at all. turn.end closes the streaming part; the answer is the streamed "
     "text, marked none.",
     one_text([d("a1", "Forty"), d("a1", "-two"), end()]),
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "Forty-two")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Forty-two")])))

case(R, "mp-reconcile-final-after-turn-end", ["MP-D005", "MP-080"],
     "A final that arrives after turn.end closed the part still reconciles, never appends.",
     one_text([d("a1", "Forty"), d("a1", "-two"), end(), fin("a1", "Forty-two.")]),
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "Forty-two.", "replaced")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Forty-two.")])))

case(R, "mp-reconcile-duplicated-delta-with-seq", ["MP-D003", "MP-104"],
     "Fault: a delta delivered twice. Its seq identifies it as a duplicate and it is dropped; "
     "the matching final then finds the same text.",
     one_text([d("a1", "Hel", 0), d("a1", "lo", 1), d("a1", "lo", 1), d("a1", "!", 2),
               fin("a1", "Hello!"), end()]),
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "Hello!", "matched")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Hello!")])))

case(R, "mp-reconcile-duplicated-delta-without-seq-final-repairs",
     ["MP-080", "MP-088", "MP-D002", "MP-D003"],
     "Fault: a delta without seq delivered twice is appended twice; the final payload then "
     "replaces the text, so the answer holds the final once.",
     one_text([d("a1", "Hel"), d("a1", "lo"), d("a1", "lo"), fin("a1", "Hello"), end()]),
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "Hello", "replaced")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Hello")])))

case(R, "mp-reconcile-duplicated-delta-without-seq-no-final", ["MP-D003", "MP-D005"],
     "Suite decision: without seq and without a final a repeated delta cannot be told from "
     "a repeated word, so it stays.",
     one_text([d("a1", "ha"), d("a1", "ha"), end()]),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "haha")])))

case(R, "mp-reconcile-conflicting-delta", ["MP-D003"],
     "Fault: the same seq arrives again with a different text: CONFLICTING_DELTA at that "
     "event.",
     one_text([d("a1", "Hel", 0), d("a1", "lo", 1), d("a1", "p!", 1)]),
     error="CONFLICTING_DELTA")

case(R, "mp-reconcile-delta-gap", ["MP-D003"],
     "Fault: a delta skips a seq: DELTA_GAP at that event.",
     one_text([d("a1", "Hel", 0), d("a1", "!", 2)]),
     error="DELTA_GAP")

case(R, "mp-reconcile-final-before-last-delta", ["MP-D004", "MP-088", "MP-D002"],
     "Fault: the final arrives before the last delta. The final stands; the late delta is "
     "dropped, not appended.",
     one_text([d("a1", "Hel"), fin("a1", "Hello"), d("a1", "lo"), end()]),
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "Hello", "replaced")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Hello")])))

case(R, "mp-reconcile-repeated-final", ["MP-D004", "MP-088", "MP-104"],
     "The same final delivered twice leaves the text once.",
     one_text([d("a1", "Hi"), fin("a1", "Hi"), fin("a1", "Hi"), end()]),
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "Hi", "matched")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Hi")])))

case(R, "mp-reconcile-corrected-final", ["MP-D004", "MP-088", "MP-D002"],
     "A second final that differs from the first is compared with the streamed text again "
     "and replaces the text: the first final does not stick and nothing is appended.",
     one_text([d("a1", "Hi"), fin("a1", "Hi"), fin("a1", "Hi there."), end()]),
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "Hi there.", "replaced")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Hi there.")])))

case(R, "mp-reconcile-interleaved-two-parts", ["MP-D006", "MP-081"],
     "Fault: deltas of two answer parts arrive interleaved. Each part gets its own deltas; "
     "the answer follows the parts' start order.",
     [start(), ps("a1", "assistant_text"), ps("a2", "assistant_text"), d("a2", "B1 "),
      d("a1", "A1 "), d("a2", "B2"), d("a1", "A2"), pe("a2"), pe("a1"), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_text("a1", "A1 A2"), x_text("a2", "B1 B2")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "A1 A2"),
                                                       seg("a2", "B1 B2")])))

case(R, "mp-reconcile-interleaved-reasoning-and-text", ["MP-081", "MP-082", "MP-D006"],
     "Reasoning and answer deltas interleaved: only the assistant_text deltas reach the "
     "answer.",
     [start(), ps("r1", "reasoning_summary"), ps("a1", "assistant_text"), d("r1", "think "),
      d("a1", "Say "), d("r1", "more"), d("a1", "42"), pe("r1"), pe("a1"), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_rsum("r1", "think more"), x_text("a1", "Say 42")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Say 42")])))

ABORTED = [start(), ps("c1", "tool_call", name="search"), d("c1", '{"q": "x'),
           ps("a1", "assistant_text"), d("a1", "The ans"), abort()]
ABORTED_PARTS = parts_out(("t1", "aborted", [
    x_user(), x_call("c1", "search", '{"q": "x', state="aborted"),
    x_text("a1", "The ans", state="aborted")]))
case(R, "mp-reconcile-turn-aborted-mid-stream", ["MP-D007"],
     "Fault: the turn is aborted mid-stream. Open parts are marked aborted and keep their "
     "partial text; the answer keeps the partial segment.",
     ABORTED,
     parts=ABORTED_PARTS,
     answer=answer_out(answer_turn("t1", "aborted", [seg("a1", "The ans")])))

case(R, "mp-reconcile-events-after-abort-dropped", ["MP-D007"],
     "After an abort, late deltas, finals, ends and a late turn.end for the aborted turn "
     "are dropped.",
     [*ABORTED, d("a1", "wer"), fin("a1", "The answer is 42."), pe("c1"), end(), abort()],
     parts=ABORTED_PARTS,
     answer=answer_out(answer_turn("t1", "aborted", [seg("a1", "The ans")])))

case(R, "mp-reconcile-late-turn-end-dropped", ["MP-D007"],
     "A turn.end or turn.abort delivered again for a completed turn is dropped.",
     [start(), *text_part("a1", "42"), end(), end(), abort()],
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "42")])))

case(R, "mp-reconcile-reasoning-final-own-part", ["MP-082", "MP-087"],
     "A reasoning final reconciles inside the reasoning part; the answer is untouched.",
     [start(), ps("r1", "reasoning_summary"), d("r1", "Compare A"), fin("r1", "Compare A and B"),
      *text_part("a1", "B wins."), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_rsum("r1", "Compare A and B", final="replaced"), x_text("a1", "B wins.")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "B wins.")])))

case(R, "mp-reconcile-tool-input-final-own-part", ["MP-083"],
     "A tool call's input final reconciles inside the tool_call part.",
     [start(), ps("c1", "tool_call", name="sql"), d("c1", '{"q": "sel'),
      fin("c1", '{"q": "select 1"}'), ps("res1", "tool_result", call="c1"), d("res1", "1"),
      fin("res1", "1"), *text_part("a1", "One row."), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_call("c1", "sql", '{"q": "select 1"}', final="replaced",
                          outcome="succeeded"),
         x_result("res1", "c1", "1", final="matched"), x_text("a1", "One row.")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "One row.")])))

case(R, "mp-reconcile-status-own-part", ["MP-084"],
     "Status updates reconcile inside the runtime_status part, never the answer.",
     [start(), ps("s1", "runtime_status", surface="Process"), d("s1", "Step 1/3"),
      fin("s1", "Step 3/3"), *text_part("a1", "Done."), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_status("s1", "Process", "Step 3/3", final="replaced"),
         x_text("a1", "Done.")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Done.")])))

case(R, "mp-reconcile-deterministic-mixed-faults", ["MP-089", "MP-D003", "MP-D004", "MP-D006"],
     "Duplicated, interleaved and late deltas with finals in one turn have one defined "
     "result.",
     [start(), ps("a1", "assistant_text"), ps("r1", "reasoning_summary"), d("a1", "Ans", 0),
      d("r1", "hmm", 0), d("a1", "Ans", 0), d("a1", "wer", 1), fin("a1", "Answer: 42"),
      d("a1", " (late)", 2), d("r1", " ok", 1), pe("r1"), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_text("a1", "Answer: 42", "replaced"), x_rsum("r1", "hmm ok")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Answer: 42")])))

# --- branches.json: branches and retries ------------------------------------------------------

B = "branches"
BRANCH_BASE = [
    start(context=["src/app.py", "selection:12-40"], mode="plan", artifacts=["art-spec"]),
    ps("r1", "reasoning_summary"), d("r1", "Option A"), pe("r1"),
    ps("ev1", "evidence_ref", evidence="ev-a", entry="source"),
    ps("ar1", "artifact_ref", artifact="art-v1", title="Plan v1"),
    *text_part("a1", "Plan A."), cite("ev-a"), end(),
    branch("t1b", "t1"), ps("r2", "reasoning_summary"), d("r2", "Option B"), pe("r2")]
case(B, "mp-branch-keeps-user-context-mode-artifacts",
     ["MP-090", "MP-091", "MP-092", "MP-093", "MP-094", "MP-095", "MP-D018"],
     "A regenerated branch answers the same user message with the same selected context, "
     "mode and artifacts in scope, and owns only its own process and evidence.",
     [*BRANCH_BASE, *text_part("a2", "Plan B."), end("t1b")],
     branches={"turns": [
         branch_turn("t1", ["r1"], ["ev1"], context=["src/app.py", "selection:12-40"],
                     mode="plan", artifacts=["art-spec"]),
         branch_turn("t1b", ["r2"], [], branch_of="t1",
                     context=["src/app.py", "selection:12-40"], mode="plan",
                     artifacts=["art-spec"])],
         "artifacts": [made("art-v1", "t1", "ar1")]},
     parts=parts_out(
         ("t1", "completed", [
             x_user(), x_rsum("r1", "Option A"), x_evidence("ev1", "ev-a", "source"),
             x_artifact("ar1", "art-v1", "Plan v1"), x_text("a1", "Plan A.")]),
         ("t1b", "completed", [x_rsum("r2", "Option B"), x_text("a2", "Plan B.")])))

case(B, "mp-branch-artifacts-attributed", ["MP-097", "MP-093"],
     "Each branch's artifact is attributed to the branch that produced it; the first "
     "branch's artifact stays listed.",
     [*BRANCH_BASE, ps("ar2", "artifact_ref", artifact="art-v2", title="Plan v2"),
      *text_part("a2", "Plan B."), link("art-v2"), link("art-spec"), end("t1b")],
     branches={"turns": [
         branch_turn("t1", ["r1"], ["ev1"], context=["src/app.py", "selection:12-40"],
                     mode="plan", artifacts=["art-spec"]),
         branch_turn("t1b", ["r2"], [], branch_of="t1",
                     context=["src/app.py", "selection:12-40"], mode="plan",
                     artifacts=["art-spec"])],
         "artifacts": [made("art-v1", "t1", "ar1"), made("art-v2", "t1b", "ar2")]},
     answer=answer_out(
         answer_turn("t1", "completed", [seg("a1", "Plan A.")], citations=["ev-a"]),
         answer_turn("t1b", "completed", [seg("a2", "Plan B.")],
                     links=["art-v2", "art-spec"])))

case(B, "mp-branch-cannot-cite-sibling-evidence", ["MP-095", "MP-D011"],
     "A branch cannot cite the evidence of the branch it regenerates: UNBACKED_CITATION.",
     [*BRANCH_BASE, cite("ev-a")],
     error="UNBACKED_CITATION")

case(B, "mp-branch-cannot-link-sibling-artifact", ["MP-094", "MP-D011"],
     "A branch cannot link an artifact another branch produced: UNKNOWN_ARTIFACT.",
     [*BRANCH_BASE, link("art-v1")],
     error="UNKNOWN_ARTIFACT")

case(B, "mp-retry-failed-tool-new-attempt", ["MP-096", "MP-083"],
     "A retried failed tool call is a new tool_call part with attempt 2; the failed attempt "
     "and its error result stay as they were.",
     [start(), ps("c1", "tool_call", name="fetch"), d("c1", '{"url": "x"}'), pe("c1"),
      ps("res1", "tool_result", call="c1", is_error=True), fin("res1", "timeout after 30s"),
      ps("c2", "tool_call", name="fetch", retry_of="c1"), d("c2", '{"url": "x"}'), pe("c2"),
      ps("res2", "tool_result", call="c2"), fin("res2", '{"ok": true}'),
      *text_part("a1", "Fetched on the second try."), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_call("c1", "fetch", '{"url": "x"}', outcome="failed"),
         x_result("res1", "c1", "timeout after 30s", final="final_only", is_error=True),
         x_call("c2", "fetch", '{"url": "x"}', attempt=2, retry_of="c1",
                outcome="succeeded"),
         x_result("res2", "c2", '{"ok": true}', final="final_only"),
         x_text("a1", "Fetched on the second try.")])),
     branches={"turns": [branch_turn("t1", ["c1", "res1", "c2", "res2"], [])],
               "artifacts": []})

case(B, "mp-retry-third-attempt-error-known-at-end", ["MP-096"],
     "The error flag may come with the result's end; attempts count on from the retried "
     "call.",
     [start(), ps("c1", "tool_call", name="run"), pe("c1"), ps("res1", "tool_result", call="c1"),
      d("res1", "exit 1"), pe("res1", is_error=True),
      ps("c2", "tool_call", name="run", retry_of="c1"), pe("c2"),
      ps("res2", "tool_result", call="c2"), pe("res2", is_error=True),
      ps("c3", "tool_call", name="run", retry_of="c2"), pe("c3")],
     parts=parts_out(("t1", "active", [
         x_user(), x_call("c1", "run", "", outcome="failed"),
         x_result("res1", "c1", "exit 1", is_error=True),
         x_call("c2", "run", "", attempt=2, retry_of="c1", outcome="failed"),
         x_result("res2", "c2", "", is_error=True),
         x_call("c3", "run", "", attempt=3, retry_of="c2")])))

case(B, "mp-branch-from-unknown-turn", ["MP-D017"],
     "A branch of a turn that was never started: UNKNOWN_TURN.",
     [branch("t1b", "t1")],
     error="UNKNOWN_TURN", ops=["parts", "branches"])

case(B, "mp-branch-while-running", ["MP-D016"],
     "A branch while a turn is still running: INVALID_TRANSITION.",
     [start(), ps("a1", "assistant_text"), branch("t1b", "t1")],
     error="INVALID_TRANSITION", ops=["parts", "branches"])

# --- errors.json: bad event sequences -----------------------------------------------------

E = "errors"
ALL_OPS = ["parts", "answer", "project", "titles", "branches"]
case(E, "mp-error-unknown-part-kind", ["MP-D013"],
     "A part kind outside the 11 standard kinds: UNKNOWN_PART_KIND, naming the event.",
     [start(), ps("x1", "thinking")], error="UNKNOWN_PART_KIND", ops=ALL_OPS)

case(E, "mp-error-delta-for-unknown-part", ["MP-D014"],
     "A delta for an id that was never started: UNKNOWN_PART.",
     [start(), ps("a1", "assistant_text"), d("a9", "hello")], error="UNKNOWN_PART", ops=ALL_OPS)

case(E, "mp-error-final-for-unknown-part", ["MP-D014"],
     "A final for an id that was never started: UNKNOWN_PART.",
     [start(), fin("a1", "hello")], error="UNKNOWN_PART")

case(E, "mp-error-end-and-export-for-unknown-part", ["MP-D014"],
     "part.end for an id that was never started: UNKNOWN_PART.",
     [start(), pe("r1")], error="UNKNOWN_PART")

case(E, "mp-error-result-for-unknown-call", ["MP-D014"],
     "A tool_result naming a call that was never started: UNKNOWN_PART.",
     [start(), ps("res1", "tool_result", call="c1")], error="UNKNOWN_PART")

case(E, "mp-error-retry-of-unknown-call", ["MP-D014"],
     "A retry naming a call that was never started: UNKNOWN_PART.",
     [start(), ps("c2", "tool_call", name="fetch", retry_of="c1")], error="UNKNOWN_PART")

case(E, "mp-error-event-not-an-object", ["MP-D015"],
     "An event that is not a JSON object: MALFORMED_EVENT.",
     [start(), "part.delta a1 hello"], error="MALFORMED_EVENT", ops=ALL_OPS)

case(E, "mp-error-unknown-event-type", ["MP-D015"],
     "An event type outside the format: MALFORMED_EVENT.",
     [start(), {"type": "message.delta", "id": "a1", "text": "x"}], error="MALFORMED_EVENT")

case(E, "mp-error-delta-without-text", ["MP-D015"],
     "A delta without its text field: MALFORMED_EVENT.",
     [start(), ps("a1", "assistant_text"), {"type": "part.delta", "id": "a1"}],
     error="MALFORMED_EVENT")

case(E, "mp-error-seq-not-an-integer", ["MP-D015"],
     "A seq that is not a non-negative integer (true, -1, 1.5): MALFORMED_EVENT.",
     [start(), ps("a1", "assistant_text"), {"type": "part.delta", "id": "a1", "text": "x",
                                            "seq": True}],
     error="MALFORMED_EVENT")

case(E, "mp-error-status-without-surface", ["MP-D015", "MP-D001"],
     "A runtime_status that does not name its surface: MALFORMED_EVENT.",
     [start(), ps("s1", "runtime_status")], error="MALFORMED_EVENT")

case(E, "mp-error-error-part-with-other-surface", ["MP-D001"],
     "An error part naming a surface other than Process or Task: MALFORMED_EVENT.",
     [start(), ps("e1", "error", surface="Conversation", message="x", recoverable=True)],
     error="MALFORMED_EVENT")

case(E, "mp-error-input-without-events", ["MP-D015"],
     "An input with no events list: MALFORMED_INPUT.",
     [], raw_input={"event": []}, error="MALFORMED_INPUT", ops=ALL_OPS)

case(E, "mp-error-malformed-view", ["MP-D015", "MP-D010"],
     "A view whose reasoning_detail.policy is not a boolean: MALFORMED_INPUT (for the "
     "operations that read the view).",
     [start()], view={"reasoning_detail": {"policy": "yes", "user": True}},
     error="MALFORMED_INPUT", ops=["project", "titles"])

case(E, "mp-error-malformed-marks", ["MP-D015"],
     "An input whose marks member is not a boolean: MALFORMED_INPUT (for the parts operation, "
     "the only one that reads it).",
     [], raw_input={"events": [start()], "marks": "no"},
     error="MALFORMED_INPUT", ops=["parts"])

case(E, "mp-error-unknown-fields-ignored", ["MP-D015"],
     "Unknown extra fields on events are ignored.",
     [{**start(), "ts": 1}, {**ps("a1", "assistant_text"), "model": "m1"},
      {**d("a1", "42"), "usage": {"out": 1}}, end()],
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "42")])))

case(E, "mp-error-duplicate-part-id", ["MP-D016"],
     "A second part.start for the same id: INVALID_TRANSITION.",
     [start(), ps("a1", "assistant_text"), ps("a1", "reasoning_summary")],
     error="INVALID_TRANSITION", ops=ALL_OPS)

case(E, "mp-error-delta-for-non-streaming-kind", ["MP-D016"],
     "A delta for an artifact_ref (a kind that does not stream): INVALID_TRANSITION.",
     [start(), ps("ar1", "artifact_ref", artifact="art-1", title="A"), d("ar1", "more")],
     error="INVALID_TRANSITION")

case(E, "mp-error-turn-start-while-running", ["MP-D016"],
     "A second turn.start while the first turn runs: INVALID_TRANSITION.",
     [start(), start("t2", "u2", "Next?")], error="INVALID_TRANSITION")

case(E, "mp-error-export-non-reasoning", ["MP-D016", "MP-D012"],
     "Exporting a tool call as answer: INVALID_TRANSITION.",
     [start(), ps("c1", "tool_call", name="x"), export("c1")], error="INVALID_TRANSITION")

case(E, "mp-error-part-before-any-turn", ["MP-D017"],
     "A part.start before any turn: NO_ACTIVE_TURN.",
     [ps("a1", "assistant_text")], error="NO_ACTIVE_TURN", ops=ALL_OPS)

case(E, "mp-error-part-after-turn-end", ["MP-D017"],
     "A part.start after the turn ended: NO_ACTIVE_TURN.",
     [start(), end(), ps("a1", "assistant_text")], error="NO_ACTIVE_TURN")

case(E, "mp-error-end-of-unknown-turn", ["MP-D017"],
     "A turn.end for a turn never started: UNKNOWN_TURN.",
     [start(), end("t7")], error="UNKNOWN_TURN")

case(E, "mp-error-unbacked-citation", ["MP-D011"],
     "A citation of evidence the turn does not hold: UNBACKED_CITATION.",
     [start(), *text_part("a1", "As shown."), cite("ev-missing")], error="UNBACKED_CITATION")

case(E, "mp-error-link-to-unknown-artifact", ["MP-D011"],
     "A link to an artifact neither produced in nor in scope of the turn: UNKNOWN_ARTIFACT.",
     [start(artifacts=["art-in-scope"]), link("art-elsewhere")], error="UNKNOWN_ARTIFACT")

case(E, "mp-answer-link-in-scope-and-repeated", ["MP-D011", "MP-062"],
     "A link to an artifact in the turn's scope is accepted; a repeated citation or link is "
     "kept once.",
     [start(artifacts=["art-in-scope"]), ps("ev1", "evidence_ref", evidence="ev-1",
                                            entry="source"),
      *text_part("a1", "See both."), link("art-in-scope"), cite("ev-1"), link("art-in-scope"),
      cite("ev-1"), end()],
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "See both.")],
                                   links=["art-in-scope"], citations=["ev-1"])))

# --- issue 16: cases no vector pinned -----------------------------------------------------------

case(K, "mp-kind-action-pending-survives-turn-end", ["MP-017", "MP-035", "MP-102"],
     "A turn ends while its action_required step is still pending: the action stays "
     "pending, shown as a call to action, not marked resolved.",
     [start(), ps("act1", "action_required", prompt="Deploy to production?"),
      *text_part("a1", "Waiting for your approval."), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_action("act1", "Deploy to production?"),
         x_text("a1", "Waiting for your approval.")])),
     project=project_out("idle", ("t1", "completed", [
         OK_USER, item("act1", "task", "cta"), item("a1", "message", "answer")])))

case(V, "mp-view-finished-facts-once-in-running-turn",
     ["MP-037", "MP-107", "MP-D008", "MP-105"],
     "A tool call and its result finish while the turn still runs and a reasoning part "
     "streams: each fact has exactly one projection; none is repeated in a timeline archive.",
     [start(), ps("c1", "tool_call", name="search"), d("c1", '{"q": "oslo"}'), pe("c1"),
      ps("res1", "tool_result", call="c1"), d("res1", "3 hits"), pe("res1"),
      ps("r1", "reasoning_summary"), d("r1", "Next I")],
     project=project_out("active", ("t1", "active", [
         OK_USER, item("c1", "inline", "collapsed"), item("res1", "inline", "collapsed"),
         item("r1", "inline", "live")])))

case(T, "mp-title-aborted-reasoning-fragment", ["MP-040", "MP-039"],
     "A reasoning summary aborted half-way through a word has no title: the fragment it "
     "left is never a title, only a complete reasoning summary is.",
     [start(), ps("r1", "reasoning_summary"), d("r1", "Checking the cac"), abort()],
     titles=titles_out(("t1", "r1", None)))

case(T, "mp-title-shown-reasoning-detail-text", ["MP-039"],
     "A finished reasoning_detail that policy and user allow to show has no title of its "
     "own: its text is not a stable title source (only a complete reasoning summary is).",
     [start(), ps("rd1", "reasoning_detail"), d("rd1", "Step 1: 6 x 7"),
      fin("rd1", "Step 1: 6 x 7 = 42."), end()],
     view={"reasoning_detail": {"policy": True, "user": True}},
     titles=titles_out(("t1", "rd1", None)))

case(T, "mp-title-hidden-reasoning-detail-text", ["MP-039", "MP-D009"],
     "A finished reasoning_detail hidden by the user's setting has no title either: its "
     "text never becomes one.",
     [start(), ps("rd1", "reasoning_detail"), d("rd1", "Step 1: 6 x 7"),
      fin("rd1", "Step 1: 6 x 7 = 42."), end()],
     view={"reasoning_detail": {"policy": True, "user": False}},
     titles=titles_out(("t1", "rd1", None)))


DESCRIPTIONS = {
    "kinds": "The 11 standard parts: surface, default behaviour and fields of each kind.",
    "order": "Part order: arrival order within a turn, reasoning and tools interleaved.",
    "projection": "The view at a moment: live inline process, folded timeline archive, one "
                  "primary projection per fact.",
    "titles": "Titles only from stable sources, never from streaming fragments.",
    "answer": "The final-answer boundary: what may and may not enter the final answer.",
    "reconcile": "Reconciliation of final payloads with streamed deltas, and stream faults.",
    "branches": "Branches keep the user message, context, mode and artifacts; retries are "
                "new attempts.",
    "errors": "Bad event sequences: each rejected with a stable code naming the event.",
}


def documents() -> dict[str, dict[str, Any]]:
    out = {}
    for name, doc in FILES.items():
        out[f"{name}.json"] = {"family": FAMILY, "description": DESCRIPTIONS[name],
                               "cases": doc["cases"]}
    return out


def render(doc: dict[str, Any]) -> str:
    return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"


def write() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, doc in documents().items():
        (OUT / name).write_text(render(doc), encoding="utf-8")


if __name__ == "__main__":
    write()
    print(f"wrote {sum(len(d['cases']) for d in FILES.values())} cases to {OUT}")
