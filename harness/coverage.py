"""Links between the catalogue and what cites it, both ways."""

from __future__ import annotations

from harness.catalogue import (
    Catalogue,
    coverage,
    dangling_citations,
    scenario_citations,
    vector_citations,
    wire_check_citations,
)
from harness.vectors import load_cases

__all__ = ["all_citations", "coverage", "dangling_citations"]


def all_citations(catalogue: Catalogue | None = None) -> dict[str, set[str]]:
    """Every citer (``vector:<id>``, ``<file>: <scenario>``, ``wire:<check>``) -> rule IDs."""
    del catalogue  # citations are collected as written; dangling ones are found separately
    citations: dict[str, set[str]] = {}
    citations.update(vector_citations(load_cases()))
    citations.update({f"scenario:{k}": v for k, v in scenario_citations().items()})
    citations.update(wire_check_citations())
    return citations
