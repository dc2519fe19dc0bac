"""Steps for features/chunk_free_persistence.feature.

Fixtures and logs are written as tables (one row per script entry or event) and turned into the
replay-fixture and session-log JSON the ``session.*`` operations take
(vectors/chunk-free-persistence/README.md). Every call goes through ``tck_target``: the reference
implementation in process, or an adapter given with ``--impl``. Assertions read only what the
rules constrain: the durable view, the transcript, the live stream, error codes, and the provider
requests after the same normalization the vectors use.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from agent_tck.harness.run.outcome import CallResult, Errored, Output, Rejected
from agent_tck.reference_impl.wire.normal_form import (
    normalize_anthropic_messages,
    normalize_openai_chat,
)

TIME0 = 1760000000000
_FAILURES = {
    "error": {"message": "the stream failed", "code": "network"},
    "aborted": {"message": "aborted by the user", "code": "aborted"},
}
_DELTA = {"text": "text-delta", "reasoning": "reasoning-delta"}


@dataclass
class LogScenario:
    """What one scenario built and what the implementation answered."""

    fixtures: list[dict[str, Any]] = field(default_factory=list)
    log_rows: list[dict[str, Any]] = field(default_factory=list)
    log_version: int = 4
    log_text: str | None = None
    results: dict[str, CallResult] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)


@pytest.fixture
def cfp_scenario() -> LogScenario:
    return LogScenario()


# --- reading tables -----------------------------------------------------------------------------


def _rows(table: list[list[str]]) -> list[dict[str, str]]:
    header = [c.strip().lower() for c in table[0]]
    return [dict(zip(header, (c.strip() for c in cells), strict=True)) for cells in table[1:]]


def _literal(value: str) -> str:
    """A cell's text: a "quoted" cell is a JSON string (spaces kept), others as written."""
    if len(value) >= 2 and value.startswith('"') and value.endswith('"'):
        return str(json.loads(value))
    return value


