"""``agent-tck``: the command line, a thin shell over the catalogue, vectors and runner.

Exit codes: 0 success (every applicable MUST rule passes), 1 rule failures, 2 usage or input
errors (a malformed vector, an adapter that does not start...), 141 when the reader of stdout
went away (``agent-tck rules | head -3``: quiet, like any tool killed by SIGPIPE).
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import pkgutil
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent_tck.harness import __version__
from agent_tck.harness.errors import HarnessError

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
EXIT_BROKEN_PIPE = 128 + 13  # what a shell reports for a process ended by SIGPIPE


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # usage errors exit 2 with a hint
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(EXIT_USAGE)


def positive_seconds(text: str) -> float:
    """An argparse type: a finite number of seconds greater than zero."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a number of seconds above 0, not {text}")
    return value


def check_families(option: str, given: Sequence[str], valid: Sequence[str]) -> None:
    """A usage error (exit 2) naming the valid families when one of ``given`` is not one."""
    unknown = [name for name in given if name not in valid]
    if unknown:
        raise HarnessError("USAGE", f"no family named {', '.join(map(repr, unknown))}; the "
                                    f"families are: {', '.join(valid)}", option)


# --- agent-tck rules ---------------------------------------------------------------------------


def _rules_command(args: argparse.Namespace) -> int:
    from agent_tck.harness.catalogue import load_catalogue
    from agent_tck.harness.coverage import all_citations, coverage

    catalogue = load_catalogue()
    check_families("--family", args.family, catalogue.families)
    covered = coverage(catalogue, all_citations())
    rules = [r for r in catalogue.rules if not args.family or r.family in args.family]
    if args.untestable:
        return _untestable(catalogue, args)
    if args.format == "json":
        json.dump([r.to_json(covered[r.id]) for r in rules], sys.stdout, indent=2,
                  ensure_ascii=False)
        sys.stdout.write("\n")
        return EXIT_OK
    family = None
    for rule in rules:
        if rule.family != family:
            family = rule.family
            members = [r for r in rules if r.family == family]
            print(f"\n{family} ({len(members)} rules, source {members[0].source})")
        mark = "decision" if rule.decision else rule.level
        n = len(covered[rule.id])
        print(f"  {rule.id:<9} {mark:<8} {rule.title or rule.statement}  [{n} citing]")
        if rule.strictness:  # the decision policy (vectors/README.md "Suite decisions")
            print(f"            {rule.level} {rule.strictness}")
    print(f"\n{len(rules)} rules; suite decisions are ours, marked 'decision', each with its "
          "level and why it is strict or lenient (--format json: the full review).")
    return EXIT_OK


def _untestable(catalogue: Any, args: argparse.Namespace) -> int:
    """The obligations no vector can observe, each with its reason (reported untested)."""
    entries = [u for u in catalogue.untestable if not args.family or u.family in args.family]
    if args.format == "json":
        json.dump([u.to_json() for u in entries], sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return EXIT_OK
    for u in entries:
        print(f"{u.family}: {u.title}\n  note ({u.source}): \"{u.quote}\"\n  untested: {u.reason}")
    print(f"\n{len(entries)} obligations not testable from outside.")
    return EXIT_OK


# --- agent-tck run -----------------------------------------------------------------------------


def _add_run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--impl", metavar="CMD",
                   help="command that starts your adapter (default: the built-in reference "
                        "implementation, in process)")
    p.add_argument("--family", action="append", default=[], metavar="NAME",
                   help="only this rule family (repeatable)")
    p.add_argument("--rule", action="append", default=[], metavar="ID",
                   help="only cases citing this rule ID (repeatable)")
    p.add_argument("-k", dest="keyword", metavar="WORDS",
                   help="only cases whose id, description or rules contain every word")
    p.add_argument("--vectors", action="append", default=[], type=Path, metavar="DIR",
                   help="also run the vector files in DIR (repeatable)")
    p.add_argument("--only-vectors", action="store_true",
                   help="run only the --vectors files, not the built-in ones")
    p.add_argument("--report-dir", type=Path, metavar="DIR",
                   help="where to write the reports (default: reports/<implementation-name>)")
    p.add_argument("--timeout", type=positive_seconds, default=10.0, metavar="SECONDS",
                   help="per-case timeout for --impl (default 10)")
    p.add_argument("--max-timeouts", type=int, default=3, metavar="K",
                   help="after K timeouts in a row the adapter is unresponsive: the remaining "
                        "cases are errored unrun (default 3; 0: never)")
    p.add_argument("--strict", action="store_true",
                   help="SHOULD rules fail the run too")
    p.add_argument("--expect", type=Path, metavar="FILE",
                   help="known-failure baseline (YAML): listed failures are expected; a listed "
                        "case that passes again is stale and fails the run")


def _run_command(args: argparse.Namespace) -> int:
    from agent_tck.harness.conformance_run import RunRequest, run_suite

    request = RunRequest(
        impl=args.impl,
        families=tuple(args.family),
        rules=tuple(args.rule),
        keyword=args.keyword,
        vectors=tuple(args.vectors),
        builtin_vectors=not args.only_vectors,
        report_dir=args.report_dir,
        timeout=args.timeout,
        max_timeouts=args.max_timeouts,
        strict=args.strict,
        expect=args.expect,
    )
    return run_suite(request, out=sys.stdout, err=sys.stderr)


# --- wiring ------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="agent-tck",
        description="Conformance test kit for LLM-agent runtimes.",
    )
    parser.add_argument("--version", action="version", version=f"agent-tck {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    run = sub.add_parser("run", help="run the vectors against an implementation")
    _add_run_options(run)
    run.set_defaults(func=_run_command)

    rules = sub.add_parser("rules", help="print the rule catalogue")
    rules.add_argument("--format", choices=("text", "json"), default="text")
    rules.add_argument("--family", action="append", default=[], metavar="NAME")
    rules.add_argument("--untestable", action="store_true",
                       help="list the obligations not testable from outside, with the reason")
    rules.set_defaults(func=_rules_command)

    from agent_tck.harness import commands

    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(sub)
    return parser


def _terminate(signum: int, frame: object) -> None:
    # CI cancels with SIGTERM: unwind like Ctrl-C, so the reports say the run was truncated
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        result: Any = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except HarnessError as exc:
        sys.stderr.write(f"agent-tck: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write("agent-tck: interrupted; the reports written so far are marked "
                         "truncated\n")
        return 130
    except Exception as exc:  # our own bug: say so plainly, with a stable code
        import traceback

        traceback.print_exc()
        sys.stderr.write(f"agent-tck: INTERNAL_ERROR: {type(exc).__name__}: {exc} (this is a "
                         "bug in agent-tck; please report it with the traceback above)\n")
        return EXIT_USAGE
    finally:
        signal.signal(signal.SIGTERM, previous)
    return int(result or 0)


def _silence_stdout() -> None:
    """The reader of stdout went away: point stdout at /dev/null so the interpreter's final
    flush cannot raise again (the recipe of the Python docs, "Note on SIGPIPE")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout is not a file descriptor (a test's StringIO)
        pass


if __name__ == "__main__":
    raise SystemExit(main())
