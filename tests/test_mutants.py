"""Mutation score: every seeded fault must be caught, on the rules it names.

Runs every mutant in tests/mutants/ through the whole vector suite (harness.mutants) and
fails on any survivor and on any MUST rule of a family with vectors that no killed mutant
covers. The score is printed in the terminal summary.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tck.harness.catalogue import load_catalogue
from agent_tck.harness.mutants import apply, load_mutants, run_mutants, score
from agent_tck.harness.vectors import load_cases

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
    from agent_tck.harness.errors import HarnessError
    from agent_tck.harness.mutants import Mutant

    (tmp_path / "m.py").write_text("x = 1\nx = 1\n")
    twice = Mutant("m", "f", ("BO-001",), "m.py", "x = 1", "x = 2", "<test>")
    with pytest.raises(HarnessError, match="occurs 2 times"):
        apply(twice, tmp_path)


# ---- every citation can be moved by a fault (issue 11, "no coincidental passes") --------------

UNMOVED = Path(__file__).resolve().parent / "mutants" / "unmoved-citations.txt"


def unmoved_citations(outcomes) -> set[tuple[str, str]]:
    """(case, rule) pairs where no seeded fault naming the rule changes the case's result.

    A case cites a rule because its result bears on it; if no realistic fault of that rule moves
    the result, the citation is either unproven (a fault is missing) or wrong (narrow it)."""
    moved: set[tuple[str, str]] = set()
    for o in outcomes:
        if not o.mutant.survives:
            moved |= {(case, rule) for case in o.failed_cases for rule in o.mutant.rules}
    cited = {(c.id, rule) for c in load_cases() for e in c.expect for rule in c.rules_for(e)}
    return cited - moved


def _recorded() -> set[tuple[str, str]]:
    out = set()
    for raw in UNMOVED.read_text(encoding="utf-8").splitlines():
        entry = raw.split("#", 1)[0].strip()
        if entry:
            case, rule = entry.split()
            out.add((case, rule))
    return out


def test_each_citation_is_moved_by_some_fault_or_recorded(outcomes):
    """The report of citations no seeded fault moves is tests/mutants/unmoved-citations.txt:
    a new one must be given a fault (or the citation narrowed); a fixed one leaves the list."""
    unmoved = unmoved_citations(outcomes)
    SCORE["unmoved_citations"] = len(unmoved)
    recorded = _recorded()
    assert sorted(unmoved - recorded) == [], "citations no seeded fault moves (add a fault)"
    assert sorted(recorded - unmoved) == [], "recorded citations a fault now moves (remove)"
