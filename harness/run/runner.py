"""What a run covers: the filters, the cases they select, and the header that says so.

The cases are then run by :func:`harness.run.evaluate.run_cases`, which yields the typed records
(header, one per case and operation, footer) that the report writers render.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from agent_tck.harness import __version__
from agent_tck.harness.contract.catalogue import Catalogue
from agent_tck.harness.contract.vectors import Case
from agent_tck.harness.run.evaluate import now
from agent_tck.harness.run.results import RESULTS_FORMAT, Header, RuleInfo


@dataclass(frozen=True)
class Filters:
    """What narrows a run; any of it makes the run partial (harness.run.verdicts): ``vectors`` are
    ``--vectors`` folders beside the built-in vectors, ``only_vectors`` leaves those out."""

    families: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    keyword: str | None = None
    vectors: tuple[str, ...] = ()
    only_vectors: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"family": list(self.families), "rule": list(self.rules),
                               "k": self.keyword}
        if self.vectors:
            out["vectors"] = list(self.vectors)
        if self.only_vectors:
            out["only_vectors"] = True
        return out


def _keyword_match(keyword: str, case: Case) -> bool:
    haystack = " ".join((case.id, case.family, case.description, *case.rules)).lower()
    return all(word in haystack for word in keyword.lower().split())


def select(cases: Iterable[Case], filters: Filters) -> list[Case]:
    """The cases a run covers: ``--family``, ``--rule`` and ``-k`` narrow it (all must hold)."""
    out = []
    for case in cases:
        if filters.families and case.family not in filters.families:
            continue
        if filters.rules and not set(filters.rules) & set(case.rules):
            continue
        if filters.keyword and not _keyword_match(filters.keyword, case):
            continue
        out.append(case)
    return out


def charged_elsewhere(cases: Sequence[Case]) -> set[str]:
    """Rules a case's checks may be charged to beyond those it cites: BO-008 for every observed
    operation, and the rule of each invariant registered for a case's operation."""
    from agent_tck.harness.run.evaluate import OBSERVED_RULES, observed_operation
    from agent_tck.harness.run.invariants import rules_for

    operations = {e.operation for c in cases for e in c.expect}
    observed = set(OBSERVED_RULES) if any(map(observed_operation, operations)) else set()
    return observed | rules_for(operations)


def header(
    catalogue: Catalogue,
    cases: Sequence[Case],
    filters: Filters,
    *,
    target_info: dict[str, Any],
    implementation: dict[str, Any],
    strict: bool = False,
) -> Header:
    """The run's header. Its families are those the selected cases test: a family that has
    no vectors yet has nothing to be conformant to, and would otherwise read as untested. A
    rule of another family that a selected case cites is judged too (a wire-audit case citing
    BO-001 fails BO-001), so its failure gates the run instead of counting for nothing."""
    tested = {c.family for c in cases}
    cited = {rid for c in cases for rid in c.rules} | charged_elsewhere(cases)
    rules = [r for r in catalogue.rules if r.family in tested or r.id in cited]
    families = [f for f in catalogue.families if any(r.family == f for r in rules)]
    if filters.rules:
        rules = [r for r in rules if r.id in filters.rules]
    return Header(
        format=RESULTS_FORMAT, tck_version=__version__, started=now(),
        implementation=implementation, target=target_info, filters=filters.to_json(),
        strict=strict, families=tuple(families),
        rules=tuple(RuleInfo(r.id, r.family, r.level, r.title or r.statement, r.decision)
                    for r in rules),
    )
