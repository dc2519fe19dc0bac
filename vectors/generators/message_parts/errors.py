"""errors.json: bad event sequences."""

from __future__ import annotations

from .build import (
    VectorFile,
    answer_out,
    answer_turn,
    cite,
    d,
    end,
    export,
    fin,
    link,
    parts_out,
    pe,
    ps,
    seg,
    start,
    text_part,
    x_text,
    x_user,
)

FILE = VectorFile(
    "errors", "Bad event sequences: each rejected with a stable code naming the event.")
case = FILE.case

ALL_OPS = ["parts", "answer", "project", "titles", "branches"]
case("mp-error-unknown-part-kind", ["MP-D013"],
     "A part kind outside the 11 standard kinds: UNKNOWN_PART_KIND, naming the event.",
     [start(), ps("x1", "thinking")], error="UNKNOWN_PART_KIND", ops=ALL_OPS)

case("mp-error-delta-for-unknown-part", ["MP-D014"],
     "A delta for an id that was never started: UNKNOWN_PART.",
     [start(), ps("a1", "assistant_text"), d("a9", "hello")], error="UNKNOWN_PART", ops=ALL_OPS)

case("mp-error-final-for-unknown-part", ["MP-D014"],
     "A final for an id that was never started: UNKNOWN_PART.",
     [start(), fin("a1", "hello")], error="UNKNOWN_PART")

case("mp-error-end-and-export-for-unknown-part", ["MP-D014"],
     "part.end for an id that was never started: UNKNOWN_PART.",
     [start(), pe("r1")], error="UNKNOWN_PART")

case("mp-error-result-for-unknown-call", ["MP-D014"],
     "A tool_result naming a call that was never started: UNKNOWN_PART.",
     [start(), ps("res1", "tool_result", call="c1")], error="UNKNOWN_PART")

case("mp-error-retry-of-unknown-call", ["MP-D014"],
     "A retry naming a call that was never started: UNKNOWN_PART.",
     [start(), ps("c2", "tool_call", name="fetch", retry_of="c1")], error="UNKNOWN_PART")

case("mp-error-event-not-an-object", ["MP-D015"],
     "An event that is not a JSON object: MALFORMED_EVENT.",
     [start(), "part.delta a1 hello"], error="MALFORMED_EVENT", ops=ALL_OPS)

case("mp-error-unknown-event-type", ["MP-D015"],
     "An event type outside the format: MALFORMED_EVENT.",
     [start(), {"type": "message.delta", "id": "a1", "text": "x"}], error="MALFORMED_EVENT")

case("mp-error-delta-without-text", ["MP-D015"],
     "A delta without its text field: MALFORMED_EVENT.",
     [start(), ps("a1", "assistant_text"), {"type": "part.delta", "id": "a1"}],
     error="MALFORMED_EVENT")

case("mp-error-seq-not-an-integer", ["MP-D015"],
     "A seq that is not a non-negative integer (true, -1, 1.5): MALFORMED_EVENT.",
     [start(), ps("a1", "assistant_text"), {"type": "part.delta", "id": "a1", "text": "x",
                                            "seq": True}],
     error="MALFORMED_EVENT")

case("mp-error-status-without-surface", ["MP-D015", "MP-D001"],
     "A runtime_status that does not name its surface: MALFORMED_EVENT.",
     [start(), ps("s1", "runtime_status")], error="MALFORMED_EVENT")

case("mp-error-error-part-with-other-surface", ["MP-D001"],
     "An error part naming a surface other than Process or Task: MALFORMED_EVENT.",
     [start(), ps("e1", "error", surface="Conversation", message="x", recoverable=True)],
     error="MALFORMED_EVENT")

case("mp-error-input-without-events", ["MP-D015"],
     "An input with no events list: MALFORMED_INPUT.",
     [], raw_input={"event": []}, error="MALFORMED_INPUT", ops=ALL_OPS)

