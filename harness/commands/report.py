"""``agent-tck report RESULTS.jsonl``: re-render a view from a saved results stream;
``agent-tck report --merge A/results.jsonl B/results.jsonl ...``: one report from several
(a fleet running one proxy or one runner per host, an offline archive audited by shard)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent_tck.harness.common.errors import HarnessError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("report", help="render a saved results.jsonl (md, html, junit)")
    p.add_argument("results", type=Path, nargs="+",
                   help="a results.jsonl written by `agent-tck run` or `agent-tck audit`")
    p.add_argument("--merge", action="store_true",
                   help="merge several results.jsonl (same catalogue) into one report")
    p.add_argument("--format", choices=("md", "html", "junit"), default="md")
    p.set_defaults(func=report)


def merge_runs(runs: Sequence[Any]) -> Any:
    """One run from several with the same catalogue: the cases of all, in order (each case id
    prefixed with its stream's place in the list when more than one stream has cases), the
    verdicts recomputed from them; truncated when any input is. The first header speaks for
    the merged run (its implementation, start and filters)."""
    first = runs[0]
    ids = [r.id for r in first.header.rules]
    for run in runs[1:]:
        if run.header.format != first.header.format or [r.id for r in run.header.rules] != ids:
            raise HarnessError("RESULTS_MERGE",
                               "results of another catalogue or format cannot be merged "
                               f"with {first.source}", run.source)
    cases: list[Any] = []
    for n, run in enumerate(runs, 1):
        for c in run.cases:
            cases.append(replace(c, seq=len(cases), case=f"{n}:{c.case}"))
    notes = (f"merged from {len(runs)} streams: "
             + ", ".join(f"{n}: {r.source}" for n, r in enumerate(runs, 1)),)
    merged = replace(first, cases=tuple(cases), source=first.source, footer=None,
                     notes=(*notes, *(x for r in runs for x in r.notes)))
    if any(r.truncated for r in runs):
        return merged
    footers = [r.footer for r in runs]
    return replace(merged, footer=merged.recomputed.footer(
        finished=max(f.finished for f in footers), exit_code=max(f.exit_code for f in footers)))


def report(args: argparse.Namespace) -> int:
    from agent_tck.harness.reports import StreamError, read, render

    if len(args.results) > 1 and not args.merge:
        raise HarnessError("USAGE", "several results files: give --merge to merge them",
                           str(args.results[1]))
    runs = []
    for path in args.results:
        try:
            runs.append(read(path))
        except (StreamError, OSError) as exc:
            raise HarnessError("RESULTS_INVALID", str(exc), str(path)) from exc
    sys.stdout.write(render(merge_runs(runs) if args.merge else runs[0], args.format))
    return 0
