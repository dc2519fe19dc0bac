"""``agent-tck report RESULTS.jsonl``: re-render a view from a saved results stream;
``agent-tck report --merge A/results.jsonl B/results.jsonl ...``: one report from several
(a fleet running one proxy or one runner per host, an offline archive audited by shard);
``agent-tck report --list [DIR]``: the runs kept under ``reports/`` (or DIR)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.reports.stream import Run
from agent_tck.harness.run.results import CaseResult


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("report", help="render a saved results.jsonl (md, html, junit); "
                                             "--list: the runs kept")
    p.add_argument("results", type=Path, nargs="*",
                   help="a results.jsonl written by `agent-tck run` or `agent-tck audit` "
                        "(with --list: the reports folders to list, default reports/)")
    p.add_argument("--merge", action="store_true",
                   help="merge several results.jsonl (same catalogue) into one report")
    p.add_argument("--name", metavar="NAME",
                   help="with --merge: the name of the merged report; required when the "
                        "results are of different implementations or agent-tck versions")
    p.add_argument("--list", action="store_true",
                   help="list the run folders kept under reports/ (or the folders given)")
    p.add_argument("--format", choices=("md", "html", "junit"), default="md")
    p.set_defaults(func=report)


def _identity(run: Run) -> tuple[str, str]:
    impl = run.header.implementation
    return str(impl.get("name", "")), str(impl.get("version", ""))


def check_mergeable(runs: Sequence[Run], name: str | None) -> None:
    """Results of different implementations (name and version) or agent-tck versions are one
    report only when the caller names it: else a usage error listing what differs."""
    if name is not None:
        return
    impls = {_identity(r) for r in runs}
    kits = {r.header.tck_version for r in runs}
    if len(impls) > 1 or len(kits) > 1:
        listing = "; ".join(f"{r.source}: {r.implementation_label or '?'} "
                            f"(agent-tck {r.header.tck_version})" for r in runs)
        what = "implementations" if len(impls) > 1 else "agent-tck versions"
        raise HarnessError("RESULTS_MERGE", f"these results are of different {what} ({listing}): "
                                            "give --name NAME to merge them as one report")


def merge_runs(runs: Sequence[Run], name: str | None = None) -> Run:
    """One run from several with the same catalogue: the cases of all, in order (each case id
    prefixed with its stream's place in the list), the verdicts recomputed from them;
    truncated when any input is. The first header speaks for the merged run (its start,
    target and filters), under ``name`` when given; ``sources`` lists every input.
    Results of either stream format merge, as long as their rules are the same."""
    check_mergeable(runs, name)
    first = runs[0]
    ids = [r.id for r in first.header.rules]
    for run in runs[1:]:
        if [r.id for r in run.header.rules] != ids:
            raise HarnessError("RESULTS_MERGE",
                               "results of another catalogue cannot be merged "
                               f"with {first.source}", run.source)
    cases: list[CaseResult] = []
    for n, run in enumerate(runs, 1):
        for c in run.cases:
            cases.append(replace(c, seq=len(cases), case=f"{n}:{c.case}"))
    sources = tuple({"results": r.source, "implementation": r.implementation_label,
                     "tck_version": r.header.tck_version, "started": r.header.started,
                     "verdict": _overall(r)} for r in runs)
    notes = (f"merged from {len(runs)} streams: "
             + ", ".join(f"{n}: {r.source}" for n, r in enumerate(runs, 1)),)
    head = first.header
    if name is not None:
        head = replace(head, implementation={"name": name})
    merged = replace(first, header=head, cases=tuple(cases), source=first.source, footer=None,
                     notes=(*notes, *(x for r in runs for x in r.notes)), sources=sources)
    if any(r.truncated for r in runs):
        return merged
    footers = [r.footer for r in runs if r.footer is not None]
    return replace(merged, footer=merged.recomputed.footer(
        finished=max(f.finished for f in footers), exit_code=max(f.exit_code for f in footers)))


def _overall(run: Run) -> str:
    overall = run.verdicts.get("overall") if run.verdicts else None
    return overall.verdict if overall else "truncated"


def report(args: argparse.Namespace) -> int:
    from agent_tck.harness.reports import StreamError, read, render
    from agent_tck.harness.reports.runs import REPORTS_ROOT

    if getattr(args, "list", False):
        return _list(args.results or [REPORTS_ROOT])
    if not args.results:
        raise HarnessError("USAGE", "give a results.jsonl to render (or --list)")
    if len(args.results) > 1 and not args.merge:
        raise HarnessError("USAGE", "several results files: give --merge to merge them",
                           str(args.results[1]))
    runs = []
    for path in args.results:
        try:
            runs.append(read(path))
        except (StreamError, OSError) as exc:
            raise HarnessError("RESULTS_INVALID", str(exc), str(path)) from exc
    name = getattr(args, "name", None)
    if name is not None and not args.merge:
        raise HarnessError("USAGE", "--name names a merged report: give it with --merge")
    sys.stdout.write(render(merge_runs(runs, name) if args.merge else runs[0], args.format))
    return 0


def _list(roots: Sequence[Path]) -> int:
    from agent_tck.harness.reports.runs import kept_runs, render_list

    for root in roots:
        if not root.is_dir():
            raise HarnessError("USAGE", "no such reports folder", str(root))
        sys.stdout.write(render_list(kept_runs(root), root))
    return 0
