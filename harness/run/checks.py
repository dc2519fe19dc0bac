"""The check model: one result held against one expectation as a set of checks, each charged
to exactly one rule (vectors/README.md "Checks").

An expectation's checks are the outcome class (``outcome``: accepted or rejected), the error
code (``error-code``), the output (``output``, less any named part), its named parts
(``output:<JSON pointer>``) and the order of an array apart from its content
(``order:<JSON pointer>``, :mod:`harness.run.order`); the protocol 1.1 observation adds
``observe:input-after`` and ``observe:repeat``, charged to BO-008 alone;
:mod:`harness.run.invariants` adds ``invariant:<name>``. An expected trace
(``subagent-trace``) is held as its constraints, ``trace:<name>``
(:func:`harness.run.compare.trace_constraints`), ``output`` holding the rest.
A vector names the rule of a check in its expectation's ``checks``; a check it does not name
is charged to every rule of the expectation (so a case that attributes nothing is judged as
before). A check that the outcome never reached (the code of an output, the output of a
rejection) is ``not-applicable``: untested, never passed. Pure functions.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from agent_tck.harness.contract.vectors import Expectation
from agent_tck.harness.run.compare import (
    compare_parts,
    compare_trace,
    first_difference,
    mode_for,
)
from agent_tck.harness.run.order import Unseen
from agent_tck.harness.run.outcome import CallResult, Errored, Observed, Output, Rejected
from agent_tck.harness.run.results import CheckResult

#: The rule the observation checks are charged to: BO-008 "without changing Session records".
OBSERVATION_RULE = "BO-008"

#: (check name, status, message) before it is charged to a rule.
Unbound = tuple[str, str, str]

NOT_REACHED = "not reached: "

#: The placeholder rule of a check held outside any case (``evaluate`` without rules).
UNCHARGED = "-"


def check_names(expectation: Expectation) -> tuple[str, ...]:
    """The checks an expectation has, in the order they are recorded."""
    kinds = expectation.alternatives or (expectation,)
    names = ["outcome"]
    if any(k.is_error for k in kinds):
        names.append("error-code")
    if any(not k.is_error for k in kinds):
        names.append("output")
        names.extend(f"output:{p}" for p in expectation.output_parts)
        names.extend(expectation.orders)
        names.extend(f"trace:{t}" for t in expectation.trace)
    return tuple(names)


def _of_output(name: str) -> bool:
    """Whether a check holds (part of) an output: not reached by a rejection."""
    return name.startswith(("output", "trace:", "order:"))


def _codes(kinds: Sequence[Expectation]) -> str:
    return " or ".join(dict.fromkeys(str(k.error_code) for k in kinds if k.is_error))


def _output_checks(expectation: Expectation, outputs: Sequence[Expectation],
                   value: Any) -> list[Unbound]:
    """``output`` (and its named parts): any accepted output passes; a failure says why each
    one differs."""
    parts, orders = expectation.output_parts, expectation.orders
    if expectation.trace:  # one expected trace: its constraints, and the rest as ``output``
        held = compare_trace(expectation.output, value, expectation.trace)
        return [("output", "fail" if held[""] else "pass", held[""] or ""),
                *((f"trace:{t}", "fail" if held[t] else "pass", held[t] or "")
                  for t in expectation.trace)]
    reasons: list[str] = []
    for kind in outputs:
        diffs = compare_parts(kind.output, value, mode_for(kind.operation, kind.compare), parts,
                              orders)
        if len(outputs) == 1:
            return [("output", "fail" if diffs[""] else "pass", diffs[""] or ""),
                    *((f"output:{p}", "fail" if diffs[p] else "pass", diffs[p] or "")
                      for p in parts),
                    *((o, _order_status(diffs[o]), diffs[o] or "") for o in orders)]
        if diffs[""] is None:
            return [("output", "pass", "")]
        reasons.append(diffs[""])
    listed = "; ".join(f"({i + 1}) {r}" for i, r in enumerate(reasons))
    return [("output", "fail", f"matches none of the accepted outputs: {listed}")]


def _order_status(diff: str | None) -> str:
    """An order check's status: not-applicable when there was no order to see."""
    return "not-applicable" if isinstance(diff, Unseen) else "fail" if diff else "pass"


