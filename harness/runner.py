"""The runner: vector cases x an implementation -> a stream of result records.

Pure apart from the injected target: selection and evaluation are functions over values, and
:func:`execute` yields the records (header, one per case and operation, footer) that the
report writers render. One bad case never aborts a run: every outcome is a value.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from agent_tck.harness import __version__
from agent_tck.harness.baseline import Entry, apply_baseline
from agent_tck.harness.catalogue import Catalogue
from agent_tck.harness.compare import accept_any, compare, first_difference, mode_for
from agent_tck.harness.outcome import CallResult, Errored, Observed, Output, Rejected
from agent_tck.harness.protocol import OBSERVE
from agent_tck.harness.reports.stream import RESULTS_FORMAT
from agent_tck.harness.targets import Target
from agent_tck.harness.vectors import Case, Expectation

#: Rules no single reply can show, with the protocol 1.1 observations that test them. BO-008:
#: "without changing Session records" - the caller's memory is seen only when the adapter runs
#: the operation twice on one in-memory input and reports the input as it stands afterwards.
OBSERVED_RULES = {"BO-008": OBSERVE}


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


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def evaluate_observed(expectation: Expectation, observed: Observed, given: Any) -> Verdict:
    """BO-008 ("without changing Session records"): the input as it stands after two calls is
    the input given, and the second call's result is the first one's; then the expectation."""
    verdict = evaluate(expectation, observed.first)
    if _canonical(observed.input_after) != _canonical(given):
        diff = first_difference(given, observed.input_after) or "a number's type changed"
        return Verdict("fail", f"BO-008: the call changed the history it was given (input "
                               f"after two calls differs at {diff})", verdict.actual,
                       ("BO-008 input-after: " + _canonical(observed.input_after)[:2000],))
    first, second = observed.first, observed.second
    if isinstance(first, Rejected) and isinstance(second, Rejected):
        same = first.code == second.code
    else:
        same = _canonical(actual_json(first)) == _canonical(actual_json(second))
    if not same:
        diff = first_difference(actual_json(first), actual_json(second)) or "types differ"
        return Verdict("fail", f"BO-008: a second call on the same in-memory input gave another "
                               f"result (first vs second: {diff})", verdict.actual,
                       ("BO-008 repeat: " + _canonical(actual_json(second))[:2000],))
    return verdict


def run_one(target: Target, case: Case, expectation: Expectation, operations: frozenset[str],
             observable: bool) -> tuple[Verdict, bool]:
    """The verdict for one (case, operation), and whether the target was called for it."""
    observed = sorted(OBSERVED_RULES.keys() & set(case.rules_for(expectation)))
    if expectation.operation not in operations:
        return Verdict("not-applicable", f"the implementation does not declare "
                                         f"{expectation.operation}"), False
    if observed and not observable:
        return Verdict(
            "not-applicable",
            f"{', '.join(observed)} is untested: only the protocol 1.1 observe capability "
            f"(\"observe\": {json.dumps(list(OBSERVE))}) shows it, and the implementation "
            "does not declare it"), False
    if observed:
        result = target.call(expectation.operation, case.input, case.id, observe=True)
        if isinstance(result, Observed):
            return evaluate_observed(expectation, result, case.input), True
    else:
        result = target.call(expectation.operation, case.input, case.id)
    return evaluate(expectation, result), True  # type: ignore[arg-type]


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
    no vectors yet has nothing to be conformant to, and would otherwise read as untested. A
    rule of another family that a selected case cites is judged too (a wire-audit case citing
    BO-001 fails BO-001), so its failure gates the run instead of counting for nothing."""
    tested = {c.family for c in cases}
    cited = {rid for c in cases for rid in c.rules}
    rules = [r for r in catalogue.rules if r.family in tested or r.id in cited]
    families = [f for f in catalogue.families if any(r.family == f for r in rules)]
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
    from agent_tck.harness.reports.stream import summarize

    yield head
    records: list[dict[str, Any]] = []
    # A record is held until the target has answered a later command (or has been settled at
    # the end): an adapter that answers one command twice is then always caught on the case
    # that did it, whatever the timing (the extra reply precedes the next one on its stdout).
    held: list[dict[str, Any]] = []
    pop_late = getattr(target, "pop_late", None)

    def release() -> Iterator[dict[str, Any]]:
        for kept in held:
            record = kept
            late = pop_late(record["case"], record["operation"]) if pop_late else ()
            if late:
                record["status"] = "errored"
                record["message"] = ("the implementation replied more than once to this "
                                     "command (a reply is one line per command)")
                record["transcript"] = [*record.get("transcript", ()), *late]
            if baseline:
                record = apply_baseline([record], baseline)[0][0]
            records.append(record)
            if on_result is not None:
                on_result(record)
            yield record
        held.clear()

    seq = 0
    operations = target.operations
    observable = set(OBSERVE) <= set(getattr(target, "observe", ()))
    try:
        for case in cases:
            for expectation in case.expect:
                seq += 1
                started = time.perf_counter()
                verdict, called = run_one(target, case, expectation, operations, observable)
                if called:
                    yield from release()  # every earlier command's replies are in by now
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
                held.append(record)
        settle = getattr(target, "settle", None)
        if settle is not None:
            settle()
    except KeyboardInterrupt:
        yield from release()  # what was run is reported; the stream stays truncated
        raise
    yield from release()
    rule_status, verdicts, counts = summarize(head["rules"], records)
    verdicts = partial(verdicts, head.get("filters") or {})
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


def partial(verdicts: dict[str, Any], filters: dict[str, Any]) -> dict[str, Any]:
    """A filtered run certifies only what it ran: a verdict that would be conformant says
    "partial" instead - every verdict under ``--rule`` or ``-k``, the overall one under
    ``--family``. A failure found by a filtered run is real and stays "not conformant"."""
    from agent_tck.harness.reports.stream import NOT_CONFORMANT, PARTIAL

    narrowed = bool(filters.get("rule") or filters.get("k"))
    out = {}
    for family, verdict in verdicts.items():
        passing = verdict["verdict"] != NOT_CONFORMANT
        if passing and (narrowed or (family == "overall" and filters.get("family"))):
            out[family] = {**verdict, "verdict": PARTIAL}
        else:
            out[family] = verdict
    return out


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
