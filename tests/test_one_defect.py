"""Every invalid-input vector has exactly one defect (issue 11, "no coincidental passes").

A case that expects a rejection must be rejected for the reason it cites, not because its input
happens to hold a second fault. ``tests/defects/<family>.yaml`` gives, per case, the edit that
removes the case's one defect; with it applied, the reference must accept the input for every
operation the case expects to reject. If it still rejects, the case had a second defect, and an
implementation that ignores the cited rule would have passed it by coincidence.
"""

from __future__ import annotations

import base64
import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent_tck.harness.contract.vectors import Case, Expectation, load_cases
from agent_tck.harness.families import operations as reference_operations
from agent_tck.reference_impl.errors import TckError

OPERATIONS = reference_operations()

DEFECTS = Path(__file__).resolve().parent / "defects"
CASES = {c.id: c for c in load_cases()}


def _fixtures() -> list[tuple[str, str, list[dict[str, Any]]]]:
    out = []
    for path in sorted(DEFECTS.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        out += [(doc["family"], f["case"], f["fix"]) for f in doc["fixtures"]]
    return out


FIXTURES = _fixtures()


def _rejects(expectation: Expectation) -> bool:
    return expectation.is_error or any(a.is_error for a in expectation.alternatives)


def _invalid_input_cases(family: str) -> set[str]:
    """The cases whose input the reference rejects. A valid input a case lets another reading
    reject (an error among accepted alternatives, the reference's output among them too: a log
    whose seq starts above 0, CFP-D003) has no defect to remove."""
    return {c.id for c in CASES.values() if c.family == family
            and any(_rejects(e) for e in c.expect) and _accepts(c, c.input)}


def _apply(doc: Any, edit: dict[str, Any]) -> Any:
    """One edit: a JSON-pointer edit, or with ``line`` one on a log's line; the edited input.

    Edits apply in place, except a ``replace`` of the whole input (path ``""``), which returns
    its ``value`` (an input that is not even of the operation's shape).
    """
    if "line" in edit:
        _apply_to_line(doc, edit)
    elif edit["path"] == "":
        assert edit["op"] == "replace", edit
        return copy.deepcopy(edit["value"])
    else:
        _apply_pointer(doc, edit)
    return doc


def _apply_to_line(doc: dict[str, Any], edit: dict[str, Any]) -> None:
    """An edit on line ``line`` (1-based, as check-log counts) of a log input's text.

    With ``path``, a JSON-pointer edit inside that line's JSON, written back as compact JSON;
    without, the line itself: ``replace`` (with ``value``), ``add`` (``value`` inserted before
    the line; one past the last appends), ``remove``. A ``value`` that is not a string is
    written as compact JSON. ``renumber`` sets the line's ``seq`` to the previous line's + 1
    (0 after the header), so a fixture does not pin the vector's numbering. ``logBase64``
    inputs are edited as bytes.
    """
    binary = "logBase64" in doc
    data = base64.b64decode(doc["logBase64"]) if binary else doc["log"].encode("utf-8")
    lines = data.split(b"\n")
    index = edit["line"] - 1
    if edit["op"] == "renumber":
        parsed, previous = json.loads(lines[index]), json.loads(lines[index - 1])
        parsed["seq"] = previous["seq"] + 1 if "seq" in previous else 0
        lines[index] = _compact(parsed)
    elif "path" in edit:
        parsed = json.loads(lines[index])
        _apply_pointer(parsed, edit)
        lines[index] = _compact(parsed)
    elif edit["op"] == "remove":
        del lines[index]
    else:
        value = edit["value"]
        text = value.encode("utf-8") if isinstance(value, str) else _compact(value)
        if edit["op"] == "add":
            lines.insert(index, text)
        else:
            lines[index] = text
    data = b"\n".join(lines)
    if binary:
        doc["logBase64"] = base64.b64encode(data).decode("ascii")
    else:
        doc["log"] = data.decode("utf-8")


def _compact(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _apply_pointer(doc: Any, edit: dict[str, Any]) -> None:
    """One JSON-pointer edit (RFC 6902's replace, add, remove) applied in place."""
    *parents, last = [p.replace("~1", "/").replace("~0", "~")
                      for p in edit["path"].split("/")[1:]]
    for part in parents:
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    if isinstance(doc, list):
        if edit["op"] == "add":
            doc.insert(len(doc) if last == "-" else int(last), edit["value"])
        elif edit["op"] == "remove":
            del doc[int(last)]
        else:
            doc[int(last)] = edit["value"]
    elif edit["op"] == "remove":
        del doc[last]
    else:
        doc[last] = edit["value"]


def _accepts(case: Case, payload: Any) -> dict[str, str]:
    """Operation -> the code it still rejects ``payload`` with (empty: all accept)."""
    still: dict[str, str] = {}
    for expectation in case.expect:
        if _rejects(expectation):
            try:
                OPERATIONS[expectation.operation](copy.deepcopy(payload))
            except TckError as err:
                still[expectation.operation] = f"{err.code}: {err}"
    return still


@pytest.mark.parametrize(("family", "case_id", "fix"), FIXTURES, ids=[f[1] for f in FIXTURES])
def test_removing_the_one_defect_makes_the_reference_accept(family, case_id, fix):
    case = CASES[case_id]
    assert case.family == family
    assert _accepts(case, case.input), f"{case_id}: the reference accepts the vector itself"
    fixed = _repaired(case, fix)
    assert _accepts(case, fixed) == {}, f"{case_id} holds a second defect"


def _repaired(case: Case, fix: list[dict[str, Any]]) -> Any:
    fixed = copy.deepcopy(case.input)
    for edit in fix:
        fixed = _apply(fixed, edit)
    return fixed


LINE_LOGS = [f for f in FIXTURES if isinstance(CASES[f[1]].input, dict)
             and isinstance(CASES[f[1]].input.get("log"), list)]


@pytest.mark.parametrize(("family", "case_id", "fix"), LINE_LOGS, ids=[f[1] for f in LINE_LOGS])
def test_a_repaired_log_of_parsed_lines_is_also_a_valid_session_log(family, case_id, fix):
    """A log given as parsed lines (developer-messages) is a session log apart from its one
    defect: the session reader (chunk-free-persistence) accepts the repaired log too, so a
    second defect the family's own operation does not look at (a seq gap) is caught as well."""
    fixed = _repaired(CASES[case_id], fix)
    text = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in fixed["log"])
    try:
        OPERATIONS["session.check-log"]({"log": text})
    except TckError as err:
        pytest.fail(f"{case_id} holds a second defect: {err.code}: {err}")


@pytest.mark.parametrize("family", sorted({f[0] for f in FIXTURES}))
def test_every_invalid_input_case_of_a_covered_family_has_its_fixture(family):
    covered = {case_id for fam, case_id, _ in FIXTURES if fam == family}
    assert _invalid_input_cases(family) == covered


def test_every_family_with_invalid_input_cases_is_covered():
    """A family's fixtures file is required, not opt-in: deleting one fails here."""
    rejecting = {c.family for c in CASES.values() if any(_rejects(e) for e in c.expect)}
    assert rejecting <= {family for family, _, _ in FIXTURES}


# --- one code per definition (issue 21 C) ----------------------------------------------------
# A rejected input must fit the definition of every code it accepts, and every code whose
# definition it fits must be accepted: the family README says the order in which an
# implementation runs its checks never matters. The tables below restate the README's
# definitions as predicates, each looked at on its own (never first-match), and are checked
# against the vectors both ways: every fitting code is accepted, every accepted code fits, and a
# valid input fits none (which keeps the tables honest).


def _accepted_codes(expectation: Expectation) -> set[str]:
    options = expectation.alternatives or (expectation,)
    return {a.error_code for a in options if a.error_code is not None}


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _dm_binding_codes(lines: list[Any]) -> set[str]:
    """The codes of vectors/developer-messages/README.md "Error codes" about a developer
    message's header reference and tool-change blocks whose definitions the log fits."""
    from agent_tck.reference_impl.developer_messages.admission import known_event_types
    from agent_tck.reference_impl.developer_messages.records import _is_count

    events = [e for e in lines[1:] if isinstance(e, dict)]
    by_seq = {e["seq"]: e for e in events if _is_count(e.get("seq"))
              and e.get("type") in known_event_types()}
    fits: set[str] = set()
    for event in events:
        data = event.get("data")
        if event.get("type") != "developer/message" or not isinstance(data, dict):
            continue
        message = data.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        changes = [b for b in content or () if isinstance(b, dict)
                   and b.get("type") in ("tool-addition", "tool-removal")]
        additions = [b for b in changes if b["type"] == "tool-addition"]
        if isinstance(message, dict) and message.get("role") != "developer":
            # DM-036; a tool change in it is one in an ordinary message too (DM-043)
            fits |= {"DM_ROLE_MISMATCH"} | ({"DM_TOOL_CHANGE_NOT_DEVELOPER"} if changes else set())
        fits |= {"DM_MALFORMED" for b in changes
                 if not isinstance(b.get("toolName"), str) or not b.get("toolName")}
        fits |= {"DM_INLINE_DEFINITION" for b in additions if "tool" in b}
        if "headerSeq" not in data or data["headerSeq"] is None:
            # null is JSON's absence: missing (DM-002) as much as ill-typed (DM-D001)
            fits |= {"DM_HEADER_SEQ_MISSING"} if additions else set()
            fits |= {"DM_MALFORMED"} if "headerSeq" in data else set()
            continue
        ref = data["headerSeq"]
        fits |= set() if additions else {"DM_HEADER_SEQ_UNEXPECTED"}
        fits |= set() if _is_count(ref) else {"DM_MALFORMED"}
        if _number(ref) and _number(event.get("seq")) and ref >= event["seq"]:
            fits.add("DM_HEADER_SEQ_FORWARD")
        named = by_seq.get(ref) if _is_count(ref) else None
        if named is None:
            fits.add("DM_HEADER_SEQ_UNKNOWN")
        elif named.get("type") != "request/header":
            fits.add("DM_HEADER_SEQ_NOT_HEADER")
        else:
            fits |= _dm_definition_codes(named, additions)
    return fits


def _dm_definition_codes(header: dict[str, Any], additions: list[dict[str, Any]]) -> set[str]:
    """DM-006..DM-008 (DM-D002): what the bound header holds for each added name given."""
    body = header.get("data", {}).get("header", {})
    tools = body.get("tools") if isinstance(body, dict) else None
    fits: set[str] = set()
    for block in additions:
        if "toolName" not in block:
            continue  # no added name: nothing to look up
        matches = [t for t in tools if isinstance(t, dict) and t.get("name") == block["toolName"]
                   ] if isinstance(tools, list) else []
        if not matches:
            fits.add("DM_DEFINITION_MISSING")
        elif len(matches) > 1:
            fits.add("DM_DEFINITION_AMBIGUOUS")
        elif not isinstance(matches[0].get("description"), str) \
                or not isinstance(matches[0].get("parameters"), dict):
            fits.add("DM_DEFINITION_INCOMPLETE")
    return fits


#: the codes the binding table decides; DM_MALFORMED (turn, step, an origin above 0 under
#: CFP-D003) and DM_TOOL_CHANGE_NOT_DEVELOPER (other slots) have sources the table does not
#: restate, so they are never required to fit
DM_BINDING_CODES = {"DM_ROLE_MISMATCH",
                    "DM_HEADER_SEQ_MISSING", "DM_HEADER_SEQ_FORWARD", "DM_HEADER_SEQ_UNKNOWN",
                    "DM_HEADER_SEQ_NOT_HEADER", "DM_HEADER_SEQ_UNEXPECTED", "DM_INLINE_DEFINITION",
                    "DM_DEFINITION_MISSING", "DM_DEFINITION_AMBIGUOUS", "DM_DEFINITION_INCOMPLETE"}
DM_LOG_OPERATIONS = {"developer-messages.admit": lambda p: p["log"],
                     "developer-messages.append": lambda p: [*p["log"], p["event"]]}
DM_LOG_CASES = [(c, e) for c in CASES.values() if c.family == "developer-messages"
                for e in c.expect if e.operation in DM_LOG_OPERATIONS]


@pytest.mark.parametrize(("case", "expectation"), DM_LOG_CASES,
                         ids=[f"{c.id}[{e.operation}]" for c, e in DM_LOG_CASES])
def test_a_developer_log_accepts_every_binding_code_it_fits_and_no_other(case, expectation):
    fits = _dm_binding_codes(DM_LOG_OPERATIONS[expectation.operation](case.input))
    accepted = _accepted_codes(expectation)
    if not accepted:
        assert not fits, f"{case.id}: a valid log fits {sorted(fits)}: the table is wrong"
        return
    assert fits <= accepted, f"{case.id} fits {sorted(fits - accepted)} too: accept them"
    assert accepted & DM_BINDING_CODES <= fits, (
        f"{case.id} accepts {sorted(accepted & DM_BINDING_CODES - fits)}, which it does not fit")


def _sma_fitting_reasons(world: Any, sender_id: str, generation: int, target_id: str | None,
                         aborted: bool) -> set[str]:
    """vectors/send-message-adjacency/README.md's reason table (SMA-D002), each row on its own."""
    from agent_tck.reference_impl.subagents import model

    sender = world.agents[sender_id]
    fits = {"SEND_CANCELLED"} if aborted else set()
    fits |= {"STALE_SENDER"} if generation != sender.generation else set()
    if target_id is None:
        return fits | {"MISSING_AGENT_ID"}
    target = world.get(target_id)
    if target is None:
        return fits | {"UNKNOWN_TARGET"}
    if target_id == sender_id:
        return fits | {"SELF_TARGET"}
    to_child, to_parent = target.parent == sender_id, sender.parent == target_id
    rows = {
        "ONE_SHOT_TARGET": to_child and target.kind == model.ONE_SHOT,
        "ONE_SHOT_SENDER": to_parent and sender.kind == model.ONE_SHOT,
        "SENDER_NOT_RESIDENT": (to_parent and sender.kind == model.CONTINUABLE
                                and not sender.resident)
        or (to_child and sender.state == model.ABSENT),
        "PARENT_NOT_LIVE": to_parent and target.state == model.ABSENT,
        "ANCESTOR_BEYOND_EDGE": not to_parent and target_id in world.ancestors(sender_id),
        "DESCENDANT_BEYOND_EDGE": not to_child and sender_id in world.ancestors(target_id),
        "SIBLING_TARGET": sender.parent is not None and target.parent == sender.parent,
    }
    fits |= {code for code, fit in rows.items() if fit}
    related = to_child or to_parent or any(rows[c] for c in (
        "ANCESTOR_BEYOND_EDGE", "DESCENDANT_BEYOND_EDGE", "SIBLING_TARGET"))
    return fits if related else fits | {"NOT_ADJACENT"}


SMA_CASES = [c for c in CASES.values() if c.family == "send-message-adjacency"
             and any(not _rejects(e) for e in c.expect)]


@pytest.mark.parametrize("case", SMA_CASES, ids=[c.id for c in SMA_CASES])
def test_every_rejected_send_fits_one_reason_and_an_accepted_send_none(case, monkeypatch):
    """The vectors pin only calls that fail for one reason (the family README): every send the
    reference simulates fits exactly the reason it is given, whatever order a runtime checks in."""
    from agent_tck.reference_impl.subagents import routes, simulator

    seen: list[tuple[set[str], str | None]] = []

    def spy(world: Any, sender_id: str, generation: int, target_id: str | None, *,
            aborted: bool = False) -> routes.Route:
        route = routes.authorize(world, sender_id, generation, target_id, aborted=aborted)
        seen.append((_sma_fitting_reasons(world, sender_id, generation, target_id, aborted),
                     route.reason))
        return route

    monkeypatch.setattr(simulator, "authorize", spy)
    for expectation in case.expect:
        OPERATIONS[expectation.operation](copy.deepcopy(case.input))
    for fits, reason in seen:
        assert fits == ({reason} if reason else set()), (
            f"{case.id}: a send given {reason} fits {sorted(fits)}")


DM_WIRE_CASES = [(c, e) for c in CASES.values() if c.family == "developer-messages"
                 for e in c.expect if e.operation == "developer-messages.anthropic-request"
                 and _accepted_codes(e)]


@pytest.mark.parametrize(("case", "expectation"), DM_WIRE_CASES,
                         ids=[c.id for c, _ in DM_WIRE_CASES])
def test_a_wire_rejection_is_invalid_history_exactly_when_the_history_is_malformed(
        case, expectation):
    """anthropic-request's INVALID_HISTORY is a malformed history; its other codes are about a
    well-formed one (the developer-messages README): a case never fits both (the block-omission
    cases are held to the same in tests/test_serialize_vectors.py)."""
    from jsonschema import Draft202012Validator

    schema = json.loads((DEFECTS.parent.parent / "vectors/schema/history.schema.json")
                        .read_text(encoding="utf-8"))
    malformed = bool(list(Draft202012Validator(schema).iter_errors(
        {"history": case.input["history"]})))
    accepted = _accepted_codes(expectation)
    assert ("INVALID_HISTORY" in accepted) == malformed
def _first_event_seq(case: Case) -> Any:
    log = case.input.get("log") if isinstance(case.input, dict) else None
    if not isinstance(log, str) or len(lines := log.split("\n")) < 2:
        return 0
    try:
        first = json.loads(lines[1])
    except ValueError:
        return 0
    return first.get("seq", 0) if isinstance(first, dict) else 0


def _rejected_at_line(case: Case) -> int:
    """The line the reference rejects the case's log on (0 when it does not say)."""
    for expectation in case.expect:
        if _rejects(expectation):
            try:
                OPERATIONS[expectation.operation](copy.deepcopy(case.input))
            except TckError as err:
                found = re.search(r"line (\d+)", str(err))
                return int(found.group(1)) if found else 0
    return 0


def test_an_invalid_log_whose_defect_is_past_its_first_event_numbers_events_from_0():
    """CFP-D003 accepts a reader requiring seq 0 (the source runtime's: seq is the row index), so
    a log starting at seq 1 holds a second defect for it, met on line 2 before the cited one
    (issue 21 C). The cases whose subject is the first seq (CFP-D003) are the exception."""
    late = [c.id for c in CASES.values() if _first_event_seq(c) != 0
            and "CFP-D003" not in c.rules and _rejected_at_line(c) >= 2]
    assert late == []
