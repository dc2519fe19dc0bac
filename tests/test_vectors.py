"""One parametrized test runs every vector against the implementation (reference by default).

``pytest --impl CMD tests/test_vectors.py`` runs them through an external adapter instead.
"""

from __future__ import annotations

import pytest

from agent_tck.harness.contract.catalogue import load_catalogue
from agent_tck.harness.contract.vectors import load_cases
from agent_tck.harness.run.evaluate import judge

CASES = load_cases(known_rules=load_catalogue().by_id)
PAIRS = [(case, expectation) for case in CASES for expectation in case.expect]


def test_the_vectors_are_there():
    # like referencing's suite runner: a missing suite fails loudly, never passes vacuously
    assert len(CASES) >= 40, f"only {len(CASES)} vector cases found"


@pytest.mark.parametrize(
    ("case", "expectation"),
    PAIRS,
    ids=[f"{c.family}/{c.id}[{e.operation}]" for c, e in PAIRS],
)
def test_vector(tck_target, case, expectation):
    judgment, _ = judge(tck_target.target, case, expectation)  # the runner's one loop
    if judgment.status == "not-applicable":  # undeclared, or BO-008 without observe
        pytest.skip(f"not applicable: {judgment.message}")
    assert judgment.status == "pass", (
        f"{case.where()} {', '.join(case.rules)}: {judgment.message}\n"
        + "\n".join(judgment.transcript)
    )


def test_the_reference_never_mutates_its_input():
    """BO-008 and every family's purity: run each case on the caller's own objects (no JSON
    round trip, which would hide a mutation) and compare the input afterwards."""
    import contextlib
    import copy

    from agent_tck.harness.families import run_operation
    from agent_tck.reference_impl.errors import TckError

    changed = []
    for case, expectation in PAIRS:
        payload = copy.deepcopy(case.input)
        with contextlib.suppress(TckError):
            run_operation(expectation.operation, payload)
        if payload != case.input:
            changed.append(f"{case.id}[{expectation.operation}]")
    assert changed == []
