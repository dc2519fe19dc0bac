"""One conformance run (``agent-tck run``): choose the target, load and filter the cases, run
them through the evaluate loop, stream the results and render the reports."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from agent_tck.harness.common.console import one_line
from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.contract.catalogue import Catalogue, load_catalogue
from agent_tck.harness.contract.vectors import Case, load_cases
from agent_tck.harness.reports.runs import (
    LATEST,
    REPORTS_ROOT,
    mark_latest,
    new_run_folder,
    safe_name,
)
from agent_tck.harness.run.baseline import load_baseline
from agent_tck.harness.run.evaluate import OBSERVED_RULES, observes, run_cases
from agent_tck.harness.run.protocol import OBSERVE
from agent_tck.harness.run.results import CaseResult, Footer, Header
from agent_tck.harness.run.runner import Filters, header, select
from agent_tck.harness.run.targets import InProcessTarget, Target


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
    from agent_tck.harness.run.subprocess_target import SubprocessTarget

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


class Console(Protocol):
    """What the run writes its console lines to (a text stream, or a :class:`PipeGuard`)."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...

    def isatty(self) -> bool: ...


class PipeGuard:
    """A console stream that goes quiet when its reader goes away (EPIPE), instead of
    raising into the run: the run finishes and writes its reports; the stream's file
    descriptor is pointed at the null device so the interpreter's last flush cannot fail
    either (the recipe of the Python docs, "Note on SIGPIPE")."""

    def __init__(self, stream: Console) -> None:
        self.stream = stream
        self.broken = False

    def write(self, text: str, /) -> int:
        if not self.broken:
            try:
                self.stream.write(text)
            except BrokenPipeError:
                self._went_away()
        return len(text)

    def flush(self) -> None:
        if not self.broken:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self._went_away()

    def isatty(self) -> bool:
        return not self.broken and self.stream.isatty()

    def _went_away(self) -> None:
        self.broken = True
        try:
            fd = self.stream.fileno()  # type: ignore[attr-defined]
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, fd)
            os.close(devnull)
        except (AttributeError, OSError, ValueError):  # not a file (a test's StringIO)
            pass


class _Progress:
    """A progress bar on a terminal; plain lines for problems otherwise."""

    def __init__(self, total: int, stream: Console) -> None:
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
                              f"{one_line(result.message)}\n")
        self.stream.flush()


def run_suite(request: RunRequest, out: Console = sys.stdout,
              err: Console = sys.stderr) -> int:
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
    filters = Filters(request.families, request.rules, request.keyword,
                      tuple(str(v) for v in request.vectors), not request.builtin_vectors)
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
    empty = covers_no_must(target.operations, cases, catalogue)
    if empty:  # issue 26 item 6: an empty adapter certifies nothing, so it never exits 0
        target.close()
        err.write(f"agent-tck: {empty}\n")
        return 1
    try:
        folder = _report_folder(request.report_dir, implementation["name"])
    except HarnessError:
        target.close()
        raise
    head = header(catalogue, selected, filters, target_info=target_info,
                  implementation=implementation, strict=request.strict)
    total = sum(len(c.expect) for c in selected)
    footer: Footer | None = None
    # A reader that goes away (`agent-tck run 2>&1 | head`) silences the console, never the run:
    # the cases go on and every report is finished.
    out, err = PipeGuard(out), PipeGuard(err)
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
    if request.report_dir is None:  # finished: only now does `latest` move to this run
        try:
            mark_latest(folder)
        except OSError as exc:
            err.write(f"agent-tck: could not update {folder.parent / LATEST}: "
                      f"{exc.strerror or exc}\n")
    _print_summary(footer, head, paths, out, observes(target))
    return footer.exit_code


def _report_folder(report_dir: Path | None, name: str) -> Path:
    """``--report-dir`` as given, else a new run folder ``reports/<name>/<timestamp>/``;
    created and known to take a file before any case runs."""
    try:
        if report_dir is None:
            folder = new_run_folder(REPORTS_ROOT / safe_name(name), datetime.now(UTC))
        else:
            folder = report_dir
        _check_writable(folder)
    except OSError as exc:
        raise HarnessError("REPORT_DIR", f"cannot write the reports there: "
                                         f"{exc.strerror or exc}",
                           str(report_dir or REPORTS_ROOT / safe_name(name))) from None
    return folder


def covers_no_must(declared: Iterable[str], cases: Sequence[Case],
                   catalogue: Catalogue) -> str:
    """Why a run of ``declared`` operations can certify nothing, or "" when it can: no
    operation declared at all, or none that a case citing a MUST rule runs."""
    declared = set(declared)
    if not declared:
        return ("the implementation declares no operation (\"operations\": []): nothing can "
                "be tested; declare the operations it implements (vectors/PROTOCOL.md)")
    must = {r.id for r in catalogue.rules if r.level == "MUST"}
    if any(e.operation in declared and must & set(c.rules_for(e))
           for c in cases for e in c.expect):
        return ""
    return (f"the declared operations ({', '.join(sorted(declared))}) cover no MUST rule of "
            "any vector: nothing the verdict needs can be tested")


def _check_writable(folder: Path) -> None:
    """The report folder exists (created if need be) and takes a file: else the real cause, before
    any case runs (not a RESULTS_UNREADABLE from the renderer afterwards)."""
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "results.jsonl").open("ab"):
        pass


def _print_summary(footer: Footer, head: Header, paths: dict[str, Path], out: Console,
                   observing: bool) -> None:
    counts = footer.counts
    impl = head.implementation
    out.write(one_line(f"agent-tck {head.tck_version} against {impl['name']} "
                       f"{impl.get('version', '')} ({head.target.get('command') or 'in-process'})")
              + "\n")  # the adapter's own words: one line
    for family in [*head.families, "overall"]:
        if family in footer.verdicts:
            verdict = footer.verdicts[family]
            names = verdict.failing
            more = (f" ({', '.join(names[:8])}{'…' if len(names) > 8 else ''})" if names
                    else "")
            covers = (f" [covers {', '.join(verdict.covers)}]" if family == "overall"
                      and verdict.covers and list(verdict.covers) != list(head.families) else "")
            out.write(f"  {family:<24} {verdict.text}{more}{covers}\n")
    for rid in sorted(OBSERVED_RULES):
        if footer.rules.get(rid) != "untested":
            continue
        if observing:  # said truthfully: it observes, but no selected case ran an observation
            out.write(f"  {rid} untested: no selected case runs an observed operation\n")
        else:
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
