"""``agent-tck subagents FILE...``: run subagent scenario files (send-message-adjacency).

Each file is a scenario (vectors/send-message-adjacency/README.md), JSON or YAML (``.yaml``,
``.yml``). The reference simulator runs it and the trace is printed, one observation a line
(``--format json``: canonical JSON, one line per file). A vector file given instead is named as
one, with the way to run it. With ``--impl CMD`` the scenario also goes through that adapter's
``subagents.simulate`` and the command says where its trace first differs from the reference's.

Exit status: 0 when every file ran (and, with ``--impl``, matched), 1 when an implementation's
trace differed or it rejected a scenario the reference runs, 2 when a file is not a valid
scenario (the message names the file, the scenario and the step) or cannot be read.
"""

from __future__ import annotations

import argparse
import re
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
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text: one observation a line; json: each trace as canonical JSON, one "
                        "line per file")
    p.set_defaults(func=subagents_command)


def subagents_command(args: argparse.Namespace) -> int:
    from agent_tck.harness.run.compare import first_difference
    from agent_tck.harness.run.outcome import Errored, Output, Rejected
    from agent_tck.reference_impl.subagents.simulator import canonical_json

    target = None
    if args.impl:
        from agent_tck.harness.run.conformance_run import open_target

        target, _, _ = open_target(args.impl, args.timeout)
    status = 0
    try:
        for path in args.files:
            loaded = _load(path)
            if loaded is None:
                status = max(status, 2)
                continue
            doc, name, expected = loaded
            if target is None:
                print(canonical_json(expected) if args.format == "json" else
                      _pretty(str(path), name, expected["trace"]))
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


def _load(path: Path) -> tuple[Any, str, dict[str, Any]] | None:
    """A scenario file's document, its name and the reference trace; None, with the reason on
    stderr, when the file cannot be read or is not a valid scenario."""
    from agent_tck.reference_impl.errors import TckError
    from agent_tck.reference_impl.subagents.scenario import parse_scenario
    from agent_tck.reference_impl.subagents.simulator import run, trace_json

    try:
        doc = _document(path)
        if _is_vector_file(doc):
            print(f"{path}: a vector file ({doc['family']}, {len(doc['cases'])} cases), not a "
                  "scenario: `agent-tck run --vectors FOLDER` runs vector files; a scenario is "
                  "one case's input", file=sys.stderr)
            return None
        scenario = parse_scenario(doc, str(path))
        return doc, scenario.name, trace_json(run(scenario)[1])
    except OSError as exc:
        print(f"{path}: cannot read: {exc.strerror or exc}", file=sys.stderr)
    except ValueError as exc:  # not UTF-8, not JSON / YAML (aliases, depth...)
        print(f"{path}: not a readable scenario: {exc}", file=sys.stderr)
    except TckError as err:
        print(f"{err.code}: {err.message} (at {err.pointer or '/'})", file=sys.stderr)
    return None


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


def _is_vector_file(doc: Any) -> bool:
    return (isinstance(doc, dict) and isinstance(doc.get("cases"), list)
            and isinstance(doc.get("family"), str) and "actions" not in doc)


_PLAIN = re.compile(r"[A-Za-z0-9_./@:-]+")


def _pretty(path: str, name: str, trace: list[dict[str, Any]]) -> str:
    """A trace for a person: a heading, then per observation its action, its event and its
    other fields as ``key=value`` (JSON where a value is not one plain word)."""
    lines = [f"{path}: scenario {name!r}, {len(trace)} observation"
             f"{'' if len(trace) == 1 else 's'}"]
    for item in trace:
        fields = " ".join(f"{key}={_word(value)}" for key, value in sorted(item.items())
                          if key not in ("action", "event"))
        lines.append(f"  action {item.get('action', '-')!s:<3} {item.get('event', '?'):<12} "
                     f"{fields}".rstrip())
    return "\n".join(lines)


def _word(value: Any) -> str:
    from agent_tck.reference_impl.subagents.simulator import canonical_json

    return value if isinstance(value, str) and _PLAIN.fullmatch(value) else canonical_json(value)
