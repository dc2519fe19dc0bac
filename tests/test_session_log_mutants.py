"""The chunk-free-persistence vectors catch seeded faults: each mutant of the reference
implementation must fail at least one vector that cites the rule the fault breaks."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_tck.harness.contract.vectors import load_file
from agent_tck.harness.run.evaluate import failures
from agent_tck.harness.run.targets import InProcessTarget
from agent_tck.reference_impl.session_log import format as sl
from agent_tck.reference_impl.session_log import reader as log_reader
from agent_tck.reference_impl.session_log import recorder as rec
from agent_tck.reference_impl.session_log import views

FOLDER = Path(__file__).resolve().parent.parent / "vectors" / "chunk-free-persistence"


CASES = [c for p in sorted(FOLDER.glob("*.json")) for c in load_file(p)]


def failing_rules() -> set[str]:
    """Rules the failed expectations of the (possibly mutated) reference count against: the
    kit's one evaluate loop, in process (an expectation's own "rules" narrow the case's)."""
    return {rid for case, expectation, _ in failures(InProcessTarget(), CASES)
            for rid in case.rules_for(expectation)}


def _with_chunks(original: Callable[..., rec.Recording]) -> Callable[..., rec.Recording]:
    def record(raw: Any, vocabulary: sl.Vocabulary = sl.VOCABULARY) -> rec.Recording:
        recording = original(raw, vocabulary)
        events: list[sl.Event] = []
        for event in recording.log.events:
            if event.type in ("assistant/message", "assistant/attempt"):
                events.append(sl.Event(0, 0, sl.CHUNK_TYPE, {
                    "type": sl.CHUNK_TYPE, "seq": 0, "time": 0, "data": {"chunk": {}}}))
            events.append(event)
        renumbered = tuple(sl.Event(i + 2, e.seq, e.type, {**e.value, "seq": i + 1})
                           for i, e in enumerate(events))
        return rec.Recording(sl.Log(recording.log.header, renumbered), recording.live)

    return record


def _with_holes(original: Callable[..., rec.Recording]) -> Callable[..., rec.Recording]:
    def record(raw: Any, vocabulary: sl.Vocabulary = sl.VOCABULARY) -> rec.Recording:
        recording = original(raw, vocabulary)
        shift, events = 0, []
        for event in recording.log.events:
            if event.type == "assistant/message":
                shift += 3  # where the deltas used to be
            events.append(sl.Event(event.line, event.seq + shift, event.type,
                                   {**event.value, "seq": event.seq + shift}))
        return rec.Recording(sl.Log(recording.log.header, tuple(events)), recording.live)

    return record


_ORIGINAL_HEADER = log_reader._check_header
_ORIGINAL_RECORD = rec._record
_ORIGINAL_PARSE = rec.parse_fixture


def _any_version_fixture(raw: Any) -> Any:
    if isinstance(raw, dict) and "sessionFormatVersion" in raw:
        raw = {**raw, "sessionFormatVersion": sl.FORMAT_VERSION,
               "fixtureVersion": rec.FIXTURE_VERSION}
    return _ORIGINAL_PARSE(raw)


def _lenient_header(value: Any, line: int) -> int:
    if isinstance(value, dict) and type(value.get("version")) is int:
        value = {**value, "version": sl.FORMAT_VERSION}
    return _ORIGINAL_HEADER(value, line)


def _placeholder_for_empty_steps(entry: Any, stream: Any) -> Any:
    written = _ORIGINAL_RECORD(entry, stream)
    if written is None and stream.reason["kind"] == "max-tokens":
        placeholder = {"role": "assistant", "content": [{"type": "text", "text": "[cut]"}]}
        return "assistant/message", {"turn": entry["turn"], "step": entry["step"],
                                     "message": placeholder}
    return written


def _transcript_from_stream(log: sl.Log) -> list[dict[str, Any]]:
    out = views.__dict__["_original_transcript"](log)
    streamed = [e for e in log.events if "stream" in e.value["data"]]
    for entry, event in zip([e for e in out if e["role"] == "assistant"], streamed, strict=False):
        texts = event.value["data"]["stream"][0].get("texts", [])
        entry["content"] = [{"type": "text", "text": "".join(texts)}]
    return out


