"""Invariants: what the notes or the providers require of *every* output of an operation.

A vector's expectation checks one output against one expected value; an invariant is checked
on every case of the operations it names, charged to its own rule, never to the case's rules
(issue 21 B). The table below maps an operation pattern (``fnmatch``: ``*.serialize``,
``session.resume-*``) to a pure check function::

    check(given_input, output) -> Iterable[tuple[rule_id, check_name, failure_message]]

which reports nothing when the output satisfies it. The evaluate loop
(:mod:`harness.evaluate`) records one check ``invariant:<name>`` per registered invariant on
each case of a matching operation that produced an output: ``pass`` when the function reports
nothing, else ``fail`` with its messages, charged to the invariant's rule (a finding naming
another rule is charged to that rule as a check of its own).

Registration is one line per invariant, in ``INVARIANTS`` (the pure predicates themselves live
with the wire model, ``reference_impl/wire/``, where the audit uses the same ones)::

    Invariant("*.serialize", "WA-D0NN", "provider-accepts", validity.check_request),

Pure: no file, no clock; the functions get plain JSON and must not change it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from agent_tck.harness.results import CheckResult

#: (rule_id, check_name, failure_message): one finding of an invariant check.
Finding = tuple[str, str, str]
CheckFn = Callable[[Any, Any], Iterable[Finding]]


@dataclass(frozen=True)
class Invariant:
    """One registered invariant: the operations it holds for (an ``fnmatch`` pattern), the one
    rule its check is charged to, its check name (``invariant:<name>``) and the pure check."""

    operations: str
    rule: str
    name: str
    check: CheckFn

    def applies_to(self, operation: str) -> bool:
        return fnmatchcase(operation, self.operations)


#: The table. The lead registers the provider-validity predicates of
#: ``reference_impl/wire/validity.py`` here (one line each) when that module lands.
INVARIANTS: tuple[Invariant, ...] = ()


def for_operation(operation: str,
                  table: Sequence[Invariant] | None = None) -> tuple[Invariant, ...]:
    """The invariants registered for ``operation``."""
    return tuple(i for i in (INVARIANTS if table is None else table)
                 if i.applies_to(operation))


def rules_for(operations: Iterable[str],
              table: Sequence[Invariant] | None = None) -> set[str]:
    """The rules the invariants of these operations are charged to (a run judges them)."""
    return {i.rule for op in set(operations) for i in for_operation(op, table)}


def check_output(operation: str, given: Any, output: Any,
                 table: Sequence[Invariant] | None = None) -> Iterator[CheckResult]:
    """One check per invariant registered for ``operation`` (pass when it reports nothing);
    a finding charged to another rule than its invariant's becomes a failed check of that
    rule. A check function that raises fails its check with the exception named (an
    invariant that cannot decide never passes)."""
    for invariant in for_operation(operation, table):
        name = f"invariant:{invariant.name}"
        try:
            findings = list(invariant.check(given, output))
        except Exception as exc:  # a malformed output the predicate cannot read
            yield CheckResult(name, invariant.rule, "fail",
                                 f"cannot check the output: {type(exc).__name__}: {exc}")
            continue
        own = [message for rule, _check, message in findings if rule == invariant.rule]
        yield CheckResult(name, invariant.rule, "fail" if own else "pass", "; ".join(own))
        for rule, check, message in findings:
            if rule != invariant.rule:
                yield CheckResult(f"invariant:{check}", rule, "fail", message)
