"""kinds.json: the 11 standard parts."""

from __future__ import annotations

from .build import (
    OK_USER,
    VectorFile,
    answer_out,
    answer_turn,
    branch_turn,
    cite,
    d,
    end,
    fin,
    item,
    link,
    made,
    parts_out,
    pe,
    project_out,
    ps,
    seg,
    start,
    text_part,
    x_action,
    x_artifact,
    x_call,
    x_error,
    x_evidence,
    x_rdet,
    x_result,
    x_rsum,
    x_status,
    x_text,
    x_user,
)

FILE = VectorFile(
    "kinds", "The 11 standard parts: surface, default behaviour and fields of each kind.")
case = FILE.case

case("mp-kind-user-text-shown-at-once", ["MP-010", "MP-001"],
     "A user message is a user_text part on the Conversation surface, with its author, shown "
     "at once while the turn has no assistant output yet.",
     [start()],
     parts=parts_out(("t1", "active", [x_user()])),
     project=project_out("active", ("t1", "active", [OK_USER])),
     answer=answer_out(answer_turn("t1", "active", [])))

case("mp-kind-assistant-text-is-the-answer", ["MP-011", "MP-001", "MP-050"],
     "assistant_text is on the Conversation surface and its text is the final answer.",
     [start(), *text_part("a1", "6 x 7 ", "= 42."), end()],
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "6 x 7 = 42.")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "6 x 7 = 42.")])),
     project=project_out("idle", ("t1", "completed",
                                  [OK_USER, item("a1", "message", "answer")])))

case("mp-kind-reasoning-summary-collapsed", ["MP-012", "MP-082", "MP-053"],
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

case("mp-kind-reasoning-detail-hidden-by-default", ["MP-013", "MP-053", "MP-D010"],
     "A reasoning_detail is a Process part, kept as a part but hidden when the view says "
     "nothing about policy and user settings; it never reaches the answer.",
     DETAIL_EVENTS,
     parts=DETAIL_PARTS, project=DETAIL_HIDDEN,
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "42")])))

case("mp-kind-reasoning-detail-policy-allows-user-does-not", ["MP-013", "MP-D010"],
     "The policy allows reasoning detail but the user's setting does not: hidden.",
     DETAIL_EVENTS, view={"reasoning_detail": {"policy": True, "user": False}},
     project=DETAIL_HIDDEN)

case("mp-kind-reasoning-detail-user-allows-policy-does-not", ["MP-013", "MP-D010"],
     "The user's setting allows reasoning detail but the policy does not: hidden.",
     DETAIL_EVENTS, view={"reasoning_detail": {"policy": False, "user": True}},
     project=DETAIL_HIDDEN)

case("mp-kind-reasoning-detail-both-allow-completed", ["MP-013", "MP-D010", "MP-106"],
     "Policy and user both allow reasoning detail: in a completed turn it is folded in the "
     "timeline archive like other process.",
     DETAIL_EVENTS, view={"reasoning_detail": {"policy": True, "user": True}},
     project=project_out("idle", ("t1", "completed", [
         OK_USER, item("rd1", "timeline", "collapsed"), item("a1", "message", "answer")])))

case("mp-kind-reasoning-detail-both-allow-running", ["MP-013", "MP-035", "MP-D010"],
     "Policy and user both allow reasoning detail: while it streams in a running turn it is "
     "inline with a live body.",
     [start(), ps("rd1", "reasoning_detail"), d("rd1", "Let me")],
     view={"reasoning_detail": {"policy": True, "user": True}},
     parts=parts_out(("t1", "active", [x_user(), x_rdet("rd1", "Let me", state="open")])),
     project=project_out("active", ("t1", "active", [
         OK_USER, item("rd1", "inline", "live")])))

case("mp-kind-runtime-status-process", ["MP-014", "MP-084", "MP-D001", "MP-D008"],
     "A runtime_status on the Process surface is a compact status, archived with the process, "
     "and never answer text.",
     [start(), ps("s1", "runtime_status", surface="Process"), d("s1", "Searching the web"),
      pe("s1"), *text_part("a1", "Found it."), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_status("s1", "Process", "Searching the web"), x_text("a1", "Found it.")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Found it.")])),
     project=project_out("idle", ("t1", "completed", [
         OK_USER, item("s1", "timeline", "status"), item("a1", "message", "answer")])))

case("mp-kind-runtime-status-task", ["MP-014", "MP-D001", "MP-D008"],
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
case("mp-kind-tool-call-and-result", ["MP-015", "MP-016", "MP-083", "MP-070", "MP-101"],
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
         item("a1", "message", "answer")])),
     # Each part to its kind's MUST (MP-015 the call, MP-016 the result), the result's output to
     # MP-101 ("kept whole in its tool_result part") inside it, the input kept in its part to
     # MP-083 (SHOULD) inside the call. The answer holds no tool output: MP-101 and MP-016 (MUST)
     # both say so, and MP-070 (SHOULD) of the text, each charged on its own.
     checks={"parts": {"outcome": "MP-015", "output": "MP-101",
                       "output:/turns/0/parts/1": "MP-015", "output:/turns/0/parts/2": "MP-016",
                       "output:/turns/0/parts/1/input": "MP-083",
                       "output:/turns/0/parts/2/output": "MP-101"},
             "answer": {"outcome": "MP-101", "output": "MP-101", "output:/turns": "MP-101",
                        "output:/turns/0": "MP-016", "output:/turns/0/segments": "MP-070"},
             "project": {"outcome": "MP-101", "output": "MP-101",
                         "output:/turns/0/items/1": "MP-015",
                         "output:/turns/0/items/2": "MP-016"}})

