# Size: the steps of one feature file, features/developer_messages.feature; pytest-bdd
# binds steps by their text, and one module per feature keeps each step in one home.
"""Step definitions for features/developer_messages.feature (family developer-messages).

Every step reaches the implementation through ``tck_target`` (operations documented in
vectors/developer-messages/README.md); the log builder here only writes plain JSON lines.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from agent_tck.harness.run.outcome import Output, Rejected

ADMIT = "developer-messages.admit"
ROUNDTRIP = "developer-messages.roundtrip"
APPEND = "developer-messages.append"
FORK = "developer-messages.fork"
REMAP = "developer-messages.remap"
REQUEST = "developer-messages.anthropic-request"
BETAS = "developer-messages.anthropic-betas"
T0 = 1767225600000


# --- plain JSON builders ------------------------------------------------------------------------


def tool_schema(spec: str) -> dict[str, Any]:
    """'search v1' / 'search v1 deferred' -> a complete ToolSchema whose description is the spec."""
    words = spec.split()
    name, label = words[0], words[1]
    schema: dict[str, Any] = {"name": name, "description": f"{name} {label}",
                              "parameters": {"type": "object", "properties": {}}}
    if words[2:] == ["deferred"]:
        schema["deferLoading"] = True
    elif words[2:]:
        raise ValueError(f"cannot read the tool spec {spec!r}")
    return schema


def split_list(text: str) -> list[str]:
    """'a, b and c' -> ['a', 'b', 'c']."""
    text = text.replace(" and ", ", ")
    return [part.strip() for part in text.split(",") if part.strip()]


class LogUnderConstruction:
    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = [
            {"type": "session", "version": 4, "id": "s-bdd", "createdAt": T0}
        ]

    @property
    def next_seq(self) -> int:
        return len(self.lines)

    def event(self, seq: int, etype: str, data: dict[str, Any], **envelope: Any) -> None:
        assert seq == self.next_seq, f"the scenario writes seq {seq}, the log is at {self.next_seq}"
        self.lines.append({"type": etype, "seq": seq, "time": T0 + 1000 * seq, "data": data,
                           **envelope})

    def at(self, seq: int) -> dict[str, Any]:
        return self.lines[seq]


@pytest.fixture
def dm() -> dict[str, Any]:
    """The scenario's state: the log being written, the conversation, the last result."""
    return {"log": LogUnderConstruction()}


def developer_data(seq: int, content: list[dict[str, Any]], header: int | None, *,
                   turn: int = 1, step: int = 1) -> dict[str, Any]:
    data: dict[str, Any] = {
        "turn": turn, "step": step,
        "message": {"id": f"d-{seq}", "role": "developer", "source": {"kind": "tool-registry"},
                    "content": content},
    }
    if header is not None:
        data["headerSeq"] = header
    return data


def additions(names: str) -> list[dict[str, Any]]:
    return [{"type": "tool-addition", "toolName": n} for n in split_list(names)]


def removals(names: str) -> list[dict[str, Any]]:
    return [{"type": "tool-removal", "toolName": n} for n in split_list(names)]


def developer_role_message() -> dict[str, Any]:
    return {"id": "x-1", "role": "developer", "source": {"kind": "tool-registry"},
            "content": [{"type": "text", "text": "smuggled"}]}


