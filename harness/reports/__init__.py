"""Report writers: the results stream and the views rendered from it.

``write_all(folder, records)`` writes ``results.jsonl`` (secrets redacted), reads it back, and
renders every view from the parsed stream alone (as bowtie does), so a later
``agent-tck report results.jsonl`` produces the same files:

=========================  ======================================  ==========================
file                       renderer                                for
=========================  ======================================  ==========================
results.jsonl              :mod:`harness.reports.stream`           machines; the source of all
junit.xml                  :func:`harness.reports.junit.render`    CI test tabs
summary.md                 :func:`harness.reports.markdown.render` ``$GITHUB_STEP_SUMMARY``
report.html                :func:`harness.reports.html.render`     people
badges/<family>.json       :func:`harness.reports.badges.render`   shields.io endpoint badges
=========================  ======================================  ==========================

Renderers are pure functions of a :class:`~harness.reports.stream.Run` (report.html also looks
up rule texts and vector files in the installed kit: :mod:`harness.reports.rule_texts`). Every
HTML page (report.html for runs and audits, matrix.html) takes its look from
:mod:`harness.reports.page`. Run folders, ``latest`` and ``report --list`` are
:mod:`harness.reports.runs`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from agent_tck.harness.reports import badges, html, junit, markdown, stream
from agent_tck.harness.reports.redact import redact
from agent_tck.harness.reports.stream import Run, StreamError, read
from agent_tck.harness.run.results import summarize

__all__ = ["FORMATS", "Run", "StreamError", "read", "redact", "render", "render_folder",
           "summarize", "write_all", "write_views"]

#: ``agent-tck report --format`` name -> (file name, renderer)
FORMATS: dict[str, tuple[str, Callable[[Run], str]]] = {
    "junit": ("junit.xml", junit.render),
    "md": ("summary.md", markdown.render),
    "html": ("report.html", html.render),
}


def render(run: Run, fmt: str) -> str:
    """One view of ``run``: ``junit``, ``md`` or ``html``."""
    try:
        return FORMATS[fmt][1](run)
    except KeyError:
        raise ValueError(f"unknown report format {fmt!r}; known: {', '.join(FORMATS)}") from None


def _write_text(path: Path, text: str) -> Path:
    """Write atomically (a reader never sees half a report)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def write_views(folder: str | os.PathLike[str], run: Run) -> dict[str, Path]:
    """Render every view of ``run`` into ``folder``; returns file name -> path.

    Badge files of families no longer in the run are removed from ``folder/badges`` so a
    stale badge cannot outlive its family.
    """
    folder = Path(folder)
    written: dict[str, Path] = {}
    for name, renderer in FORMATS.values():
        written[name] = _write_text(folder / name, renderer(run))
    badge_dir = folder / "badges"
    files = badges.render_all(run)
    for name, text in files.items():
        written[f"badges/{name}"] = _write_text(badge_dir / name, text)
    for old in badge_dir.glob("*.json"):
        if old.name not in files:
            old.unlink()
    return written


def write_all(folder: str | os.PathLike[str],
              records: Iterable[Mapping[str, Any]]) -> dict[str, Path]:
    """Write ``results.jsonl`` from ``records`` (header, cases, footer), then every view.

    Returns file name (``results.jsonl``, ``junit.xml``, ``summary.md``, ``report.html``,
    ``badges/<family>.json``, ``badges/overall.json``) -> path. Raises
    :class:`~harness.reports.stream.StreamError` (after writing results.jsonl, which keeps the
    data) when the records do not form a valid stream.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    results = folder / "results.jsonl"
    tmp = folder / f".results.jsonl.{os.getpid()}.tmp"
    try:
        stream.write(tmp, records)
        os.replace(tmp, results)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return render_folder(folder)


def render_folder(folder: str | os.PathLike[str]) -> dict[str, Path]:
    """Render every view from ``folder/results.jsonl``, finished or truncated.

    For a runner that streams its records with :class:`~harness.reports.stream.Writer` (so a
    crash leaves a truncated stream behind) and renders at the end, or in a ``finally``.
    """
    results = Path(folder) / "results.jsonl"
    return {"results.jsonl": results, **write_views(folder, read(results))}
