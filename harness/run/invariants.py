"""Invariants: what the notes or the providers require of *every* output of an operation.

A vector's expectation checks one output against one expected value; an invariant is checked
on every case of the operations it names, charged to its own rule, never to the case's rules
(issue 21 B). The table below maps an operation pattern (``fnmatch``: ``*.serialize``,
``session.resume-*``) to a pure check function::

    check(given_input, output) -> Iterable[tuple[rule_id, check_name, failure_message]]

which reports nothing when the output satisfies it. The evaluate loop
(:mod:`harness.run.evaluate`) records one check ``invariant:<name>`` per registered invariant on
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

from agent_tck.harness.run.results import CheckResult

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


class _Once:
    """A check whose predicates span several rules, run once per output: the invariants of its
    rules (one each, so each rule gets its own pass or fail) share the last call's findings,
    held for the very objects it was called on (check_output asks them one after another)."""

    def __init__(self, check: CheckFn) -> None:
        self.check = check
        self.last: tuple[Any, Any, list[Finding]] | None = None

    def findings(self, given: Any, output: Any) -> list[Finding]:
        last = self.last
        if last is None or last[0] is not given or last[1] is not output:
            last = self.last = (given, output, list(self.check(given, output)))
        return last[2]

    def charged_to(self, rule: str) -> CheckFn:
        def only(given: Any, output: Any) -> Iterator[Finding]:
            return (finding for finding in self.findings(given, output) if finding[0] == rule)
        return only


def _per_rule(operation: str, rules: Iterable[str], check: CheckFn) -> tuple[Invariant, ...]:
    shared = _Once(check)
    return tuple(Invariant(operation, rule, "provider-accepts", shared.charged_to(rule))
                 for rule in dict.fromkeys(rules))


def _table() -> tuple[Invariant, ...]:
    """The registered invariants. Every wire output of a serializer is a request its provider
    accepts, each predicate charged to its own rule (reference_impl/wire/validity.py says which
    and cites the provider documentation; reference_impl/serialize/invariants.py says when a
    predicate applies: never for passing through a defect of the input history). Every resumed
    history is one too: note 001, "resume with a valid provider history", CFP-024 (Messages)
    and CFP-025 (Chat Completions; reference_impl/session_log/invariants.py)."""
    from agent_tck.reference_impl.serialize import invariants as serialize
    from agent_tck.reference_impl.session_log import invariants as resume
    from agent_tck.reference_impl.wire import validity
    from agent_tck.reference_impl.wire.dialects import ANTHROPIC, OPENAI

    def rules(dialect: str) -> list[str]:
        return [p.rule for p in validity.PREDICATES if p.dialect == dialect]

    def own(dialect: str) -> list[str]:
        """The rules below MUST a resumed request's predicates keep (not CFP-024/025)."""
        return [r for r in rules(dialect) if r in resume.OWN_RULE]

    return (
        *_per_rule("anthropic.serialize", rules(ANTHROPIC), serialize.anthropic_serialize),
        *_per_rule("openai.serialize", rules(OPENAI), serialize.openai_serialize),
        *_per_rule("session.resume", ("CFP-024", "CFP-025", *own(ANTHROPIC), *own(OPENAI)),
                   resume.resume),
        *_per_rule("session.resume-anthropic", ("CFP-024", *own(ANTHROPIC)),
                   resume.resume_anthropic),
        *_per_rule("session.resume-openai", ("CFP-025", *own(OPENAI)), resume.resume_openai),
    )


#: The table: one line per invariant (above, in :func:`_table`).
INVARIANTS: tuple[Invariant, ...] = _table()


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
    rule. A check function that raises makes its check ``errored``, "cannot check the output"
    with the reason (an invariant that cannot decide never passes, and shows no failure of its
    rule: an output that is not a history at all, for example, which the comparison fails)."""
    for invariant in for_operation(operation, table):
        name = f"invariant:{invariant.name}"
        try:
            findings = list(invariant.check(given, output))
        except Exception as exc:  # a malformed output the predicate cannot read
            yield CheckResult(name, invariant.rule, "errored",
                              f"cannot check the output: {type(exc).__name__}: {exc}")
            continue
        own = [message for rule, _check, message in findings if rule == invariant.rule]
        yield CheckResult(name, invariant.rule, "fail" if own else "pass", "; ".join(own))
        for rule, check, message in findings:
            if rule != invariant.rule:
                yield CheckResult(f"invariant:{check}", rule, "fail", message)
