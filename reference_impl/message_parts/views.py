"""What a client renders from a reconciled state (family ``message-parts``), as plain JSON.

Five views of one :class:`reference_impl.message_parts.State` (shapes in
vectors/message-parts/README.md):

* :func:`parts_view`    - the typed, ordered parts of every turn (MP-001, the 11 kinds);
* :func:`answer_view`   - the final answer of every turn: segments, links, citations
  (the final-answer boundary, MP-050..MP-075);
* :func:`project_view`  - the primary projection and display of every part for the view at
  this moment (MP-033..MP-038, MP-D008, MP-D010);
* :func:`titles_view`   - the title of every reasoning and tool item (MP-039, MP-040, MP-D009);
* :func:`branches_view` - what each turn or branch keeps and owns (MP-090..MP-097).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.message_parts.reconciler import Part, State, Turn
from agent_tck.reference_impl.message_parts.tables import (
    KINDS,
    REASONING_KINDS,
    PartState,
    TurnState,
)

_TURN_STATUS = {
    TurnState.ACTIVE: "active",
    TurnState.COMPLETED: "completed",
    TurnState.ABORTED: "aborted",
}
_PART_STATE = {
    PartState.OPEN: "open",
    PartState.FINAL: "done",
    PartState.ENDED: "done",
    PartState.ABORTED: "aborted",
}

# ---------------------------------------------------------------------------------------------
# Parts.


def _json(value: Any) -> Any:
    return copy.deepcopy(value)


def part_json(state: State, part: Part, marks: bool = True) -> dict[str, Any]:
    """One part record: common fields, then the kind's own (MP-010..MP-020). ``marks=False``
    leaves out the reconciliation mark ``final`` (MP-087, MP-D002): only the reconciliation
    rules govern it, so vectors about kinds and order do not compare it."""
    spec = KINDS[part.kind]
    out: dict[str, Any] = {
        "id": part.id,
        "kind": part.kind,
        "surface": part.surface,
        "behaviour": spec.behaviour,
        "state": _PART_STATE[part.state],
    }
    a = part.attrs
    match part.kind:
        case "user_text":
            out |= {"author": a["author"], "text": part.text}
        case "assistant_text":
            out |= {"text": part.text, "final": part.final}
        case "reasoning_summary":
            out |= {"text": part.text, "final": part.final, "summary": part.summary,
                    "exported": part.exported}
        case "reasoning_detail":
            out |= {"text": part.text, "final": part.final, "summary": part.summary,
                    "exported": part.exported, "redacted": a.get("redacted", False)}
        case "runtime_status":
            out |= {"text": part.text, "final": part.final}
        case "tool_call":
            out |= {"name": a["name"], "input": part.text, "final": part.final,
                    "summary": part.summary, "attempt": part.attempt,
                    "retry_of": a.get("retry_of"), "outcome": _outcome(state, part)}
        case "tool_result":
            out |= {"call": a["call"], "output": part.text, "final": part.final,
                    "summary": part.summary, "is_error": part.is_error}
        case "action_required":
            out |= {"prompt": a["prompt"], "payload": _json(a.get("payload")),
                    "pending": part.state is PartState.OPEN}
        case "artifact_ref":
            out |= {"artifact": a["artifact"], "title": a["title"],
                    "summary": part.summary, "opens": "artifact_workspace"}
        case "evidence_ref":
            out |= {"evidence": a["evidence"], "entry": a["entry"], "label": a.get("label"),
                    "pack": _json(a.get("pack"))}
        case "error":
            out |= {"message": a["message"], "recoverable": a["recoverable"],
                    "next_step": a.get("next_step")}
    if not marks:
        out.pop("final", None)
    return out


def _outcome(state: State, call: Part) -> str | None:
    """The latest result of a tool call decides once it is complete: "failed" (is_error) or
    "succeeded"; None while there is no complete result (none yet, running, or aborted)."""
    results = [
        p for p in state.parts.values()
        if p.kind == "tool_result" and p.attrs["call"] == call.id
    ]
    if not results:
        return None
    latest = max(results, key=lambda p: _position(state, p))
    if latest.state not in (PartState.FINAL, PartState.ENDED):
        return None
    return "failed" if latest.is_error else "succeeded"


def _position(state: State, part: Part) -> tuple[int, int]:
    for ti, turn in enumerate(state.turns):
        if turn.id == part.turn:
            return ti, turn.parts.index(part.id)
    raise AssertionError(part.id)


def _parts_of(state: State, turn: Turn) -> list[Part]:
    return [state.parts[i] for i in turn.parts]


def parse_marks(payload: Mapping[str, Any]) -> bool:
    """``input.marks`` (default true): whether ``message-parts.parts`` reports ``final``."""
    marks = payload.get("marks", True)
    if not isinstance(marks, bool):
        raise TckError("MALFORMED_INPUT", "input.marks must be a boolean", "/marks")
    return marks


def parts_view(state: State, marks: bool = True) -> dict[str, Any]:
    return {
        "turns": [
            {
                "turn": t.id,
                "status": _TURN_STATUS[t.state],
                "parts": [part_json(state, p, marks) for p in _parts_of(state, t)],
            }
            for t in state.turns
        ]
    }


# ---------------------------------------------------------------------------------------------
# The final answer ("最终回答边界").


def _in_answer(part: Part) -> bool:
    # MP-011 / MP-081: assistant_text is the answer; MP-100 / MP-D012: reasoning only when
    # explicitly exported. Everything else stays in its own part (MP-051..MP-055, MP-070..075).
    return part.kind == "assistant_text" or (part.kind in REASONING_KINDS and part.exported)


def answer_view(state: State) -> dict[str, Any]:
    return {
        "turns": [
            {
                "turn": t.id,
                "status": _TURN_STATUS[t.state],
                "segments": [
                    {"part": p.id, "text": p.text}
                    for p in _parts_of(state, t) if _in_answer(p)
                ],
                "links": list(t.links),
                "citations": list(t.citations),
            }
            for t in state.turns
        ]
    }


# ---------------------------------------------------------------------------------------------
# Projections of the view at this moment.


@dataclass(frozen=True)
class ViewSettings:
    """MP-D010: reasoning_detail is shown only when both the policy and the user allow it."""

    detail_policy: bool = False
    detail_user: bool = False

    @property
    def show_detail(self) -> bool:
        return self.detail_policy and self.detail_user


def parse_view(payload: Mapping[str, Any]) -> ViewSettings:
    view = payload.get("view", {})
    if not isinstance(view, dict):
        raise TckError("MALFORMED_INPUT", "input.view must be an object", "/view")
    detail = view.get("reasoning_detail", {})
    if not isinstance(detail, dict):
        raise TckError("MALFORMED_INPUT", "view.reasoning_detail must be an object",
                       "/view/reasoning_detail")
    for key in ("policy", "user"):
        if key in detail and not isinstance(detail[key], bool):
            raise TckError("MALFORMED_INPUT", f"view.reasoning_detail.{key} must be a boolean",
                           f"/view/reasoning_detail/{key}")
    return ViewSettings(detail.get("policy", False), detail.get("user", False))


def _projection(part: Part, turn: Turn) -> str:
    # MP-037: exactly one primary projection per fact in the current view.
    if not KINDS[part.kind].process or part.exported:
        return "message"
    if part.surface == "Task":
        return "task"
    # MP-033 the active run's process is inline, in live order; MP-034 / MP-107 a finished
    # turn's process folds into its timeline archive; MP-D008 finished facts of a running turn
    # stay inline (collapsed in place), so the archive never repeats them (MP-038).
    return "inline" if turn.state is TurnState.ACTIVE else "timeline"


def _display(part: Part, turn: Turn, settings: ViewSettings) -> str:
    kind = part.kind
    if kind == "user_text":
        return "shown"  # MP-010 立即显示
    if kind == "assistant_text" or part.exported:
        return "answer"  # MP-011
    if kind == "artifact_ref":
        return "card"  # MP-018 摘要卡
    if kind == "evidence_ref":
        return "entry"  # MP-019
    if kind == "reasoning_detail" and not settings.show_detail:
        return "hidden"  # MP-013 只有 policy 和用户设置允许时展示
    if kind == "action_required":
        return "cta" if part.state is PartState.OPEN else "collapsed"  # MP-017, MP-102
    if kind == "runtime_status":
        return "status"  # MP-014 紧凑状态
    if kind == "error":
        return "diagnostic"  # MP-020
    # MP-035 running reasoning, tool input streaming and tool progress stay visible with a live
    # body; MP-036 they fold into a summary only after completion.
    if part.state is PartState.OPEN and turn.state is TurnState.ACTIVE:
        return "live"
    return "collapsed"


#: The kinds whose items carry a title (the note's "reasoning/tool fact").
TITLED_KINDS = frozenset({"reasoning_summary", "reasoning_detail", "tool_call", "tool_result"})


def _title(state: State, part: Part, settings: ViewSettings) -> str | None:
    """MP-039 only stable sources; MP-040 never a fragment that is still streaming.

    MP-D009 order: a summary the runtime supplied; else the tool name; else, for a completed
    reasoning_summary, its complete text; else none. A hidden reasoning_detail has no title.
    """
    kind = part.kind
    if kind == "reasoning_detail" and not settings.show_detail and not part.exported:
        return None
    if part.summary is not None:
        return part.summary
    if kind == "tool_call":
        return str(part.attrs["name"])
    if kind == "tool_result":
        call = state.parts[part.attrs["call"]]
        return str(call.attrs["name"])
    if kind == "reasoning_summary" and part.state in (PartState.FINAL, PartState.ENDED):
        return part.text if part.text else None
    return None


def titles_view(state: State, settings: ViewSettings) -> dict[str, Any]:
    return {
        "titles": [
            {"turn": t.id, "part": p.id, "title": _title(state, p, settings)}
            for t in state.turns
            for p in _parts_of(state, t)
            if p.kind in TITLED_KINDS
        ]
    }


def project_view(state: State, settings: ViewSettings) -> dict[str, Any]:
    turns = []
    for t in state.turns:
        items = []
        for p in _parts_of(state, t):
            items.append({
                "part": p.id,
                "projection": _projection(p, t),
                "display": _display(p, t, settings),
            })
        turns.append({"turn": t.id, "status": _TURN_STATUS[t.state], "items": items})
    active = any(t.state is TurnState.ACTIVE for t in state.turns)
    return {"view": "active" if active else "idle", "turns": turns}


# ---------------------------------------------------------------------------------------------
# Branches and retries.


def branches_view(state: State) -> dict[str, Any]:
    turns = []
    produced: list[Any] = []
    for t in state.turns:
        parts = _parts_of(state, t)
        turns.append({
            "turn": t.id,
            "branch_of": t.branch_of,
            "user": dict(t.user),  # MP-090
            "context": list(t.context),  # MP-091
            "mode": t.mode,  # MP-092
            "artifacts": list(t.artifacts),  # MP-093
            "process": [p.id for p in parts if KINDS[p.kind].process],  # MP-094
            "evidence": [p.id for p in parts if p.kind == "evidence_ref"],  # MP-095
        })
        produced.extend(
            {"artifact": p.attrs["artifact"], "turn": t.id, "part": p.id}  # MP-097
            for p in parts if p.kind == "artifact_ref"
        )
    return {"turns": turns, "artifacts": produced}
