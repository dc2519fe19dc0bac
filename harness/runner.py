"""The runner: vector cases x an implementation -> a stream of result records.

Pure apart from the injected target: selection and evaluation are functions over values, and
:func:`execute` yields the records (header, one per case and operation, footer) that the
report writers render. One bad case never aborts a run: every outcome is a value.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from harness import __version__
from harness.baseline import Entry, apply_baseline
from harness.catalogue import Catalogue
from harness.compare import accept_any, compare, mode_for
from harness.outcome import CallResult, Errored, Output, Rejected
from harness.targets import Target
from harness.vectors import Case, Expectation

RESULTS_FORMAT = "agent-tck-results/1"


@dataclass(frozen=True)
class Filters:
    families: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    keyword: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"family": list(self.families), "rule": list(self.rules), "k": self.keyword}


@dataclass(frozen=True)
class Verdict:
    status: str  # pass | fail | errored | not-applicable
    message: str = ""
    actual: Any = None
    transcript: tuple[str, ...] = field(default_factory=tuple)


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


def actual_json(result: CallResult) -> Any:
    if isinstance(result, Output):
        return {"output": result.value}
    if isinstance(result, Rejected):
        err: dict[str, Any] = {"code": result.code, "message": result.message}
        if result.pointer is not None:
            err["pointer"] = result.pointer
        return {"error": err}
    return None


def evaluate(expectation: Expectation, result: CallResult) -> Verdict:
    """Hold one outcome against one expectation (any of its accepted alternatives passes)."""
    if expectation.alternatives:
        return accept_any(expectation, result, evaluate)
    if isinstance(result, Errored):
        return Verdict("errored", result.reason, None, result.transcript)
    actual = actual_json(result)
    if expectation.is_error:
        if isinstance(result, Rejected):
            if result.code == expectation.error_code:
                return Verdict("pass", "", actual)
            return Verdict(
                "fail",
                f"rejected with {result.code}, expected {expectation.error_code}",
                actual,
            )
        return Verdict("fail", f"accepted the input; expected rejection with "
                               f"{expectation.error_code}", actual)
    if isinstance(result, Rejected):
        return Verdict(
            "fail", f"rejected with {result.code} ({result.message}); expected an output", actual
        )
    assert isinstance(result, Output)
    diff = compare(expectation.output, result.value, mode_for(expectation.operation,
                                                               expectation.compare))
    return Verdict("pass", "", actual) if diff is None else Verdict("fail", diff, actual)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def header(
    catalogue: Catalogue,
    cases: Sequence[Case],
    filters: Filters,
    *,
    target_info: dict[str, Any],
    implementation: dict[str, Any],
    strict: bool = False,
) -> dict[str, Any]:
    """The run's header. Its families are those the selected cases test: a family that has
    no vectors yet has nothing to be conformant to, and would otherwise read as untested."""
    tested = {c.family for c in cases}
    families = [f for f in catalogue.families if f in tested]
    rules = [r for r in catalogue.rules if r.family in families]
    if filters.rules:
        rules = [r for r in rules if r.id in filters.rules]
    return {
        "type": "header",
        "format": RESULTS_FORMAT,
        "tck_version": __version__,
        "started": _now(),
        "implementation": implementation,
        "target": target_info,
        "filters": filters.to_json(),
        "strict": strict,
        "families": families,
        "rules": [
            {"id": r.id, "family": r.family, "level": r.level, "title": r.title or r.statement,
             "decision": r.decision}
            for r in rules
        ],
    }


def execute(
    target: Target,
    cases: Sequence[Case],
    head: dict[str, Any],
    *,
    baseline: Sequence[Entry] = (),
    on_result: Callable[[dict[str, Any]], None] | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield the header, one record per (case, operation), then the footer.

    A ``baseline`` (``--expect``) turns listed failures into ``expected-fail`` and listed
    cases that pass into ``stale`` before anything is summarized, so the footer and the case
    records always agree.
    """
    from harness.reports.stream import summarize

    yield head
    records: list[dict[str, Any]] = []
    seq = 0
    operations = target.operations
    for case in cases:
        for expectation in case.expect:
            seq += 1
            started = time.perf_counter()
            if expectation.operation not in operations:
                verdict = Verdict("not-applicable",
                                  f"the implementation does not declare {expectation.operation}")
            else:
                verdict = evaluate(
                    expectation, target.call(expectation.operation, case.input, case.id)
                )
            record = {
                "type": "case",
                "seq": seq,
                "case": case.id,
                "family": case.family,
                "operation": expectation.operation,
                "rules": list(case.rules_for(expectation)),
                "status": verdict.status,
                "description": case.description,
                "input": case.input,
                "expected": expectation.to_json(),
                "actual": verdict.actual,
                "message": verdict.message,
                "duration_ms": round((time.perf_counter() - started) * 1000, 3),
            }
            if verdict.transcript:
                record["transcript"] = list(verdict.transcript)
            if baseline:
                record = apply_baseline([record], baseline)[0][0]
            records.append(record)
            if on_result is not None:
                on_result(record)
            yield record
    rule_status, verdicts, counts = summarize(head["rules"], records)
    stale = [e.label() for e in apply_baseline(records, baseline)[1]] if baseline else []
    footer = {
        "type": "footer",
        "finished": _now(),
        "counts": counts,
        "rules": rule_status,
        "verdicts": verdicts,
        "exit_code": exit_code(head["rules"], records, strict=head.get("strict", False),
                               stale=len(stale)),
    }
    if stale:
        footer["stale_baseline"] = stale
    yield footer


def exit_code(rules: Sequence[dict[str, Any]], records: Sequence[dict[str, Any]], *,
              strict: bool = False, stale: int = 0) -> int:
    """0 when no applicable MUST rule fails or errors (nor a SHOULD one under --strict) and no
    baseline entry is stale; else 1. Expected failures (baseline) do not fail the run."""
    gating = {r["id"] for r in rules if r["level"] in ({"MUST", "SHOULD"} if strict else {"MUST"})}
    for record in records:
        if record["status"] == "stale":
            return 1
        if record["status"] in {"fail", "errored"} and gating & set(record["rules"]):
            return 1
    return 1 if stale else 0
