"""The message-parts vector builders: events, expected part records, expected views, and
:class:`VectorFile`, which turns one case's events and hand-written expectations into the
vector format.

The helpers only fill in the constant fields the note's table fixes (surface and default
behaviour per kind); every expected value is spelled out by the section modules.

The event builders are short on purpose, a shorthand the case tables read in: ``ps`` part.start,
``d`` part.delta, ``pe`` part.end, ``fin`` part.final; ``x_<kind>`` is an expected part record
of that kind, ``*_out`` an expected operation output.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

FAMILY = "message-parts"

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

# The rules that govern a part's reconciliation mark `final` (none / final_only / matched /
# replaced): a case's `message-parts.parts` output carries the marks only if it cites one.
RECONCILIATION = {"MP-080", "MP-087", "MP-088", "MP-089", "MP-104",
                  "MP-D002", "MP-D003", "MP-D004", "MP-D005", "MP-D007"}


def _without_marks(parts: dict[str, Any]) -> dict[str, Any]:
    return {**parts, "turns": [
        {**t, "parts": [{k: v for k, v in p.items() if k != "final"} for p in t["parts"]]}
        for t in parts["turns"]]}


@dataclass
class VectorFile:
    """One vector file of the family: its name (without ``.json``), what it covers, its cases
    in the order :meth:`case` added them."""

    name: str
    description: str
    cases: list[dict[str, Any]] = field(default_factory=list)

    def case(self, cid: str, rules: list[str], description: str, events: list[Any], *,
             view: dict[str, Any] | None = None, raw_input: Any = None,
             checks: dict[str, dict[str, str]] | None = None, **expect: Any) -> None:
        """``expect`` maps parts/answer/project/titles/branches to an output, or ``error`` to a
        code expected from the operations named in ``ops`` (default: parts and answer);
        ``checks`` maps an operation (parts, answer, ...) to its check attribution (check name
        -> rule, vectors/README.md "Checks")."""
        add_case(self.cases, cid, rules, description, events, view=view, raw_input=raw_input,
                 checks=checks, **expect)

    def charge(self, attribution: dict[str, str | dict[str, str]]) -> None:
        """Charge the outcome and output of each named case (case id -> rule, or operation ->
        rule for only those operations) to that one rule, where the case does not attribute
        that operation already (vectors/README.md "Checks")."""
        for c in self.cases:
            named = attribution.get(c["id"], {})
            for op, expectation in c["expect"].items():
                rule = named if isinstance(named, str) else named.get(op.split(".")[-1])
                if not rule:
                    continue
                second = "error-code" if "error" in expectation else "output"
                expectation.setdefault("checks", {"outcome": rule, second: rule})

    def evidence(self, attribution: dict[str, dict[str, dict[str, str]]]) -> None:
        """Charge named parts of a charged output (case id -> operation -> JSON pointer -> rule)
        to the rule whose evidence each part is exactly (a SHOULD or MAY the output's MUST
        implies). The output's rule keeps the whole of it as the named part ``/turns``, so a
        part is compared twice: on its own for its rule, and inside ``/turns`` for the MUST, and
        a MUST violation there is never charged only to the SHOULD (vectors/README.md "Checks").
        Name only parts in which every difference is the MUST's too."""
        unknown = set(attribution) - {c["id"] for c in self.cases}
        assert not unknown, f"no such case in {self.name}: {sorted(unknown)}"
        for c in self.cases:
            for op, parts in attribution.get(c["id"], {}).items():
                checks = c["expect"][f"message-parts.{op}"]["checks"]
                checks["output:/turns"] = checks["output"]
                checks.update({f"output:{pointer}": rule for pointer, rule in parts.items()})

    def document(self) -> dict[str, Any]:
        return {"family": FAMILY, "description": self.description, "cases": self.cases}

    def text(self) -> str:
        """The exact text of the file."""
        return json.dumps(self.document(), ensure_ascii=False, indent=1) + "\n"


def add_case(cases: list[dict[str, Any]], cid: str, rules: list[str], description: str,
             events: list[Any], *, view: dict[str, Any] | None = None, raw_input: Any = None,
             checks: dict[str, dict[str, str]] | None = None, **expect: Any) -> None:
    """Append one case to ``cases`` in the vector format (see :meth:`VectorFile.case`)."""
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
    for op, attribution in (checks or {}).items():
        out[f"message-parts.{op}"]["checks"] = attribution
    cases.append({"id": cid, "rules": rules, "description": description,
                         "input": payload, "expect": out})

