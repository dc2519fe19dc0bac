"""order.json: part order and interleaving."""

from __future__ import annotations

from .build import (
    OK_USER,
    VectorFile,
    answer_out,
    answer_turn,
    d,
    end,
    fin,
    item,
    parts_out,
    pe,
    project_out,
    ps,
    seg,
    start,
    text_part,
    x_artifact,
    x_call,
    x_evidence,
    x_result,
    x_rsum,
    x_status,
    x_text,
    x_user,
)

FILE = VectorFile(
    "order", "Part order: arrival order within a turn, reasoning and tools interleaved.")
case = FILE.case

case("mp-order-reasoning-not-hoisted", ["MP-031", "MP-030"],
     "Reasoning that arrives after answer text stays after it: it is not hoisted to the head "
     "of the message.",
     [start(), *text_part("a1", "Let me think. "), ps("r1", "reasoning_summary"),
      d("r1", "Six sevens are forty-two."), pe("r1"), *text_part("a2", "It is 42."), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_text("a1", "Let me think. "), x_rsum("r1", "Six sevens are forty-two."),
         x_text("a2", "It is 42.")])),
     project=project_out("idle", ("t1", "completed", [
         OK_USER, item("a1", "message", "answer"), item("r1", "timeline", "collapsed"),
         item("a2", "message", "answer")])),
     # Order apart from content (order: checks): the full arrival order is MP-030's (SHOULD:
     # a1, a2, r1 keeps the reasoning after the text and fails MP-030 only); a1 before r1 is
     # MP-031's (MUST: reasoning not hoisted above the text it followed). The content, compared
     # with the order folded, is the case's MUST's, MP-031.
     checks={op: {"outcome": "MP-031", "output": "MP-031", f"order:/turns/0/{key}": "MP-030",
                  f"order:/turns/0/{key}[a1,r1]": "MP-031"}
             for op, key in (("parts", "parts"), ("project", "items"))})

case("mp-order-tools-not-pushed-to-end", ["MP-032", "MP-030", "MP-060", "MP-061", "MP-011"],
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
         seg("a1", "I'll check the weather. "), seg("a2", "Oslo is clear today.")])),
     # In the parts, the full arrival order is MP-030's (SHOULD: tools moved to the front fail
     # it only); the call and the result before the conclusion is MP-032's (MUST: tools not
     # pushed to the end), each an order check of its own; the content, compared with the order
     # folded, is MP-032's. The answer's text is MP-011's (MUST); the explanation before the
     # tool and the conclusion after it are MP-060's and MP-061's (MAY) inside it.
     checks={"parts": {"outcome": "MP-032", "output": "MP-032", "order:/turns/0/parts": "MP-030",
                       "order:/turns/0/parts[c1,a2]": "MP-032",
                       "order:/turns/0/parts[res1,a2]": "MP-032"},
             "answer": {"outcome": "MP-011", "output": "MP-011", "output:/turns": "MP-011",
                        "output:/turns/0/segments/0": "MP-060",
                        "output:/turns/0/segments/1": "MP-061"}})

RUNNING = [start(), ps("r1", "reasoning_summary"), d("r1", "I need the wea"),
           ps("c1", "tool_call", name="weather"), d("c1", '{"city": "Os'),
           ps("a1", "assistant_text"), d("a1", "Checking Oslo")]
case("mp-order-running-turn-interleaves", ["MP-105", "MP-033", "MP-035", "MP-030"],
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
     answer=answer_out(answer_turn("t1", "active", [seg("a1", "Checking Oslo")])),
     # The parts keep arrival order (MP-030, SHOULD: no MUST governs the parts list's order),
     # an order check apart from the content; the content (surface, state, streamed input) is
     # the running turn's, MP-105's (MUST). What is shown is MP-105's interleaving, MP-033's
     # inline projection and MP-035's live body.
     checks={"parts": {"outcome": "MP-105", "output": "MP-105", "order:/turns/0/parts": "MP-030"},
             "project": {"outcome": "MP-105", "output": "MP-105",
                         "output:/turns/0/items/1/projection": "MP-033",
                         "output:/turns/0/items/2/projection": "MP-033",
                         "output:/turns/0/items/1/display": "MP-035",
                         "output:/turns/0/items/2/display": "MP-035"},
             "answer": {"outcome": "MP-105", "output": "MP-105"}})

case("mp-order-status-artifact-evidence-in-place", ["MP-030"],
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
