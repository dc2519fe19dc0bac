"""The one evaluate loop: send a case's operation to an implementation, hold the result against
the expectation, and record the judgment as a typed :class:`~harness.run.results.CaseResult`.

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
from fnmatch import fnmatchcase
from typing import Any

from agent_tck.harness.contract.vectors import Case, Expectation
from agent_tck.harness.run.baseline import Entry, judge_against, stale_entries
from agent_tck.harness.run.checks import (
    OBSERVATION_RULE,
    UNCHARGED,
    actual_json,
    bind,
    expectation_checks,
    observation_checks,
    summary,
)
from agent_tck.harness.run.invariants import check_output
from agent_tck.harness.run.outcome import CallResult, Errored, Observed, Output
from agent_tck.harness.run.protocol import OBSERVE
from agent_tck.harness.run.results import (
    CaseResult,
    CheckResult,
    Footer,
    Header,
    Record,
    exit_code,
    summarize,
    worst,
)
from agent_tck.harness.run.targets import PlannedCall, Target
from agent_tck.harness.run.verdicts import declared_families, shape

#: Rules no single reply can show, with the protocol 1.1 observations that test them. BO-008:
#: "without changing Session records" - the caller's memory is seen only when the adapter runs
#: the operation twice on one in-memory input and reports the input as it stands afterwards.
OBSERVED_RULES = {OBSERVATION_RULE: OBSERVE}

#: The operations that take a history or a session's records and turn them into a request
#: (``fnmatch`` patterns): with ``observe`` declared, every case of these is observed and its
#: observation checks are charged to BO-008 alone (vectors/README.md "Checks"). The serializers
#: take a canonical history; ``session.resume-*`` serialize a recorded session into a request.
OBSERVED_OPERATIONS = ("*.serialize", "session.resume-anthropic", "session.resume-openai")

LATE_REPLY = ("the implementation replied more than once to this command (a reply is one line "
              "per command)")


@dataclass(frozen=True)
class Judgment:
    """One result held against one expectation: ``status`` is pass, fail, errored or
    not-applicable (the worst of its ``checks``); ``actual`` the answer as an outcome (None
    when errored or not asked)."""

    status: str
    message: str = ""
    actual: Any = None
    transcript: tuple[str, ...] = field(default_factory=tuple)
    checks: tuple[CheckResult, ...] = ()

    @property
    def failed_rules(self) -> tuple[str, ...]:
        """The rules whose checks failed (what a seeded fault is killed on)."""
        return tuple(dict.fromkeys(c.rule for c in self.checks if c.status == "fail"))


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# --- one result against one expectation ---------------------------------------------------------


def _judgment(checks: tuple[CheckResult, ...], actual: Any,
              transcript: tuple[str, ...] = ()) -> Judgment:
    status = worst(c.status for c in checks)
    message = summary(checks)
    if status == "not-applicable":
        message = next((c.message for c in checks if c.message), "")
    return Judgment(status, message, actual, transcript, checks)


def evaluate(expectation: Expectation, result: CallResult,
             rules: Sequence[str] = ()) -> Judgment:
    """Hold one outcome against one expectation, charging each check to its rule (``rules``:
    the expectation's, for checks the vector does not attribute)."""
    rules = rules or expectation.rules or (UNCHARGED,)
    checks = bind(expectation, rules, expectation_checks(expectation, result))
    transcript = result.transcript if isinstance(result, Errored) else ()
    return _judgment(checks, actual_json(result), transcript)


def evaluate_observed(expectation: Expectation, observed: Observed, given: Any,
                      rules: Sequence[str] = ()) -> Judgment:
    """One observed result (protocol 1.1) against one expectation: the expectation's checks on
    the first result, and the observation checks, charged to BO-008 alone."""
    extra, transcript = observation_checks(observed, given)
    rules = rules or expectation.rules or (UNCHARGED,)
    checks = bind(expectation, rules, [*expectation_checks(expectation, observed.first), *extra])
    return _judgment(checks, actual_json(observed.first), tuple(transcript))


def observes(target: Target) -> bool:
    """Whether the target declares the protocol 1.1 observations (BO-008 is testable)."""
    return set(OBSERVE) <= set(getattr(target, "observe", ()))


def observed_operation(operation: str) -> bool:
    """Whether every case of ``operation`` is observed (when the target can be)."""
    return any(fnmatchcase(operation, pattern) for pattern in OBSERVED_OPERATIONS)


def _untested(rule: str) -> str:
    return (f"{rule} is untested: only the protocol 1.1 observe capability "
            f"(\"observe\": {json.dumps(list(OBSERVE))}) shows it, and the implementation "
            "does not declare it")


def _unobserved(checks: tuple[CheckResult, ...]) -> tuple[CheckResult, ...]:
    """Without the observation, a check charged to an observed rule shows nothing of it."""
    return tuple(replace(c, status="not-applicable", message=_untested(c.rule))
                 if c.rule in OBSERVED_RULES else c for c in checks)


def judge(target: Target, case: Case, expectation: Expectation,
          observable: bool | None = None) -> tuple[Judgment, bool]:
    """The judgment for one (case, operation), and whether the target was called for it.

    An undeclared operation is not-applicable; so is every check charged to an observed rule
    (BO-008) without the observe capability: untested, never passed. ``observable`` defaults
    to what the target declares. With it, a case citing BO-008 and every case of an
    :data:`OBSERVED_OPERATIONS` operation is run twice on one input and observed.
    """
    observable = observes(target) if observable is None else observable
    rules = case.rules_for(expectation)
    if expectation.operation not in target.operations:
        return Judgment("not-applicable", f"the implementation does not declare "
                                          f"{expectation.operation}"), False
    wanted = _wanted(case, expectation)
    result = target.call(expectation.operation, case.input, case.id,
                         observe=observable and wanted)
    extra: list[Any] = []
    if wanted and not observable:  # the observation's checks, shown untested with the reason
        extra = [(name, "not-applicable", _untested(OBSERVATION_RULE))
                 for name in ("observe:input-after", "observe:repeat")]
    transcript: tuple[str, ...] = ()
    if isinstance(result, Observed):
        extra, lines = observation_checks(result, case.input)
        transcript = tuple(lines)
        result = result.first
    try:
        checks = bind(expectation, rules, [*expectation_checks(expectation, result), *extra])
        if isinstance(result, Output):
            checks += tuple(check_output(expectation.operation, case.input, result.value))
    except Exception as exc:  # a kit defect judging this output: a value, never an aborted run
        reason = (f"the kit could not judge this output ({type(exc).__name__}: {exc}); "
                  "a defect of agent-tck, please report it")
        checks = tuple(CheckResult("output", rid, "errored", reason) for rid in rules)
    if not observable:
        checks = _unobserved(checks)
    if isinstance(result, Errored):
        transcript = (*result.transcript, *transcript)
    return _judgment(checks, actual_json(result), transcript), True


def failures(target: Target, cases: Iterable[Case],
             observable: bool | None = None) -> Iterator[tuple[Case, Expectation, Judgment]]:
    """Every (case, expectation, judgment) that does not pass or stay not-applicable."""
    for case in cases:
        for expectation in case.expect:
            judgment, _ = judge(target, case, expectation, observable)
            if judgment.status in {"fail", "errored"}:
                yield case, expectation, judgment


# --- the whole run: the results stream ----------------------------------------------------------


def _wanted(case: Case, expectation: Expectation) -> bool:
    """Whether :func:`judge` observes this call (protocol 1.1, given the capability): a case
    citing BO-008, and every case of an observed operation."""
    cited = OBSERVED_RULES.keys() & set(case.rules_for(expectation))
    return bool(cited) or observed_operation(expectation.operation)


def planned_calls(target: Target, cases: Iterable[Case],
                  observable: bool) -> Iterator[PlannedCall]:
    """The calls :func:`judge` makes for ``cases``, in order: a prediction, which a pipelining
    target checks call by call (a call that differs is made one at a time, never misanswered)."""
    for case in cases:
        for expectation in case.expect:
            if expectation.operation in target.operations:
                yield PlannedCall(expectation.operation, case.input, case.id,
                                  observable and _wanted(case, expectation))


def case_result(seq: int, case: Case, expectation: Expectation, judgment: Judgment,
                duration_ms: float) -> CaseResult:
    return CaseResult(
        seq=seq, case=case.id, family=case.family, operation=expectation.operation,
        rules=tuple(case.rules_for(expectation)),  # cited; the checks say whose rule each is
        status=judgment.status,
        description=case.description, input=case.input, expected=expectation.to_json(),
        actual=judgment.actual, message=judgment.message, transcript=judgment.transcript,
        duration_ms=round(duration_ms, 3), checks=judgment.checks,
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
            result = replace(
                kept, status="errored", message=LATE_REPLY, transcript=(*kept.transcript, *late),
                checks=tuple(replace(c, status="errored", message=LATE_REPLY)
                             for c in kept.checks)) if late else kept
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
    summary = shape(summarize(header.rules, results), header.rules, header.families,
                    header.filters, declared_families(header.families, results, header.rules))
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