def expectation_checks(expectation: Expectation, result: CallResult) -> list[Unbound]:
    """The expectation's checks against one result (any accepted alternative satisfies a
    check; the alternatives of the other outcome class leave it not reached)."""
    names = check_names(expectation)
    if isinstance(result, Errored):
        return [(name, "errored", result.reason) for name in names]
    kinds = expectation.alternatives or (expectation,)
    errors = [k for k in kinds if k.is_error]
    outputs = [k for k in kinds if not k.is_error]
    out: list[Unbound] = []
    if isinstance(result, Rejected):
        if not errors:
            out.append(("outcome", "fail", f"rejected with {result.code} ({result.message}); "
                                           "expected an output"))
        else:
            out.append(("outcome", "pass", ""))
            codes = [k.error_code for k in errors]
            out.append(("error-code", "pass", "") if result.code in codes else (
                "error-code", "fail", f"rejected with {result.code}, expected {_codes(errors)}"))
        out.extend((n, "not-applicable", f"{NOT_REACHED}the input was rejected")
                   for n in names if _of_output(n))
        return out
    assert isinstance(result, Output)
    if not outputs:
        out.append(("outcome", "fail", f"accepted the input; expected rejection with "
                                       f"{_codes(errors)}"))
        out.append(("error-code", "not-applicable", f"{NOT_REACHED}the input was accepted"))
        return out
    out.append(("outcome", "pass", ""))
    if errors:
        out.append(("error-code", "not-applicable", f"{NOT_REACHED}the input was accepted"))
    return [*out, *_output_checks(expectation, outputs, result.value)]


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def actual_json(result: CallResult) -> Any:
    """An outcome as the results stream records it: ``{"output"}`` or ``{"error"}``."""
    if isinstance(result, Output):
        return {"output": result.value}
    if isinstance(result, Rejected):
        err: dict[str, Any] = {"code": result.code, "message": result.message}
        if result.pointer is not None:
            err["pointer"] = result.pointer
        return {"error": err}
    return None


def observation_checks(observed: Observed, given: Any) -> tuple[list[Unbound], list[str]]:
    """BO-008 ("without changing Session records"): the input as it stands after two calls is
    the input given (``observe:input-after``), and the second result is the first one's
    (``observe:repeat``). Returns the checks and transcript lines showing a difference."""
    checks: list[Unbound] = []
    transcript: list[str] = []
    if canonical(observed.input_after) != canonical(given):
        diff = first_difference(given, observed.input_after) or "a number's type changed"
        checks.append(("observe:input-after", "fail", f"the call changed the history it was "
                                                      f"given (input after two calls differs "
                                                      f"at {diff})"))
        transcript.append("BO-008 input-after: " + canonical(observed.input_after)[:2000])
    else:
        checks.append(("observe:input-after", "pass", ""))
    first, second = observed.first, observed.second
    if isinstance(first, Rejected) and isinstance(second, Rejected):
        same = first.code == second.code
    else:
        same = canonical(actual_json(first)) == canonical(actual_json(second))
    if same:
        checks.append(("observe:repeat", "pass", ""))
    else:
        diff = first_difference(actual_json(first), actual_json(second)) or "types differ"
        checks.append(("observe:repeat", "fail", f"a second call on the same in-memory input "
                                                 f"gave another result (first vs second: "
                                                 f"{diff})"))
        transcript.append("BO-008 repeat: " + canonical(actual_json(second))[:2000])
    return checks, transcript


def bind(expectation: Expectation, rules: Sequence[str],
         unbound: Iterable[Unbound]) -> tuple[CheckResult, ...]:
    """Charge each check to its rule: the one the vector names, else each of ``rules`` (the
    expectation's); an observation check to BO-008 alone."""
    out: list[CheckResult] = []
    for name, status, message in unbound:
        named = OBSERVATION_RULE if name.startswith("observe:") else expectation.attributed(name)
        out.extend(CheckResult(name, rule, status, message)
                   for rule in ((named,) if named else rules))
    return tuple(out)


def summary(checks: Sequence[CheckResult]) -> str:
    """One line saying which checks did not pass and whose rule each is."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for c in checks:
        if c.status in {"fail", "errored"}:
            groups.setdefault((c.check, c.status, c.message), []).append(c.rule)
    if not groups:
        return ""
    errored = {status for _c, status, _m in groups} == {"errored"}
    if errored:  # the call itself errored: every check says the same
        return next(iter(groups))[2]
    return "; ".join(f"{check}{_whose(rules)}: {message}"
                     for (check, status, message), rules in groups.items()
                     if status == "fail")


def _whose(rules: Sequence[str]) -> str:
    named = [r for r in rules if r != UNCHARGED]
    return f" ({', '.join(named)})" if named else ""
