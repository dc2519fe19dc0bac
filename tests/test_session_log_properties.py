"""Properties of the chunk-free session log, with hypothesis.

* any split of the same content into deltas yields the same durable log (byte for byte);
* seq is always contiguous, and the recorder's log always passes the reader;
* load(record(script)) shows exactly the assembled content;
* a log that check-log accepts round-trips through read and write unchanged.
"""

from __future__ import annotations

import json
from itertools import pairwise
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tck.reference_impl.session_log import format as sl
from agent_tck.reference_impl.session_log import reader as log_reader
from agent_tck.reference_impl.session_log import recorder as rec
from agent_tck.reference_impl.session_log import views

SETTINGS = settings(max_examples=60, deadline=None)

texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=24)


@st.composite
def blocks(draw: Any) -> list[dict[str, Any]]:
    """The assembled content one stream produces (what load must show)."""
    out: list[dict[str, Any]] = []
    for n in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["text", "reasoning", "tool-call"]))
        if kind == "tool-call":
            out.append({"type": "tool-call", "id": f"call-{n}", "name": draw(st.sampled_from(
                ["read", "grep"])), "arguments": draw(texts)})
        else:
            out.append({"type": kind, "text": draw(texts)})
    return out


def _pieces(draw: Any, text: str) -> list[str]:
    cuts = sorted(draw(st.sets(st.integers(0, len(text)), max_size=6)))
    bounds = [0, *cuts, len(text)]
    pieces = [text[a:b] for a, b in pairwise(bounds)]
    return [p for p in pieces if p] or [""]


