"""Every invalid-input vector has exactly one defect (issue 11, "no coincidental passes").

A case that expects a rejection must be rejected for the reason it cites, not because its input
happens to hold a second fault. ``tests/defects/<family>.yaml`` gives, per case, the edit that
removes the case's one defect; with it applied, the reference must accept the input for every
operation the case expects to reject. If it still rejects, the case had a second defect, and an
implementation that ignores the cited rule would have passed it by coincidence.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent_tck.harness.families import operations as reference_operations
from agent_tck.harness.vectors import Case, Expectation, load_cases
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
    return {c.id for c in CASES.values() if c.family == family
            and any(_rejects(e) for e in c.expect)}


def _apply(doc: Any, edit: dict[str, Any]) -> None:
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
    fixed = copy.deepcopy(case.input)
    for edit in fix:
        _apply(fixed, edit)
    assert _accepts(case, fixed) == {}, f"{case_id} holds a second defect"


@pytest.mark.parametrize("family", sorted({f[0] for f in FIXTURES}))
def test_every_invalid_input_case_of_a_covered_family_has_its_fixture(family):
    covered = {case_id for fam, case_id, _ in FIXTURES if fam == family}
    assert _invalid_input_cases(family) == covered
