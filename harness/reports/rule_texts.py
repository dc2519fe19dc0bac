"""What report.html says about a rule and a case beyond the results stream: the rule's
statement, the note's quoted words and source (from the catalogue,
harness/contract/catalogue.py), and
the vector file a built-in case lives in (from vectors/).

A results stream names each rule (id, level, title) and each case (id), not their texts, so
the views look these up in the installed kit once per process. A rule or case the kit does
not know (an outside family, a ``--vectors`` file, a stream from another kit version that
renamed it) simply has no text: the report shows what the stream says and nothing invented.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path


@dataclass(frozen=True)
class RuleText:
    """A catalogue rule's words."""

    statement: str
    source: str  # the note's file name
    quote: str  # verbatim from the note
    reason: str = ""  # a suite decision's reason

    @property
    def note(self) -> str:
        """``note 000`` from ``000_8636dd5779457703.txt``, else the file name."""
        head = self.source.split("_", 1)[0]
        return f"note {head}" if head.isdigit() else self.source


@cache
def rule_texts() -> Mapping[str, RuleText]:
    """Rule id -> its words, from the installed catalogue ({} if it cannot be read)."""
    from agent_tck.harness.contract.catalogue import load_catalogue

    try:
        catalogue = load_catalogue()
    except Exception:  # a report renders without texts rather than not at all
        return {}
    return {r.id: RuleText(r.statement, r.source, r.quote, r.reason) for r in catalogue.rules}


@cache
def case_files() -> Mapping[str, str]:
    """Built-in case id -> its vector file, as ``vectors/<family>/<file>.json``."""
    from agent_tck.harness.contract.vectors import vector_files

    out: dict[str, str] = {}
    try:
        files = vector_files()
    except Exception:
        return out
    for path in files:
        try:
            doc = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        where = "/".join(Path(path).parts[-3:])
        for case in doc.get("cases", []) if isinstance(doc, dict) else []:
            if isinstance(case, dict) and isinstance(case.get("id"), str):
                out.setdefault(case["id"], where)
    return out


def case_file(case_id: str, recorded: object = None) -> str | None:
    """Where a case lives: the file its record names (``recorded``), else the built-in vector
    file of that id (a merged run's ``N:`` prefix ignored)."""
    if isinstance(recorded, str) and recorded:
        return recorded
    files = case_files()
    if case_id in files:
        return files[case_id]
    head, sep, rest = case_id.partition(":")
    return files.get(rest) if sep and head.isdigit() else None