@st.composite
def stream_for(draw: Any, content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Deltas that assemble into ``content``: every block split at random points, the blocks'
    deltas interleaved at random while keeping each block's first delta in block order."""
    queues = []
    for index, block in enumerate(content):
        whole = block["arguments"] if block["type"] == "tool-call" else block["text"]
        deltas = []
        for number, piece in enumerate(_pieces(draw, whole)):
            if block["type"] == "tool-call":
                delta = {"type": "tool-call-delta", "index": index, "id": block["id"],
                         "argumentsDelta": piece}
                if number == 0:
                    delta["name"] = block["name"]
            else:
                delta = {"type": f"{block['type']}-delta", "index": index, "text": piece}
            deltas.append(delta)
        queues.append(deltas)
    out: list[dict[str, Any]] = []
    started = 0
    while any(queues):
        ready = [i for i in range(started) if queues[i]]
        if started < len(queues):
            ready.append(started)
        pick = draw(st.sampled_from(ready))
        if pick == started:
            started += 1
        out.append(queues[pick].pop(0))
    return out


def _fixture(script: list[dict[str, Any]], first_seq: int = 1) -> dict[str, Any]:
    return {"kind": rec.FIXTURE_KIND, "fixtureVersion": 1, "sessionFormatVersion": 4,
            "session": {"id": "s-prop", "createdAt": 1760000000000}, "firstSeq": first_seq,
            "script": script}


def _model(turn: int, step: int, stream: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    reason: dict[str, Any] = {"kind": kind}
    if kind in ("error", "aborted"):
        reason["failure"] = {"message": "boom", "code": "x"}
    return {"model": {"turn": turn, "step": step, "time": 1760000000500, "messageId": "a",
                      "stream": [*stream, {"type": "finish", "reason": reason}]}}


@SETTINGS
@given(st.data())
def test_any_split_of_the_same_content_gives_the_same_log(data: st.DataObject) -> None:
    content = data.draw(blocks())
    kind = data.draw(st.sampled_from(rec.FINISH_KINDS))
    logs = set()
    for _ in range(3):
        stream = data.draw(stream_for(content))
        script = [{"event": {"type": "turn/start", "time": 1, "data": {"turn": 1}}},
                  _model(1, 1, stream, kind)]
        logs.add(rec.record_text(_fixture(script)).encode())
    assert len(logs) == 1


@st.composite
def scripts(draw: Any) -> tuple[list[dict[str, Any]], list[tuple[str, list[dict[str, Any]]]]]:
    """A random session script, and per model step (finish kind, assembled content)."""
    script: list[dict[str, Any]] = []
    steps: list[tuple[str, list[dict[str, Any]]]] = []
    for turn in range(1, draw(st.integers(1, 3)) + 1):
        script.append({"event": {"type": "turn/start", "time": turn, "data": {"turn": turn}}})
        script.append({"event": {"type": "user/message", "time": turn, "data": {
            "role": "user", "content": [{"type": "text", "text": draw(texts)}]}}})
        for step in range(1, draw(st.integers(0, 3)) + 1):
            content = draw(blocks())
            kind = draw(st.sampled_from(rec.FINISH_KINDS))
            script.append(_model(turn, step, draw(stream_for(content)), kind))
            steps.append((kind, content))
            for block in content:
                if block["type"] == "tool-call" and draw(st.booleans()):
                    script.append({"event": {"type": "tool/result", "time": turn, "data": {
                        "turn": turn, "step": step, "message": {
                            "role": "tool", "toolCallId": block["id"], "content": []}}}})
        script.append({"event": {"type": "turn/end", "time": turn,
                                 "data": {"turn": turn, "reason": {"kind": "completed"}}}})
    return script, steps


@SETTINGS
@given(scripts(), st.integers(0, 10_000))
def test_seq_is_always_contiguous_and_the_log_always_reads(
    generated: tuple[list[dict[str, Any]], Any], first_seq: int
) -> None:
    script, _ = generated
    recording = rec.record(_fixture(script, first_seq))
    seqs = [e.seq for e in recording.log.events]
    assert seqs == list(range(first_seq, first_seq + len(seqs)))
    assert all(e.type != sl.CHUNK_TYPE for e in recording.log.events)
    text = sl.write(recording.log).encode()
    summary = log_reader.check(sl.split_lines(text))
    assert summary.events == len(seqs) and summary.version == sl.FORMAT_VERSION
    assert views.durable_view(recording.log)["seqContiguous"] is True


_STATUS = {"stop": "complete", "tool-calls": "complete", "max-tokens": "complete",
           "aborted": "interrupted", "error": "failed"}


@SETTINGS
@given(scripts())
def test_load_of_a_recording_shows_exactly_the_assembled_content(
    generated: tuple[list[dict[str, Any]], list[tuple[str, list[dict[str, Any]]]]],
) -> None:
    script, steps = generated
    text = rec.record_text(_fixture(script))
    shown = [(e["status"], e["content"])
             for e in views.transcript(log_reader.read(sl.split_lines(text.encode())))
             if e["role"] == "assistant"]
    expected = [(_STATUS[kind], content) for kind, content in steps if content]
    assert shown == expected


# --- round trips of accepted logs -----------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | texts
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8)


@st.composite
def spellings(draw: Any, value: Any) -> str:
    """One of the many ways to write the same JSON value on one line."""
    separators = draw(st.sampled_from([(",", ":"), (", ", ": "), (" ,", " : ")]))
    return json.dumps(value, separators=separators, ensure_ascii=draw(st.booleans()))


@st.composite
def accepted_logs(draw: Any) -> bytes:
    header = {"type": "session", "version": 4, "id": draw(texts), "createdAt": 1760000000000}
    header.update(draw(st.dictionaries(st.sampled_from(["x", "cwd2", "meta"]), json_values,
                                       max_size=2)))
    lines = [draw(spellings(header))]
    seq = draw(st.integers(0, 100))
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["turn/start", "plugin/ext", "user/message"]))
        if kind == "turn/start":
            data: dict[str, Any] = {"turn": draw(st.integers(0, 9))}
        elif kind == "user/message":
            data = {"role": "user", "content": [{"type": "text", "text": draw(texts)}]}
        else:
            data = {}
        data.update(draw(st.dictionaries(st.sampled_from(["u", "v"]), json_values, max_size=2)))
        value: dict[str, Any] = {"type": kind, "seq": seq, "time": draw(st.integers(0, 10**13)),
                                 "data": data}
        if kind == "plugin/ext" or draw(st.booleans()):
            value["ignorable"] = True
        value.update(draw(st.dictionaries(st.sampled_from(["surfaceOp", "w"]), json_values,
                                          max_size=2)))
        lines.append(draw(spellings(value)))
        seq += 1
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    text = ending.join(lines) + (ending if draw(st.booleans()) else "")
    return text.encode()


@SETTINGS
@given(accepted_logs())
def test_an_accepted_log_round_trips_unchanged(data: bytes) -> None:
    lines = sl.split_lines(data)
    log_reader.check(lines)  # accepted...
    assert sl.write(log_reader.read(lines)).encode() == data  # ...and written back byte for byte
