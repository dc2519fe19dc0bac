"""check-log's hot path (issue 24): the line cutter, the table from event type to its checks, and
inputs that must get a verdict rather than an internal error. Verdicts, never timings."""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tck.harness.commands.check_log import bounded_lines, check_file
from agent_tck.reference_impl.developer_messages import admission as dm
from agent_tck.reference_impl.session_log import format as sl
from agent_tck.reference_impl.session_log import reader as log_reader
from tests import dsh_v4_logs as logs


def _lines_of(data: bytes) -> list[bytes]:
    """The lines a binary file yields: cut at b"\\n" only, each keeping it (the oracle)."""
    return sl.split_lines(data)


def _cut(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points) if b > a]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300).map(lambda b: b.replace(b"\x00", b"\n")),
       st.lists(st.integers(min_value=0, max_value=400), max_size=8),
       st.integers(min_value=1, max_value=40))
def test_bounded_lines_cuts_as_a_file_does(data: bytes, cuts: list[int], max_line: int) -> None:
    """Whatever the blocks, the lines are the file's lines; the first line of ``max_line`` bytes
    or more before its newline (an unterminated last line: more than ``max_line``) is
    LINE_TOO_LONG, named by its number."""
    expected = _lines_of(data)
    too_long = next((n for n, line in enumerate(expected, start=1)
                     if len(line) > max_line), None)
    got: list[bytes] = []
    try:
        got.extend(bounded_lines(_cut(data, cuts), max_line))
    except sl.LogRejected as exc:
        assert exc.error.code == sl.LINE_TOO_LONG
        assert exc.error.line == too_long
        assert got == expected[:len(got)]
        return
    assert too_long is None
    assert got == expected


class _Recorder(sl.Admission):
    """Records which admission saw which event type, in call order (shared list)."""

    def __init__(self, name: str, seen: list[tuple[str, str]],
                 types: frozenset[str] | None) -> None:
        self.name, self.seen, self.types = name, seen, types

    def admit(self, event: Mapping[str, Any], line: int) -> sl.Problem | None:
        self.seen.append((self.name, event["type"]))
        return None


def test_each_event_meets_the_admissions_for_its_type_every_type_ones_first() -> None:
    seen: list[tuple[str, str]] = []
    vocabulary = sl.VOCABULARY.extended(admissions=[
        lambda: _Recorder("typed", seen, frozenset({"step/start", "x/unknown"})),
        lambda: _Recorder("every", seen, None),
    ])
    w = logs.Writer()
    w.add("turn/start", {"turn": 1})
    w.add("step/start", {"turn": 1, "step": 1})
    w.add("x/unknown", {}, ignorable=True)
    w.add("y/unknown", {}, ignorable=True)
    log_reader.check(sl.split_lines(w.bytes()), vocabulary)
    assert seen == [("every", "turn/start"), ("every", "step/start"), ("typed", "step/start"),
                    ("every", "x/unknown"), ("typed", "x/unknown"), ("every", "y/unknown")]


def test_a_type_read_by_an_admission_but_unknown_to_the_vocabulary_stays_unknown() -> None:
    vocabulary = sl.VOCABULARY.extended(
        admissions=[lambda: _Recorder("typed", [], frozenset({"x/unknown"}))])
    w = logs.Writer()
    w.add("x/unknown", {})
    with pytest.raises(sl.LogRejected) as info:
        log_reader.check(sl.split_lines(w.bytes()), vocabulary)
    assert info.value.error.code == sl.UNKNOWN_EVENT_TYPE


@pytest.mark.parametrize("profile", ["default", "dsh-v4"])
@pytest.mark.parametrize("where", ["content", "stream"])
def test_a_block_type_that_is_an_object_gets_a_verdict(tmp_path: Path, profile: str,
                                                       where: str) -> None:
    """A block's "type" may be any JSON value: an object is not a tool-change block (it was an
    INTERNAL_ERROR: an unhashable value looked up in a set)."""
    w = logs.Writer()
    w.add("turn/start", {"turn": 1})
    message = {"id": "t-1", "role": "user", "source": {"kind": "user"},
               "content": [{"type": {"type": "tool-addition"}, "text": "title this"}]}
    if where == "content":
        w.add("session/title-llm-request", {"messages": [message]})
    else:
        w.add("step/start", {"turn": 1, "step": 1})
        w.surface("assistant/message", {"turn": 1, "step": 1, "message": {
            "id": "a-1", "role": "assistant", "source": logs.MODEL, "content": []},
            "stream": [{"chunk": {"type": "block-start", "blockType": {"a": 1}}}]})
    path = tmp_path / "log.jsonl"
    path.write_bytes(w.bytes())
    result = check_file(str(path), profile=profile)
    assert result.get("error", {}).get("code") != "INTERNAL_ERROR", json.dumps(result)


@pytest.mark.parametrize("data", [
    {"turn": {"a": 1}, "step": 1},  # step/end: an object turn closes no step
    {"turn": 1, "step": {"n": 1}},
])
def test_developer_admission_answers_for_unhashable_step_coordinates(data: dict[str, Any]) -> None:
    """admit() reads any JSON (no reader before it): an unhashable turn or step was a TypeError."""
    head = logs.header()
    assert dm.admit([head, {"type": "step/end", "seq": 0, "time": 1, "data": data}]) \
        == dm.Admission(())
    block = {"type": "user/message", "seq": 0, "time": 1,
             "data": {"role": "user", "content": [{"type": ["tool-addition"]}]}}
    assert dm.admit([head, block]) == dm.Admission(())
