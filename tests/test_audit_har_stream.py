"""harness.audit.har_stream: a HAR read one entry at a time, across every chunk boundary."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from agent_tck.harness.audit import har_stream
from agent_tck.harness.audit.har_stream import Entry, HarDamage, har_entries


def entries(text: str, chunk: int, monkeypatch: pytest.MonkeyPatch) -> list[Entry]:
    monkeypatch.setattr(har_stream, "CHUNK", chunk)
    return list(har_entries(io.BytesIO(text.encode()), max_entry=1 << 20))


DOC: dict[str, Any] = {"log": {"version": "1.2", "creator": {"name": "é—x", "n": 12345},
                               "entries": [{"request": {"url": "u", "n": 1234567}},
                                           {"request": {"url": "ü" * 30}}, {"x": [1, 2.5]}],
                               "pages": [{"id": "p"}], "comment": 9876}}


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64, 1 << 20])
def test_every_chunk_size_reads_the_same_entries(chunk: int,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    for text in (json.dumps(DOC), json.dumps(DOC, indent=2)):
        got = entries(text, chunk, monkeypatch)
        assert [e.value for e in got] == DOC["log"]["entries"]
        assert [e.index for e in got] == [0, 1, 2] and all(e.error is None for e in got)


def test_a_lenient_entry_is_refused_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    text = '{"log": {"entries": [{"a": 1, "a": 2}, {"t": NaN}, {"ok": true}]}}'
    got = entries(text, 5, monkeypatch)
    assert [e.error is not None for e in got] == [True, True, False]
    assert "duplicate key" in str(got[0].error) and got[2].value == {"ok": True}


def test_damage_names_line_and_column(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(HarDamage) as info:
        entries('{"log": {"entries": [{"a": 1},\n {"b": ]}}', 4, monkeypatch)
    assert info.value.where.startswith("2:")
    with pytest.raises(ValueError, match="/log/entries"):
        entries('{"log": {"version": "1.2"}}', 4, monkeypatch)
    with pytest.raises(HarDamage, match="duplicate key"):
        entries('{"log": {"entries": []}, "log": {}}', 4, monkeypatch)
