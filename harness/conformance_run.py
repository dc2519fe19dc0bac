"""One conformance run (``agent-tck run``): choose the target, load and filter the cases, run
them through the evaluate loop, stream the results and render the reports."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from agent_tck.harness.baseline import load_baseline
from agent_tck.harness.catalogue import load_catalogue
from agent_tck.harness.errors import HarnessError
from agent_tck.harness.evaluate import OBSERVED_RULES, run_cases
from agent_tck.harness.protocol import OBSERVE
from agent_tck.harness.results import CaseResult, Footer, Header
from agent_tck.harness.runner import Filters, header, select
from agent_tck.harness.targets import InProcessTarget, Target
from agent_tck.harness.vectors import load_cases


@dataclass(frozen=True)
class RunRequest:
    impl: str | None = None
    families: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    keyword: str | None = None
    vectors: tuple[Path, ...] = ()
    builtin_vectors: bool = True
    report_dir: Path | None = None
    timeout: float = 10.0
    strict: bool = False
    expect: Path | None = None
    max_timeouts: int = 3  # consecutive timeouts before the adapter is taken as unresponsive


def open_target(impl: str | None, timeout: float = 10.0,
                max_timeouts: int = 3) -> tuple[Target, dict[str, Any], dict[str, Any]]:
    """(target, target info, implementation metadata) for ``--impl`` or the reference."""
    if impl is None:
        from agent_tck.harness.reference_adapter import handle

        started = handle({"cmd": "start", "protocol": 1}) or {}
        target = InProcessTarget(name=started["implementation"]["name"])
        meta = {**started["implementation"], "operations": sorted(target.operations)}
        return target, {"kind": "in-process"}, meta
    from agent_tck.harness.subprocess_target import SubprocessTarget

    sub = SubprocessTarget(impl, timeout=timeout, max_timeouts=max_timeouts)
    return sub, {"kind": "subprocess", "command": impl}, sub.implementation.to_json()


def _check_filters(request: RunRequest, catalogue_families: tuple[str, ...],
                   known: set[str]) -> None:
    for family in request.families:
        if family not in catalogue_families:
            raise HarnessError(
                "USAGE", f"unknown family {family!r}; known: {', '.join(catalogue_families)}"
            )
    for rid in request.rules:
        if rid not in known:
            raise HarnessError("USAGE", f"unknown rule {rid!r} (see `agent-tck rules`)")


class _Progress:
    """A progress bar on a terminal; plain lines for problems otherwise."""

    def __init__(self, total: int, stream: IO[str]) -> None:
        self.total, self.done, self.stream = total, 0, stream
        self.tty = stream.isatty()

    def __call__(self, result: CaseResult) -> None:
        self.done += 1
        status = result.status
        if self.tty:
            width = 30
            filled = width * self.done // max(self.total, 1)
            self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] "
                              f"{self.done}/{self.total}")
            if self.done == self.total:
                self.stream.write("\n")
        if status in {"fail", "errored"}:
            prefix = "\r" if self.tty else ""
            self.stream.write(f"{prefix}{status.upper():<8} {result.case} "
                              f"[{result.operation}] {', '.join(result.rules)}: "
                              f"{result.message}\n")
        self.stream.flush()


def run_suite(request: RunRequest, out: IO[str] = sys.stdout, err: IO[str] = sys.stderr) -> int:
    from agent_tck.harness.reports import render_folder
    from agent_tck.harness.reports.stream import Writer

    catalogue = load_catalogue()
    _check_filters(request, catalogue.families, set(catalogue.by_id))
    cases = load_cases(request.vectors, builtin=request.builtin_vectors,
                       known_rules=catalogue.by_id)
    baseline = (
        load_baseline(request.expect, (c.id for c in cases), catalogue.by_id)
        if request.expect else []
    )
    filters = Filters(request.families, request.rules, request.keyword)
    selected = select(cases, filters)
    if not selected:
        raise HarnessError("USAGE", "the filters select no vector case")
    if request.report_dir is not None and request.report_dir.exists() and not (
        request.report_dir.is_dir()
    ):
        raise HarnessError("USAGE", "--report-dir names a file, not a folder",
                           str(request.report_dir))
    target, target_info, implementation = open_target(request.impl, request.timeout,
                                                       request.max_timeouts)
    folder = request.report_dir or Path("reports") / _safe(implementation["name"])
    try:
        _check_writable(folder)
    except HarnessError:
        target.close()
        raise
    head = header(catalogue, selected, filters, target_info=target_info,
                  implementation=implementation, strict=request.strict)
    total = sum(len(c.expect) for c in selected)
    footer: Footer | None = None
    # Records are written as they come: a run killed half-way leaves a truncated stream that
    # the views render as such, instead of no report at all.
    try:
        with Writer(folder / "results.jsonl") as writer:
            for record in run_cases(target, selected, head, baseline=baseline,
                                    on_result=_Progress(total, err)):
                writer.write(record)
                if isinstance(record, Footer):
                    footer = record
    finally:
        target.close()
        paths = render_folder(folder)
    assert footer is not None  # run_cases ends with its footer unless it raised
    _print_summary(footer, head, paths, out)
    return footer.exit_code


def _check_writable(folder: Path) -> None:
    """The report folder exists (created if need be) and takes a file: else the real cause, before
    any case runs (not a RESULTS_UNREADABLE from the renderer afterwards)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / "results.jsonl").open("ab"):
            pass
    except OSError as exc:
        raise HarnessError("REPORT_DIR", f"cannot write the reports there: "
                                         f"{exc.strerror or exc}", str(folder)) from None


def _safe(name: str) -> str:
    """A folder name under reports/ for an implementation name (never ``.`` or ``..``)."""
    safe = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in name)
    return "implementation" if not safe.strip(".") else safe


def _print_summary(footer: Footer, head: Header, paths: dict[str, Path], out: IO[str]) -> None:
    counts = footer.counts
    impl = head.implementation
    out.write(f"agent-tck {head.tck_version} against {impl['name']} "
              f"{impl.get('version', '')} ({head.target.get('command') or 'in-process'})\n")
    for family in [*head.families, "overall"]:
        if family in footer.verdicts:
            verdict = footer.verdicts[family]
            names = verdict.failing
            more = (f" ({', '.join(names[:8])}{'…' if len(names) > 8 else ''})" if names
                    else "")
            out.write(f"  {family:<24} {verdict.verdict}{more}\n")
    for rid in sorted(OBSERVED_RULES):
        if footer.rules.get(rid) == "untested":
            out.write(f"  {rid} untested: the implementation does not declare the protocol 1.1 "
                      f"observe capability (\"observe\": {json.dumps(list(OBSERVE))}, "
                      "vectors/PROTOCOL.md)\n")
    for label in footer.stale_baseline:
        out.write(f"  stale baseline entry: {label} passes now; remove it from the baseline\n")
    out.write(f"reports: {paths['results.jsonl'].parent}/ "
              f"({', '.join(sorted(p for p in paths if '/' not in p))})\n")
    extra = ", ".join(f"{counts[k]} {k}" for k in ("errored", "not-applicable", "expected-fail",
                                                    "stale") if counts.get(k))
    # the plain closing line CI log readers look for
    out.write(f"{counts.get('pass', 0)} passed, {counts.get('fail', 0)} failed"
              + (f" ({extra})" if extra else "") + "\n")
