"""answer.json: the final-answer boundary."""

from __future__ import annotations

from .build import (
    OK_USER,
    VectorFile,
    answer_out,
    answer_turn,
    cite,
    d,
    end,
    export,
    fin,
    item,
    link,
    log,
    parts_out,
    pe,
    project_out,
    ps,
    seg,
    start,
    text_part,
    x_action,
    x_call,
    x_rdet,
    x_result,
    x_rsum,
    x_text,
    x_user,
)
from .kinds import ALL_KINDS_EVENTS, PACK

FILE = VectorFile(
    "answer", "The final-answer boundary: what may and may not enter the final answer.")
case = FILE.case

case("mp-answer-no-raw-tool-logs", ["MP-051", "MP-D019", "MP-083"],
     "Tool progress logs streamed by a tool result and tool log events stay out of the "
     "answer.",
     [start(), ps("c1", "tool_call", name="fetch"), d("c1", "{}"), pe("c1"),
      ps("res1", "tool_result", call="c1"), d("res1", "GET /forecast 200 (31 ms)\n"),
      log("tool", {"line": "retrying socket"}), pe("res1"), *text_part("a1", "Sunny."), end()],
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Sunny.")])),
     parts=parts_out(("t1", "completed", [
         x_user(), x_call("c1", "fetch", "{}", outcome="succeeded"),
         x_result("res1", "c1", "GET /forecast 200 (31 ms)\n"), x_text("a1", "Sunny.")])))

case("mp-answer-no-queue-events", ["MP-052", "MP-014", "MP-D019"],
     "Queue events (a queue log, a queued status) stay out of the answer.",
     [start(), log("queue", {"position": 2}), ps("s1", "runtime_status", surface="Task"),
      d("s1", "Queued (2 ahead)"), pe("s1"), *text_part("a1", "Done."), end()],
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Done.")])))

case("mp-answer-no-unfiltered-reasoning", ["MP-053", "MP-100", "MP-082"],
     "Neither a reasoning summary nor a raw reasoning detail reaches the answer when not "
     "exported.",
     [start(), ps("r1", "reasoning_summary"), d("r1", "We should say 42."), pe("r1"),
      ps("rd1", "reasoning_detail"), d("rd1", "6*7=42, double-check: 7*6=42"), pe("rd1"),
      *text_part("a1", "42"), end()],
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "42")])))

case("mp-answer-no-runtime-tracing", ["MP-054", "MP-D019"],
     "Runtime traces stay out of the answer and are not message parts.",
     [start(), log("trace", {"span": "llm.call", "ms": 812}), *text_part("a1", "42"), end()],
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "42")])),
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "42")])))

case("mp-answer-no-provider-debug-logs", ["MP-073", "MP-D019"],
     "Provider debug logs stay out of the answer and are not message parts.",
     [start(), ps("a1", "assistant_text"), d("a1", "4"),
      log("debug", {"provider": "deepseek", "request_id": "req-9", "status": 200}),
      d("a1", "2"), pe("a1"), end()],
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "42")])),
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "42")])))

case("mp-answer-citation-not-evidence-payload", ["MP-055", "MP-075", "MP-063"],
     "A cited evidence fact enters the answer as its evidence id; its payload (the full "
     "pack) does not.",
     [start(), ps("ev1", "evidence_ref", evidence="ev-7", entry="verification",
                  label="unit tests", pack=PACK),
      *text_part("a1", "All tests pass."), cite("ev-7"), end()],
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "All tests pass.")],
                                   citations=["ev-7"])),
     # the payload kept out of the answer text is MP-055's; the citation carrying the id only
     # MP-075's, and within it the citation by evidence id MP-063's (MAY)
     checks={"answer": {"outcome": "MP-055", "output": "MP-055",
                        "output:/turns/0/citations": "MP-075",
                        "output:/turns/0/citations/0": "MP-063"}})

case("mp-answer-artifact-link", ["MP-062", "MP-086"],
     "The answer links to the turn's artifact by id; the artifact stays in its own part.",
     [start(), ps("ar1", "artifact_ref", artifact="art-9", title="Migration plan"),
      *text_part("a1", "Plan attached."), link("art-9"), end()],
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Plan attached.")],
                                   links=["art-9"])),
     # the answer links by id, never with the artifact's content (MP-062, MAY, the whole
     # answer); the artifact kept out of the answer text is MP-086's (SHOULD) inside it
     checks={"answer": {"outcome": "MP-086", "output": "MP-062", "output:/turns": "MP-062",
                        "output:/turns/0/segments": "MP-086"}})