APPROVAL = {"tool": "write_file", "path": "./out/report.md", "bytes": 5120}
case("mp-kind-action-required-pending", ["MP-017", "MP-102", "MP-085", "MP-074", "MP-D008"],
     "A pending action_required is a Task part shown as a call to action with a pending "
     "state; its approval payload stays in the part, not in the answer.",
     [start(), ps("act1", "action_required", prompt="Allow writing ./out/report.md?",
                  payload=APPROVAL)],
     parts=parts_out(("t1", "active", [
         x_user(), x_action("act1", "Allow writing ./out/report.md?", APPROVAL)])),
     project=project_out("active", ("t1", "active", [OK_USER, item("act1", "task", "cta")])),
     answer=answer_out(answer_turn("t1", "active", [])))

case("mp-kind-action-required-resolved", ["MP-017", "MP-D008"],
     "Once resolved (part.end) the action is no longer pending and its CTA folds.",
     [start(), ps("act1", "action_required", prompt="Allow writing ./out/report.md?",
                  payload=APPROVAL), pe("act1"), *text_part("a1", "Written."), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_action("act1", "Allow writing ./out/report.md?", APPROVAL,
                            pending=False, state="done"),
         x_text("a1", "Written.")])),
     project=project_out("idle", ("t1", "completed", [
         OK_USER, item("act1", "task", "collapsed"), item("a1", "message", "answer")])))

case("mp-kind-artifact-ref-card", ["MP-018", "MP-103", "MP-086", "MP-062", "MP-097"],
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
               "artifacts": [made("art-report", "t1", "ar1")]},
     # which turn produced the artifact (/artifacts) is MP-097's, a SHOULD
     checks={"branches": {"outcome": "MP-018", "output": "MP-018",
                          "output:/artifacts": "MP-097"}})

PACK = {"files": ["calc.log", "trace.json"], "hash": "sha256:ab12", "lines": 1800}
case("mp-kind-evidence-ref-entries", ["MP-019", "MP-063", "MP-055", "MP-075"],
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

case("mp-kind-error-process", ["MP-020", "MP-D001", "MP-D008"],
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

case("mp-kind-error-task", ["MP-020", "MP-D001", "MP-D008"],
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
case("mp-kind-all-eleven-typed-in-order", ["MP-001", "MP-002", "MP-030"],
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

case("mp-kind-action-pending-survives-turn-end", ["MP-017", "MP-035", "MP-102"],
     "A turn ends while its action_required step is still pending: the action stays "
     "pending, shown as a call to action, not marked resolved.",
     [start(), ps("act1", "action_required", prompt="Deploy to production?"),
      *text_part("a1", "Waiting for your approval."), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_action("act1", "Deploy to production?"),
         x_text("a1", "Waiting for your approval.")])),
     project=project_out("idle", ("t1", "completed", [
         OK_USER, item("act1", "task", "cta"), item("a1", "message", "answer")])))

# Each kind's case is charged to that kind's MUST (a SHOULD it also cites never fails a MUST).
FILE.charge({
    "mp-kind-assistant-text-is-the-answer": "MP-011",
    "mp-kind-reasoning-summary-collapsed": "MP-012",
    "mp-kind-reasoning-detail-hidden-by-default": "MP-013",
    "mp-kind-runtime-status-process": "MP-014",
    "mp-kind-action-required-pending": "MP-017", "mp-kind-artifact-ref-card": {
        "parts": "MP-103", "answer": "MP-018", "project": "MP-018"},
    "mp-kind-evidence-ref-entries": "MP-019", "mp-kind-all-eleven-typed-in-order": "MP-001",
})

# The reasoning kept out of the answer is MP-053's evidence (reasoning in the answer is also
# MP-100's MUST, so the whole answer stays the kind's MUST's); the detail hidden when the view
# says nothing is MP-D010's default ("both default false").
FILE.evidence({
    "mp-kind-reasoning-summary-collapsed": {"answer": {"/turns/0/segments": "MP-053"}},
    "mp-kind-reasoning-detail-hidden-by-default": {
        "answer": {"/turns/0/segments": "MP-053"},
        "project": {"/turns/0/items/1/display": "MP-D010"}},
})
