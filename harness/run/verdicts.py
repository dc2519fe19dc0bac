"""Run verdicts that say exactly what they cover (issue 21 E).

:func:`harness.run.results.summarize` turns case results into rule statuses and a verdict per
family; this module shapes those verdicts for what the run actually covered:

* **partial** - any filter (``--family``, ``--rule``, ``-k``, ``--vectors``, ``--only-vectors``)
  makes the run partial: a verdict says ``partial`` and names the filter. A filtered run never
  says "not conformant" for a rule it did not run (an untested MUST); it does for a MUST it ran
  and saw fail or error (that failure is real).
* **not declared** - a family the implementation declares no operation for (no case of it was
  called): never "not conformant"; the overall verdict is over the declared families and names
  them (``covers``).

Pure functions over plain records; the footer (:func:`harness.run.evaluate.footer`) applies them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from agent_tck.harness.run.results import (
    CONFORMANT,
    FILTER_OPTIONS,
    NOT_CONFORMANT,
    NOT_DECLARED,
    PARTIAL,
    RECOMMENDED,
    RunSummary,
    is_filtered,
)

#: Rule statuses that show a MUST was run and not met (an untested MUST is not among them).
SEEN_FAILING = {"fail", "errored", "expected-fail"}


def filter_text(filters: Mapping[str, Any]) -> str:
    """The filters as the options that set them: ``--family block-omission -k "tool result"``."""
    parts = []
    for key, option in FILTER_OPTIONS:
        value = filters.get(key)
        if not value:
            continue
        if value is True:
            parts.append(option)
        elif isinstance(value, list | tuple):
            parts.append(f"{option} {','.join(str(v) for v in value)}")
        else:
            parts.append(f'{option} "{value}"' if " " in str(value) else f"{option} {value}")
    return " ".join(parts)


def _field(record: Any, key: str) -> Any:
    """A member of a typed record or of its JSON."""
    return record.get(key) if isinstance(record, Mapping) else getattr(record, key)


def declared_families(families: Sequence[str], records: Iterable[Any],
                      rules: Iterable[Any] = ()) -> tuple[str, ...]:
    """The families the implementation declares an operation of: some case of theirs was
    called (it has checks; a record without checks was never called, format 2) and, given the
    header's ``rules``, one of its checks is charged to a rule of the family. A family whose
    called cases charge only other families' rules (developer-messages cases on
    ``anthropic.serialize`` judged by block-omission's invariants) showed nothing of its own. A
    family with no case in the run (there only for a rule another family's case cites) is not
    judged undeclared."""
    family_of = {_field(r, "id"): _field(r, "family") for r in rules}
    called: set[str] = set()
    present: set[str] = set()
    for record in records:
        family = _field(record, "family")
        present.add(family)
        checks = _field(record, "checks")
        if not checks:
            continue
        if not family_of or any(family_of.get(_field(c, "rule"), family) == family
                                for c in checks):
            called.add(family)
    return tuple(f for f in families if f in called or f not in present)


def _shaped(verdict: Mapping[str, Any], levels: Mapping[str, tuple[str, str]],
            statuses: Mapping[str, str], filtered: bool) -> dict[str, Any]:
    """One verdict under a filter: not conformant only for a MUST seen failing; else
    partial."""
    if not filtered:
        return dict(verdict)
    seen = [r for r in verdict.get("failing", ())
            if statuses.get(r) in SEEN_FAILING and levels.get(r, ("", ""))[0] == "MUST"]
    if seen:
        return {**verdict, "verdict": NOT_CONFORMANT, "failing": seen}
    return {**verdict, "verdict": PARTIAL, "failing": []}


def _overall(triples: list[tuple[str, str, str]]) -> dict[str, Any]:
    failing = [rid for rid, level, status in triples if level == "MUST" and status != "pass"]
    if failing:
        return {"verdict": NOT_CONFORMANT, "failing": failing}
    short = any(level == "SHOULD" and status != "pass" for _rid, level, status in triples)
    return {"verdict": CONFORMANT if short else RECOMMENDED, "failing": []}


def shape(summary: RunSummary, rules: Iterable[Any], families: Sequence[str],
          filters: Mapping[str, Any], declared: Sequence[str] | None = None) -> RunSummary:
    """The verdicts of ``summary`` for what the run covered: families not in ``declared``
    (None: all) say "not declared"; the overall verdict is over the declared families and
    names them in ``covers``; under any filter, verdicts say partial (naming the filter in
    ``filter``) unless a MUST the run ran failed."""
    levels = {_field(r, "id"): (_field(r, "level"), _field(r, "family")) for r in rules}
    statuses = summary.rule_status
    filtered = is_filtered(filters)
    text = filter_text(filters)
    covered = [f for f in families if declared is None or f in declared]
    verdicts: dict[str, dict[str, Any]] = {}
    for family, verdict in summary.verdicts.items():
        if family == "overall":
            continue
        if family not in covered:
            verdicts[family] = {"verdict": NOT_DECLARED, "failing": []}
            continue
        verdicts[family] = _shaped(verdict, levels, statuses, filtered)
    triples = [(rid, level, statuses.get(rid, "untested"))
               for rid, (level, family) in levels.items() if family in covered]
    overall = _overall(triples) if triples else {"verdict": NOT_DECLARED if not covered
                                                 else NOT_CONFORMANT, "failing": []}
    if triples:
        overall = _shaped(overall, levels, statuses, filtered)
    overall["covers"] = list(covered)
    for verdict in (*verdicts.values(), overall):
        if verdict["verdict"] == PARTIAL:
            verdict["filter"] = text
    verdicts["overall"] = overall
    return RunSummary(statuses, verdicts, summary.counts)


__all__ = ["declared_families", "filter_text", "shape"]
