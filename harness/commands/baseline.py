"""``agent-tck baseline RESULTS.jsonl``: a starting known-failure baseline from a run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agent_tck.harness.common.errors import HarnessError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "baseline", help="write a starting --expect file listing a run's failures")
    p.add_argument("results", type=Path, help="results.jsonl of the run to baseline")
    p.add_argument("-o", "--output", type=Path, metavar="FILE",
                   help="write here instead of stdout (refuses to overwrite)")
    p.set_defaults(func=baseline)


def baseline(args: argparse.Namespace) -> int:
    from agent_tck.harness.reports import StreamError, read
    from agent_tck.harness.run.baseline import write_baseline

    try:
        run = read(args.results)
        text = write_baseline(
            {"type": "case", "case": c.case, "operation": c.operation, "status": c.status,
             "message": c.message}
            for c in run.cases
        )
    except (StreamError, OSError) as exc:
        raise HarnessError("RESULTS_INVALID", str(exc), str(args.results)) from exc
    if args.output is None:
        sys.stdout.write(text)
        return 0
    if args.output.exists():
        raise HarnessError("USAGE", "already exists; remove it or pick another name",
                           str(args.output))
    args.output.write_text(text, encoding="utf-8")
    sys.stderr.write(f"wrote {args.output}: give every entry a real reason before committing\n")
    return 0
