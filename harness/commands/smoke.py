"""``agent-tck smoke --impl CMD``: a quick diagnosis for adapter authors.

Handshake, then one small case per declared operation (the first built-in vector that uses
it), every message checked against the protocol schemas both ways. It says what the adapter
did wrong in words, not only that a case failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from agent_tck.harness.common.console import one_line
from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.common.jsonschema_util import pointer, validator
from agent_tck.harness.contract.vectors import load_cases
from agent_tck.harness.run.evaluate import OBSERVED_RULES, evaluate, evaluate_observed
from agent_tck.harness.run.outcome import Errored, Observed, Output, Rejected
from agent_tck.harness.run.protocol import OBSERVE, RunCommand, StartCommand


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("smoke", help="check an adapter's protocol with one case per "
                                            "operation")
    p.add_argument("--impl", required=True, metavar="CMD", help="command that starts the adapter")
    from agent_tck.harness.cli import positive_seconds

    p.add_argument("--timeout", type=positive_seconds, default=10.0, metavar="SECONDS")
    p.set_defaults(func=smoke)


def _check_command(command: Any) -> str | None:
    errors = list(validator("protocol/command.schema.json").iter_errors(command))
    return None if not errors else f"{pointer(errors[0].path) or '/'}: {errors[0].message}"


def smoke(args: argparse.Namespace, out: Any = None) -> int:
    from agent_tck.harness.run.subprocess_target import SubprocessTarget

    out = out or sys.stdout
    problems = 0

    def say(ok: bool, text: str) -> None:
        nonlocal problems
        problems += 0 if ok else 1
        out.write(f"  [{'ok' if ok else 'FAIL'}] {one_line(text)}\n")  # adapter words: one line

    out.write(f"agent-tck smoke: {args.impl}\n")
    own = _check_command(StartCommand("x").to_json())
    if own:  # our own messages must satisfy the schema we publish
        raise HarnessError("INTERNAL", f"start command breaks the protocol schema: {own}")
    try:
        target = SubprocessTarget(args.impl, timeout=args.timeout)
    except HarnessError as exc:
        if exc.code == "USAGE":  # e.g. an unbalanced quote: nothing was started
            raise
        say(False, f"handshake: {exc.message}")
        out.write("diagnosis: the adapter must answer the first line "
                  '{"cmd":"start","protocol":1,...} with one JSON line holding protocol, '
                  "implementation {name, language} and operations (vectors/PROTOCOL.md).\n")
        return 2  # like `run`: an adapter that cannot start is a usage error, not a verdict
    impl = target.implementation
    say(True, f"handshake: {impl.name} {impl.version} ({impl.language}), "
              f"{len(impl.operations)} operations declared")
    cases = load_cases()
    known_ops = {e.operation for c in cases for e in c.expect}
    unknown = sorted(impl.operations - known_ops)
    if unknown:  # a warning: the implementer may have vectors of their own for them
        out.write(f"  [warn] declared operations no built-in vector uses (a typo?): "
                  f"{', '.join(unknown)}\n")
    try:
        for operation in sorted(impl.operations & known_ops):
            case, expectation = next((c, e) for c in cases for e in c.expect
                                     if e.operation == operation)
            own = _check_command(RunCommand(1, operation, case.input, case.id).to_json())
            if own:
                raise HarnessError("INTERNAL", f"run command breaks the protocol schema: {own}")
            result = target.call(operation, case.input, case.id)
            if isinstance(result, Errored):
                say(False, f"{operation}: {result.reason}")
                for line in result.transcript[-6:]:
                    out.write(f"         {one_line(line[:300])}\n")
                continue
            assert not isinstance(result, Observed)  # asked without observe
            verdict = evaluate(expectation, result)
            kind = "output" if isinstance(result, Output) else (
                f"error {result.code}" if isinstance(result, Rejected) else "?")
            say(verdict.status == "pass",
                f"{operation}: replied with {kind} to case {case.id}"
                + ("" if verdict.status == "pass" else f" - but {verdict.message}"))
        _smoke_observe(target, cases, say, out)
    finally:
        target.close()
    out.write("smoke: " + ("adapter speaks the protocol; now run `agent-tck run --impl ...`\n"
                           if problems == 0 else f"{problems} problem(s)\n"))
    return 0 if problems == 0 else 1




def _smoke_observe(target: Any, cases: list[Any], say: Any, out: Any) -> None:
    """Protocol 1.1: with the observe capability, one case citing an observed rule (BO-008) run
    twice on one input; without it, say which rules stay untested and why."""
    rules = ", ".join(sorted(OBSERVED_RULES))
    declared = set(target.implementation.observe)
    if not set(OBSERVE) <= declared:
        out.write(f"  [info] no protocol 1.1 observe capability (\"observe\": "
                  f"{json.dumps(list(OBSERVE))}): {rules} will be reported untested\n")
        return
    picked = next(((c, e) for c in cases for e in c.expect
                   if OBSERVED_RULES.keys() & set(c.rules_for(e))
                   and e.operation in target.operations), None)
    if picked is None:
        return
    case, expectation = picked
    command = RunCommand(1, expectation.operation, case.input, case.id, OBSERVE)
    own = _check_command(command.to_json())
    if own:
        raise HarnessError("INTERNAL", f"run command breaks the protocol schema: {own}")
    result = target.call(expectation.operation, case.input, case.id, observe=True)
    if isinstance(result, Errored):
        say(False, f"observe ({expectation.operation}, case {case.id}): {result.reason}")
        for line in result.transcript[-6:]:
            out.write(f"         {one_line(line[:300])}\n")
        return
    assert isinstance(result, Observed)
    verdict = evaluate_observed(expectation, result, case.input)
    say(verdict.status == "pass",
        f"observe: {expectation.operation} run twice on one input for case {case.id}"
        + ("" if verdict.status == "pass" else f" - but {verdict.message}"))
