"""reconcile.json: reconciliation and stream faults."""

from __future__ import annotations

from typing import Any

from .build import (
    VectorFile,
    abort,
    answer_out,
    answer_turn,
    d,
    end,
    fin,
    parts_out,
    pe,
    ps,
    seg,
    start,
    text_part,
    x_call,
    x_result,
    x_rsum,
    x_status,
    x_text,
    x_user,
)

FILE = VectorFile(
    "reconcile", "Reconciliation of final payloads with streamed deltas, and stream faults.")
case = FILE.case



def both(rule: str) -> dict[str, dict[str, str]]:
    """Check attribution (vectors/README.md "Checks"): both views charged to ``rule`` (where a
    final differs from the stream, the text shown is MP-D002's choice, replace or mark)."""
    return {op: {"outcome": rule, "output": rule} for op in ("parts", "answer")}


def marked(mark: str, rest: str, answer: str | None = None) -> dict[str, dict[str, str]]:
    """The reconciliation mark of the one answer part charged to ``mark``, the rest of the
    parts to ``rest``, the answer to ``answer`` (default ``rest``). The mark of a corrected
    final shows whether the second final was compared again (MP-D004)."""
    return {"parts": {"outcome": rest, "output": rest, "output:/turns/0/parts/1/final": mark},
            "answer": {"outcome": answer or rest, "output": answer or rest}}


def one_text(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [start(), ps("a1", "assistant_text"), *events]


case("mp-reconcile-final-matches-stream",
     ["MP-080", "MP-087", "MP-088", "MP-104", "MP-089"],
     "Streamed deltas followed by an identical final: the text is there once, marked "
     "matched.",
     one_text([d("a1", "Hel"), d("a1", "lo, "), d("a1", "world"), fin("a1", "Hello, world"),
               end()]),
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "Hello, world", "matched")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Hello, world")])),
     checks=marked("MP-087", "MP-080", answer="MP-088"))

case("mp-reconcile-final-differs-replaces", ["MP-080", "MP-087", "MP-088", "MP-D002"],
     "A final that differs from the streamed text replaces it (marked replaced); nothing is "
     "appended.",
     one_text([d("a1", "The answr "), d("a1", "is 42"), fin("a1", "The answer is 42."),
               end()]),
     parts=parts_out(("t1", "completed", [
         x_user(), x_text("a1", "The answer is 42.", "replaced")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "The answer is 42.")])),
     checks={"parts": {"outcome": "MP-D002", "output": "MP-D002"},
             "answer": {"outcome": "MP-088", "output": "MP-088"}})

case("mp-reconcile-final-only", ["MP-D002"],
     "A part that streamed nothing and got a final shows the final, marked final_only.",
     one_text([fin("a1", "42"), end()]),
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "42", "final_only")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "42")])))

case("mp-reconcile-no-final", ["MP-D005"],
     "Fault: no final at all. turn.end closes the streaming part; the answer is the streamed "
     "text, marked none.",
     one_text([d("a1", "Forty"), d("a1", "-two"), end()]),
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "Forty-two")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Forty-two")])))

case("mp-reconcile-final-after-turn-end", ["MP-D005", "MP-080"],
     "A final that arrives after turn.end closed the part still reconciles, never appends.",
     one_text([d("a1", "Forty"), d("a1", "-two"), end(), fin("a1", "Forty-two.")]),
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "Forty-two.", "replaced")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Forty-two.")])))

case("mp-reconcile-duplicated-delta-with-seq", ["MP-D003", "MP-104"],
     "Fault: a delta delivered twice. Its seq identifies it as a duplicate and it is dropped; "
     "the matching final then finds the same text.",
     one_text([d("a1", "Hel", 0), d("a1", "lo", 1), d("a1", "lo", 1), d("a1", "!", 2),
               fin("a1", "Hello!"), end()]),
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "Hello!", "matched")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Hello!")])))