case("mp-answer-next-steps-belong-to-the-answer", ["MP-064", "MP-102", "MP-050", "MP-011"],
     "Next steps written as answer text are in the answer; the pending approval is a call to "
     "action on the Task surface, not answer text.",
     [start(), *text_part("a1", "Next: review the diff, then approve the migration."),
      ps("act1", "action_required", prompt="Approve the migration?",
         payload={"migration": "0042_add_index"})],
     answer=answer_out(answer_turn("t1", "active", [
         seg("a1", "Next: review the diff, then approve the migration.")])),
     project=project_out("active", ("t1", "active", [
         OK_USER, item("a1", "message", "answer"), item("act1", "task", "cta")])),
     # the pending action is never answer text (MP-102, MUST, the whole answer and view); inside
     # the answer, every assistant text (MP-050, SHOULD), a1's text as the answer's segment
     # (MP-011, MUST: a dropped answer text fails it), and the next steps in it (MP-064)
     checks={"answer": {"outcome": "MP-102", "output": "MP-102", "output:/turns": "MP-102",
                        "output:/turns/0/segments": "MP-050",
                        "output:/turns/0/segments/0": "MP-011",
                        "output:/turns/0/segments/0/text": "MP-064"},
             "project": {"outcome": "MP-102", "output": "MP-102"}})

case("mp-answer-no-repeated-final-text", ["MP-071", "MP-104", "MP-080"],
     "A final payload repeating the streamed text leaves the text in the answer once.",
     [start(), ps("a1", "assistant_text"), d("a1", "Forty"), d("a1", "-two."),
      fin("a1", "Forty-two."), end()],
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Forty-two.")])))

case("mp-answer-no-hidden-reasoning-markers", ["MP-072"],
     "A redacted reasoning part (hidden reasoning) leaves no marker in the answer.",
     [start(), ps("rd1", "reasoning_detail", redacted=True), pe("rd1"),
      *text_part("a1", "42"), end()],
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "42")])),
     parts=parts_out(("t1", "completed", [
         x_user(), x_rdet("rd1", "", redacted=True), x_text("a1", "42")])))

case("mp-answer-no-approval-payload", ["MP-074", "MP-085"],
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

case("mp-answer-exported-reasoning", ["MP-100", "MP-D012"],
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

case("mp-answer-nothing-flattened", ["MP-002", "MP-081"],
     "A turn with reasoning, status, tool, action, artifact, evidence and error parts: the "
     "answer holds the two assistant texts only.",
     [*ALL_KINDS_EVENTS[:-5], *text_part("a0", "First, "), *ALL_KINDS_EVENTS[-5:]],
     answer=answer_out(answer_turn("t1", "completed", [
         seg("a0", "First, "), seg("a1", "Clear skies today.")])))

# The one MUST each of these cases bears on (a SHOULD they also cite never fails a MUST).
FILE.charge({
    "mp-answer-no-raw-tool-logs": "MP-D019", "mp-answer-no-queue-events": "MP-D019",
    "mp-answer-no-runtime-tracing": "MP-D019", "mp-answer-no-provider-debug-logs": "MP-D019",
    "mp-answer-no-unfiltered-reasoning": "MP-100", "mp-answer-no-repeated-final-text": "MP-104",
})

# The answer's segments are exactly what each SHOULD of the final-answer boundary keeps out
# ("SHOULD NOT 包含原始工具日志、队列事件、未过滤推理、runtime tracing"; provider debug logs and
# the repeated streamed text are 默认不允许); every difference there is the MUST's too (MP-D019,
# MP-100, MP-104, or the answer text itself), which keeps the whole turn.
SEGMENTS = "/turns/0/segments"
FILE.evidence({
    "mp-answer-no-raw-tool-logs": {"answer": {SEGMENTS: "MP-051"}},
    "mp-answer-no-queue-events": {"answer": {SEGMENTS: "MP-052"}},
    "mp-answer-no-unfiltered-reasoning": {"answer": {SEGMENTS: "MP-053"}},
    "mp-answer-no-runtime-tracing": {"answer": {SEGMENTS: "MP-054"}},
    "mp-answer-no-repeated-final-text": {"answer": {SEGMENTS: "MP-071"}},
    "mp-answer-no-provider-debug-logs": {"answer": {SEGMENTS: "MP-073"}},
})
