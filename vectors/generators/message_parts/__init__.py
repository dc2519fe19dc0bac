"""The message-parts vector files: one module per file, each a ``FILE`` of hand-written cases.

Every expected output is spelled out in the section modules from the rules (the builders in
:mod:`.build` only fill in the constant fields the note's table fixes: surface and default
behaviour per kind); nothing is computed by the reference implementation.
``tests/test_message_parts_vectors.py`` checks that the reference passes every case.
"""

from __future__ import annotations

from . import answer, branches, errors, kinds, order, projection, reconcile, titles
from .build import FAMILY

__all__ = ["FAMILY", "documents"]

SECTIONS = (kinds, order, projection, titles, answer, reconcile, branches, errors)


def documents() -> dict[str, str]:
    """File name -> the exact text of that vector file."""
    seen: set[str] = set()
    for section in SECTIONS:
        for case in section.FILE.cases:
            if case["id"] in seen:
                raise ValueError(f"case id {case['id']!r} written twice")
            seen.add(case["id"])
    return {f"{section.FILE.name}.json": section.FILE.text() for section in SECTIONS}
