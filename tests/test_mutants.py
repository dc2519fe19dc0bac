"""Mutation score: every seeded fault must be caught, on the rules it names.

Runs every mutant in tests/mutants/ through the whole vector suite (harness.mutants) and
fails on any survivor and on any MUST rule of a family with vectors that no killed mutant
covers. The score is printed in the terminal summary.
"""

from __future__ import annotations

import pytest

from harness.catalogue import load_catalogue
from harness.mutants import apply, load_mutants, run_mutants, score
from harness.vectors import load_cases

SCORE: dict[str, object] = {}


@pytest.fixture(scope="module")
def outcomes():
    return run_mutants(load_mutants())


def test_mutation_score_is_complete(outcomes):
    families = {c.family for c in load_cases()}
    must = [r.id for r in load_catalogue().rules if r.level == "MUST" and r.family in families]
    result = score(outcomes, must)
    SCORE.update(result)
    errors = {o.mutant.name: o.error for o in outcomes if o.error}
    assert errors == {}, "mutants that broke the import instead of a rule"
    assert result["survivors"] == [], "seeded faults the suite did not catch"
    assert result["accepted_variants_failed"] == {}, "accepted variants a vector fails"
    assert result["must_rules_without_a_killed_mutant"] == []


def test_every_mutant_is_killed_on_each_rule_it_names(outcomes):
    unkilled = {o.mutant.name: sorted(set(o.mutant.rules) - set(o.killed_on))
                for o in outcomes if not o.mutant.survives}
    assert {k: v for k, v in unkilled.items() if v} == {}


def test_every_accepted_variant_fails_no_vector(outcomes):
    """A `survives: true` mutant is another reasonable reading of the notes (the source
    runtime's, or an order no rule governs): the suite must pass it on every case."""
    variants = [o for o in outcomes if o.mutant.survives]
    assert variants, "no accepted variants: the suite never proves it leaves readings open"
    assert {o.mutant.name: [o.error, *o.failed_cases] for o in variants
            if o.failed_cases or o.error} == {}


def test_a_mutant_whose_snippet_moved_is_an_error(tmp_path):
    from harness.errors import HarnessError
    from harness.mutants import Mutant

    (tmp_path / "m.py").write_text("x = 1\nx = 1\n")
    twice = Mutant("m", "f", ("BO-001",), "m.py", "x = 1", "x = 2", "<test>")
    with pytest.raises(HarnessError, match="occurs 2 times"):
        apply(twice, tmp_path)
