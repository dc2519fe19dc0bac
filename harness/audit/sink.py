"""The audit's reports, written as the audit goes: memory follows findings, not requests.

:class:`ReportSink` is where every audited exchange goes, live (the mitmproxy addon) and
offline (``audit --read``) alike. ``results.jsonl`` gets its header when the sink opens and
each exchange's records (:class:`harness.audit.report.AuditTally`: findings, errored checks,
notes; nothing for a clean request) flushed as it is audited, so a ``kill -9`` leaves a
truncated stream ``agent-tck report`` renders. ``audit.json``'s per-exchange entries go to a
temporary file line by line. :meth:`ReportSink.finish` appends the per-rule ``pass`` records
and the footer, renders every view from the records it wrote (held as typed records, never read
back and re-validated), and assembles ``audit.json`` from the temporary file.

What stays in memory: a few counters per rule, the records written (one per finding, errored
check or note: a clean request costs nothing), and the conversations the engine tracks.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from agent_tck.harness.audit.engine import AuditResult, ExchangeResult
from agent_tck.harness.audit.redact import Scrubber
from agent_tck.harness.audit.report import (
    AuditTally,
    audit_document,
    every_wire_rule,
    exchange_entry,
    header_record,
)
from agent_tck.harness.run.results import CaseResult, Footer, Header

_PLACEHOLDER = "__agent_tck_exchanges__"


class ReportSink:
    """Feed audited exchanges with :meth:`add`; :meth:`finish` writes the rest of the reports
    and returns file name -> path. Not thread-safe: the caller serialises."""

    def __init__(self, folder: str | os.PathLike[str], *, source: str, name: str,
                 scrub: Scrubber) -> None:
        from agent_tck.harness.reports.stream import Writer

        self.folder = Path(folder)
        self.source = source
        self.scrub = scrub
        self.tally = AuditTally(every_wire_rule(), scrub)
        self.header = header_record(self.tally.rules, source=source, name=name, scrub=scrub)
        self.cases: list[CaseResult] = []
        self.writer = Writer(self.folder / "results.jsonl")
        self.writer.write(self.header)
        self._entries_path = self.folder / f".audit-exchanges.{os.getpid()}.tmp"
        self._entries: IO[str] | None = self._entries_path.open("w", encoding="utf-8")
        self._first = True

    def add(self, x: ExchangeResult) -> None:
        """Record one audited (or ignored) exchange."""
        for record in self.tally.records(x):
            self.writer.write(record)
            self.cases.append(CaseResult.from_json(record))
        if x.dialect is not None and self._entries is not None:
            line = json.dumps(exchange_entry(x, self.scrub), ensure_ascii=False)
            self._entries.write(("    " if self._first else ",\n    ") + line)
            self._first = False

    @property
    def exit_code(self) -> int:
        return self.tally.exit_code

    def finish(self, conversations: Iterable[Any] = (),
               notes: Iterable[str] = ()) -> dict[str, Path]:
        """The per-rule records and the footer, every view, and audit.json."""
        from agent_tck.harness.reports import write_views
        from agent_tck.harness.reports.stream import Run

        closing, footer = self.tally.closing()
        for record in closing:
            self.writer.write(record)
            self.cases.append(CaseResult.from_json(record))
        self.writer.write(footer)
        self.writer.close()
        header = Header.from_json(self.header)
        results = self.folder / "results.jsonl"
        run = Run(header, tuple(self.cases), Footer.from_json(footer, header.rules),
                  str(results))
        paths = {"results.jsonl": results, **write_views(self.folder, run)}
        paths["audit.json"] = self._write_audit_json(conversations, notes)
        return paths

    def _write_audit_json(self, conversations: Iterable[Any], notes: Iterable[str]) -> Path:
        assert self._entries is not None
        self._entries.close()
        self._entries = None
        doc = audit_document(_PLACEHOLDER, self.tally, conversations, notes,
                             source=self.source, scrub=self.scrub)
        head, tail = json.dumps(doc, indent=2, ensure_ascii=False).split(
            json.dumps(_PLACEHOLDER), 1)
        path = self.folder / "audit.json"
        tmp = self.folder / f".audit.json.{os.getpid()}.tmp"
        try:
            with tmp.open("w", encoding="utf-8") as out, self._entries_path.open(
                    encoding="utf-8") as entries:
                out.write(head + ("[\n" if not self._first else "["))
                while chunk := entries.read(1 << 20):
                    out.write(chunk)
                out.write(("\n  ]" if not self._first else "]") + tail + "\n")
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
            self._entries_path.unlink(missing_ok=True)
        return path

    def abandon(self) -> None:
        """Close the files without a footer (the stream reads as truncated) and render the
        views of that truncated stream, so no view of an earlier run stays beside it."""
        from agent_tck.harness.reports import render_folder

        self.writer.close()
        if self._entries is not None:
            self._entries.close()
            self._entries = None
        self._entries_path.unlink(missing_ok=True)
        (self.folder / "audit.json").unlink(missing_ok=True)
        with contextlib.suppress(Exception):  # already on the way out with the real error
            render_folder(self.folder)


def write_reports(folder: str | os.PathLike[str], result: AuditResult, *, source: str,
                  name: str = "audited agent", scrub: Scrubber | None = None) -> dict[str, Path]:
    """results.jsonl, junit.xml, summary.md, report.html (with the conversation timeline),
    badges, and audit.json, in ``folder``, for an audit held in memory."""
    sink = ReportSink(folder, source=source, name=name, scrub=scrub or Scrubber())
    for x in result.exchanges:
        sink.add(x)
    return sink.finish(result.conversations, result.notes)
