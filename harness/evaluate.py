"""The one evaluate loop: send a case's operation to an implementation, hold the result against
the expectation, and record the judgment as a typed :class:`~harness.results.CaseResult`.

Every caller goes through here: ``agent-tck run`` (:func:`run_cases`, the whole stream),
``agent-tck mutants``, the pytest plugin's vector items and the kit's own vector tests
(:func:`judge`, one case and operation). Pure apart from the injected target; one bad case
never aborts a run: a crashing, hanging or lying implementation is an ``errored`` value with
its transcript.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from agent_tck.harness.baseline import Entry, judge_against, stale_entries
from agent_tck.harness.compare import accept_any, compare, first_difference, mode_for
from agent_tck.harness.outcome import CallResult, Errored, Observed, Output, Rejected
from agent_tck.harness.protocol import OBSERVE
from agent_tck.harness.results import (
    CaseResult,
    Footer,
    Header,
    Record,
    exit_code,
    partial,
    summarize,
)
from agent_tck.harness.targets import PlannedCall, Target
from agent_tck.harness.vectors import Case, Expectation

#: Rules no single reply can show, with the protocol 1.1 observations that test them. BO-008:
#: "without changing Session records" - the caller's memory is seen only when the adapter runs
#: the operation twice on one in-memory input and reports the input as it stands afterwards.
OBSERVED_RULES = {"BO-008": OBSERVE}

LATE_REPLY = ("the implementation replied more than once to this command (a reply is one line "
              "per command)")


@dataclass(frozen=True)
class Judgment:
    """One result held against one expectation: ``status`` is pass, fail, errored or
    not-applicable; ``actual`` the answer as an outcome (None when errored or not asked)."""

    status: str
    message: str = ""
    actual: Any = None
    transcript: tuple[str, ...] = field(default_factory=tuple)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# --- one result against one expectation ---------------------------------------------------------


def actual_json(result: CallResult) -> Any:
    if isinstance(result, Output):
        return {"output": result.value}
    if isinstance(result, Rejected):
        err: dict[str, Any] = {"code": result.code, "message": result.message}
        if result.pointer is not None:
            err["pointer"] = result.pointer
        return {"error": err}
    return None


def evaluate(expectation: Expectation, result: CallResult) -> Judgment:
    """Hold one outcome against one expectation (any of its accepted alternatives passes)."""
    if expectation.alternatives:
        return accept_any(expectation, result, evaluate)
    if isinstance(result, Errored):
        return Judgment("errored", result.reason, None, result.transcript)
    actual = actual_json(result)
    if expectation.is_error:
        if not isinstance(result, Rejected):
            return Judgment("fail", f"accepted the input; expected rejection with "
                                    f"{expectation.error_code}", actual)
        if result.code == expectation.error_code:
            return Judgment("pass", "", actual)
        return Judgment("fail", f"rejected with {result.code}, expected "
                                f"{expectation.error_code}", actual)
    if isinstance(result, Rejected):
        return Judgment("fail", f"rejected with {result.code} ({result.message}); expected an "
                                "output", actual)
    assert isinstance(result, Output)
    mode = mode_for(expectation.operation, expectation.compare)
    diff = compare(expectation.output, result.value, mode)
    return Judgment("pass", "", actual) if diff is None else Judgment("fail", diff, actual)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def evaluate_observed(expectation: Expectation, observed: Observed, given: Any) -> Judgment:
    """BO-008 ("without changing Session records"): the input as it stands after two calls is
    the input given, and the second call's result is the first one's; then the expectation."""
    judgment = evaluate(expectation, observed.first)
    if _canonical(observed.input_after) != _canonical(given):
        diff = first_difference(given, observed.input_after) or "a number's type changed"
        return Judgment("fail", f"BO-008: the call changed the history it was given (input "
                                f"after two calls differs at {diff})", judgment.actual,
                        ("BO-008 input-after: " + _canonical(observed.input_after)[:2000],))
    first, second = observed.first, observed.second
    if isinstance(first, Rejected) and isinstance(second, Rejected):
        same = first.code == second.code
    else:
        same = _canonical(actual_json(first)) == _canonical(actual_json(second))
    if not same:
        diff = first_difference(actual_json(first), actual_json(second)) or "types differ"
        return Judgment("fail", f"BO-008: a second call on the same in-memory input gave "
                                f"another result (first vs second: {diff})", judgment.actual,
                        ("BO-008 repeat: " + _canonical(actual_json(second))[:2000],))
    return judgment


def observes(target: Target) -> bool:
    """Whether the target declares the protocol 1.1 observations (BO-008 is testable)."""
    return set(OBSERVE) <= set(getattr(target, "observe", ()))


def judge(target: Target, case: Case, expectation: Expectation,
          observable: bool | None = None) -> tuple[Judgment, bool]:
    """The judgment for one (case, operation), and whether the target was called for it.

    An undeclared operation, or an observed rule (BO-008) without the observe capability, is
    not-applicable: untested, never passed. ``observable`` defaults to what the target declares.
    """
    observable = observes(target) if observable is None else observable
    observed = sorted(OBSERVED_RULES.keys() & set(case.rules_for(expectation)))
    if expectation.operation not in target.operations:
        return Judgment("not-applicable", f"the implementation does not declare "
                                          f"{expectation.operation}"), False
    if observed and not observable:
        return Judgment(
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


def failures(target: Target, cases: Iterable[Case],
             observable: bool | None = None) -> Iterator[tuple[Case, Expectation, Judgment]]:
    """Every (case, expectation, judgment) that does not pass or stay not-applicable."""
    for case in cases:
        for expectation in case.expect:
            judgment, _ = judge(target, case, expectation, observable)
            if judgment.status in {"fail", "errored"}:
                yield case, expectation, judgment


# --- the whole run: the results stream ----------------------------------------------------------


def planned_calls(target: Target, cases: Iterable[Case],
                  observable: bool) -> Iterator[PlannedCall]:
    """The calls :func:`judge` makes for ``cases``, in order: a prediction, which a pipelining
    target checks call by call (a call that differs is made one at a time, never misanswered)."""
    for case in cases:
        for expectation in case.expect:
            observed = OBSERVED_RULES.keys() & set(case.rules_for(expectation))
            if expectation.operation in target.operations and (observable or not observed):
                yield PlannedCall(expectation.operation, case.input, case.id, bool(observed))


def case_result(seq: int, case: Case, expectation: Expectation, judgment: Judgment,
                duration_ms: float) -> CaseResult:
    return CaseResult(
        seq=seq, case=case.id, family=case.family, operation=expectation.operation,
        rules=tuple(case.rules_for(expectation)), status=judgment.status,
        description=case.description, input=case.input, expected=expectation.to_json(),
        actual=judgment.actual, message=judgment.message, transcript=judgment.transcript,
        duration_ms=round(duration_ms, 3),
    )


class _Held:
    """Case results held until the target has answered a later command (or has been settled):
    an adapter that answers one command twice is then always caught on the case that did it,
    whatever the timing (the extra reply precedes the next one on its stdout). On release a
    result takes its late replies and its baseline entry, once."""

    def __init__(self, target: Target, baseline: Sequence[Entry],
                 on_result: Callable[[CaseResult], None] | None) -> None:
        self.pop_late = getattr(target, "pop_late", None)
        self.baseline = baseline
        self.on_result = on_result
        self.held: list[CaseResult] = []
        self.released: list[CaseResult] = []

    def release(self) -> Iterator[CaseResult]:
        for kept in self.held:
            late = self.pop_late(kept.case, kept.operation) if self.pop_late else ()
            result = replace(kept, status="errored", message=LATE_REPLY,
                             transcript=(*kept.transcript, *late)) if late else kept
            result = judge_against(result, self.baseline)
            self.released.append(result)
            if self.on_result is not None:
                self.on_result(result)
            yield result
        self.held.clear()


def footer(header: Header, results: Sequence[CaseResult], baseline: Sequence[Entry]) -> Footer:
    """The footer of a run: its summary (partial when filtered) and exit code; a baseline entry
    whose cases all pass now is stale and fails the run."""
    stale = tuple(e.label() for e in stale_entries(results, baseline))
    summary = partial(summarize(header.rules, results), header.filters)
    code = exit_code(header.rules, results, strict=header.strict, stale=len(stale))
    return summary.footer(finished=now(), exit_code=code, stale_baseline=stale)


def run_cases(
    target: Target,
    cases: Sequence[Case],
    header: Header,
    *,
    baseline: Sequence[Entry] = (),
    on_result: Callable[[CaseResult], None] | None = None,
) -> Iterator[Record]:
    """Yield the header, one :class:`CaseResult` per (case, operation), then the footer.

    A ``baseline`` (``--expect``) turns listed failures into ``expected-fail`` and listed
    cases that pass into ``stale`` as each result is released, so the footer and the case
    results always agree. Interrupted, it yields what was run and no footer (a truncated run).
    """
    yield header
    held = _Held(target, baseline, on_result)
    observable = observes(target)
    plan = getattr(target, "plan", None)  # a pipelining target sends these commands ahead
    if plan is not None:
        plan(planned_calls(target, cases, observable))
    seq = 0
    try:
        for case in cases:
            for expectation in case.expect:
                seq += 1
                started = time.perf_counter()
                judgment, called = judge(target, case, expectation, observable)
                if called:
                    yield from held.release()  # every earlier command's replies are in by now
                held.held.append(case_result(seq, case, expectation, judgment,
                                             (time.perf_counter() - started) * 1000))
        settle = getattr(target, "settle", None)
        if settle is not None:
            settle()
    except KeyboardInterrupt:
        yield from held.release()  # what was run is reported; the stream stays truncated
        raise
    yield from held.release()
    yield footer(header, held.released, baseline)