case("mp-reconcile-duplicated-delta-without-seq-final-repairs",
     ["MP-080", "MP-088", "MP-D002", "MP-D003"],
     "Fault: a delta without seq delivered twice is appended twice; the final payload then "
     "replaces the text, so the answer holds the final once.",
     one_text([d("a1", "Hel"), d("a1", "lo"), d("a1", "lo"), fin("a1", "Hello"), end()]),
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "Hello", "replaced")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Hello")])),
     checks=both("MP-D002"))

case("mp-reconcile-duplicated-delta-without-seq-no-final", ["MP-D003", "MP-D005"],
     "Suite decision: without seq and without a final a repeated delta cannot be told from "
     "a repeated word, so it stays.",
     one_text([d("a1", "ha"), d("a1", "ha"), end()]),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "haha")])))

case("mp-reconcile-conflicting-delta", ["MP-D003"],
     "Fault: the same seq arrives again with a different text: CONFLICTING_DELTA at that "
     "event.",
     one_text([d("a1", "Hel", 0), d("a1", "lo", 1), d("a1", "p!", 1)]),
     error="CONFLICTING_DELTA")

case("mp-reconcile-delta-gap", ["MP-D003"],
     "Fault: a delta skips a seq: DELTA_GAP at that event.",
     one_text([d("a1", "Hel", 0), d("a1", "!", 2)]),
     error="DELTA_GAP")

case("mp-reconcile-final-before-last-delta", ["MP-D004", "MP-088", "MP-D002"],
     "Fault: a delta arrives after the final (the last delta delivered again, late). The final "
     "stands; the late delta is dropped, not appended. The final equals the streamed text, so "
     "replacing or marking it (MP-D002's choice) shows the same text: the text is MP-D004's "
     "evidence, the mark MP-D002's.",
     one_text([d("a1", "Hel"), d("a1", "lo"), fin("a1", "Hello"), d("a1", "lo"), end()]),
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "Hello", "matched")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Hello")])),
     checks=marked("MP-D002", "MP-D004"))

case("mp-reconcile-repeated-final", ["MP-D004", "MP-088", "MP-104"],
     "The same final delivered twice leaves the text once.",
     one_text([d("a1", "Hi"), fin("a1", "Hi"), fin("a1", "Hi"), end()]),
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "Hi", "matched")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Hi")])),
     checks=marked("MP-088", "MP-D004"))

case("mp-reconcile-corrected-final", ["MP-D004", "MP-088", "MP-D002"],
     "A second final that differs from the first is compared with the streamed text again "
     "and replaces the text: the first final does not stick and nothing is appended.",
     one_text([d("a1", "Hi"), fin("a1", "Hi"), fin("a1", "Hi there."), end()]),
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "Hi there.", "replaced")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Hi there.")])),
     checks=marked("MP-D004", "MP-D002", answer="MP-D002"))

case("mp-reconcile-interleaved-two-parts", ["MP-D006", "MP-081"],
     "Fault: deltas of two answer parts arrive interleaved. Each part gets its own deltas; "
     "the answer follows the parts' start order.",
     [start(), ps("a1", "assistant_text"), ps("a2", "assistant_text"), d("a2", "B1 "),
      d("a1", "A1 "), d("a2", "B2"), d("a1", "A2"), pe("a2"), pe("a1"), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_text("a1", "A1 A2"), x_text("a2", "B1 B2")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "A1 A2"),
                                                       seg("a2", "B1 B2")])),
     checks=both("MP-D006"))

