"""reference_impl.wire.equivalences: the one list, and the code that applies each row, agree."""

from __future__ import annotations

import re
from pathlib import Path

from agent_tck.reference_impl.wire import normal_form
from agent_tck.reference_impl.wire.equivalences import BOTH, EQUIVALENCES

SOURCE = Path(normal_form.__file__).read_text(encoding="utf-8")


def test_every_row_is_applied_and_every_mark_is_a_row() -> None:
    rows = {e.key for e in EQUIVALENCES}
    marks = set(re.findall(r"# EQ ([a-z-]+)", SOURCE))
    assert rows == marks


def test_each_row_says_why_where_and_for_what() -> None:
    for e in EQUIVALENCES:
        assert e.reason.strip() and e.equal.strip(), e.key
        assert set(e.wires) <= set(BOTH) and e.wires, e.key
        assert set(e.purposes) <= {"compare", "track"} and e.purposes, e.key
        if set(e.purposes) != {"compare", "track"}:
            # a row for one purpose only says why the other does not apply it
            assert "track" in e.reason.lower() or "compar" in e.reason.lower(), e.key


def test_keys_are_unique() -> None:
    keys = [e.key for e in EQUIVALENCES]
    assert len(keys) == len(set(keys))
