"""The rule catalogue: every normative statement of the notes, one stable ID each.

Loaded from ``vectors/rules/<family>.yaml`` (schema ``vectors/schema/rules.schema.json``).
``covered_by`` links each rule to the vectors, Gherkin scenarios and wire checks that cite it;
:func:`dangling_citations` finds the reverse breakage (a citation of an ID that does not exist).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import yaml

from agent_tck.harness import families as _families
from agent_tck.harness.common.data import features_dir, vectors_dir
from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.common.jsonschema_util import validate
from agent_tck.harness.common.safe_yaml import load_own

LEVELS = ("MUST", "SHOULD", "MAY")
RULE_ID = re.compile(r"^[A-Z]{2,4}-D?[0-9]{3}$")


def __getattr__(name: str) -> object:
    if name == "FAMILIES":  # the declared families, in report order (harness.families)
        return _families.family_names()
    raise AttributeError(name)


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
    #: decisions only: readings, the source runtime's fact, accepted outcomes, strictness
    #: (rules.schema.json "review"; vectors/README.md "Suite decisions")
    review: Mapping[str, object] | None = field(default=None, compare=False, hash=False)
    #: why the level differs from the quote's modal word (tests/test_catalogue_levels.py)
    level_reason: str = ""

    @property
    def strictness(self) -> str:
        """For a decision: why it is as strict as it is, in one line; "" for note rules."""
        if not self.decision or not self.review:
            return ""
        if self.review.get("strict"):
            source = self.review.get("source_runtime")
            if isinstance(source, Mapping) and "file" in source:
                return ("strict: one reasonable reading, and the source runtime agrees "
                        f"({source['file']})")
            return "strict: one reasonable reading; no public code of the source runtime decides it"
        if self.level != "MUST":
            return f"{self.level}: a reading or the source runtime does otherwise"
        return "lenient: accepts " + str(self.review.get("accepts", ""))

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
            **({"review": dict(self.review), "strictness": self.strictness}
               if self.review else {}),
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
        return tuple(f for f in _families.family_names() if f in present)

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self.by_id


def load_catalogue(folder: Path | None = None) -> Catalogue:
    folder = folder or (vectors_dir() / "rules")
    extra = tuple(p.resolve() for p in _families.catalogue_files())
    return _load(folder.resolve(), extra, _families.family_names())


@cache
def _load(folder: Path, extra: tuple[Path, ...], declared: tuple[str, ...]) -> Catalogue:
    rules: list[Rule] = []
    untestable: list[Untestable] = []
    seen: dict[str, Path] = {}
    for path in [*sorted(folder.glob("*.yaml")), *extra]:
        try:
            doc = load_own(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise HarnessError("CATALOGUE_INVALID", f"not valid YAML: {exc}", str(path)) from exc
        validate(doc, "rules.schema.json", code="CATALOGUE_INVALID", where=str(path))
        family = _families.get(doc["family"])
        if family is None:  # a family without a descriptor would drop out of every run
            raise HarnessError("CATALOGUE_INVALID", _families.undeclared(doc["family"]),
                               f"{path}#/family")
        if family.prefix != doc["prefix"]:
            raise HarnessError("CATALOGUE_INVALID", f"prefix {doc['prefix']} differs from the "
                               f"family descriptor's {family.prefix}", f"{path}#/prefix")
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
                    review=entry.get("review"),
                    level_reason=entry.get("level_reason", ""),
                )
            )
        untestable.extend(
            Untestable(doc["family"], u["title"], u["quote"], u.get("source", doc["source"]),
                       u["reason"])
            for u in doc.get("untestable", [])
        )
    order = {f: i for i, f in enumerate(declared)}
    rules.sort(key=lambda r: (order[r.family], r.id.replace("-D", "-~")))
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
    """Wire checks of ``agent-tck audit``: the ``WIRE_CHECKS`` of the descriptors' modules."""
    return {f"wire:{name}": set(ids) for name, ids in _families.wire_checks().items()}


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
