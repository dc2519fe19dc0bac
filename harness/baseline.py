"""Known-failure baselines (``--expect FILE``): listed failures are expected, never hidden.

A baseline is YAML::

    expected_failures:
      - case: bo-user-reasoning-omitted     # a case id, or
        operation: anthropic.serialize      #   (optional: only this operation)
        reason: we still send reasoning upstream; fix due in 2.4
        issue: https://example.org/tracker/123   # optional
      - rule: IHU-002                        # every failing case citing the rule
        reason: ...

Applying it is a pure function over result records: a listed case that fails or errors becomes
``expected-fail``; a listed case that now passes becomes ``stale`` and fails the run, so a
baseline cannot rot; an unlisted failure fails the run as usual.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tck.harness.errors import HarnessError
from agent_tck.harness.safe_yaml import YAMLInputError, load

FAILING = {"fail", "errored"}


@dataclass(frozen=True)
class Entry:
    reason: str
    case: str | None = None
    rule: str | None = None
    operation: str | None = None
    issue: str | None = None
    index: int = 0

    def label(self) -> str:
        what = f"case {self.case}" if self.case else f"rule {self.rule}"
        return what + (f" [{self.operation}]" if self.operation else "")

    def matches(self, record: dict[str, Any]) -> bool:
        if self.operation and record["operation"] != self.operation:
            return False
        if self.case is not None:
            return record["case"] == self.case
        return self.rule in record["rules"]


def load_baseline(
    path: Path, known_cases: Iterable[str], known_rules: Iterable[str]
) -> list[Entry]:
    try:
        doc = load(path.read_text(encoding="utf-8"))  # untrusted: no aliases, bounded depth
    except OSError as exc:
        raise HarnessError("BASELINE_INVALID", f"cannot read: {exc.strerror or exc}",
                           str(path)) from None
    except UnicodeDecodeError as exc:
        raise HarnessError("BASELINE_INVALID", f"not UTF-8: byte {exc.start} cannot be "
                           "decoded", str(path)) from None
    except YAMLInputError as exc:
        raise HarnessError("BASELINE_INVALID", str(exc), str(path)) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("expected_failures"), list):
        raise HarnessError("BASELINE_INVALID",
                           "expected a mapping with a list under 'expected_failures'", str(path))
    cases, rules = set(known_cases), set(known_rules)
    entries = []
    for index, item in enumerate(doc["expected_failures"]):
        where = f"{path}#/expected_failures/{index}"
        if not isinstance(item, dict):
            raise HarnessError("BASELINE_INVALID", "each entry is a mapping", where)
        unknown = set(item) - {"case", "rule", "operation", "reason", "issue"}
        if unknown:
            raise HarnessError("BASELINE_INVALID", f"unknown keys {sorted(map(str, unknown))}",
                               where)
        if ("case" in item) == ("rule" in item):
            raise HarnessError("BASELINE_INVALID", "name exactly one of 'case' or 'rule'", where)
        for key, value in item.items():
            if not isinstance(value, str):
                raise HarnessError("BASELINE_INVALID", f"{key} must be a string, not "
                                   f"{type(value).__name__} (quote it)", f"{where}/{key}")
        if not str(item.get("reason", "")).strip():
            raise HarnessError("BASELINE_INVALID", "every entry needs a 'reason'", where)
        if "case" in item and item["case"] not in cases:
            raise HarnessError("BASELINE_INVALID", f"no vector case is named {item['case']!r}",
                               where)
        if "rule" in item and item["rule"] not in rules:
            raise HarnessError("BASELINE_INVALID", f"no rule is named {item['rule']!r}", where)
        entries.append(Entry(reason=str(item["reason"]), case=item.get("case"),
                             rule=item.get("rule"), operation=item.get("operation"),
                             issue=item.get("issue"), index=index))
    return entries


def apply_baseline(
    records: Sequence[dict[str, Any]], entries: Sequence[Entry]
) -> tuple[list[dict[str, Any]], list[Entry]]:
    """(records with expected-fail / stale statuses, entries that are stale)."""
    out: list[dict[str, Any]] = []
    still_failing: set[int] = set()
    matched: set[int] = set()
    for record in records:
        if record.get("type") != "case":
            out.append(record)
            continue
        hits = [e for e in entries if e.matches(record)]
        if not hits:
            out.append(record)
            continue
        matched |= {e.index for e in hits}
        entry = hits[0]
        note = f"baseline: {entry.reason}" + (f" ({entry.issue})" if entry.issue else "")
        if record["status"] in FAILING or record["status"] == "expected-fail":
            still_failing |= {e.index for e in hits}
            out.append(record if record["status"] == "expected-fail" else {
                        **record, "status": "expected-fail",
                        "message": f"{record['message']} [{note}]", "baseline": entry.label()})
        elif record["status"] == "pass" and entry.case is not None:
            out.append({**record, "status": "stale",
                        "message": f"listed in the baseline as failing but passes now: remove "
                                   f"{entry.label()} from the baseline [{note}]",
                        "baseline": entry.label()})
        else:
            out.append(record)
    stale = [e for e in entries if e.index in matched and e.index not in still_failing]
    return out, stale


def write_baseline(records: Iterable[dict[str, Any]]) -> str:
    """A starting baseline listing every failing or errored case of a run."""
    lines = [
        "# agent-tck known-failure baseline. Give each entry a real reason; an entry whose",
        "# case passes again is reported as stale and fails the run until you remove it.",
        "expected_failures:",
    ]
    seen = set()
    for record in records:
        if record.get("type") == "case" and record["status"] in FAILING:
            key = (record["case"], record["operation"])
            if key in seen:
                continue
            seen.add(key)
            lines += [
                f"  - case: {record['case']}",
                f"    operation: {record['operation']}",
                f"    reason: {json.dumps(record['message'] or record['status'])}  # say why",
            ]
    if len(lines) == 3:
        lines[-1] = "expected_failures: []"
    return "\n".join(lines) + "\n"
