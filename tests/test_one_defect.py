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