def _text(value: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": _literal(value)}]


def _event_data(kind: str, value: str, turn: int, step: int) -> dict[str, Any]:
    """A runtime event's data from its table cell (see the feature's description)."""
    if kind == "turn/start":
        return {"turn": int(value)}
    if kind == "turn/end":
        return {"turn": int(value), "reason": {"kind": "completed"}}
    if kind in ("step/start", "step/end"):
        return {"turn": turn, "step": int(value)}
    if kind == "user/message":
        return {"role": "user", "content": _text(value)}
    if kind == "assistant/message":
        return {"turn": turn, "step": step,
                "message": {"role": "assistant", "content": _text(value)}}
    if kind == "assistant/chunk":
        return {"turn": turn, "step": step,
                "chunk": {"type": "text-delta", "index": 0, "text": _literal(value)}}
    if kind == "tool/call":
        call_id, name, arguments = value.split(" ", 2)
        return {"turn": turn, "step": step, "callId": call_id, "name": name,
                "arguments": arguments}
    if kind == "tool/result":
        call_id, _, text = value.partition(" ")
        return {"turn": turn, "step": step,
                "message": {"role": "tool", "toolCallId": call_id, "content": _text(text)}}
    return dict(json.loads(value))


def fixture_from_table(table: list[list[str]]) -> dict[str, Any]:
    """A replay fixture: event rows are stored as they are; consecutive model rows, up to a
    finish, are one model stream of the current turn and step."""
    script: list[dict[str, Any]] = []
    turn, step, time, streams = 1, 1, TIME0, 0
    stream: list[dict[str, Any]] | None = None
    indexes: dict[tuple[str, str], int] = {}
    for row in _rows(table):
        kind, value = row["kind"], row["value"]
        if row["entry"] == "event" or stream is None:
            time += 10  # per entry, not per chunk: a split must not change any time
        if row["entry"] == "event":
            data = _event_data(kind, value, turn, step)
            if kind == "turn/start":
                turn, step = data["turn"], 1
            elif kind == "step/start":
                step = data["step"]
            script.append({"event": {"type": kind, "time": time, "data": data}})
            continue
        if stream is None:
            streams += 1
            stream, indexes = [], {}
            script.append({"model": {"turn": turn, "step": step, "time": time,
                                     "messageId": f"a{streams}", "stream": stream}})
        if kind in _DELTA:
            index = indexes.setdefault((kind, ""), len(indexes))
            stream.append({"type": _DELTA[kind], "index": index, "text": _literal(value)})
        elif kind == "tool call":
            call_id, _, rest = value.partition(" ")
            chunk: dict[str, Any] = {"type": "tool-call-delta", "id": call_id}
            if ("tool", call_id) not in indexes:
                name, _, rest = rest.partition(" ")
                chunk["name"] = name
            chunk["index"] = indexes.setdefault(("tool", call_id), len(indexes))
            chunk["argumentsDelta"] = rest
            stream.append(chunk)
        elif kind == "usage":
            numbers = [int(part.split()[0]) for part in value.split(",")]
            stream.append({"type": "usage",
                           "usage": {"inputTokens": numbers[0], "outputTokens": numbers[1]}})
        elif kind == "finish":
            reason: dict[str, Any] = {"kind": value}
            if value in _FAILURES:
                reason["failure"] = dict(_FAILURES[value])
            stream.append({"type": "finish", "reason": reason})
            stream = None
        else:
            raise ValueError(f"unknown model row kind {kind!r}")
    return {"kind": "agent-tck/replay-fixture", "fixtureVersion": 1, "sessionFormatVersion": 4,
            "session": {"id": "ses-feature", "createdAt": TIME0}, "script": script}


def _log_text(ctx: LogScenario) -> str:
    if ctx.log_text is not None:
        return ctx.log_text
    header: dict[str, Any] = {"type": "session", "version": ctx.log_version,
                              "id": "ses-feature", "createdAt": TIME0}
    if ctx.log_version == 4:  # the v4 header's required members (format.ts, dsh_v4)
        header |= {"isSeeded": False, "delegationDepth": 0}
    lines = [header, *ctx.log_rows]
    return "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines)


def _log_rows(table: list[list[str]]) -> list[dict[str, Any]]:
    events = []
    for number, row in enumerate(_rows(table), start=1):
        events.append({"type": row["type"], "seq": int(row["seq"]), "time": TIME0 + number,
                       "data": _event_data(row["type"], row["value"], 1, 1)})
    return events


# --- rendering outputs for comparison with tables -----------------------------------------------


def render_blocks(content: Any) -> str:
    parts = []
    for block in content if isinstance(content, list) else []:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind in ("text", "reasoning"):
            parts.append(f"{kind} {json.dumps(block.get('text'), ensure_ascii=False)}")
        elif kind == "tool-call":
            parts.append(f"tool call {block.get('id')} {block.get('name')} "
                         f"{block.get('arguments')}")
        else:
            parts.append(json.dumps(block, ensure_ascii=False, sort_keys=True))
    return " + ".join(parts)


def _plain_text(content: Any) -> str:
    if isinstance(content, list) and all(
            isinstance(b, dict) and b.get("type") == "text" for b in content):
        return "".join(b["text"] for b in content)
    return render_blocks(content)


def render_view_event(event: dict[str, Any]) -> tuple[str, str]:
    kind = event.get("type", "?")
    if kind in ("assistant/message", "assistant/partial"):
        return kind, render_blocks(event.get("content"))
    data = event.get("data") or {}
    if kind == "user/message":
        return kind, _plain_text(data.get("content"))
    if kind == "tool/call":
        return kind, f"{data.get('callId')} {data.get('name')} {data.get('arguments')}"
    if kind == "tool/result":
        message = data.get("message") or {}
        return kind, (f"{message.get('toolCallId')} "
                      f"{json.dumps(_plain_text(message.get('content')), ensure_ascii=False)}")
    return kind, ""


def _describe(result: CallResult | None) -> str:
    match result:
        case None:
            return "no call was made"
        case Output(value=value):
            return f"an output: {json.dumps(value, ensure_ascii=False)[:800]}"
        case Rejected(code=code, message=message):
            return f"a rejection {code}: {message}"
        case Errored(reason=reason):
            return f"an error: {reason}"
    return repr(result)


def _output(ctx: LogScenario, key: str) -> Any:
    result = ctx.results.get(key)
    if not isinstance(result, Output):
        pytest.fail(f"expected an output from {key}, got {_describe(result)}", pytrace=False)
    return result.value


def _call(ctx: LogScenario, target: Any, key: str, operation: str, payload: Any) -> CallResult:
    result = target.call(operation, payload)
    ctx.results[key] = result
    return result


# --- Given ------------------------------------------------------------------------------------


@given("a replay fixture whose script is:")
def a_fixture(cfp_scenario: LogScenario, datatable: list[list[str]]) -> None:
    cfp_scenario.fixtures = [fixture_from_table(datatable)]


@given("another replay fixture whose script is:")
def another_fixture(cfp_scenario: LogScenario, datatable: list[list[str]]) -> None:
    cfp_scenario.fixtures.append(fixture_from_table(datatable))


@given(parsers.re(r"the fixture declares (?P<key>\w+) (?P<value>-?[0-9]+)"))
def fixture_declares(cfp_scenario: LogScenario, key: str, value: str) -> None:
    cfp_scenario.fixtures[0][key] = int(value)


@given("the session log:")
def a_log(cfp_scenario: LogScenario, datatable: list[list[str]]) -> None:
    cfp_scenario.log_rows = _log_rows(datatable)
    cfp_scenario.log_version = 4
    cfp_scenario.log_text = None


@given(parsers.re(r"the session log with format version (?P<version>[0-9]+):"))
def a_versioned_log(cfp_scenario: LogScenario, datatable: list[list[str]], version: str) -> None:
    cfp_scenario.log_rows = _log_rows(datatable)
    cfp_scenario.log_version = int(version)
    cfp_scenario.log_text = None


@given("the session log text:")
def a_log_text(cfp_scenario: LogScenario, docstring: str) -> None:
    cfp_scenario.log_text = docstring if docstring.endswith("\n") else docstring + "\n"


@given(parsers.re(r"the same log with its (?P<kind>\S+) events marked ignorable"))
def marked_ignorable(cfp_scenario: LogScenario, kind: str) -> None:
    kind = "assistant/chunk" if kind == "chunk" else kind
    for event in cfp_scenario.log_rows:
        if event["type"] == kind:
            event["ignorable"] = True


# --- When -------------------------------------------------------------------------------------


@when("the implementation records the fixture")
def records(cfp_scenario: LogScenario, tck_target: Any) -> None:
    _call(cfp_scenario, tck_target, "record", "session.record", cfp_scenario.fixtures[0])


@when("the implementation is asked to replay the session log as a fixture")
def replays_log(cfp_scenario: LogScenario, tck_target: Any) -> None:
    _call(cfp_scenario, tck_target, "record", "session.record", {"log": _log_text(cfp_scenario)})


@when("the implementation records each fixture as log text")
def records_text(cfp_scenario: LogScenario, tck_target: Any) -> None:
    cfp_scenario.texts = []
    for index, fixture in enumerate(cfp_scenario.fixtures):
        key = f"record-log-{index}"
        _call(cfp_scenario, tck_target, key, "session.record-log", fixture)
        cfp_scenario.texts.append(_output(cfp_scenario, key)["log"])


@when("the implementation checks the log")
def checks(cfp_scenario: LogScenario, tck_target: Any) -> None:
    _call(cfp_scenario, tck_target, "check", "session.check-log", {"log": _log_text(cfp_scenario)})


@when("the implementation recovers the log")
def recovers(cfp_scenario: LogScenario, tck_target: Any) -> None:
    _call(cfp_scenario, tck_target, "recover", "session.recover", {"log": _log_text(cfp_scenario)})


@when("the implementation reads the log and writes it back")
def round_trips(cfp_scenario: LogScenario, tck_target: Any) -> None:
    _call(cfp_scenario, tck_target, "roundtrip", "session.roundtrip",
          {"log": _log_text(cfp_scenario)})


@when("the implementation loads the log")
def loads(cfp_scenario: LogScenario, tck_target: Any) -> None:
    _call(cfp_scenario, tck_target, "load", "session.load", {"log": _log_text(cfp_scenario)})


@when(parsers.re(r'the recorded log is resumed with the user message "(?P<text>[^"]*)"'))
def resumed(cfp_scenario: LogScenario, tck_target: Any, text: str) -> None:
    _call(cfp_scenario, tck_target, "record-log", "session.record-log", cfp_scenario.fixtures[0])
    payload = {"log": _output(cfp_scenario, "record-log")["log"],
               "user": [{"type": "text", "text": text}]}
    _call(cfp_scenario, tck_target, "anthropic", "session.resume-anthropic", payload)
    _call(cfp_scenario, tck_target, "openai", "session.resume-openai", payload)


@when(parsers.re(r'the implementation resumes the log with the user message "(?P<text>[^"]*)"'))
def resumes_log(cfp_scenario: LogScenario, tck_target: Any, text: str) -> None:
    payload = {"log": _log_text(cfp_scenario), "user": [{"type": "text", "text": text}]}
    _call(cfp_scenario, tck_target, "anthropic", "session.resume-anthropic", payload)
    _call(cfp_scenario, tck_target, "openai", "session.resume-openai", payload)


# --- Then: the durable log ----------------------------------------------------------------------


@then(parsers.re(r"the durable log declares format version (?P<version>[0-9]+)"))
def declares_version(cfp_scenario: LogScenario, version: str) -> None:
    found = _output(cfp_scenario, "record").get("version")
    assert found == int(version), f"the recorded header declares version {found!r}"


@then("the durable log has no assistant/chunk event")
def no_chunk(cfp_scenario: LogScenario) -> None:
    events = _output(cfp_scenario, "record").get("events", [])
    chunks = [e for e in events if e.get("type") == "assistant/chunk"]
    assert not chunks, f"the durable log persists {len(chunks)} assistant/chunk event(s)"


@then("the durable log's seq numbers are contiguous")
def contiguous(cfp_scenario: LogScenario) -> None:
    assert _output(cfp_scenario, "record").get("seqContiguous") is True, (
        "the recorded log's seq numbers are not contiguous")


@then("the durable log holds, in order:")
def holds(cfp_scenario: LogScenario, datatable: list[list[str]]) -> None:
    events = _output(cfp_scenario, "record").get("events", [])
    actual = [render_view_event(e) for e in events]
    expected = [(row["record"], row["content"]) for row in _rows(datatable)]
    assert actual == expected, (
        "the durable log holds:\n" + "\n".join(f"  {k} | {c}" for k, c in actual))


@then("the recording is rejected with <code>")
@then(parsers.re(r"the recording is rejected with (?P<code>[A-Z_]+)"))
def recording_rejected(cfp_scenario: LogScenario, code: str) -> None:
    result = cfp_scenario.results.get("record")
    assert isinstance(result, Rejected) and result.code == code, (
        f"expected a rejection {code}, got {_describe(result)}")


def _transcript_rows(transcript: Any) -> list[tuple[str, str, str]]:
    rows = []
    for entry in transcript:
        role = entry.get("role", "?")
        if role == "assistant":
            rows.append((role, entry.get("status", ""), render_blocks(entry.get("content"))))
        else:
            rows.append((role, "", _plain_text(entry.get("content"))))
    return rows


def _expect_transcript(transcript: Any, datatable: list[list[str]]) -> None:
    actual = _transcript_rows(transcript)
    expected = [(r["role"], r["status"], r["content"]) for r in _rows(datatable)]
    assert actual == expected, (
        "the transcript shows:\n" + "\n".join(f"  {r} | {s} | {c}" for r, s, c in actual))


@then("loading the recorded log shows:")
def loading_recorded(cfp_scenario: LogScenario, tck_target: Any,
                     datatable: list[list[str]]) -> None:
    _call(cfp_scenario, tck_target, "record-load", "session.record-load",
          cfp_scenario.fixtures[0])
    _expect_transcript(_output(cfp_scenario, "record-load")["transcript"], datatable)


@then("the live stream showed:")
def live_stream(cfp_scenario: LogScenario, tck_target: Any, datatable: list[list[str]]) -> None:
    _call(cfp_scenario, tck_target, "record-live", "session.record-live",
          cfp_scenario.fixtures[0])
    live = _output(cfp_scenario, "record-live")["live"]
    actual = [(e.get("type"), e.get("text")) for e in live]
    expected = [(r["block"], _literal(r["text"])) for r in _rows(datatable)]
    # CFP-008 orders none of the live entries (one per turn, step and block): any order passes
    assert sorted(actual) == sorted(expected), f"the live stream showed {actual}"


@then("both durable logs are identical, byte for byte")
def identical_logs(cfp_scenario: LogScenario) -> None:
    first, second = cfp_scenario.texts
    assert first.encode() == second.encode(), (
        f"the logs differ:\n{first}\n---\n{second}")


@then("recording the first fixture again gives the same bytes")
def same_again(cfp_scenario: LogScenario, tck_target: Any) -> None:
    _call(cfp_scenario, tck_target, "again", "session.record-log", cfp_scenario.fixtures[0])
    again = _output(cfp_scenario, "again")["log"]
    assert again.encode() == cfp_scenario.texts[0].encode(), "a second recording differs"


# --- Then: checking, round trips, load ------------------------------------------------------------


@then(parsers.re(r"the log is rejected with (?P<code>[A-Z_]+)"))
def log_rejected(cfp_scenario: LogScenario, code: str) -> None:
    result = cfp_scenario.results.get("check")
    assert isinstance(result, Rejected) and result.code == code, (
        f"expected a rejection {code}, got {_describe(result)}")


@then(parsers.re(r"the log is accepted with (?P<count>[0-9]+) events?"))
def log_accepted(cfp_scenario: LogScenario, count: str) -> None:
    output = _output(cfp_scenario, "check")
    assert output.get("valid") is True and output.get("events") == int(count), (
        f"expected a valid log of {count} events, got {output}")


@then(parsers.re(r"a tail of (?P<count>[0-9]+) lines? from line (?P<line>[0-9]+) is dropped"))
def tail_dropped(cfp_scenario: LogScenario, count: str, line: str) -> None:
    tail = _output(cfp_scenario, "recover").get("tail")
    assert isinstance(tail, dict) and tail.get("line") == int(line) \
        and tail.get("droppedLines") == int(count), (
            f"expected a tail of {count} line(s) from line {line}, got {tail!r}")


@then(parsers.re(r"the recovery is refused with (?P<code>[A-Z_]+)"))
def recovery_refused(cfp_scenario: LogScenario, code: str) -> None:
    result = cfp_scenario.results.get("recover")
    assert isinstance(result, Rejected) and result.code == code, (
        f"expected a rejection {code}, got {_describe(result)}")


@then("the written log is the same text")
def same_text(cfp_scenario: LogScenario) -> None:
    written = _output(cfp_scenario, "roundtrip")["log"]
    original = _log_text(cfp_scenario)
    assert written.encode() == original.encode(), f"written back as:\n{written}"


@then("the transcript is:")
def transcript_is(cfp_scenario: LogScenario, datatable: list[list[str]]) -> None:
    _expect_transcript(_output(cfp_scenario, "load")["transcript"], datatable)


# --- Then: provider requests ----------------------------------------------------------------------

_WIRE = r"(?P<wire>Anthropic Messages|Chat Completions)"


def _request(ctx: LogScenario, wire: str) -> dict[str, Any]:
    key = "anthropic" if wire == "Anthropic Messages" else "openai"
    body = _output(ctx, key)
    normalize = normalize_anthropic_messages if key == "anthropic" else normalize_openai_chat
    try:
        return dict(normalize(body))
    except ValueError as exc:
        pytest.fail(f"the {wire} output is not a request body: {exc}", pytrace=False)


def anthropic_problems(body: dict[str, Any]) -> list[str]:
    """What would make Anthropic refuse this conversation (a small, rule-level subset)."""
    problems: list[str] = []
    messages = [m for m in body.get("messages", []) if m.get("role") != "system"]
    if not messages or messages[0].get("role") != "user":
        problems.append("the first message is not a user turn")
    previous_calls: set[Any] = set()
    for index, message in enumerate(messages):
        role, content = message.get("role"), message.get("content") or []
        if index and role == messages[index - 1].get("role"):
            problems.append(f"messages {index - 1} and {index} are both {role} turns")
        if not content:
            problems.append(f"message {index} ({role}) is empty")
        types = [b.get("type") for b in content if isinstance(b, dict)]
        results = {b.get("tool_use_id") for b in content
                   if isinstance(b, dict) and b.get("type") == "tool_result"}
        if role == "user":
            if {"thinking", "redacted_thinking", "tool_use"} & set(types):
                problems.append(f"user message {index} carries thinking or tool_use")
            if results - previous_calls:
                problems.append(f"user message {index} answers unknown tool calls")
            if previous_calls - results:
                problems.append(f"tool calls {sorted(previous_calls - results)} are unanswered")
            previous_calls = set()
        else:
            if results:
                problems.append(f"assistant message {index} carries a tool_result")
            previous_calls = {b.get("id") for b in content
                              if isinstance(b, dict) and b.get("type") == "tool_use"}
    if previous_calls:
        problems.append(f"tool calls {sorted(previous_calls)} are unanswered at the end")
    return problems


def openai_problems(body: dict[str, Any]) -> list[str]:
    """What would make Chat Completions refuse this conversation (a small subset)."""
    problems: list[str] = []
    pending: set[str] = set()
    for index, message in enumerate(body.get("messages", [])):
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in pending:
                problems.append(f"tool message {index} answers unknown call {call_id!r}")
            pending.discard(call_id)
            continue
        if pending:
            problems.append(f"tool calls {sorted(pending)} are unanswered before message {index}")
            pending = set()
        if role == "user" and not message.get("content"):
            problems.append(f"user message {index} is empty")
        if role in ("user", "tool") and ({"tool_calls", "reasoning_content"} & set(message)):
            problems.append(f"{role} message {index} carries tool calls or reasoning")
        if role == "assistant":
            pending = {c.get("id") for c in message.get("tool_calls") or []}
    if pending:
        problems.append(f"tool calls {sorted(pending)} are unanswered at the end")
    return problems


@then(parsers.re(f"the {_WIRE} request is valid"))
def request_valid(cfp_scenario: LogScenario, wire: str) -> None:
    body = _request(cfp_scenario, wire)
    check = anthropic_problems if wire == "Anthropic Messages" else openai_problems
    problems = check(body)
    assert not problems, f"the {wire} request would be refused: {problems}\n{body}"


@then(parsers.re(f'the {_WIRE} request\'s roles are "(?P<roles>[^"]*)"'))
def request_roles(cfp_scenario: LogScenario, wire: str, roles: str) -> None:
    body = _request(cfp_scenario, wire)
    actual = [m.get("role") for m in body.get("messages", [])]
    assert actual == [r.strip() for r in roles.split(",")], f"the roles are {actual}"


def _calls(wire: str, body: dict[str, Any]) -> set[str]:
    ids: set[Any] = set()
    for message in body.get("messages", []):
        if wire == "Anthropic Messages":
            ids |= {b.get("id") for b in message.get("content") or []
                    if isinstance(b, dict) and b.get("type") == "tool_use"}
            ids |= {b.get("tool_use_id") for b in message.get("content") or []
                    if isinstance(b, dict) and b.get("type") == "tool_result"}
        else:
            ids |= {c.get("id") for c in message.get("tool_calls") or []}
            if message.get("role") == "tool":
                ids.add(message.get("tool_call_id"))
    return ids


@then(parsers.re(f'the {_WIRE} request carries no tool call "(?P<call_id>[^"]+)"'))
def no_tool_call(cfp_scenario: LogScenario, wire: str, call_id: str) -> None:
    assert call_id not in _calls(wire, _request(cfp_scenario, wire)), (
        f"the {wire} request still carries tool call {call_id!r}")


@then(parsers.re(f'the {_WIRE} request\'s assistant text is "(?P<text>[^"]*)"'))
def assistant_text(cfp_scenario: LogScenario, wire: str, text: str) -> None:
    body = _request(cfp_scenario, wire)
    texts = []
    for message in body.get("messages", []):
        if message.get("role") != "assistant":
            continue
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "text":
                texts.append(block.get("text", ""))
    assert "".join(texts) == text, f"the assistant text is {''.join(texts)!r}"
