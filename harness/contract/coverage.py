"""Links between the catalogue and what cites it, both ways."""

from __future__ import annotations

from agent_tck.harness.contract.catalogue import (
    coverage,
    dangling_citations,
    scenario_citations,
    vector_citations,
    wire_check_citations,
)
from agent_tck.harness.contract.vectors import load_cases

__all__ = ["all_citations", "coverage", "dangling_citations"]


def all_citations() -> dict[str, set[str]]:
    """Every citer (``vector:<id>``, ``scenario:<file>: <scenario>``, ``wire:<check>``) -> rule
    IDs, as written (:func:`dangling_citations` finds the ones naming no rule)."""
    citations: dict[str, set[str]] = {}
    citations.update(vector_citations(load_cases()))
    citations.update({f"scenario:{k}": v for k, v in scenario_citations().items()})
    citations.update(wire_check_citations())
    return citations
