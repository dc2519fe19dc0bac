"""``agent-tck``: the command line, a thin shell over the catalogue, vectors and runner.

Exit codes: 0 success (every applicable MUST rule passes), 1 rule failures, 2 usage or input
errors (a malformed vector, an adapter that does not start...), 141 when the reader of stdout
went away (``agent-tck rules | head -3``: quiet, like any tool killed by SIGPIPE); ``run`` goes
quiet instead and finishes, with its reports and its verdict's exit code.
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import json
import math
import os
import pkgutil
import re
import shlex
import signal
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from agent_tck.harness import __version__
from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.common.options import ListOption, pick_all, suggest

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
EXIT_BROKEN_PIPE = 128 + 13  # what a shell reports for a process ended by SIGPIPE


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # usage errors exit 2 with a hint
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {message}{_choice_hint(message)}\n")
        raise SystemExit(EXIT_USAGE)


def _choice_hint(message: str) -> str:
    """"did you mean" for argparse's ``invalid choice: 'x' (choose from 'a', 'b')``."""
    found = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
    if not found:
        return ""
    return suggest(found[1], re.findall(r"'([^']*)'", found[2]))


def _unrecognized(parser: argparse.ArgumentParser, args: argparse.Namespace,
                  argv: Sequence[str], extra: Sequence[str]) -> NoReturn:
    """Arguments the subcommand does not take: its own usage, "did you mean" for a mistyped
    flag, and the quoting hint when an unquoted ``--impl node x.js`` left words over."""
    sub = _subparser(parser, getattr(args, "command", None)) or parser
    flags = [o for a in sub._actions for o in a.option_strings]
    hints = [f"{word}{suggest(word.split('=')[0], flags)}" if word.startswith("-") else
             repr(word) for word in extra]
    message = f"unrecognized arguments: {' '.join(hints)}"
    if "--impl" in argv[:-2]:  # the words right after its value, left over: it was unquoted
        after = argv[argv.index("--impl") + 2:]
        words = list(itertools.takewhile(lambda w: not w.startswith("-"), after))
        if words and words == [w for w in extra if w in words][:len(words)]:
            command = " ".join([argv[argv.index("--impl") + 1], *words])
            message += (f"; --impl takes the whole command as one argument: quote it, "
                        f"--impl {shlex.quote(command)}")
    sub.error(message)


def _subparser(parser: argparse.ArgumentParser,
               command: str | None) -> argparse.ArgumentParser | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            chosen: argparse.ArgumentParser = action.choices[command]
            return chosen
    return None


def positive_seconds(text: str) -> float:
    """An argparse type: a finite number of seconds greater than zero."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a number of seconds above 0, not {text}")
    return value


def check_families(option: str, given: Sequence[str], valid: Sequence[str]) -> list[str]:
    """The families ``given`` names (any case), or a usage error (exit 2) naming the valid ones
    when one of them is not one."""
    return pick_all(option, given, dict.fromkeys(valid, ()), what="family")


def rule_ids(option: str, given: Sequence[str], known: Iterable[str]) -> list[str]:
    """The catalogue ids ``given`` names, in any case (``ihu-001`` is IHU-001)."""
    return pick_all(option, given, dict.fromkeys(known, ()), what="rule",
                    elsewhere="`agent-tck rules` lists them")


# --- agent-tck rules ---------------------------------------------------------------------------


def _rules_command(args: argparse.Namespace) -> int:
    from agent_tck.harness.contract.catalogue import load_catalogue
    from agent_tck.harness.contract.coverage import all_citations, coverage

    catalogue = load_catalogue()
    args.family = check_families("--family", args.family, catalogue.families)
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
            print(f"\n{family} ({len(members)} rules, source {_sources(members)})")
        mark = "decision" if rule.decision else rule.level
        n = len(covered[rule.id])
        print(f"  {rule.id:<9} {mark:<8} {rule.title or rule.statement}  [{n} citing]")
        if rule.strictness:  # the decision policy (vectors/README.md "Suite decisions")
            strictness = rule.strictness  # "SHOULD: ..." names the level itself
            print(f"            {strictness if strictness.startswith(rule.level) else
                               f'{rule.level} {strictness}'}")
    print(f"\n{len(rules)} rules; suite decisions are ours, marked 'decision', each with its "
          "level and why it is strict or lenient (--format json: the full review).")
    return EXIT_OK


def _sources(members: Sequence[Any]) -> str:
    """The note a family's rules come from; "several" (naming the notes) when they differ."""
    sources = list(dict.fromkeys(r.source for r in members))
    if len(sources) == 1:
        return str(sources[0])
    named = [s for s in sources if s != "several"]
    return "several" + (f" ({', '.join(named)} among them)" if named else "")


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
    p.add_argument("--family", action=ListOption, metavar="NAME",
                   help="only these rule families (repeatable, or a comma list)")
    p.add_argument("--rule", action=ListOption, metavar="ID",
                   help="only cases citing these rule IDs, in any case (repeatable, or a "
                        "comma list)")
    p.add_argument("-k", dest="keyword", metavar="WORDS",
                   help="only cases whose id, description or rules contain every word")
    p.add_argument("--vectors", action=ListOption, convert=Path, metavar="DIR",
                   help="also run the vector files in DIR (repeatable, or a comma list)")
    p.add_argument("--only-vectors", action="store_true",
                   help="run only the --vectors files, not the built-in ones")
    p.add_argument("--report-dir", type=Path, metavar="DIR",
                   help="write the reports into exactly DIR (default: a new run folder "
                        "reports/<implementation-name>/<timestamp>/, and "
                        "reports/<implementation-name>/latest)")
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
    from agent_tck.harness.contract.catalogue import load_catalogue
    from agent_tck.harness.run.conformance_run import RunRequest, run_suite

    catalogue = load_catalogue()
    request = RunRequest(
        impl=args.impl,
        families=tuple(check_families("--family", args.family, catalogue.families)),
        rules=tuple(rule_ids("--rule", args.rule, catalogue.by_id)),
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


def _version() -> str:
    """The version, and whether the strict JSON reader runs its native check (compiled at install
    by hatch_build.py, and loaded; without it the same checks run in Python, slower)."""
    from agent_tck.reference_impl.strict_json import NATIVE  # imported at start-up already

    return f"agent-tck {__version__} (strict JSON reader: {'native' if NATIVE else 'pure Python'})"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="agent-tck",
        description="Conformance test kit for LLM-agent runtimes.",
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    run = sub.add_parser("run", help="run the vectors against an implementation")
    _add_run_options(run)
    run.set_defaults(func=_run_command)

    rules = sub.add_parser("rules", help="print the rule catalogue")
    rules.add_argument("--format", choices=("text", "json"), default="text")
    rules.add_argument("--family", action=ListOption, metavar="NAME",
                       help="only these families (repeatable, or a comma list)")
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
    from agent_tck.harness.common.console import console

    with console():  # every line on stdout and stderr: redacted, control characters escaped
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    args, extra = parser.parse_known_args(argv)
    if extra:
        _unrecognized(parser, args, argv, extra)
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
