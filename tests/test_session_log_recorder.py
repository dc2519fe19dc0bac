"""The recorder, load, resume and the durable view (family chunk-free-persistence)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.session_log import format as sl
from agent_tck.reference_impl.session_log import reader as log_reader
from agent_tck.reference_impl.session_log import recorder as rec
from agent_tck.reference_impl.session_log import views


def fixture(*script: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"kind": rec.FIXTURE_KIND, "fixtureVersion": 1, "sessionFormatVersion": 4,
            "session": {"id": "s", "createdAt": 1}, "script": list(script), **extra}


def ev(kind: str, data: dict[str, Any], time: int = 1) -> dict[str, Any]:
    return {"event": {"type": kind, "time": time, "data": data}}


def model(*stream: dict[str, Any], turn: int = 1, step: int = 1, **extra: Any) -> dict[str, Any]:
    return {"model": {"turn": turn, "step": step, "time": 5, "stream": list(stream), **extra}}


def text(t: str, index: int = 0) -> dict[str, Any]:
    return {"type": "text-delta", "index": index, "text": t}


def finish(kind: str = "stop") -> dict[str, Any]:
    reason: dict[str, Any] = {"kind": kind}
    if kind in ("error", "aborted"):
        reason["failure"] = {"message": "x", "code": "y"}
    return {"type": "finish", "reason": reason}


def types(recording: rec.Recording) -> list[str]:
    return [e.type for e in recording.log.events]


@pytest.mark.parametrize(("kind", "content", "written"), [
    ("stop", True, ["assistant/message"]),
    ("stop", False, ["assistant/message"]),
    ("tool-calls", True, ["assistant/message"]),
    ("max-tokens", True, ["assistant/message"]),
    ("max-tokens", False, []),
    ("aborted", True, ["assistant/message"]),
    ("aborted", False, []),
    ("error", True, ["assistant/attempt"]),
    ("error", False, ["assistant/attempt"]),
])
def test_the_record_table(kind: str, content: bool, written: list[str]) -> None:
    stream = [text("partial")] if content else []
    recording = rec.record(fixture(ev("turn/start", {"turn": 1}), model(*stream, finish(kind))))
    assert types(recording) == ["turn/start", *written]
    assert all(e.type != sl.CHUNK_TYPE for e in recording.log.events)
    if written:
        data = recording.log.events[1].value["data"]
        assert data.get("interrupted") is (True if kind == "aborted" else None)
        if kind == "error":  # CFP-D007: the v4 attempt {turn, step, stream}
            assert set(data) == {"turn", "step", "stream"}
            assert data["stream"][-1]["chunk"] == finish(kind)
            assert views.stream_content(data["stream"]) == (
                [{"type": "text", "text": "partial"}] if content else [])


def test_a_table_row_per_reachable_pair() -> None:
    assert set(rec.RECORD_FOR) == {(k, c) for k in rec.FINISH_KINDS for c in (True, False)}


def test_blocks_assemble_in_first_seen_order() -> None:
    recording = rec.record(fixture(model(
        {"type": "tool-call-delta", "index": 5, "id": "c1", "name": "f", "argumentsDelta": "{"},
        {"type": "reasoning-delta", "index": 2, "text": "think"},
        text("an", 0),
        {"type": "tool-call-delta", "index": 5, "id": "c1", "argumentsDelta": "}"},
        text("swer", 0),
        {"type": "usage", "usage": {"inputTokens": 1, "outputTokens": 2}},
        finish("tool-calls"), messageId="m1", source={"kind": "model"})))
    data = recording.log.events[0].value["data"]
    assert data["message"] == {"id": "m1", "role": "assistant", "source": {"kind": "model"},
                               "content": [
                                   {"type": "tool-call", "id": "c1", "name": "f",
                                    "arguments": "{}"},
                                   {"type": "reasoning", "text": "think"},
                                   {"type": "text", "text": "answer"}]}
    assert data["usage"] == {"inputTokens": 1, "outputTokens": 2}
    assert [e.to_json()["chunk"]["type"] for e in recording.live] == [
        "tool-call-delta", "reasoning-delta", "text-delta", "tool-call-delta", "text-delta"]


def test_live_view_joins_deltas_per_block() -> None:
    recording = rec.record(fixture(model(text("a"), text("b", 1), text("c"), finish()),
                                   model(text("d"), finish(), step=2)))
    assert rec.live_view(recording.live) == [
        {"turn": 1, "step": 1, "index": 0, "type": "text", "text": "ac"},
        {"turn": 1, "step": 1, "index": 1, "type": "text", "text": "b"},
        {"turn": 1, "step": 2, "index": 0, "type": "text", "text": "d"}]


@pytest.mark.parametrize(("stream", "pointer"), [
    ([text("a")], "/script/0/model/stream"),  # no finish
    ([finish(), text("a")], "/script/0/model/stream/1"),  # after finish
    ([{"type": "audio-delta"}, finish()], "/script/0/model/stream/0"),
    ([text("a"), {"type": "reasoning-delta", "index": 0, "text": "b"}, finish()],
     "/script/0/model/stream/1"),
    ([{"type": "tool-call-delta", "index": 0, "argumentsDelta": "{"}, finish()],
     "/script/0/model/stream/0/id"),
    ([{"type": "tool-call-delta", "index": 0, "id": "a", "argumentsDelta": ""},
      {"type": "tool-call-delta", "index": 0, "id": "b", "argumentsDelta": ""}, finish()],
     "/script/0/model/stream/1/id"),
    ([{"type": "finish", "reason": {"kind": "error"}}], "/script/0/model/stream/0/reason/failure"),
    ([text("a", -1), finish()], "/script/0/model/stream/0/index"),
])
def test_script_errors_name_the_chunk(stream: list[dict[str, Any]], pointer: str) -> None:
    with pytest.raises(TckError) as info:
        rec.record(fixture(model(*stream)))
    assert (info.value.code, info.value.pointer) == (rec.SCRIPT_INVALID, pointer)


def test_the_state_machine_error_names_state_and_chunk() -> None:
    with pytest.raises(TckError, match="no transition for chunk 'text-delta' in state "
                                       "'finished'"):
        rec.record(fixture(model(finish(), text("late"))))


@pytest.mark.parametrize(("change", "code"), [
    ({"sessionFormatVersion": 3}, rec.UNSUPPORTED_VERSION),
    ({"fixtureVersion": 0}, rec.UNSUPPORTED_VERSION),
    ({"fixtureVersion": "1"}, rec.FIXTURE_INVALID),
    ({"kind": "session"}, rec.FIXTURE_INVALID),
    ({"session": {"id": "s"}}, rec.FIXTURE_INVALID),
    ({"session": {"id": "s", "createdAt": 1, "version": 4}}, rec.FIXTURE_INVALID),
    ({"firstSeq": -1}, rec.FIXTURE_INVALID),
    ({"script": {}}, rec.FIXTURE_INVALID),
    ({"extra": 1}, rec.FIXTURE_INVALID),
])
def test_fixture_errors(change: dict[str, Any], code: str) -> None:
    with pytest.raises(TckError) as info:
        rec.record({**fixture(), **change})
    assert info.value.code == code


@pytest.mark.parametrize("entry", [
    ev("assistant/chunk", {"turn": 1, "step": 1, "chunk": {}}),
    ev("plugin/x", {}),
    ev("turn/start", {"turn": "1"}),
    {"event": {"type": "turn/start", "time": 1, "data": {"turn": 1}}, "model": {}},
    {"event": {"type": "turn/start", "time": "now", "data": {"turn": 1}}},
])
def test_passthrough_events_must_make_a_valid_log(entry: dict[str, Any]) -> None:
    with pytest.raises(TckError) as info:
        rec.record(fixture(entry))
    assert info.value.code in (rec.FIXTURE_INVALID, rec.SCRIPT_INVALID)


def test_an_ignorable_extension_event_passes_through() -> None:
    entry = {"event": {"type": "plugin/x", "time": 1, "data": {"a": 1}, "ignorable": True}}
    recording = rec.record(fixture(entry))
    assert recording.log.events[0].value == {"type": "plugin/x", "seq": 0, "time": 1,
                                             "data": {"a": 1}, "ignorable": True}


def test_the_recorder_never_mutates_its_fixture() -> None:
    raw = fixture(ev("turn/start", {"turn": 1}), model(text("a"), finish(), source={"k": 1}))
    before = copy.deepcopy(raw)
    recording = rec.record(raw)
    assert raw == before
    recording.log.events[1].value["data"]["message"]["source"]["k"] = 2  # a copy, not the input
    assert raw == before


def test_recorded_text_is_a_valid_log_starting_at_first_seq() -> None:
    text_log = rec.record_text(fixture(ev("turn/start", {"turn": 1}), model(text("a"), finish()),
                                       firstSeq=40))
    summary = log_reader.check(sl.split_lines(text_log.encode()))
    assert (summary.first_seq, summary.last_seq) == (40, 41)


# --- load, resume, view ---------------------------------------------------------------------------


def _log(*events: dict[str, Any]) -> sl.Log:
    builder = sl.LogBuilder({"type": "session", "version": 4, "id": "s", "createdAt": 1})
    for kind, data in events:
        builder = builder.append(kind, 1, data)
    return builder.build()


def _assistant(content: list[Any], **extra: Any) -> tuple[str, dict[str, Any]]:
    return ("assistant/message", {"turn": 1, "step": 1,
                                  "message": {"role": "assistant", "content": content}, **extra})


def _result(call_id: str) -> tuple[str, dict[str, Any]]:
    return ("tool/result", {"turn": 1, "step": 1, "message": {
        "role": "tool", "toolCallId": call_id, "content": [{"type": "text", "text": "ok"}]}})


CALL = {"type": "tool-call", "id": "c1", "name": "f", "arguments": "{}"}
SAY = {"type": "text", "text": "hi"}


def test_resume_pairs_tool_calls_and_results() -> None:
    log = _log(("user/message", {"role": "user", "content": [SAY]}),
               _assistant([CALL]),  # answered: kept
               _result("c1"),
               _assistant([{**CALL, "id": "c2"}], interrupted=True),  # unanswered: dropped...
               _result("c3"))  # ...and an orphan result is dropped too
    history, tools = views.resume(log, [SAY])
    assert [m["role"] for m in history] == ["user", "assistant", "tool", "user"]
    assert history[1]["content"] == [CALL] and tools is None


def test_resume_never_reads_attempts_or_embedded_streams() -> None:
    log = _log(("user/message", {"role": "user", "content": [SAY]}),
               ("assistant/attempt", {"turn": 1, "step": 1, "message": {
                   "role": "assistant", "content": [{"type": "text", "text": "half"}]}}),
               _assistant([{"type": "text", "text": "whole"}], stream=[{"texts": ["wh"]}]))
    history, _ = views.resume(log)
    assert history[-1] == {"role": "assistant", "content": [{"type": "text", "text": "whole"}]}
    assert len(history) == 2


def test_view_marks_non_contiguous_logs_and_shows_chunks() -> None:
    log = log_reader.read(sl.split_lines(
        b'{"type":"session","version":4,"id":"s","createdAt":1}\n'
        b'{"type":"turn/start","seq":1,"time":1,"data":{"turn":1}}\n'
        b'{"type":"turn/end","seq":2,"time":1,"data":{"turn":1,"reason":{"kind":"x"}}}\n'))
    gap = sl.Log(log.header, (log.events[0], sl.Event(3, 5, "assistant/chunk",
                                                       {"type": "assistant/chunk", "seq": 5,
                                                        "data": {"chunk": 1}})))
    view = views.durable_view(gap)
    assert view["seqContiguous"] is False
    assert view["events"][-1] == {"type": "assistant/chunk", "data": {"chunk": 1}}


def test_view_and_transcript_treat_both_partial_forms_alike() -> None:
    partial = [{"type": "text", "text": "half"}]
    as_attempt = _log(("assistant/attempt", {"turn": 1, "step": 2, "message": {
        "role": "assistant", "content": partial}, "failure": {}}))
    as_interrupted = _log(_assistant(partial, interrupted=True))
    as_v4 = rec.record(fixture(model(text("ha"), text("lf"), finish("error"), step=2))).log
    first, second = views.durable_view(as_attempt), views.durable_view(as_interrupted)
    assert first["events"][0]["type"] == second["events"][0]["type"] == "assistant/partial"
    assert views.durable_view(as_v4)["events"] == first["events"]  # CFP-D007: both forms read
    assert views.transcript(as_attempt)[0]["status"] == "failed"
    assert views.transcript(as_v4) == views.transcript(as_attempt)
    assert views.transcript(as_interrupted)[0]["status"] == "interrupted"


def test_views_ignore_what_no_rule_constrains() -> None:
    plain = _log(("turn/start", {"turn": 1}), _assistant([SAY]))
    decorated = _log(("turn/start", {"turn": 1}), ("usage/report", {"n": 1}),
                     _assistant([SAY], usage={"inputTokens": 3}, stream=[1]),
                     _assistant([]))  # an empty max-token message
    assert views.durable_view(plain)["events"] == views.durable_view(decorated)["events"]
    assert views.transcript(plain) == views.transcript(decorated)


def test_ops_report_line_and_seq_in_the_message() -> None:
    from agent_tck.harness.families import run_operation

    text_log = ('{"type":"session","version":4,"id":"s","createdAt":1}\n'
                '{"type":"turn/start","seq":1,"time":1,"data":{"turn":1}}\n'
                '{"type":"turn/start","seq":3,"time":1,"data":{"turn":2}}\n')
    with pytest.raises(TckError) as info:
        run_operation("session.check-log", {"log": text_log})
    assert info.value.code == sl.SEQ_GAP
    assert info.value.message.startswith("line 3 (seq 3):")
    with pytest.raises(TckError) as bad_input:
        run_operation("session.load", {"logBase64": "***"})
    assert bad_input.value.code == "INVALID_INPUT"
    assert json.loads(json.dumps(run_operation("session.read", {"log": text_log.rsplit(
        "\n", 2)[0] + "\n"})))["events"][0]["seq"] == 1
