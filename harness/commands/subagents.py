"""``agent-tck subagents FILE...``: run subagent scenario files (send-message-adjacency).

Each file is a scenario (vectors/send-message-adjacency/README.md), JSON or YAML (``.yaml``,
``.yml``). The reference simulator runs it and the trace is printed as canonical JSON, one line
per file. With ``--impl CMD`` the scenario also goes through that adapter's
``subagents.simulate`` and the command says where its trace first differs from the reference's.

Exit status: 0 when every file ran (and, with ``--impl``, matched), 1 when an implementation's
trace differed or it rejected a scenario the reference runs, 2 when a file is not a valid
scenario (the message names the file, the scenario and the step) or cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

OPERATION = "subagents.simulate"


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "subagents", help="run subagent scenario files and print their traces",
        description="Run send-message-adjacency scenario files (JSON or YAML) through the "
                    "reference simulator, or compare an adapter's traces with it (--impl).")
    p.add_argument("files", nargs="+", type=Path, metavar="FILE")
    p.add_argument("--impl", metavar="CMD", help="also run each scenario through this adapter")
    p.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS")
    p.set_defaults(func=subagents_command)


def subagents_command(args: argparse.Namespace) -> int:
    from agent_tck.harness.run.compare import first_difference
    from agent_tck.harness.run.outcome import Errored, Output, Rejected
    from agent_tck.reference_impl.errors import TckError
    from agent_tck.reference_impl.subagents.scenario import parse_scenario
    from agent_tck.reference_impl.subagents.simulator import canonical_json, run, trace_json

    target = None
    if args.impl:
        from agent_tck.harness.run.conformance_run import open_target

        target, _, _ = open_target(args.impl, args.timeout)
    status = 0
    try:
        for path in args.files:
            try:
                doc = _document(path)
                scenario = parse_scenario(doc, str(path))
                expected = trace_json(run(scenario)[1])
            except OSError as exc:
                print(f"{path}: cannot read: {exc.strerror or exc}", file=sys.stderr)
                status = max(status, 2)
                continue
            except ValueError as exc:  # not UTF-8, not JSON / YAML (aliases, depth...)
                print(f"{path}: not a readable scenario: {exc}", file=sys.stderr)
                status = max(status, 2)
                continue
            except TckError as err:
                print(f"{err.code}: {err.message} (at {err.pointer or '/'})", file=sys.stderr)
                status = max(status, 2)
                continue
            if target is None:
                print(canonical_json(expected))
                continue
            if OPERATION not in target.operations:  # like `run`: not applicable, not errored
                print(f"{path}: not applicable: the adapter does not declare {OPERATION}")
                continue
            result = target.call(OPERATION, doc, path.name)
            if isinstance(result, Output):
                diff = first_difference(expected, result.value)
                print(f"{path}: {'same trace as the reference' if diff is None else diff}")
                status = max(status, 0 if diff is None else 1)
            elif isinstance(result, Rejected):
                print(f"{path}: rejected with {result.code}: {result.message}")
                status = max(status, 1)
            else:
                assert isinstance(result, Errored)  # observations are asked for only by BO-008
                print(f"{path}: errored: {result.reason}")
                status = max(status, 1)
    finally:
        if target is not None:
            target.close()
    return status


def _document(path: Path) -> Any:
    """A scenario file's document: YAML (``.yaml``, ``.yml``) without aliases, else strict
    JSON; a ValueError (YAMLInputError, StrictJSONError, UnicodeDecodeError) names the line."""
    from agent_tck.harness.common.safe_yaml import load
    from agent_tck.harness.common.whole_file import read_whole
    from agent_tck.reference_impl.strict_json import loads

    data = read_whole(path)  # capped: docs/RELIABILITY.md
    if path.suffix.lower() in (".yaml", ".yml"):
        return load(data.decode("utf-8"))
    return loads(data)
