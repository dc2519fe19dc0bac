"""check-log on logs written in the source runtime's real format v4, both profiles, the
note-governed log checks, tail recovery and hostile input (issues 17 and 12)."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tck.harness.cli import main
from agent_tck.harness.commands.check_log import bounded_lines, check_file, read_blocks
from agent_tck.reference_impl.session_log import dsh_v4
from agent_tck.reference_impl.session_log import format as sl
from agent_tck.reference_impl.session_log import profile_dsh as dsh
from agent_tck.reference_impl.session_log import reader as log_reader
from agent_tck.reference_impl.session_log import recorder as rec
from tests import dsh_v4_logs as logs

DEFAULT = sl.default_vocabulary()
STRICT = dsh.vocabulary(DEFAULT)


def verdict(data: bytes, vocabulary: sl.Vocabulary = DEFAULT) -> log_reader.LogCheckSummary:
    return log_reader.check(sl.split_lines(data), vocabulary)


def rejected(data: bytes, vocabulary: sl.Vocabulary = DEFAULT) -> sl.LogError:
    with pytest.raises(sl.LogRejected) as info:
        verdict(data, vocabulary)
    return info.value.error


def zstd_frames(data: bytes, frames: int = 3) -> bytes:
    """Concatenated zstd frames, cut at line boundaries (the source runtime appends frames)."""
    lines = data.splitlines(keepends=True)
    size = max(1, len(lines) // frames)
    compressor = zstandard.ZstdCompressor(write_checksum=True)
    return b"".join(compressor.compress(b"".join(lines[i:i + size]))
                    for i in range(0, len(lines), size))


SHAPES = {"one turn": logs.one_turn, "seeded fork child": logs.seeded_child,
          "every event type": logs.every_type}


# --- logs written from the format facts: accepted by both profiles, plain and zstd -------------


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("encoding", ["plain", "zstd"])
@pytest.mark.parametrize("profile", ["default", "dsh-v4"])
def test_real_v4_logs_are_accepted(tmp_path: Path, shape: str, encoding: str,
                                   profile: str) -> None:
    data = SHAPES[shape]().bytes()
    path = tmp_path / ("session.v4.jsonl" + (".zstd" if encoding == "zstd" else ""))
    path.write_bytes(zstd_frames(data) if encoding == "zstd" else data)
    result = check_file(str(path), profile=profile)
    assert result["valid"], result
    assert result["firstSeq"] == 0 and "warnings" not in result
    assert result["events"] == len(data.splitlines()) - 1


def test_every_type_of_the_source_vocabulary_is_written_and_known() -> None:
    written = {e["type"] for e in logs.every_type().events} | {"session/end-seed"}
    assert written == dsh_v4.KNOWN_EVENT_TYPES
    assert set(DEFAULT.validators) >= dsh_v4.KNOWN_EVENT_TYPES
    assert len(dsh_v4.KNOWN_EVENT_TYPES) == 60


def test_a_type_outside_the_vocabulary_still_needs_ignorable() -> None:
    w = logs.one_turn()
    w.add("plugin/telemetry", {"spans": 1})
    assert rejected(w.bytes()).code == sl.UNKNOWN_EVENT_TYPE
    w.events[-1]["ignorable"] = True
    assert verdict(w.bytes(), STRICT).events == len(w.events)


# --- the default profile accepts what the notes allow; dsh-v4 adds the runtime's strictness ----


def _mutate(mutation: str) -> logs.Writer:
    w = logs.one_turn()
    head, events = w.header, w.events
    if mutation == "header extra key":
        head["theme"] = "dark"
    elif mutation == "header retired sandboxMode":
        head["sandboxMode"] = "off"
    elif mutation == "header without isSeeded":
        del head["isSeeded"]
    elif mutation == "relative cwd":
        head["cwd"] = "work"
    elif mutation == "envelope extra key":
        events[0]["meta"] = 1
    elif mutation == "fractional time":
        events[0]["time"] = 1.5
    elif mutation == "ignorable false":
        events[0]["ignorable"] = False
    elif mutation == "seq from 1":
        for e in events:
            e["seq"] += 1
    elif mutation == "surface event without surfaceOp":
        del events[3]["surfaceOp"]
    elif mutation == "log-only event with surfaceOp":
        events[0]["surfaceOp"] = "append"
    elif mutation == "message without id":
        del events[3]["data"]["id"]
    elif mutation == "message without source":
        del events[5]["data"]["message"]["source"]
    elif mutation == "tool result naming another call":
        events[7]["data"]["message"]["source"]["callId"] = "other"
    elif mutation == "turn numbered 2 first":
        events[0]["data"]["turn"] = 2
    elif mutation == "step numbered 3 first":
        events[1]["data"]["step"] = 3
    elif mutation == "deferLoading false":
        events[4]["data"]["header"]["tools"][0]["deferLoading"] = False
    elif mutation == "seeded header without end-seed":
        head["isSeeded"] = True
    return w


DSH_ONLY = {
    "header extra key": dsh.DSH_HEADER, "header retired sandboxMode": dsh.DSH_HEADER,
    "header without isSeeded": dsh.DSH_HEADER, "relative cwd": dsh.DSH_HEADER,
    "envelope extra key": dsh.DSH_ENVELOPE, "fractional time": dsh.DSH_ENVELOPE,
    "seq from 1": dsh.DSH_SEQ_ORIGIN, "surface event without surfaceOp": dsh.DSH_SURFACE,
    "log-only event with surfaceOp": dsh.DSH_SURFACE, "message without id": dsh.DSH_MESSAGE,
    "message without source": dsh.DSH_MESSAGE, "tool result naming another call": dsh.DSH_MESSAGE,
    "turn numbered 2 first": dsh.DSH_LIFECYCLE, "step numbered 3 first": dsh.DSH_LIFECYCLE,
    "deferLoading false": dsh.DSH_DEFER_LOADING, "seeded header without end-seed": dsh.DSH_SEED,
}


@pytest.mark.parametrize("mutation", sorted(DSH_ONLY))
def test_dsh_v4_profile_refuses_what_only_the_source_runtime_requires(mutation: str) -> None:
    data = _mutate(mutation).bytes()
    assert verdict(data).events > 0  # the notes do not require it: the default accepts
    error = rejected(data, STRICT)
    assert error.code == DSH_ONLY[mutation]
    assert "[dsh-v4: packages/" in error.message or "[dsh-v4: docs/" in error.message
    assert error.line >= 1


def test_ignorable_false_is_a_default_boolean_and_a_dsh_refusal() -> None:
    data = _mutate("ignorable false").bytes()
    assert verdict(data).events > 0
    assert rejected(data, STRICT).code == dsh.DSH_ENVELOPE


# --- the note-governed checks that were missing: each rejected with code, line and seq ----------


def _two_messages_one_step() -> logs.Writer:
    w = logs.one_turn()
    w.events.insert(11, copy.deepcopy(w.events[10]))  # step 2's answer, split in two events
    return _renumber(w)


def _renumber(w: logs.Writer) -> logs.Writer:
    for index, event in enumerate(w.events):
        event["seq"], event["time"] = index, logs.T0 + index
    return w


def _empty_developer_over_head() -> logs.Writer:
    w = logs.one_turn()
    w.events.insert(11, {"type": "developer/message", "seq": 0, "time": 0, "data": {
        "turn": 1, "step": 2, "message": {"id": "d1", "role": "developer",
                                          "source": {"kind": "tool-registry"}, "content": []}},
        "surfaceOp": {"op": "replace", "startSeq": 2, "endSeq": 2}, "sourceEventSeqs": [2]})
    return _renumber(w)


def _uncited_replacement() -> logs.Writer:
    w = _empty_developer_over_head()
    dev = w.events[11]
    dev["surfaceOp"] = {"op": "replace", "startSeq": 3, "endSeq": 5}
    dev["sourceEventSeqs"] = [3]
    dev["data"]["message"]["content"] = [{"type": "text", "text": "note"}]
    return w


def _tool_change_in_stream(kind: str) -> logs.Writer:
    w = logs.one_turn()
    answer = w.events[10]
    block = {"type": "tool-addition", "toolName": "read_file"}
    if kind == "assistant/attempt":
        w.events.insert(10, {"type": "assistant/attempt", "seq": 0, "time": 0, "data": {
            "turn": 1, "step": 2, "stream": logs.compact_stream([block])}})
        return _renumber(w)
    answer["data"]["stream"] += logs.compact_stream([block])
    return w


def _retired_system_key() -> logs.Writer:
    w = logs.one_turn()
    w.events[4]["data"]["header"]["system"] = "You are helpful."
    return w


def _tool_result_block_in_user_message() -> logs.Writer:
    w = logs.one_turn()
    w.events[3]["data"]["content"].append(
        {"type": "tool-result", "toolCallId": "c-1", "content": []})
    return w


NOTE_CHECKS = {
    "two assistant/message for one step": (_two_messages_one_step, sl.STEP_MESSAGE_REPEATED, 13),
    "empty developer message over the system head": (
        _empty_developer_over_head, "DM_PROTECTED_HEAD_SHADOWED", 13),
    "replacement not citing what it shadows": (
        _uncited_replacement, "DM_REPLACEMENT_UNCITED", 13),
    "tool-change block in an attempt stream": (
        lambda: _tool_change_in_stream("assistant/attempt"), "DM_TOOL_CHANGE_NOT_DEVELOPER", 12),
    "tool-change block in a message stream": (
        lambda: _tool_change_in_stream("assistant/message"), "DM_TOOL_CHANGE_NOT_DEVELOPER", 12),
    "retired system key in request/header": (_retired_system_key, sl.RETIRED_SYNTAX, 6),
    "tool-result block in a user message": (
        _tool_result_block_in_user_message, sl.RETIRED_SYNTAX, 5),
}


@pytest.mark.parametrize("case", sorted(NOTE_CHECKS))
@pytest.mark.parametrize("profile", ["default", "dsh-v4"])
def test_note_governed_checks_reject_with_code_line_and_seq(case: str, profile: str) -> None:
    build, code, line = NOTE_CHECKS[case]
    error = rejected(build().bytes(), STRICT if profile == "dsh-v4" else DEFAULT)
    assert (error.code, error.line, error.seq) == (code, line, line - 2)


def _line(text: str) -> bytes:
    w = logs.one_turn()
    good = w.bytes().splitlines(keepends=True)
    return b"".join(good[:3]) + text.encode("utf-8", "surrogatepass") + b"\n" + b"".join(good[3:])


HOSTILE = {
    "NaN in data": '{"type":"todo/write","seq":99,"time":1,"data":{"n":NaN}}',
    "Infinity in data": '{"type":"todo/write","seq":99,"time":1,"data":{"n":-Infinity}}',
    "duplicate keys": '{"type":"assistant/chunk","type":"turn/start","seq":99,"time":1,"data":{}}',
    "lone surrogate": '{"type":"todo/write","seq":99,"time":1,"data":{"s":"\\ud800"}}',
    "2,000 arrays deep": '{"type":"todo/write","seq":99,"time":1,"data":{"d":'
                         + "[" * 2000 + "]" * 2000 + "}}",
    "100,000 arrays deep": "[" * 100_000 + "]" * 100_000,
    "seq 1e300": '{"type":"todo/write","seq":1e300,"time":1,"data":{}}',
    "seq -0.0": '{"type":"todo/write","seq":-0.0,"time":1,"data":{}}',
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_lines_are_rejected_with_a_code_never_a_traceback(case: str) -> None:
    # the bad line sits before turn/end: corruption, an error even with tail recovery
    data = _line(HOSTILE[case])
    with pytest.raises(sl.LogRejected) as info:
        log_reader.check(sl.split_lines(data), DEFAULT, recover=True)
    error = info.value.error
    assert error.code in (sl.MALFORMED_JSON, sl.INVALID_FIELD) and error.line == 4


def test_one_bad_file_never_loses_the_others_verdicts(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.jsonl"
    good.write_bytes(logs.one_turn().bytes())
    deep = tmp_path / "deep.jsonl"
    deep.write_bytes(_line(HOSTILE["100,000 arrays deep"]))
    endless = tmp_path / "endless.jsonl"
    endless.write_bytes(b"\0" * 300_000)
    code = main(["check-log", "--format", "json", "--max-line-bytes", "100000",
                 str(deep), str(endless), str(good)])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert [f["valid"] for f in report["files"]] == [False, False, True]
    assert report["files"][1]["error"]["code"] == sl.LINE_TOO_LONG


def test_an_endless_line_is_bounded() -> None:
    class Zeros(io.RawIOBase):
        read_bytes = 0

        def readable(self) -> bool:
            return True

        def read(self, size: int | None = -1) -> bytes:
            size = size if size and size > 0 else 1
            self.read_bytes += size
            return b"\0" * size

    zeros = Zeros()
    with pytest.raises(sl.LogRejected) as info:
        list(bounded_lines(read_blocks(zeros, chunk=1 << 16), max_line=1 << 20))
    assert info.value.error.code == sl.LINE_TOO_LONG
    assert zeros.read_bytes <= (1 << 20) + (1 << 16)


# --- recovery: what the source runtime's loader drops ----------------------------------------


def test_a_torn_final_line_is_a_warning(tmp_path: Path) -> None:
    data = logs.one_turn().bytes()
    path = tmp_path / "torn.jsonl"
    path.write_bytes(data[:-20])  # the last write stopped mid-line
    result = check_file(str(path))
    assert result["valid"] and result["events"] == len(data.splitlines()) - 2
    (warning,) = result["warnings"]
    assert warning["code"] == "RECOVERABLE_TAIL" and warning["line"] == len(data.splitlines())
    assert "drops 1 line(s)" in warning["message"]


def test_a_complete_final_line_without_newline_is_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "no-newline.jsonl"
    path.write_bytes(logs.one_turn().bytes()[:-1])
    result = check_file(str(path))
    assert result["valid"] and result["warnings"][0]["code"] == "TORN_FINAL_LINE"


def test_a_corrupt_tail_is_recoverable_but_corruption_before_turn_end_is_an_error(
        tmp_path: Path) -> None:
    w = logs.one_turn()
    lines = w.bytes().splitlines(keepends=True)
    tail = tmp_path / "tail.jsonl"
    tail.write_bytes(b"".join(lines[:-2]) + b"{not json\n" + lines[-2])  # no turn/end after
    result = check_file(str(tail))
    assert result["valid"] and result["warnings"][0]["code"] == "RECOVERABLE_TAIL"
    assert result["warnings"][0]["droppedLines"] == 2
    inner = tmp_path / "inner.jsonl"
    inner.write_bytes(b"".join(lines[:-2]) + b"{not json\n" + lines[-1])  # turn/end after it
    result = check_file(str(inner))
    assert not result["valid"] and result["error"]["code"] == sl.MALFORMED_JSON
    assert "later turn/end" in result["error"]["message"]


def test_a_torn_zstd_frame_is_a_recoverable_tail(tmp_path: Path) -> None:
    data = zstd_frames(logs.one_turn().bytes())
    path = tmp_path / "torn.jsonl.zstd"
    path.write_bytes(data[:-7])
    result = check_file(str(path))
    assert result["valid"] and result["warnings"][0]["code"] == "RECOVERABLE_TAIL"
    assert result["warnings"][0]["cause"]["code"] == sl.TORN_FRAME


def test_not_recoverable_problems_stay_errors_at_the_tail() -> None:
    w = logs.one_turn()
    w.add("assistant/chunk", {"turn": 1, "step": 2, "chunk": {}})
    with pytest.raises(sl.LogRejected) as info:
        log_reader.check(sl.split_lines(w.bytes()), DEFAULT, recover=True)
    assert info.value.error.code == sl.CHUNK_PERSISTED


# --- older versions ----------------------------------------------------------------------------


@pytest.mark.parametrize("version", [0, 1, 2, 3])
def test_an_older_version_says_what_it_is_and_that_the_runtime_migrates_it(version: int) -> None:
    w = logs.one_turn()
    w.header["version"] = version
    error = rejected(w.bytes())
    assert error.code == sl.UNSUPPORTED_VERSION and error.line == 1
    assert f"(v{version})" in error.message and "migrates" in error.message
    assert "non-current stored logs" in error.message


# --- properties ------------------------------------------------------------------------------


def _fixture(turns: list[list[str]]) -> dict[str, Any]:
    """A v4-shaped replay fixture: each turn has a user message and model steps."""
    script: list[dict[str, Any]] = []
    time = logs.T0
    for number, steps in enumerate(turns, start=1):
        script.append({"event": {"type": "turn/start", "time": time, "data": {"turn": number}}})
        script.append({"event": {"type": "user/message", "time": time, "data": {
            "id": f"u{number}", "role": "user", "source": {"kind": "user"},
            "content": [{"type": "text", "text": f"q{number}"}]}}})
        for step, text in enumerate(steps, start=1):
            script.append({"event": {"type": "step/start", "time": time,
                                     "data": {"turn": number, "step": step}}})
            script.append({"model": {"turn": number, "step": step, "time": time,
                                     "messageId": f"a{number}.{step}", "source": logs.MODEL,
                                     "stream": [{"type": "text-delta", "index": 0, "text": text},
                                                {"type": "finish",
                                                 "reason": {"kind": "stop"}}]}})
            script.append({"event": {"type": "step/end", "time": time,
                                     "data": {"turn": number, "step": step}}})
        script.append({"event": {"type": "turn/end", "time": time,
                                 "data": {"turn": number, "reason": {"kind": "completed"}}}})
    return {"kind": "agent-tck/replay-fixture", "fixtureVersion": 1, "sessionFormatVersion": 4,
            "session": {"id": "s-1", "createdAt": logs.T0, "cwd": "/w"}, "firstSeq": 0,
            "script": script}


TURNS = st.lists(st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=3),
                 min_size=1, max_size=3)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns=TURNS)
def test_any_log_the_recorder_writes_passes_dsh_v4(turns: list[list[str]]) -> None:
    text = rec.record_text(_fixture(turns))
    assert verdict(text.encode(), STRICT).first_seq == 0


CORRUPTIONS = st.sampled_from(["drop", "duplicate", "truncate", "garbage", "swap"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns=TURNS, which=CORRUPTIONS, at=st.integers(min_value=1), data=st.data())
def test_any_single_line_corruption_is_rejected_or_a_recoverable_tail(
        turns: list[list[str]], which: str, at: int, data: st.DataObject) -> None:
    lines = rec.record_text(_fixture(turns)).encode().splitlines(keepends=True)
    index = 1 + at % (len(lines) - 1)
    bad = list(lines)
    if which == "drop":
        if index == len(lines) - 1:
            return  # a prefix of a log is a log (an open turn stays open): nothing to detect
        del bad[index]
    elif which == "duplicate":
        bad.insert(index, lines[index])
    elif which == "truncate":
        bad[index] = lines[index][: data.draw(st.integers(1, len(lines[index]) - 2))] + b"\n"
    elif which == "garbage":
        bad[index] = data.draw(st.binary(min_size=1, max_size=20)).replace(b"\n", b"") + b"\n"
    elif index + 1 < len(bad):
        bad[index], bad[index + 1] = bad[index + 1], bad[index]
    else:
        bad[index], bad[index - 1] = bad[index - 1], bad[index]
    if bad == lines:
        return
    try:
        summary = log_reader.check(bad, STRICT, recover=True)
    except sl.LogRejected as exc:
        assert exc.error.code and exc.error.line >= 1
        return
    assert summary.tail is not None, f"{which} at line {index + 1} accepted silently"


# --- load recovers a v4 failed attempt's partial output from its stream -----------------------


def test_load_shows_a_v4_attempts_partial_output_from_its_stream() -> None:
    from agent_tck.reference_impl.session_log import views

    w = logs.one_turn()
    stream = logs.compact_stream([{"type": "text", "text": "It is a pro"}])[:2]  # no block-end
    stream += [{"type": "chunk", "chunk": {"type": "text-delta", "index": 0, "text": "ject"}}]
    w.events.insert(10, {"type": "assistant/attempt", "seq": 0, "time": 0,
                         "data": {"turn": 1, "step": 2, "stream": stream}})
    _renumber(w)
    log = log_reader.read(sl.split_lines(w.bytes()), STRICT)
    entries = [e for e in views.transcript(log) if e["role"] == "assistant"]
    assert {"role": "assistant", "status": "failed",
            "content": [{"type": "text", "text": "It is a project"}]} in entries
    assert entries[-1]["status"] == "complete"