def ordinary(role: str, content: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": f"{role[0]}-x", "role": role, "source": {"kind": role}, "content": content}


SLOTS = {
    "user/message": lambda m: m,
    "assistant/message": lambda m: {"turn": 1, "step": 1, "message": m},
    "tool/result": lambda m: {"turn": 1, "step": 1, "message": {**m, "toolCallId": "call-1"}},
    "system/message": lambda m: {"turn": 1, "step": 1, "message": m},
    "agent/inbox/spliced": lambda m: {"start": 3, "target": "self", "inserted": [m]},
    "session/title-llm-request": lambda m: {"messageSeqs": [3], "messages": [m]},
}


# --- the log --------------------------------------------------------------------------------------


@given(parsers.parse("a log whose turn {turn:d} step {step:d} is open"))
def open_log(dm: dict[str, Any], turn: int, step: int) -> None:
    log = dm["log"]
    log.event(log.next_seq, "turn/start", {"turn": turn})
    log.event(log.next_seq, "step/start", {"turn": turn, "step": step})


@given("a log with no open step")
def log_without_step(dm: dict[str, Any]) -> None:
    assert dm["log"].next_seq == 1


@given(parsers.re(r"(?P<kind>request|restart) header (?P<seq>\d+) defining (?P<tools>.+)"))
def request_header(dm: dict[str, Any], kind: str, seq: str, tools: str) -> None:
    schemas = [tool_schema(spec) for spec in split_list(tools)]
    dm["log"].event(int(seq), "request/header", {
        "reason": "restart" if kind == "restart" else "initial",
        "header": {"config": {"provider": "test", "model": "test"}, "tools": schemas},
    })


@given(parsers.parse("request header {seq:d} whose only search definition has no {member}"))
def incomplete_header(dm: dict[str, Any], seq: int, member: str) -> None:
    schema = tool_schema("search v1")
    del schema[member]
    dm["log"].event(seq, "request/header", {
        "reason": "initial", "header": {"tools": [schema, tool_schema("read_file v1")]}})


@given(parsers.parse("user message {seq:d}"))
def user_message(dm: dict[str, Any], seq: int) -> None:
    dm["log"].event(seq, "user/message",
                    ordinary("user", [{"type": "text", "text": f"question {seq}"}]))


@given(parsers.parse("a user message {seq:d} whose content is not an array"))
def malformed_user_message(dm: dict[str, Any], seq: int) -> None:
    dm["log"].event(seq, "user/message", {"role": "user", "content": "not an array"})


@given(parsers.parse('an ignorable "{etype}" record {seq:d} holding {what}'))
def opaque_record(dm: dict[str, Any], etype: str, seq: int, what: str) -> None:
    data: dict[str, Any] = {"note": "opaque"}
    if what != "nothing":
        data["header"] = {"tools": [tool_schema(s) for s in split_list(what)]}
    dm["log"].event(seq, etype, data, ignorable=True)


@given(parsers.parse("step {step:d} of turn {turn:d} ends at seq {seq:d}"))
def step_ends(dm: dict[str, Any], step: int, turn: int, seq: int) -> None:
    dm["log"].event(seq, "step/end", {"turn": turn, "step": step})


@given(parsers.parse("turn {turn:d} ends at seq {seq:d}"))
def turn_ends(dm: dict[str, Any], turn: int, seq: int) -> None:
    dm["log"].event(seq, "turn/end", {"turn": turn, "reason": {"kind": "completed"}})


@given(parsers.parse("turn {turn:d} step {step:d} starts at seq {seq:d}"))
def turn_starts(dm: dict[str, Any], turn: int, step: int, seq: int) -> None:
    dm["log"].event(seq, "turn/start", {"turn": turn})
    dm["log"].event(seq + 1, "step/start", {"turn": turn, "step": step})


@given(parsers.parse("a compaction summary {seq:d} covering seq {start:d} to {end:d}"))
def compaction(dm: dict[str, Any], seq: int, start: int, end: int) -> None:
    dm["log"].event(seq, "compaction/summary", {
        "turn": 1, "step": 1, "shadowedRange": {"start": start, "end": end},
        "summary": [{"type": "text", "text": "summary of the covered range"}]})


@given(parsers.parse("a {etype} event {seq:d} carrying a developer-role message"))
def developer_role_elsewhere(dm: dict[str, Any], etype: str, seq: int) -> None:
    dm["log"].event(seq, etype, SLOTS[etype](developer_role_message()))


@given(parsers.re(r"a (?P<etype>[a-z/-]+) event (?P<seq>\d+) carrying a "
                  r"(?P<block>tool-addition|tool-removal) block"))
def tool_change_elsewhere(dm: dict[str, Any], etype: str, seq: str, block: str) -> None:
    change = {"type": block, "toolName": "search"}
    if etype == "compaction/summary":
        data = {"turn": 1, "step": 1, "shadowedRange": {"start": 1, "end": 2},
                "summary": [change]}
    else:
        role = "assistant" if etype == "assistant/message" else "user"
        data = SLOTS[etype](ordinary(role, [{"type": "text", "text": "x"}, change]))
    dm["log"].event(int(seq), etype, data)


# --- developer messages ---------------------------------------------------------------------------


@given(parsers.re(r"developer message (?P<seq>\d+) adding (?P<names>[a-z_, ]+?) bound to header "
                  r"(?P<header>\d+)$"))
def dev_add(dm: dict[str, Any], seq: str, names: str, header: str) -> None:
    dm["log"].event(int(seq), "developer/message",
                    developer_data(int(seq), additions(names), int(header)))


@given(parsers.re(r"developer message (?P<seq>\d+) adding (?P<names>[a-z_]+) with no header "
                  r"reference$"))
def dev_add_unbound(dm: dict[str, Any], seq: str, names: str) -> None:
    dm["log"].event(int(seq), "developer/message",
                    developer_data(int(seq), additions(names), None))


@given(parsers.re(r"developer message (?P<seq>\d+) removing (?P<names>[a-z_, ]+?)"
                  r"(?: bound to header (?P<header>\d+))?$"))
def dev_remove(dm: dict[str, Any], seq: str, names: str, header: str | None) -> None:
    dm["log"].event(int(seq), "developer/message",
                    developer_data(int(seq), removals(names), int(header) if header else None))


@given(parsers.parse("developer message {seq:d} with empty content"))
def dev_empty(dm: dict[str, Any], seq: int) -> None:
    dm["log"].event(seq, "developer/message", developer_data(seq, [], None))


@given(parsers.parse("system message {seq:d} heading the surface"))
def system_head(dm: dict[str, Any], seq: int) -> None:
    dm["log"].event(seq, "system/message", {"turn": 1, "step": 1, "message": ordinary(
        "system", [{"type": "text", "text": "You are helpful."}])}, surfaceOp="append")


@given(parsers.re(r"developer message (?P<seq>\d+) with (?P<what>empty|text) content replacing "
                  r"seq (?P<start>\d+) to (?P<end>\d+), citing (?P<cited>[0-9, and]+)$"))
def dev_replacement(  # noqa: PLR0917 - one argument per captured group of the step
    dm: dict[str, Any], seq: str, what: str, start: str, end: str, cited: str
) -> None:
    content = [] if what == "empty" else [{"type": "text", "text": "note"}]
    dm["log"].event(int(seq), "developer/message", developer_data(int(seq), content, None),
                    surfaceOp={"op": "replace", "startSeq": int(start), "endSeq": int(end)},
                    sourceEventSeqs=[int(n) for n in split_list(cited)])


@given(parsers.parse("developer message {seq:d} adding search bound to header {header:d} with an "
                     "inline tool field set to {value}"))
def dev_inline(dm: dict[str, Any], seq: int, header: int, value: str) -> None:
    block = {"type": "tool-addition", "toolName": "search", "tool": json.loads(value)}
    dm["log"].event(seq, "developer/message", developer_data(seq, [block], header))


@given(parsers.parse("developer message {seq:d} adding search bound to header {header:d}, "
                     "replacing developer message {replaced:d}"))
def dev_replacing(dm: dict[str, Any], seq: int, header: int, replaced: int) -> None:
    dm["log"].event(seq, "developer/message", developer_data(seq, additions("search"), header),
                    surfaceOp={"kind": "replace", "startSeq": replaced, "endSeq": replaced})


@given(parsers.parse("developer message {seq:d} adding search with no header reference but "
                     "sourceEventSeqs naming seq {source:d}"))
def dev_source_seqs(dm: dict[str, Any], seq: int, source: int) -> None:
    dm["log"].event(seq, "developer/message", developer_data(seq, additions("search"), None),
                    sourceEventSeqs=[source])


@given(parsers.parse("developer message {seq:d} adding search bound to header {header:d}, "
                     "claiming its step is open"))
def dev_claims_open(dm: dict[str, Any], seq: int, header: int) -> None:
    data = developer_data(seq, additions("search"), header)
    data["stepOpen"] = True
    dm["log"].event(seq, "developer/message", data, openStep={"turn": 1, "step": 1})


@given(parsers.re(r"developer message (?P<seq>\d+) has lost its (?P<field>\w+)$"))
def dev_lost(dm: dict[str, Any], seq: str, field: str) -> None:
    data = dm["log"].at(int(seq))["data"]
    if field in ("turn", "step"):
        del data[field]
    elif field == "content":
        del data["message"]["content"]
    elif field == "toolName":
        del data["message"]["content"][0]["toolName"]
    else:
        raise ValueError(f"no such field in the scenario vocabulary: {field}")


@given(parsers.parse("developer message {seq:d} has lost its turn but carries turnNumber 1 and "
                     "coordinates for turn 1 step 1"))
def dev_lookalike_turn(dm: dict[str, Any], seq: int) -> None:
    data = dm["log"].at(seq)["data"]
    del data["turn"]
    data["turnNumber"] = 1
    data["coordinates"] = {"turn": 1, "step": 1}


@given(parsers.parse("developer message {seq:d} carries a user-role message with fields claiming "
                     "a developer role"))
def dev_user_role_claims(dm: dict[str, Any], seq: int) -> None:
    message = dm["log"].at(seq)["data"]["message"]
    message.update(role="user", developer=True, trueRole="developer")


@given(parsers.re(r"developer message (?P<seq>\d+) carries a (?P<role>\w+)-role message$"))
def dev_other_role(dm: dict[str, Any], seq: str, role: str) -> None:
    dm["log"].at(int(seq))["data"]["message"]["role"] = role


@given(parsers.parse("developer message {seq:d} is marked ignorable"))
def dev_ignorable(dm: dict[str, Any], seq: int) -> None:
    dm["log"].at(seq)["ignorable"] = True


@given(parsers.parse('every line of the log carries an extra field "{name}"'))
def extra_everywhere(dm: dict[str, Any], name: str) -> None:
    for index, line in enumerate(dm["log"].lines):
        line[name] = {"line": index}
        data = line.get("data")
        if isinstance(data, dict):
            data[name] = [index, None, True]
            message = data.get("message")
            if isinstance(message, dict):
                message[name] = "message"
                for block in message.get("content", []):
                    block[name] = "block"
            for tool in data.get("header", {}).get("tools", []) if line["type"] == (
                "request/header") else []:
                tool[name] = "schema"


# --- operations -----------------------------------------------------------------------------------


def call(tck_target: Any, dm: dict[str, Any], operation: str, payload: Any) -> None:
    dm["payload"] = payload
    dm["result"] = tck_target.call(operation, payload)


@when("developer admission reads the log")
def admit(tck_target: Any, dm: dict[str, Any]) -> None:
    call(tck_target, dm, ADMIT, {"log": copy.deepcopy(dm["log"].lines)})


@when(parsers.parse("developer admission reads the log with a current registry defining {tools}"))
def admit_with_registry(tck_target: Any, dm: dict[str, Any], tools: str) -> None:
    registry = [tool_schema(spec) for spec in split_list(tools)]
    call(tck_target, dm, ADMIT, {"log": copy.deepcopy(dm["log"].lines), "registry": registry})


@when(parsers.parse("the log is forked at seq {at:d}"))
def fork(tck_target: Any, dm: dict[str, Any], at: int) -> None:
    call(tck_target, dm, FORK, {"log": copy.deepcopy(dm["log"].lines), "at": at})


@when(parsers.parse("a migration drops seq {seqs}"))
def migrate(tck_target: Any, dm: dict[str, Any], seqs: str) -> None:
    drop = [int(s) for s in split_list(seqs)]
    call(tck_target, dm, REMAP, {"log": copy.deepcopy(dm["log"].lines), "drop": drop})


@when("the log is read and written back")
def roundtrip(tck_target: Any, dm: dict[str, Any]) -> None:
    call(tck_target, dm, ROUNDTRIP, {"log": copy.deepcopy(dm["log"].lines)})


def _append_payload(dm: dict[str, Any], header: int | None, extra: bool) -> dict[str, Any]:
    data = developer_data(0, additions("search"), header)
    del data["message"]["id"]
    event: dict[str, Any] = {"type": "developer/message", "time": T0 + 99_000, "data": data}
    if extra:
        event["x-writer-kept"] = {"nested": [1, 2]}
        data["message"]["content"][0]["note"] = "kept"
    return {"log": copy.deepcopy(dm["log"].lines), "event": event}


@when("the writer appends a developer message adding search with no header reference")
def append_unbound(tck_target: Any, dm: dict[str, Any]) -> None:
    call(tck_target, dm, APPEND, _append_payload(dm, None, extra=False))


@when(parsers.parse("the writer appends a developer message adding search bound to header "
                    "{header:d} with an extra field"))
def append_bound(tck_target: Any, dm: dict[str, Any], header: int) -> None:
    call(tck_target, dm, APPEND, _append_payload(dm, header, extra=True))


# --- outcomes -------------------------------------------------------------------------------------


def output(dm: dict[str, Any]) -> Any:
    result = dm["result"]
    assert isinstance(result, Output), f"expected an output, got {result!r}"
    return result.value


def rejected_with(dm: dict[str, Any], code: str) -> None:
    result = dm["result"]
    assert isinstance(result, Rejected), f"expected a rejection {code}, got {result!r}"
    assert result.code == code, f"expected {code}, got {result.code}: {result.message}"


@then("developer admission accepts the log")
def accepted(dm: dict[str, Any]) -> None:
    value = output(dm)
    assert isinstance(value, dict) and isinstance(value.get("developerMessages"), list)


@then(parsers.parse("developer admission rejects the log with {code}"))
def admission_rejects(dm: dict[str, Any], code: str) -> None:
    rejected_with(dm, code)


@then(parsers.parse("the migration is refused with {code}"))
def migration_refused(dm: dict[str, Any], code: str) -> None:
    rejected_with(dm, code)


@then(parsers.parse("the writer refuses it with {code}"))
def writer_refuses(dm: dict[str, Any], code: str) -> None:
    rejected_with(dm, code)


def record(dm: dict[str, Any], seq: int) -> dict[str, Any]:
    records = [r for r in output(dm)["developerMessages"] if r.get("seq") == seq]
    assert len(records) == 1, f"developer message {seq} is listed {len(records)} times"
    return records[0]


@then(parsers.re(r"developer message (?P<seq>\d+) adds (?P<name>[a-z_]+) as (?P<spec>.+) from "
                 r"header (?P<header>\d+)$"))
def adds(dm: dict[str, Any], seq: str, name: str, spec: str, header: str) -> None:
    entry = record(dm, int(seq))
    assert entry.get("headerSeq") == int(header), entry
    found = [c for c in entry["changes"]
             if c.get("kind") == "addition" and c.get("toolName") == name]
    assert len(found) == 1, entry
    assert found[0].get("definition") == tool_schema(spec), found[0]


@then(parsers.parse("developer message {seq:d} removes {name}"))
def removes(dm: dict[str, Any], seq: int, name: str) -> None:
    entry = record(dm, seq)
    assert {"kind": "removal", "toolName": name} in entry["changes"], entry
    assert "headerSeq" not in entry, entry


@then(parsers.parse("developer message {seq:d} has no changes and comes before developer message "
                    "{later:d}"))
def no_changes_before(dm: dict[str, Any], seq: int, later: int) -> None:
    assert record(dm, seq)["changes"] == []
    order = [r["seq"] for r in output(dm)["developerMessages"]]
    assert order.index(seq) < order.index(later), order


@then(parsers.parse("developer message {seq:d} is not listed"))
def not_listed(dm: dict[str, Any], seq: int) -> None:
    assert seq not in [r["seq"] for r in output(dm)["developerMessages"]]


@then("no developer message is listed")
def none_listed(dm: dict[str, Any]) -> None:
    value = output(dm)
    assert value["developerMessages"] == [] and value["active"] == {}, value


@then(parsers.re(r"(?P<name>[a-z_]+) is active as (?P<spec>.+) from header (?P<header>\d+)$"))
def active(dm: dict[str, Any], name: str, spec: str, header: str) -> None:
    entry = output(dm)["active"].get(name)
    assert entry == {"headerSeq": int(header), "definition": tool_schema(spec)}, entry


@then(parsers.parse("{name} is not active"))
def not_active(dm: dict[str, Any], name: str) -> None:
    assert name not in output(dm)["active"]


@then(parsers.parse("the migrated log has {count:d} events numbered 1 to {last:d}"))
def migrated_numbering(dm: dict[str, Any], count: int, last: int) -> None:
    lines = output(dm)["log"]
    assert [line["seq"] for line in lines[1:]] == list(range(1, last + 1))
    assert len(lines) - 1 == count


@then(parsers.parse("the migrated developer message {seq:d} is bound to header {header:d}, a "
                    "request header defining {spec}"))
def migrated_binding(dm: dict[str, Any], seq: int, header: int, spec: str) -> None:
    lines = output(dm)["log"]
    assert lines[seq]["type"] == "developer/message"
    assert lines[seq]["data"]["headerSeq"] == header
    assert lines[header]["type"] == "request/header"
    assert lines[header]["data"]["header"]["tools"] == [tool_schema(spec)]


@then("the written log equals the original log")
def written_equals(dm: dict[str, Any]) -> None:
    assert output(dm) == {"log": dm["payload"]["log"]}


@then(parsers.parse("the written developer message {seq:d} is still a developer-role message"))
def still_developer(dm: dict[str, Any], seq: int) -> None:
    line = output(dm)["log"][seq]
    assert line["type"] == "developer/message"
    assert line["data"]["message"]["role"] == "developer"


@then(parsers.parse("the writer writes it at seq {seq:d} with the extra field intact"))
def written_at(dm: dict[str, Any], seq: int) -> None:
    expected = {**dm["payload"]["event"], "seq": seq}
    assert output(dm) == {"event": expected}


# --- the Anthropic wire ---------------------------------------------------------------------------


def canonical_message(role: str, content: str) -> dict[str, Any]:
    if content == "(empty)":
        return {"role": role, "content": []}
    if content == "(reasoning only)":
        return {"role": role, "content": [{"type": "reasoning", "text": "hidden"}]}
    if content.startswith("(tool-") and content.endswith(")"):
        kind, name = content[1:-1].split()
        return {"role": role, "content": [{"type": kind, "toolName": name}]}
    if role == "developer":
        blocks = []
        for part in split_list(content):
            verb, name = part.split()
            kind = {"add": "tool-addition", "remove": "tool-removal"}[verb]
            blocks.append({"type": kind, "toolName": name})
        return {"role": role, "content": blocks}
    return {"role": role, "content": [{"type": "text", "text": content}]}


@given("the conversation:")
def conversation(dm: dict[str, Any], datatable: list[list[str]]) -> None:
    header, *rows = datatable
    assert header == ["role", "content"]
    dm["history"] = [canonical_message(role, content) for role, content in rows]


@given(parsers.parse("the request declares {tools}"))
def declared(dm: dict[str, Any], tools: str) -> None:
    out = []
    for spec in split_list(tools):
        deferred = spec.startswith("deferred ")
        name = spec.removeprefix("deferred ")
        tool: dict[str, Any] = {"name": name, "description": name,
                                "inputSchema": {"type": "object"}}
        if deferred:
            tool["deferLoading"] = True
        out.append(tool)
    dm["tools"] = out


@when("it is projected onto Anthropic Messages")
def project(tck_target: Any, dm: dict[str, Any]) -> None:
    call(tck_target, dm, REQUEST, {"history": dm["history"], "tools": dm["tools"]})


def wire_content(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content


def describe(blocks: list[dict[str, Any]]) -> str:
    parts = []
    for block in blocks:
        if block.get("type") == "text":
            parts.append(block["text"])
        elif block.get("type") in ("tool_addition", "tool_removal"):
            assert block.get("tool", {}).get("type") == "tool_reference", block
            parts.append(f"{block['type']} {block['tool']['name']}")
        else:
            parts.append(json.dumps(block, sort_keys=True))
    return ", ".join(parts)


@then("the wire messages are:")
def wire_messages(dm: dict[str, Any], datatable: list[list[str]]) -> None:
    header, *rows = datatable
    assert header == ["role", "content"]
    got = [[m["role"], describe(wire_content(m["content"]))] for m in output(dm)["messages"]]
    # consecutive user (or assistant) turns are one turn for the provider
    merged: list[list[str]] = []
    for role, text in got:
        if merged and merged[-1][0] == role and role in ("user", "assistant"):
            merged[-1][1] += ", " + text
        else:
            merged.append([role, text])
    assert merged == [list(r) for r in rows], merged


@then(parsers.parse("the projection is rejected with {code}"))
def projection_rejected(dm: dict[str, Any], code: str) -> None:
    rejected_with(dm, code)


@then(parsers.parse('the top-level system is "{text}"'))
def top_system(dm: dict[str, Any], text: str) -> None:
    system = output(dm).get("system")
    if isinstance(system, list):
        system = "".join(b.get("text", "") for b in system)
    assert system == text, system


@then(parsers.parse('the request needs the beta "{beta}"'))
def needs_beta(tck_target: Any, dm: dict[str, Any], beta: str) -> None:
    result = tck_target.call(BETAS, dm["payload"])
    assert isinstance(result, Output), result
    assert beta in result.value["betas"], result.value


@then(parsers.re(r"the tool (?P<name>[a-z_]+) is declared (?P<how>with|without) defer_loading$"))
def declared_defer(dm: dict[str, Any], name: str, how: str) -> None:
    tools = [t for t in output(dm).get("tools", []) if t.get("name") == name]
    assert len(tools) == 1, tools
    assert (tools[0].get("defer_loading") is True) == (how == "with"), tools[0]