case("mp-error-malformed-view", ["MP-D015", "MP-D010"],
     "A view whose reasoning_detail.policy is not a boolean: MALFORMED_INPUT (for the "
     "operations that read the view).",
     [start()], view={"reasoning_detail": {"policy": "yes", "user": True}},
     error="MALFORMED_INPUT", ops=["project", "titles"])

case("mp-error-malformed-marks", ["MP-D015"],
     "An input whose marks member is not a boolean: MALFORMED_INPUT (for the parts operation, "
     "the only one that reads it).",
     [], raw_input={"events": [start()], "marks": "no"},
     error="MALFORMED_INPUT", ops=["parts"])

case("mp-error-unknown-fields-ignored", ["MP-D015"],
     "Unknown extra fields on events are ignored.",
     [{**start(), "ts": 1}, {**ps("a1", "assistant_text"), "model": "m1"},
      {**d("a1", "42"), "usage": {"out": 1}}, end()],
     parts=parts_out(("t1", "completed", [x_user(), x_text("a1", "42")])))

case("mp-error-duplicate-part-id", ["MP-D016"],
     "A second part.start for the same id: INVALID_TRANSITION.",
     [start(), ps("a1", "assistant_text"), ps("a1", "reasoning_summary")],
     error="INVALID_TRANSITION", ops=ALL_OPS)

case("mp-error-delta-for-non-streaming-kind", ["MP-D016"],
     "A delta for an artifact_ref (a kind that does not stream): INVALID_TRANSITION.",
     [start(), ps("ar1", "artifact_ref", artifact="art-1", title="A"), d("ar1", "more")],
     error="INVALID_TRANSITION")

case("mp-error-turn-start-while-running", ["MP-D016"],
     "A second turn.start while the first turn runs: INVALID_TRANSITION.",
     [start(), start("t2", "u2", "Next?")], error="INVALID_TRANSITION")

case("mp-error-export-non-reasoning", ["MP-D016", "MP-D012"],
     "Exporting a tool call as answer: INVALID_TRANSITION.",
     [start(), ps("c1", "tool_call", name="x"), export("c1")], error="INVALID_TRANSITION")

case("mp-error-part-before-any-turn", ["MP-D017"],
     "A part.start before any turn: NO_ACTIVE_TURN.",
     [ps("a1", "assistant_text")], error="NO_ACTIVE_TURN", ops=ALL_OPS)

case("mp-error-part-after-turn-end", ["MP-D017"],
     "A part.start after the turn ended: NO_ACTIVE_TURN.",
     [start(), end(), ps("a1", "assistant_text")], error="NO_ACTIVE_TURN")

case("mp-error-end-of-unknown-turn", ["MP-D017"],
     "A turn.end for a turn never started: UNKNOWN_TURN.",
     [start(), end("t7")], error="UNKNOWN_TURN")

case("mp-error-unbacked-citation", ["MP-D011"],
     "A citation of evidence the turn does not hold: UNBACKED_CITATION.",
     [start(), *text_part("a1", "As shown."), cite("ev-missing")], error="UNBACKED_CITATION")

case("mp-error-link-to-unknown-artifact", ["MP-D011"],
     "A link to an artifact neither produced in nor in scope of the turn: UNKNOWN_ARTIFACT.",
     [start(artifacts=["art-in-scope"]), link("art-elsewhere")], error="UNKNOWN_ARTIFACT")

case("mp-answer-link-in-scope-and-repeated", ["MP-D011", "MP-062"],
     "A link to an artifact in the turn's scope is accepted; a repeated citation or link is "
     "kept once.",
     [start(artifacts=["art-in-scope"]), ps("ev1", "evidence_ref", evidence="ev-1",
                                            entry="source"),
      *text_part("a1", "See both."), link("art-in-scope"), cite("ev-1"), link("art-in-scope"),
      cite("ev-1"), end()],
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "See both.")],
                                   links=["art-in-scope"], citations=["ev-1"])))

FILE.charge({"mp-answer-link-in-scope-and-repeated": "MP-D011"})
