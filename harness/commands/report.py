"""``agent-tck report RESULTS.jsonl``: re-render a view from a saved results stream."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from harness.errors import HarnessError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("report", help="render a saved results.jsonl (md, html, junit)")
    p.add_argument("results", type=Path, help="a results.jsonl written by `agent-tck run`")
    p.add_argument("--format", choices=("md", "html", "junit"), default="md")
    p.set_defaults(func=report)


def report(args: argparse.Namespace) -> int:
    from harness.reports import StreamError, read, render

    try:
        run = read(args.results)
    except (StreamError, OSError) as exc:
        raise HarnessError("RESULTS_INVALID", str(exc), str(args.results)) from exc
    sys.stdout.write(render(run, args.format))
    return 0
