"""The session log reader and writer (reference_impl.session_log.format), family
chunk-free-persistence."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from agent_tck.reference_impl.session_log import format as sl
from agent_tck.reference_impl.session_log import reader as log_reader

VECTORS = Path(__file__).resolve().parent.parent / "vectors"
HEADER = {"type": "session", "version": 4, "id": "s-1", "createdAt": 1760000000000}


def line(value: Any) -> bytes:
    return (json.dumps(value, separators=(",", ":")) + "\n").encode()


def event(kind: str, seq: Any, data: Any, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "seq": seq, "time": 1760000000000 + (seq if isinstance(seq, int) else 0),
            "data": data, **extra}


def log(*events: Mapping[str, Any], header: Mapping[str, Any] = HEADER) -> list[bytes]:
    return [line(header), *(line(e) for e in events)]


def rejected(lines: list[bytes], vocabulary: sl.Vocabulary = sl.VOCABULARY) -> sl.LogError:
    with pytest.raises(sl.LogRejected) as info:
        log_reader.check(lines, vocabulary)
    with pytest.raises(sl.LogRejected) as again:
        log_reader.read(lines, vocabulary)
    first, second = info.value.error, again.value.error
    assert (first.code, first.line, first.seq) == (second.code, second.line, second.seq), (
        "check and read disagree")
    return info.value.error


TURN = event("turn/start", 1, {"turn": 1})
USER = event("user/message", 2, {"role": "user", "content": [{"type": "text", "text": "hi"}]})
ANSWER = event("assistant/message", 3, {"turn": 1, "step": 1, "message": {
    "role": "assistant", "content": [{"type": "text", "text": "Hello"}]}})


def test_a_valid_log_is_summarized() -> None:
    summary = log_reader.check(log(TURN, USER, ANSWER))
    assert summary.to_json() == {"valid": True, "version": 4, "events": 3, "firstSeq": 1,
                                 "lastSeq": 3}


def test_header_only_log_is_an_empty_session() -> None:
    assert log_reader.check(log()).to_json()["events"] == 0


@pytest.mark.parametrize(("version", "which"), [(0, "older"), (3, "older"), (5, "newer")])
def test_non_current_versions_name_found_and_expected(version: int, which: str) -> None:
    error = rejected(log(TURN, header={**HEADER, "version": version}))
    assert error.code == sl.UNSUPPORTED_VERSION
    assert error.line == 1
    assert f"version {version} found" in error.message and "version 4 expected" in error.message
    assert which in error.message


def test_version_is_checked_before_other_header_members() -> None:
    # an old header may lack today's members; the useful message is the version
    error = rejected(log(header={"type": "session", "version": 1}))
    assert error.code == sl.UNSUPPORTED_VERSION


def test_chunk_error_names_line_and_seq() -> None:
    chunk = event("assistant/chunk", 3, {"turn": 1, "step": 1, "chunk": {}}, ignorable=True)
    error = rejected(log(TURN, USER, chunk))
    assert (error.code, error.line, error.seq) == (sl.CHUNK_PERSISTED, 4, 3)
    assert "line 4 (seq 3)" in str(error)


@pytest.mark.parametrize(("third", "code"), [(9, sl.SEQ_GAP), (2, sl.SEQ_DUPLICATE),
                                             (1, sl.SEQ_DECREASE)])
def test_seq_problems(third: int, code: str) -> None:
    error = rejected(log(TURN, USER, {**ANSWER, "seq": third}))
    assert (error.code, error.line, error.seq) == (code, 4, third)


def test_seq_may_start_anywhere() -> None:
    events = [{**e, "seq": e["seq"] + 100} for e in (TURN, USER, ANSWER)]
    assert log_reader.check(log(*events)).to_json()["firstSeq"] == 101


@pytest.mark.parametrize(("raw", "code"), [
    (b"\n", sl.MALFORMED_JSON),
    (b'{"type":"turn/start",', sl.MALFORMED_JSON),
    (b'{"type":"turn/start","seq":1,"time":1,"data":{"turn":1,"x":"caf\xe9"}}', sl.INVALID_UTF8),
    (b"[1]", sl.INVALID_FIELD),
    (b'{"seq":1,"time":1,"data":{}}', sl.MISSING_FIELD),
    (b'{"type":7,"seq":1,"time":1,"data":{}}', sl.INVALID_FIELD),
    (b'{"type":"turn/start","seq":true,"time":1,"data":{"turn":1}}', sl.INVALID_FIELD),
    (b'{"type":"turn/start","seq":1,"time":"x","data":{"turn":1}}', sl.INVALID_FIELD),
    (b'{"type":"turn/start","seq":1,"time":1,"data":[]}', sl.INVALID_FIELD),
    (b'{"type":"turn/start","seq":1,"time":1,"data":{"turn":1},"ignorable":1}', sl.INVALID_FIELD),
    (b'{"type":"nope","seq":1,"time":1,"data":{}}', sl.UNKNOWN_EVENT_TYPE),
])
def test_malformed_lines(raw: bytes, code: str) -> None:
    error = rejected([line(HEADER), raw + b"\n"])
    assert (error.code, error.line) == (code, 2)


def test_empty_and_headerless_inputs() -> None:
    assert rejected([]).code == sl.EMPTY_LOG
    assert rejected([line(TURN)]).code == sl.MISSING_HEADER


@pytest.mark.parametrize(("kind", "data", "code"), [
    ("turn/end", {"turn": 1}, sl.MISSING_FIELD),
    ("step/start", {"turn": 1, "step": "2"}, sl.INVALID_FIELD),
    ("user/message", {"role": "assistant", "content": []}, sl.INVALID_FIELD),
    ("assistant/message", {"turn": 1, "step": 1, "message": {"role": "assistant"}},
     sl.MISSING_FIELD),
    ("assistant/message", {"turn": 1, "step": 1, "interrupted": "yes",
                           "message": {"role": "assistant", "content": []}}, sl.INVALID_FIELD),
    ("assistant/attempt", {"turn": 1, "step": 1, "message": {"role": "user", "content": []}},
     sl.INVALID_FIELD),
    ("tool/result", {"turn": 1, "step": 1, "message": {"role": "tool", "content": [],
                                                       "toolCallId": 3}}, sl.INVALID_FIELD),
    ("tool/call", {"turn": 1, "step": 1, "callId": "c", "name": "n"}, sl.MISSING_FIELD),
    ("request/header", {"header": {"tools": [{"description": "no name"}]}}, sl.INVALID_FIELD),
    ("system/message", {"turn": 1, "step": 1, "message": {"role": "system",
                                                          "content": [{"text": "x"}]}},
     sl.INVALID_FIELD),
])
def test_known_types_are_validated_even_when_ignorable(kind: str, data: Any, code: str) -> None:
    error = rejected(log(event(kind, 1, data, ignorable=True)))
    assert error.code == code and kind in error.message


def test_unknown_ignorable_type_is_admitted_and_kept() -> None:
    odd = event("plugin/x", 1, {"anything": [1, {"deep": None}]}, ignorable=True, extra="kept")
    result = log_reader.read(log(odd))
    assert result.events[0].value == odd


def test_round_trip_keeps_every_byte() -> None:
    text = (b'{"version": 4,"type":"session","id":"s","createdAt":1.5e12, "z": {}}\r\n'
            b'{ "seq":7 , "type":"turn/start","time":1,"data":{"turn":1,"u":"\\u00e9"}}\n'
            b'{"type":"turn/end","seq":8,"time":2.50,"data":{"turn":1,"reason":{"kind":"x"}}}')
    result = log_reader.read(sl.split_lines(text))
    assert not result.final_newline
    assert sl.write(result).encode() == text


def test_split_lines_splits_on_newline_only() -> None:
    assert sl.split_lines(b"a\rb\nc") == [b"a\rb\n", b"c"]
    assert sl.split_lines(b"a\n") == [b"a\n"]
    assert sl.split_lines(b"") == []


def test_builder_assigns_contiguous_seq_and_writes_canonical_lines() -> None:
    built = (sl.LogBuilder(HEADER, (), 5)
             .append("turn/start", 1, {"turn": 1})
             .append("turn/end", 2, {"turn": 1, "reason": {"kind": "completed"}}))
    text = sl.write(built.build())
    assert log_reader.check(sl.split_lines(text.encode())).to_json()["firstSeq"] == 5
    assert text.splitlines()[1] == '{"type":"turn/start","seq":5,"time":1,"data":{"turn":1}}'


def test_iter_log_streams_events_before_a_later_error() -> None:
    items = []
    with pytest.raises(sl.LogRejected):
        for item in log_reader.iter_log(log(TURN, USER, {**ANSWER, "seq": 7})):
            items.append(item)
    assert [type(i).__name__ for i in items] == ["Header", "Event", "Event"]


def test_vocabulary_extension_adds_types_and_stateful_admission() -> None:
    class OnlyOneTurn(sl.Admission):
        def __init__(self) -> None:
            self.turns = 0

        def admit(self, event: Mapping[str, Any], line: int) -> sl.Problem | None:
            self.turns += event["type"] == "turn/start"
            return ("TOO_MANY_TURNS", "one turn only") if self.turns > 1 else None

    vocabulary = sl.VOCABULARY.extended(
        {"plugin/x": lambda data: None if "n" in data else ("MISSING_FIELD", "n")},
        [OnlyOneTurn])
    assert "plugin/x" not in sl.VOCABULARY.validators  # the default stays as it was
    log_reader.check(log(event("plugin/x", 1, {"n": 1})), vocabulary)
    assert rejected(log(event("plugin/x", 1, {})), vocabulary).code == "MISSING_FIELD"
    two = log(TURN, {**TURN, "seq": 2})
    assert rejected(two, vocabulary).code == "TOO_MANY_TURNS"
    log_reader.check(log(TURN), vocabulary)  # a fresh admission per log: no state left behind


def _many(n: int) -> Iterator[bytes]:
    yield line(HEADER)
    for seq in range(1, n + 1):
        yield line(event("turn/start", seq, {"turn": seq, "pad": "x" * 200}))


def test_check_streams_with_flat_memory() -> None:
    tracemalloc.start()
    try:
        summary = log_reader.check(_many(20_000))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert summary.events == 20_000
    assert peak < 2_000_000, f"peak {peak} bytes: the reader is holding on to lines"


# --- the schemas describe the same format -------------------------------------------------------


def _validator(name: str) -> Draft202012Validator:
    schema = json.loads((VECTORS / "schema" / name).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _vector_cases(name: str) -> list[dict[str, Any]]:
    doc = json.loads((VECTORS / "chunk-free-persistence" / name).read_text(encoding="utf-8"))
    return list(doc["cases"])


def test_every_accepted_vector_log_matches_the_schemas() -> None:
    header_schema = _validator("session-log-header.schema.json")
    event_schema = _validator("session-log-event.schema.json")
    checked = 0
    for name in ("reader-valid.json", "load.json", "resume.json", "roundtrip.json"):
        for case in _vector_cases(name):
            expect = case["expect"]
            damaged = any(e.get("output", {}).get("tail") for e in expect.values())
            if "log" not in case["input"] or damaged or any("error" in e for e in expect.values()):
                continue  # a damaged log (session.recover's tail) is not a valid one
            lines = case["input"]["log"].splitlines()
            assert not list(header_schema.iter_errors(json.loads(lines[0]))), case["id"]
            for text in lines[1:]:
                errors = list(event_schema.iter_errors(json.loads(text)))
                assert not errors, f"{case['id']}: {errors[0].message}"
            checked += 1
    assert checked >= 15


def test_the_event_schema_refuses_what_the_reader_refuses() -> None:
    event_schema = _validator("session-log-event.schema.json")
    for bad in (event("assistant/chunk", 1, {}), event("plugin/x", 1, {}),
                event("turn/end", 1, {"turn": 1}), event("turn/start", -1, {"turn": 1})):
        assert list(event_schema.iter_errors(bad)), bad


def test_every_fixture_vector_matches_the_fixture_schema() -> None:
    schema = _validator("replay-fixture.schema.json")
    for case in _vector_cases("record.json"):
        errors = list(schema.iter_errors(case["input"]))
        assert not errors, f"{case['id']}: {errors[0].message}"
    refused = [c for c in _vector_cases("record-errors.json")
               if not list(schema.iter_errors(c["input"]))]
    # the schema cannot see stream order (finish last, no chunk after it): the recorder does
    assert {c["id"] for c in refused} <= {"cfp-fixture-stream-without-finish",
                                          "cfp-fixture-chunk-after-finish",
                                          "cfp-fixture-mixed-block-kinds"}


def test_a_typed_admission_sees_only_its_types() -> None:
    seen: list[str] = []

    class Watch(sl.Admission):
        types = frozenset({"turn/end"})

        def admit(self, event: Mapping[str, Any], line: int) -> sl.Problem | None:
            seen.append(event["type"])
            return None

    end = event("turn/end", 3, {"turn": 1, "reason": {"kind": "completed"}})
    log_reader.check(log(TURN, {**USER, "seq": 2}, end), sl.VOCABULARY.extended(admissions=[Watch]))
    assert seen == ["turn/end"]
