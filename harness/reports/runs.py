"""Run folders: every run keeps its own reports, and ``latest`` names the last finished one.

``agent-tck run`` without ``--report-dir`` writes to ``reports/<implementation>/<timestamp>/``
(UTC, ``20261201T222500Z``; a second run in the same second gets ``-2``, ``-3``...), so a second
run never removes the first run's reports, a filtered run included. When the run has finished
(its footer written and every view rendered), ``reports/<implementation>/latest`` is pointed at
it: a relative symbolic link, swapped atomically. Where symbolic links cannot be made (Windows
without the privilege, some network or FAT file systems), ``latest`` is a plain folder holding a
copy of that run's reports, replaced as a whole; a run that stops half-way never touches it.

``agent-tck report --list`` lists what is kept (:func:`kept_runs`): each run folder with its
start, its overall verdict (or *truncated*) and its case counts, read from the first and last
line of its ``results.jsonl`` only.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent_tck.harness.reports._text import one_line

LATEST = "latest"
RESULTS = "results.jsonl"
_STAMP = "%Y%m%dT%H%M%SZ"
_HEAD = 16 * 1024 * 1024  # longest header line read (it lists every rule of the run)
_TAIL = 1024 * 1024  # bytes read from the end of a results.jsonl to find its footer
#: where ``agent-tck run`` keeps its run folders, and what ``report --list`` lists by default
REPORTS_ROOT = Path("reports")


def safe_name(name: str) -> str:
    """A folder name under reports/ for an implementation name (never ``.`` or ``..``)."""
    safe = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in name)
    return "implementation" if not safe.strip(".") or safe == LATEST else safe


def stamp(now: datetime) -> str:
    """The folder name of a run started at ``now`` (UTC, sortable, no ``:`` for Windows)."""
    return now.astimezone(UTC).strftime(_STAMP)


def new_run_folder(parent: Path, now: datetime) -> Path:
    """Create and return a new, empty run folder under ``parent`` (``<stamp>``, else
    ``<stamp>-2``...): never one that exists, even with two runs racing."""
    parent.mkdir(parents=True, exist_ok=True)
    base = stamp(now)
    for n in range(1, 1000):
        folder = parent / (base if n == 1 else f"{base}-{n}")
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        return folder
    raise FileExistsError(f"{parent}: 999 run folders named {base}")


def mark_latest(folder: Path) -> Path:
    """Point ``<folder's parent>/latest`` at ``folder``: a symbolic link where the file system
    allows one, else a copy of the folder. Atomic for the link; the copy replaces the old one
    only once it is complete. Returns the ``latest`` path."""
    link = folder.parent / LATEST
    tmp = folder.parent / f".{LATEST}.{os.getpid()}.tmp"
    _remove(tmp)
    try:
        os.symlink(folder.name, tmp, target_is_directory=True)
    except (OSError, NotImplementedError):
        return _copy_latest(folder, link, tmp)
    try:
        if link.is_dir() and not link.is_symlink():  # an earlier copy: replace it
            _remove(link)
        os.replace(tmp, link)
    except OSError:
        _remove(tmp)
        raise
    return link


def _copy_latest(folder: Path, link: Path, tmp: Path) -> Path:
    shutil.copytree(folder, tmp)
    (tmp / ".source").write_text(folder.name + "\n", encoding="utf-8")
    old = link.with_name(f".{LATEST}.old.{os.getpid()}")
    if link.exists() or link.is_symlink():
        os.replace(link, old)
    os.replace(tmp, link)
    _remove(old)
    return link


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def latest_target(parent: Path) -> str | None:
    """The run folder name ``parent/latest`` names (link or copy), or ``None``."""
    link = parent / LATEST
    if link.is_symlink():
        return os.readlink(link)
    marker = link / ".source"
    if marker.is_file():
        return marker.read_text(encoding="utf-8").strip()
    return None


@dataclass(frozen=True)
class KeptRun:
    """One kept run folder, as ``report --list`` shows it."""

    implementation: str  # the folder under reports/
    folder: Path
    latest: bool
    started: str
    verdict: str  # the overall verdict, "truncated" (no footer) or "unreadable"
    counts: dict[str, int]
    filtered: bool

    def to_json(self) -> dict[str, Any]:
        return {"implementation": self.implementation, "folder": str(self.folder),
                "latest": self.latest, "started": self.started, "verdict": self.verdict,
                "counts": dict(self.counts), "filtered": self.filtered}


def kept_runs(root: Path) -> list[KeptRun]:
    """Every run folder under ``root`` (``reports/``): per implementation, oldest first.

    A folder counts as a run when it holds a ``results.jsonl``; an implementation folder
    written before run folders existed (its results.jsonl directly inside) is listed too.
    """
    out: list[KeptRun] = []
    if not root.is_dir():
        return out
    for impl in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        latest = latest_target(impl)
        for folder in _run_folders(impl):
            out.append(_describe(impl.name, folder, latest == folder.name))
    return out


def _run_folders(impl: Path) -> Iterator[Path]:
    if (impl / RESULTS).is_file():
        yield impl
    for child in sorted(impl.iterdir()):
        if (child.name != LATEST and not child.name.startswith(".") and child.is_dir()
                and not child.is_symlink() and (child / RESULTS).is_file()):
            yield child


def _describe(implementation: str, folder: Path, latest: bool) -> KeptRun:
    header, footer = _ends(folder / RESULTS)
    if header is None:
        return KeptRun(implementation, folder, latest, "", "unreadable", {}, False)
    filters = header.get("filters") if isinstance(header.get("filters"), dict) else {}
    filtered = bool(filters and any(filters.values()))
    verdict, counts = "truncated", {}
    if footer is not None:
        overall = (footer.get("verdicts") or {}).get("overall")
        verdict = overall.get("verdict", "?") if isinstance(overall, dict) else str(overall)
        counts = {k: v for k, v in (footer.get("counts") or {}).items()
                  if isinstance(v, int) and v}
    return KeptRun(implementation, folder, latest, str(header.get("started", "")), verdict,
                   counts, filtered)


def _ends(path: Path) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """(header, footer) of a results stream from its first line and its last complete one."""
    try:
        with path.open("rb") as handle:
            first = handle.readline(_HEAD)
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - _TAIL))
            tail = handle.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    except OSError:
        return None, None
    header, footer = _record(first), _record(tail)
    if header is None or header.get("type") != "header":
        return None, None
    return header, footer if footer is not None and footer.get("type") == "footer" else None


def _record(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def render_list(runs: list[KeptRun], root: Path) -> str:
    """The text of ``report --list``."""
    if not runs:
        return f"no runs kept under {root}/\n"
    lines = []
    for run in runs:
        counts = ", ".join(f"{n} {one_line(k, 40)}" for k, n in run.counts.items())
        marks = "".join([" (latest)" if run.latest else "", " (filtered)" if run.filtered else ""])
        lines.append(f"{one_line(str(run.folder))}/  {one_line(run.started or '-', 40)}  "
                     f"{one_line(run.verdict, 80)}{marks}" + (f"  [{counts}]" if counts else ""))
    lines.append(f"{len(runs)} run{'s' if len(runs) != 1 else ''} kept under {root}/")
    return "\n".join(lines) + "\n"
