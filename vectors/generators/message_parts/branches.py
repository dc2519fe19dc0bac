"""branches.json: branches and retries."""

from __future__ import annotations

from .build import (
    VectorFile,
    answer_out,
    answer_turn,
    branch,
    branch_turn,
    cite,
    d,
    end,
    fin,
    link,
    made,
    parts_out,
    pe,
    ps,
    seg,
    start,
    text_part,
    x_artifact,
    x_call,
    x_evidence,
    x_result,
    x_rsum,
    x_text,
    x_user,
)

FILE = VectorFile(
    "branches",
    "Branches keep the user message, context, mode and artifacts; retries are "
    "new attempts.")
case = FILE.case

BRANCH_BASE = [
    start(context=["src/app.py", "selection:12-40"], mode="plan", artifacts=["art-spec"]),
    ps("r1", "reasoning_summary"), d("r1", "Option A"), pe("r1"),
    ps("ev1", "evidence_ref", evidence="ev-a", entry="source"),
    ps("ar1", "artifact_ref", artifact="art-v1", title="Plan v1"),
    *text_part("a1", "Plan A."), cite("ev-a"), end(),
    branch("t1b", "t1"), ps("r2", "reasoning_summary"), d("r2", "Option B"), pe("r2")]
case("mp-branch-keeps-user-context-mode-artifacts",
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
         ("t1b", "completed", [x_rsum("r2", "Option B"), x_text("a2", "Plan B.")])),
     # MP-D018 (MUST) copies the user message, context, mode and artifacts in scope; the
     # artifacts the earlier branch produced staying listed (/artifacts) is MP-093's, a SHOULD
     checks={"branches": {"outcome": "MP-D018", "output": "MP-D018",
                          "output:/artifacts": "MP-093"},
             "parts": {"outcome": "MP-D018", "output": "MP-D018"}})

case("mp-branch-artifacts-attributed", ["MP-097", "MP-093"],
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

case("mp-branch-cannot-cite-sibling-evidence", ["MP-095", "MP-D011"],
     "A branch cannot cite the evidence of the branch it regenerates: UNBACKED_CITATION.",
     [*BRANCH_BASE, cite("ev-a")],
     error="UNBACKED_CITATION")

case("mp-branch-cannot-link-sibling-artifact", ["MP-094", "MP-D011"],
     "A branch cannot link an artifact another branch produced: UNKNOWN_ARTIFACT.",
     [*BRANCH_BASE, link("art-v1")],
     error="UNKNOWN_ARTIFACT")

case("mp-retry-failed-tool-new-attempt", ["MP-096", "MP-083"],
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

case("mp-retry-third-attempt-error-known-at-end", ["MP-096"],
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

case("mp-branch-from-unknown-turn", ["MP-D017"],
     "A branch of a turn that was never started: UNKNOWN_TURN.",
     [branch("t1b", "t1")],
     error="UNKNOWN_TURN", ops=["parts", "branches"])

case("mp-branch-while-running", ["MP-D016"],
     "A branch while a turn is still running: INVALID_TRANSITION.",
     [start(), ps("a1", "assistant_text"), branch("t1b", "t1")],
     error="INVALID_TRANSITION", ops=["parts", "branches"])

# A sibling's evidence or artifact is MP-D011's (MUST) to refuse; MP-094/095 never fail it.
FILE.charge({"mp-branch-cannot-cite-sibling-evidence": "MP-D011",
             "mp-branch-cannot-link-sibling-artifact": "MP-D011"})

# What the branch keeps and owns, each part charged to the SHOULD that names it ("Branches
# SHOULD 保留用户消息、selected context、mode"; "每个 assistant branch SHOULD 有自己的 process 和
# evidence refs"); MP-D018 (MUST) copies and owns all of them, so it keeps the whole turns list.
FILE.evidence({"mp-branch-keeps-user-context-mode-artifacts": {"branches": {
    "/turns/1/user": "MP-090", "/turns/1/context": "MP-091", "/turns/1/mode": "MP-092",
    "/turns/1/process": "MP-094", "/turns/1/evidence": "MP-095"}}})
