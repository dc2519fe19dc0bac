"""Known-failure baselines (``--expect FILE``): listed failures are expected, never hidden.

A baseline is YAML::

    expected_failures:
      - case: bo-user-reasoning-omitted     # a case id, or
        operation: anthropic.serialize      #   (optional: only this operation)
        reason: we still send reasoning upstream; fix due in 2.4
        issue: https://example.org/tracker/123   # optional
      - rule: IHU-002                        # every failing case citing the rule
        reason: ...

Applying it is a pure function over case results (:func:`judge_against`,
:func:`stale_entries`): a listed case that fails or errors becomes
``expected-fail``; a listed case that now passes becomes ``stale`` and fails the run, so a
baseline cannot rot; an unlisted failure fails the run as usual.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agent_tck.harness.errors import HarnessError
from agent_tck.harness.results import CaseResult
from agent_tck.harness.safe_yaml import YAMLInputError, load
from agent_tck.harness.whole_file import read_whole

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

    def matches(self, result: CaseResult) -> bool:
        if self.operation and result.operation != self.operation:
            return False
        if self.case is not None:
            return result.case == self.case
        return self.rule in result.rules


def load_baseline(
    path: Path, known_cases: Iterable[str], known_rules: Iterable[str]
) -> list[Entry]:
    try:
        # untrusted: capped in size, no aliases, bounded depth
        doc = load(read_whole(path).decode("utf-8"))
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


def judge_against(result: CaseResult, entries: Sequence[Entry]) -> CaseResult:
    """``result`` as the baseline sees it: a listed failure is ``expected-fail``, a listed case
    that passes is ``stale``; anything else unchanged."""
    hits = [e for e in entries if e.matches(result)]
    if not hits or result.status == "expected-fail":
        return result
    entry = hits[0]
    note = f"baseline: {entry.reason}" + (f" ({entry.issue})" if entry.issue else "")
    if result.status in FAILING:
        return replace(result, status="expected-fail", message=f"{result.message} [{note}]",
                       baseline={"entry": entry.label()})
    if result.status == "pass" and entry.case is not None:
        return replace(result, status="stale", baseline={"entry": entry.label()},
                       message=f"listed in the baseline as failing but passes now: remove "
                               f"{entry.label()} from the baseline [{note}]")
    return result


def stale_entries(results: Iterable[CaseResult], entries: Sequence[Entry]) -> list[Entry]:
    """Entries that matched some result but no result still failing (after
    :func:`judge_against`): what they excuse passes now, so they must go."""
    matched: set[int] = set()
    still_failing: set[int] = set()
    for result in results:
        hits = {e.index for e in entries if e.matches(result)}
        matched |= hits
        if result.status in FAILING or result.status == "expected-fail":
            still_failing |= hits
    return [e for e in entries if e.index in matched and e.index not in still_failing]


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
