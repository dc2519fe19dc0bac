"""projection.json: live projection and archive."""

from __future__ import annotations

from .build import (
    OK_USER,
    VectorFile,
    abort,
    answer_out,
    answer_turn,
    d,
    end,
    item,
    parts_out,
    pe,
    project_out,
    ps,
    seg,
    start,
    text_part,
    x_call,
    x_result,
    x_user,
)
from .order import RUNNING

FILE = VectorFile(
    "projection",
    "The view at a moment: live inline process, folded timeline archive, one "
    "primary projection per fact.")
case = FILE.case

case("mp-view-tool-input-and-progress-visible", ["MP-035", "MP-106", "MP-033"],
     "While the run is active, a tool call whose input is streaming and a tool result "
     "reporting progress are both inline and live.",
     [start(), ps("c1", "tool_call", name="build"), d("c1", '{"target": "al'),
      ps("res1", "tool_result", call="c1"), d("res1", "compiling 3/10\n")],
     parts=parts_out(("t1", "active", [
         x_user(), x_call("c1", "build", '{"target": "al', state="open"),
         x_result("res1", "c1", "compiling 3/10\n", state="open")])),
     project=project_out("active", ("t1", "active", [
         OK_USER, item("c1", "inline", "live"), item("res1", "inline", "live")])))

case("mp-view-pending-action-visible", ["MP-035", "MP-102"],
     "A pending action_required step in a running turn stays visible as a call to action.",
     [start(), ps("r1", "reasoning_summary"), d("r1", "Need approval"),
      ps("act1", "action_required", prompt="Run the migration?")],
     project=project_out("active", ("t1", "active", [
         OK_USER, item("r1", "inline", "live"), item("act1", "task", "cta")])))

case("mp-view-completed-turn-folds-into-archive",
     ["MP-106", "MP-034", "MP-036", "MP-012", "MP-101"],
     "When the running turn above completes, its reasoning and tool parts are folded into "
     "the turn's timeline archive; the answer stays in the message.",
     [*RUNNING, d("r1", "ther."), pe("r1"), d("c1", 'lo"}'), pe("c1"), d("a1", ": clear."),
      pe("a1"), end()],
     project=project_out("idle", ("t1", "completed", [
         OK_USER, item("r1", "timeline", "collapsed"), item("c1", "timeline", "collapsed"),
         item("a1", "message", "answer")])),
     answer=answer_out(answer_turn("t1", "completed", [seg("a1", "Checking Oslo: clear.")])))

case("mp-view-not-folded-while-running", ["MP-036", "MP-035"],
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
case("mp-view-one-projection-per-fact", ["MP-037", "MP-038", "MP-107", "MP-033"],
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

case("mp-view-finished-fact-of-running-turn-stays-inline", ["MP-D008", "MP-033", "MP-105"],
     "A reasoning part that finished while its turn still runs stays inline, collapsed in "
     "place and in live part order, until the turn completes.",
     [start(), ps("r1", "reasoning_summary"), d("r1", "Plan."), pe("r1"),
      ps("c1", "tool_call", name="search"), d("c1", '{"q": ')],
     project=project_out("active", ("t1", "active", [
         OK_USER, item("r1", "inline", "collapsed"), item("c1", "inline", "live")])))

case("mp-view-aborted-turn-archived", ["MP-D007", "MP-D008"],
     "An aborted turn is finished: its process, aborted mid-stream, is folded in its "
     "timeline archive; its partial answer stays in the message.",
     [start(), ps("r1", "reasoning_summary"), d("r1", "Thinking ab"),
      ps("a1", "assistant_text"), d("a1", "The ans"), abort()],
     project=project_out("idle", ("t1", "aborted", [
         OK_USER, item("r1", "timeline", "collapsed"), item("a1", "message", "answer")])))

case("mp-view-finished-facts-once-in-running-turn",
     ["MP-037", "MP-107", "MP-D008", "MP-105"],
     "A tool call and its result finish while the turn still runs and a reasoning part "
     "streams: each fact has exactly one projection; none is repeated in a timeline archive.",
     [start(), ps("c1", "tool_call", name="search"), d("c1", '{"q": "oslo"}'), pe("c1"),
      ps("res1", "tool_result", call="c1"), d("res1", "3 hits"), pe("res1"),
      ps("r1", "reasoning_summary"), d("r1", "Next I")],
     project=project_out("active", ("t1", "active", [
         OK_USER, item("c1", "inline", "collapsed"), item("res1", "inline", "collapsed"),
         item("r1", "inline", "live")])))

# the answer view is MP-106's; the projection's folding is MP-036's (the archive, MP-034, a MAY)
FILE.charge({"mp-view-completed-turn-folds-into-archive": {"answer": "MP-106",
                                                           "project": "MP-036"}})

# The completed turn's process parts, folded in the timeline archive, are MP-106's (MUST: "after
# the turn completes they are in the folded timeline archive"); MP-036 keeps the whole projection
# (folding only after completion). Their placement in the archive is also MP-034's (MAY)
# permission, nested inside, so every difference there fails MP-106 too.
FILE.evidence({"mp-view-completed-turn-folds-into-archive": {"project": {
    "/turns/0/items/1": "MP-106", "/turns/0/items/2": "MP-106",
    "/turns/0/items/1/projection": "MP-034", "/turns/0/items/2/projection": "MP-034"}}})