case("mp-reconcile-interleaved-reasoning-and-text", ["MP-081", "MP-082", "MP-D006"],
     "Reasoning and answer deltas interleaved: only the assistant_text deltas reach the "
     "answer.",
     [start(), ps("r1", "reasoning_summary"), ps("a1", "assistant_text"), d("r1", "think "),
      d("a1", "Say "), d("r1", "more"), d("a1", "42"), pe("r1"), pe("a1"), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_rsum("r1", "think more"), x_text("a1", "Say 42")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Say 42")])),
     checks=both("MP-D006"))

ABORTED = [start(), ps("c1", "tool_call", name="search"), d("c1", '{"q": "x'),
           ps("a1", "assistant_text"), d("a1", "The ans"), abort()]
ABORTED_PARTS = parts_out(("t1", "aborted", [
    x_user(), x_call("c1", "search", '{"q": "x', state="aborted"),
    x_text("a1", "The ans", state="aborted")]))
case("mp-reconcile-turn-aborted-mid-stream", ["MP-D007"],
     "Fault: the turn is aborted mid-stream. Open parts are marked aborted and keep their "
     "partial text; the answer keeps the partial segment.",
     ABORTED,
     parts=ABORTED_PARTS,
     answer=answer_out(answer_turn("t1", "aborted", [seg("a1", "The ans")])))

case("mp-reconcile-events-after-abort-dropped", ["MP-D007"],
     "After an abort, late deltas, finals, ends and a late turn.end for the aborted turn "
     "are dropped.",
     [*ABORTED, d("a1", "wer"), fin("a1", "The answer is 42."), pe("c1"), end(), abort()],
     parts=ABORTED_PARTS,
     answer=answer_out(answer_turn("t1", "aborted", [seg("a1", "The ans")])))

case("mp-reconcile-late-turn-end-dropped", ["MP-D007"],
     "A turn.end or turn.abort delivered again for a completed turn is dropped.",
     [start(), *text_part("a1", "42"), end(), end(), abort()],
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "42")])))

case("mp-reconcile-reasoning-final-own-part", ["MP-082", "MP-087"],
     "A reasoning final reconciles inside the reasoning part; the answer is untouched.",
     [start(), ps("r1", "reasoning_summary"), d("r1", "Compare A"), fin("r1", "Compare A and B"),
      *text_part("a1", "B wins."), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_rsum("r1", "Compare A and B", final="replaced"), x_text("a1", "B wins.")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "B wins.")])))

case("mp-reconcile-tool-input-final-own-part", ["MP-083"],
     "A tool call's input final reconciles inside the tool_call part.",
     [start(), ps("c1", "tool_call", name="sql"), d("c1", '{"q": "sel'),
      fin("c1", '{"q": "select 1"}'), ps("res1", "tool_result", call="c1"), d("res1", "1"),
      fin("res1", "1"), *text_part("a1", "One row."), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_call("c1", "sql", '{"q": "select 1"}', final="replaced",
                          outcome="succeeded"),
         x_result("res1", "c1", "1", final="matched"), x_text("a1", "One row.")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "One row.")])))

case("mp-reconcile-status-own-part", ["MP-084"],
     "Status updates reconcile inside the runtime_status part, never the answer.",
     [start(), ps("s1", "runtime_status", surface="Process"), d("s1", "Step 1/3"),
      fin("s1", "Step 3/3"), *text_part("a1", "Done."), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_status("s1", "Process", "Step 3/3", final="replaced"),
         x_text("a1", "Done.")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Done.")])))

case("mp-reconcile-deterministic-mixed-faults", ["MP-089", "MP-D003", "MP-D004", "MP-D006"],
     "Duplicated, interleaved and late deltas with finals in one turn have one defined "
     "result. The final equals the streamed text, so the text shown does not depend on "
     "replacing or marking it (MP-D002's choice).",
     [start(), ps("a1", "assistant_text"), ps("r1", "reasoning_summary"), d("a1", "Ans", 0),
      d("r1", "hmm", 0), d("a1", "Ans", 0), d("a1", "wer", 1), fin("a1", "Answer"),
      d("a1", " (late)", 2), d("r1", " ok", 1), pe("r1"), end()],
     parts=parts_out(("t1", "completed", [
         x_user(), x_text("a1", "Answer", "matched"), x_rsum("r1", "hmm ok")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Answer")])))
