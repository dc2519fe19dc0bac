"""The rule catalogue: every normative statement of the notes, one stable ID each.

Loaded from ``vectors/rules/<family>.yaml`` (schema ``vectors/schema/rules.schema.json``).
``covered_by`` links each rule to the vectors, Gherkin scenarios and wire checks that cite it;
:func:`dangling_citations` finds the reverse breakage (a citation of an ID that does not exist).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import yaml

from harness.data import features_dir, vectors_dir
from harness.errors import HarnessError
from harness.jsonschema_util import validate

#: The families, in report order (issue 2 fixes these names; wire-audit holds audit-only rules).
FAMILIES = (
    "block-omission",
    "in-history-update",
    "chunk-free-persistence",
    "message-parts",
    "send-message-adjacency",
    "developer-messages",
    "wire-audit",
)
LEVELS = ("MUST", "SHOULD", "MAY")
RULE_ID = re.compile(r"^[A-Z]{2,4}-D?[0-9]{3}$")


@dataclass(frozen=True)
class Rule:
    id: str
    family: str
    level: str
    title: str
    statement: str
    source: str
    quote: str
    decision: bool
    reason: str = ""
    wire: bool = False
    level_reason: str = ""

    def to_json(self, covered_by: Iterable[str] = ()) -> dict[str, object]:
        return {
            "id": self.id,
            "family": self.family,
            "level": self.level,
            "title": self.title,
            "statement": self.statement,
            "source": self.source,
            "quote": self.quote,
            "decision": self.decision,
            "reason": self.reason,
            "covered_by": sorted(covered_by),
            **({"level_reason": self.level_reason} if self.level_reason else {}),
        }


@dataclass(frozen=True)
class Untestable:
    """An obligation the vectors' protocol cannot observe, with the reason (never passed)."""

    family: str
    title: str
    quote: str
    source: str
    reason: str

    def to_json(self) -> dict[str, object]:
        return {"family": self.family, "title": self.title, "quote": self.quote,
                "source": self.source, "reason": self.reason}


@dataclass(frozen=True)
class Catalogue:
    rules: tuple[Rule, ...]
    by_id: Mapping[str, Rule] = field(repr=False)
    untestable: tuple[Untestable, ...] = ()

    def family(self, name: str) -> tuple[Rule, ...]:
        return tuple(r for r in self.rules if r.family == name)

    @property
    def families(self) -> tuple[str, ...]:
        present = {r.family for r in self.rules}
        return tuple(f for f in FAMILIES if f in present)

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self.by_id


def load_catalogue(folder: Path | None = None) -> Catalogue:
    folder = folder or (vectors_dir() / "rules")
    return _load(folder.resolve())


@cache
def _load(folder: Path) -> Catalogue:
    rules: list[Rule] = []
    untestable: list[Untestable] = []
    seen: dict[str, Path] = {}
    for path in sorted(folder.glob("*.yaml")):
        try:
            doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise HarnessError("CATALOGUE_INVALID", f"not valid YAML: {exc}", str(path)) from exc
        validate(doc, "rules.schema.json", code="CATALOGUE_INVALID", where=str(path))
        for index, entry in enumerate(doc["rules"]):
            rid = entry["id"]
            if not rid.startswith(doc["prefix"] + "-"):
                raise HarnessError(
                    "CATALOGUE_INVALID",
                    f"rule {rid} does not use the file's prefix {doc['prefix']}",
                    f"{path}#/rules/{index}/id",
                )
            if rid in seen:
                raise HarnessError(
                    "CATALOGUE_INVALID", f"rule {rid} is defined twice (also in {seen[rid]})",
                    f"{path}#/rules/{index}/id",
                )
            seen[rid] = path
            rules.append(
                Rule(
                    id=rid,
                    family=doc["family"],
                    level=entry["level"],
                    title=entry.get("title", ""),
                    statement=entry["statement"],
                    source=entry.get("source", doc["source"]),
                    quote=entry.get("quote", ""),
                    decision=entry["decision"],
                    reason=entry.get("reason", ""),
                    wire=entry.get("wire", False),
                    level_reason=entry.get("level_reason", ""),
                )
            )
        untestable.extend(
            Untestable(doc["family"], u["title"], u["quote"], u.get("source", doc["source"]),
                       u["reason"])
            for u in doc.get("untestable", [])
        )
    order = {f: i for i, f in enumerate(FAMILIES)}
    rules.sort(key=lambda r: (order.get(r.family, len(order)), r.id.replace("-D", "-~")))
    return Catalogue(tuple(rules), {r.id: r for r in rules}, tuple(untestable))


# ---------------------------------------------------------------------------------------------
# Citations: who cites which rule.

_TAG = re.compile(r"@([A-Za-z0-9_.-]+)")
_SCENARIO = re.compile(r"^\s*(Scenario|Scenario Outline|Example)\s*:\s*(.+?)\s*$")
_FEATURE = re.compile(r"^\s*Feature\s*:\s*(.+?)\s*$")


def scenario_citations(folder: Path | None = None) -> dict[str, set[str]]:
    """Rule-ID tags of every Gherkin scenario: ``{"<file>: <scenario>": {"BO-001", ...}}``.

    Feature-level tags apply to every scenario of the feature. Tags that do not look like rule
    IDs (``@slow``) are ignored here.
    """
    folder = folder or features_dir()
    out: dict[str, set[str]] = {}
    for path in sorted(folder.glob("*.feature")):
        pending: set[str] = set()
        feature_tags: set[str] = set()
        last: str | None = None
        for line in path.read_text(encoding="utf-8").splitlines():
            stripped = line.strip()
            if stripped.startswith("@"):
                pending |= {t for t in _TAG.findall(stripped) if RULE_ID.match(t)}
            elif _FEATURE.match(line):
                feature_tags, pending = pending, set()
            elif m := _SCENARIO.match(line):
                last = f"{path.name}: {m.group(2)}"
                out[last] = feature_tags | pending
                pending = set()
            elif stripped.startswith("Examples") and last is not None:
                out[last] |= pending  # tags on an Examples table belong to its outline
                pending = set()
    return out


def wire_check_citations() -> dict[str, set[str]]:
    """Wire checks of ``agent-tck audit``: ``reference_impl.wire_rules.WIRE_CHECKS`` if present."""
    try:
        module = importlib.import_module("reference_impl.wire_rules")
    except ImportError:
        return {}
    checks = getattr(module, "WIRE_CHECKS", {})
    return {f"wire:{name}": set(ids) for name, ids in checks.items()}


def vector_citations(cases: Iterable[object]) -> dict[str, set[str]]:
    return {f"vector:{c.id}": set(c.rules) for c in cases}  # type: ignore[attr-defined]


def coverage(
    catalogue: Catalogue, citations: Mapping[str, set[str]]
) -> dict[str, set[str]]:
    covered: dict[str, set[str]] = {r.id: set() for r in catalogue.rules}
    for who, ids in citations.items():
        for rid in ids:
            if rid in covered:
                covered[rid].add(who)
    return covered


def dangling_citations(
    catalogue: Catalogue, citations: Mapping[str, set[str]]
) -> list[tuple[str, str]]:
    """(citer, id) pairs whose ID is not in the catalogue."""
    return sorted(
        (who, rid) for who, ids in citations.items() for rid in ids if rid not in catalogue
    )