def _resume_with_attempts(log: sl.Log, user: Any = None) -> Any:
    promoted = tuple(sl.Event(e.line, e.seq, "assistant/message", {**e.value, "type":
                                                                  "assistant/message"})
                     if e.type == "assistant/attempt" and "message" in e.value["data"] else e
                     for e in log.events)
    return views.__dict__["_original_resume"](sl.Log(log.header, promoted), user)


def _resume_keeping_calls(log: sl.Log, user: Any = None) -> Any:
    results = [e for e in log.events if e.type == "tool/result"]
    history, tools = views.__dict__["_original_resume"](log, user)
    calls = [b for e in log.events if e.type == "assistant/message"
             for b in e.value["data"]["message"]["content"] if b.get("type") == "tool-call"]
    answered = {e.value["data"]["message"]["toolCallId"] for e in results}
    for message in history:
        if message["role"] == "assistant":
            message["content"] += [c for c in calls if c["id"] not in answered]
            calls = []
    return history, tools


def _canonical_writer(log: sl.Log) -> Iterator[str]:
    yield sl.encode(log.header.value) + "\n"
    for event in log.events:
        yield sl.encode(event.value) + "\n"


MUTANTS: dict[str, tuple[str, Callable[[pytest.MonkeyPatch], None]]] = {
    "recorder persists chunks": ("CFP-001", lambda mp: mp.setattr(
        rec, "record", _with_chunks(rec.record))),
    "recorder leaves chunk holes": ("CFP-009", lambda mp: mp.setattr(
        rec, "record", _with_holes(rec.record))),
    "reader admits chunks": ("CFP-002", lambda mp: mp.setattr(log_reader, "CHUNK_TYPE", "-")),
    "reader admits older versions": ("CFP-014", lambda mp: mp.setattr(
        log_reader, "_check_header", _lenient_header)),
    "reader admits newer versions": ("CFP-015", lambda mp: mp.setattr(
        log_reader, "_check_header", _lenient_header)),
    "failed partial output dropped": ("CFP-017", lambda mp: mp.setattr(
        rec, "RECORD_FOR", {**rec.RECORD_FOR, ("error", True): None})),
    "aborted partial output dropped": ("CFP-018", lambda mp: mp.setattr(
        rec, "RECORD_FOR", {**rec.RECORD_FOR, ("aborted", True): None})),
    "empty max-token step invents content": ("CFP-020", lambda mp: mp.setattr(
        rec, "_record", _placeholder_for_empty_steps)),
    "load rebuilds text from the stream record": ("CFP-021", lambda mp: (
        mp.setattr(views, "_original_transcript", views.transcript, raising=False),
        mp.setattr(views, "transcript", _transcript_from_stream))),
    "resume feeds failed attempts": ("CFP-026", lambda mp: (
        mp.setattr(views, "_original_resume", views.resume, raising=False),
        mp.setattr(views, "resume", _resume_with_attempts))),
    # keeping an unanswered call is refused by the suite's choice (drop it), CFP-D009; the
    # note's validity rules CFP-024/025 are checked by the Gherkin validity scenario
    "resume keeps unanswered tool calls": ("CFP-D009", lambda mp: (
        mp.setattr(views, "_original_resume", views.resume, raising=False),
        mp.setattr(views, "resume", _resume_keeping_calls))),
    "writer re-encodes what it read": ("CFP-D005", lambda mp: mp.setattr(
        sl, "write_lines", _canonical_writer)),
    "fixtures of any format version replay": ("CFP-016", lambda mp: mp.setattr(
        rec, "parse_fixture", _any_version_fixture)),
}


def test_the_unmutated_reference_passes_every_vector() -> None:
    assert failing_rules() == set()


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_each_mutant_is_caught(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rule, apply = MUTANTS[name]
    apply(monkeypatch)
    failed = failing_rules()
    assert rule in failed, f"mutant {name!r} survives: no vector citing {rule} fails " \
                           f"(failing: {sorted(failed)})"
