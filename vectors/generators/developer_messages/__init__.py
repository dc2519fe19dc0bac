"""The developer-messages vector files: one module per file, each a ``build()`` returning it.

Cases are written by a program here because every input is a session log that must be valid
chunk-free persistence apart from the one fault a case is about; the log builder (``build.Log``)
keeps seq, time and surface fields right. Every expectation is still written by hand.
"""

from __future__ import annotations

from . import binding, empty_and_deferred, history, reading, roles, wire
from .build import FAMILY

__all__ = ["FAMILY", "HAND_WRITTEN", "documents"]

#: files of the folder no section writes (requests of the wire form, BO-D009 / BO-D010)
HAND_WRITTEN = ("provider-validity.json",)

SECTIONS = (binding, history, reading, roles, empty_and_deferred, wire)


def documents() -> dict[str, str]:
    """File name -> the exact text of that vector file."""
    files = [section.build() for section in SECTIONS]
    seen: set[str] = set()
    for file in files:
        for case in file.cases:
            if case["id"] in seen:
                raise ValueError(f"case id {case['id']!r} written twice")
            seen.add(case["id"])
    return {f"{file.name}.json": file.text() for file in files}
