"""Steps for features/block_omission.feature and features/in_history_update.feature.

The scenarios write histories as tables (one row per block) and read the request the
implementation produced through the same wire normalization the vectors use
(:mod:`reference_impl.wire.normal_form`), so a check sees what the provider would see and
nothing else.
Every call goes through the ``tck_target`` fixture: the reference implementation in process, or
an adapter given with ``--impl``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from agent_tck.harness.run.outcome import CallResult, Errored, Output, Rejected
from agent_tck.reference_impl.serialize.invariants import INVARIANTS
from agent_tck.reference_impl.wire.normal_form import (
    normalize_anthropic_messages,
    normalize_openai_chat,
    same_openai_content,
)

WIRE = r"(?P<wire>Anthropic Messages|Messages|Chat Completions)"
_OPERATION = {"anthropic": "anthropic.serialize", "openai": "openai.serialize"}
_NORMALIZE = {"anthropic": normalize_anthropic_messages, "openai": normalize_openai_chat}
_LABEL = {"anthropic": "Messages", "openai": "Chat Completions"}


def _wire(name: str) -> str:
    return "openai" if name == "Chat Completions" else "anthropic"


@dataclass
class SerializeScenario:
    """What one scenario recorded and what the implementation answered."""

    histories: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    results: dict[tuple[str, str], CallResult] = field(default_factory=dict)


@pytest.fixture
def serialize_scenario() -> SerializeScenario:
    return SerializeScenario()


# --- reading the history tables ----------------------------------------------------------------


def _literal(value: str) -> str:
    """A cell's text: "quoted" cells are JSON strings (spaces, \\n kept), others as written."""
    if len(value) >= 2 and value.startswith('"') and value.endswith('"'):
        return str(json.loads(value, strict=False))
    return value


def _block(kind: str, value: str) -> dict[str, Any] | None:
    if kind == "(none)":
        return None
    if kind in ("text", "reasoning"):
        return {"type": kind, "text": _literal(value)}
    if kind == "signed reasoning":  # "SIGNATURE text..."
        signature, _, text = value.partition(" ")
        return {"type": "reasoning", "text": _literal(text), "signature": signature}
    if kind == "tool call":
        call_id, name, arguments = [*value.split(" ", 2), "{}"][:3]
        return {"type": "tool-call", "id": call_id, "name": name, "arguments": arguments}
    if kind == "image":
        media_type, data = value.split()
        return {"type": "image", "attachment": {"mediaType": media_type, "data": data}}
    if kind in ("tool-addition", "tool-removal"):
        return {"type": kind, "toolName": value}
    return {"type": kind, "text": _literal(value)}  # any other block type: a plugin block


def _message(role_cell: str, row: dict[str, str]) -> dict[str, Any]:
    message: dict[str, Any]
    if role_cell.startswith("tool result "):
        call_id, _, flag = role_cell.removeprefix("tool result ").partition(",")
        message = {"role": "tool", "toolCallId": call_id.strip(), "content": []}
        if flag.strip() == "error":
            message["isError"] = True
        elif flag.strip() == "no error":
            message["isError"] = False
    else:
        message = {"role": role_cell, "content": []}
    source = row.get("source", "")
    if source:
        kind, _, plugin = source.partition(" ")
        message["source"] = {"kind": kind, **({"plugin": plugin} if plugin else {})}
    if row.get("date", ""):
        message["createdAt"] = row["date"]
    return message


def history_from_table(table: list[list[str]]) -> list[dict[str, Any]]:
    header = [cell.strip().lower() for cell in table[0]]
    messages: list[dict[str, Any]] = []
    current: str | None = None
    for cells in table[1:]:
        row = dict(zip(header, (c.strip() for c in cells), strict=True))
        if row["message"] != current:
            current = row["message"]
            messages.append(_message(row["role"], row))
        block = _block(row["block"], row["value"])
        if block is not None:
            messages[-1]["content"].append(block)
    return messages


# --- Given / When -------------------------------------------------------------------------------


@given("the recorded history:")
def recorded_history(serialize_scenario: SerializeScenario, datatable: list[list[str]]) -> None:
    serialize_scenario.histories["main"] = history_from_table(datatable)


@given("another recorded history:")
def another_history(serialize_scenario: SerializeScenario, datatable: list[list[str]]) -> None:
    serialize_scenario.histories["other"] = history_from_table(datatable)


@given("the history continues with:")
def history_continues(serialize_scenario: SerializeScenario, datatable: list[list[str]]) -> None:
    serialize_scenario.histories["continued"] = (
        serialize_scenario.histories["main"] + history_from_table(datatable)
    )


def _serialize(ctx: SerializeScenario, target: Any, wire: str, which: str) -> CallResult:
    result = target.call(_OPERATION[wire], {"history": ctx.histories[which]})
    ctx.results[(wire, which)] = result
    return result


def _serialize_all(ctx: SerializeScenario, target: Any, wires: tuple[str, ...]) -> None:
    for wire in wires:
        for which in ("main", "continued"):
            if which in ctx.histories:
                _serialize(ctx, target, wire, which)


@when(parsers.re(f"it is serialized for {WIRE}"))
def serialized_for(serialize_scenario: SerializeScenario, tck_target: Any, wire: str) -> None:
    _serialize_all(serialize_scenario, tck_target, (_wire(wire),))


@when("it is serialized for both wire formats")
def serialized_for_both(serialize_scenario: SerializeScenario, tck_target: Any) -> None:
    _serialize_all(serialize_scenario, tck_target, ("anthropic", "openai"))


@when(parsers.re(f"both histories are serialized for {WIRE}"))
def both_serialized(serialize_scenario: SerializeScenario, tck_target: Any, wire: str) -> None:
    for which in ("main", "other"):
        _serialize(serialize_scenario, tck_target, _wire(wire), which)


# --- reading the answer ------------------------------------------------------------------------


def _describe(result: CallResult | None) -> str:
    match result:
        case None:
            return "no call was made"
        case Output(value=value):
            return f"a request: {json.dumps(value, ensure_ascii=False)[:600]}"
        case Rejected(code=code, message=message, pointer=pointer):
            return f"a rejection {code} at {pointer!r}: {message}"
        case Errored(reason=reason):
            return f"an error: {reason}"
    return repr(result)


def _request(ctx: SerializeScenario, wire: str, which: str = "main") -> dict[str, Any]:
    """The request as the provider sees it (normalized); fails unless there is one."""
    result = ctx.results.get((wire, which))
    if not isinstance(result, Output):
        pytest.fail(f"expected a {_LABEL[wire]} request, got {_describe(result)}", pytrace=False)
    try:
        return dict(_NORMALIZE[wire](result.value))
    except ValueError as exc:
        pytest.fail(f"the {_LABEL[wire]} output is not a request body: {exc}", pytrace=False)


def _nth(messages: list[dict[str, Any]], role: str, n: int, label: str) -> dict[str, Any]:
    found = [m for m in messages if m.get("role") == role]
    if len(found) < n:
        pytest.fail(f"{label}: expected at least {n} {role} turn(s), found {len(found)}: "
                    f"{json.dumps(messages, ensure_ascii=False)[:600]}", pytrace=False)
    return found[n - 1]


def _expected_block(wire: str, kind: str, value: str) -> dict[str, Any]:
    if kind == "text":
        return {"type": "text", "text": _literal(value)}
    if kind == "image":
        media_type, data = value.split()
        if wire == "anthropic":
            return {"type": "image",
                    "source": {"type": "base64", "media_type": media_type, "data": data}}
        return {"type": "image_url", "image_url": {"url": f"data:{media_type};base64,{data}"}}
    raise ValueError(f"unknown block kind {kind!r} in an expectation table")


def _rows(table: list[list[str]]) -> list[dict[str, str]]:
    header = [c.strip().lower() for c in table[0]]
    return [dict(zip(header, (c.strip() for c in cells), strict=True)) for cells in table[1:]]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _tool_result(ctx: SerializeScenario, wire: str, call_id: str) -> dict[str, Any]:
    request = _request(ctx, wire)
    if wire == "anthropic":
        found = [b for m in request["messages"] if m["role"] == "user" for b in m["content"]
                 if isinstance(b, dict) and b.get("type") == "tool_result"
                 and b.get("tool_use_id") == call_id]
    else:
        found = [m for m in request["messages"]
                 if m["role"] == "tool" and m.get("tool_call_id") == call_id]
    if len(found) != 1:
        pytest.fail(f"expected one {_LABEL[wire]} tool result for call {call_id!r}, found "
                    f"{len(found)}: {json.dumps(request['messages'], ensure_ascii=False)[:600]}",
                    pytrace=False)
    return found[0]


# --- Then: accepted or rejected ----------------------------------------------------------------


@then(parsers.re(f"the {WIRE} request is accepted"))
def request_accepted(serialize_scenario: SerializeScenario, wire: str) -> None:
    _request(serialize_scenario, _wire(wire))


@then(parsers.re(f"the {WIRE} request for the continued history is accepted"))
def continued_accepted(serialize_scenario: SerializeScenario, wire: str) -> None:
    _request(serialize_scenario, _wire(wire), "continued")


@then(parsers.re(f"the {WIRE} request is one the provider accepts"))
def request_provider_valid(serialize_scenario: SerializeScenario, wire: str) -> None:
    """The provider-validity invariant (reference_impl/wire/validity.py) finds no problem."""
    key = _wire(wire)
    _request(serialize_scenario, key)
    result = serialize_scenario.results[(key, "main")]
    assert isinstance(result, Output)
    given = {"history": serialize_scenario.histories["main"]}
    found = INVARIANTS[_OPERATION[key]](given, result.value)
    if found:
        pytest.fail(f"{_LABEL[key]} would refuse the request: "
                    + "; ".join(f"{rule} {message}" for rule, _, message in found),
                    pytrace=False)


@then(parsers.re(f"the {WIRE} request is rejected with (?P<code>[A-Z_]+)"))
def request_rejected(serialize_scenario: SerializeScenario, wire: str, code: str) -> None:
    result = serialize_scenario.results.get((_wire(wire), "main"))
    if not (isinstance(result, Rejected) and result.code == code):
        pytest.fail(f"expected the {wire} request to be rejected with {code}, got "
                    f"{_describe(result)}", pytrace=False)


# --- Then: user input ---------------------------------------------------------------------------


@then(parsers.re(f"{WIRE} user turn (?P<n>[0-9]+) holds exactly:"))
def user_turn_holds(serialize_scenario: SerializeScenario, wire: str, n: str,
                    datatable: list[list[str]]) -> None:
    w = _wire(wire)
    turn = _nth(_request(serialize_scenario, w)["messages"], "user", int(n), wire)
    expected = [_expected_block(w, r["block"], r["value"]) for r in _rows(datatable)]
    same = (turn["content"] == expected if w == "anthropic"
            else same_openai_content(expected, turn["content"]))  # text parts may be joined
    assert same, (
        f"{wire} user turn {n}: expected {json.dumps(expected, ensure_ascii=False)}, "
        f"got {json.dumps(turn['content'], ensure_ascii=False)}"
    )


@then(parsers.re(
    f"{WIRE} user turn (?P<n>[0-9]+) opens with the tool results \"(?P<ids>[^\"]*)\" followed by:"
))
def user_turn_opens_with_results(serialize_scenario: SerializeScenario, wire: str, n: str,
                                 ids: str, datatable: list[list[str]]) -> None:
    w = _wire(wire)
    turn = _nth(_request(serialize_scenario, w)["messages"], "user", int(n), wire)
    call_ids = [i.strip() for i in ids.split(",")]
    head = turn["content"][: len(call_ids)]
    got_ids = [b.get("tool_use_id") if b.get("type") == "tool_result" else b.get("type")
               for b in head]
    assert got_ids == call_ids, (
        f"{wire} user turn {n} should open with tool results {call_ids}, opens with {got_ids}"
    )
    rest = turn["content"][len(call_ids):]
    expected = [_expected_block(w, r["block"], r["value"]) for r in _rows(datatable)]
    assert rest == expected, f"after the tool results expected {expected}, got {rest}"


@then(parsers.re(f"the {WIRE} request has no empty user turn"))
def no_empty_user_turn(serialize_scenario: SerializeScenario, wire: str) -> None:
    messages = _request(serialize_scenario, _wire(wire))["messages"]
    empty = [i for i, m in enumerate(messages) if m["role"] == "user" and not m["content"]]
    assert not empty, f"{wire} request has empty user turn(s) at {empty}: {messages}"


@then(parsers.re(f"the text \"(?P<text>[^\"]+)\" appears nowhere in the {WIRE} request"))
def text_nowhere(serialize_scenario: SerializeScenario, text: str, wire: str) -> None:
    request = _request(serialize_scenario, _wire(wire))
    hits = [s for s in _strings(request) if text in s]
    assert not hits, f"{text!r} was sent in the {wire} request: {hits}"


@then(parsers.re(f"the {WIRE} request holds no tool call \"(?P<call_id>[^\"]+)\""))
def no_tool_call(serialize_scenario: SerializeScenario, wire: str, call_id: str) -> None:
    w = _wire(wire)
    messages = _request(serialize_scenario, w)["messages"]
    if w == "anthropic":
        hits = [b for m in messages for b in m["content"]
                if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id") == call_id]
    else:
        hits = [c for m in messages for c in m.get("tool_calls", []) if c.get("id") == call_id]
        hits += [m for m in messages if m.get("tool_call_id") == call_id]
    assert not hits, f"the {wire} request carries tool call {call_id!r}: {hits}"


# --- Then: tool results -------------------------------------------------------------------------


@then(parsers.re(
    f"the {WIRE} tool result for call \"(?P<call_id>[^\"]+)\" holds exactly the texts:"
))
def tool_result_texts(serialize_scenario: SerializeScenario, wire: str, call_id: str,
                      datatable: list[list[str]]) -> None:
    result = _tool_result(serialize_scenario, _wire(wire), call_id)
    expected = [{"type": "text", "text": _literal(r["text"])} for r in _rows(datatable)]
    same = (result["content"] == expected if _wire(wire) == "anthropic"
            else same_openai_content(expected, result["content"]))  # text parts may be joined
    assert same, (
        f"tool result {call_id!r}: expected {expected}, got {result['content']}"
    )


@then(parsers.re(f"the {WIRE} tool result for call \"(?P<call_id>[^\"]+)\" holds nothing"))
def tool_result_empty(serialize_scenario: SerializeScenario, wire: str, call_id: str) -> None:
    result = _tool_result(serialize_scenario, _wire(wire), call_id)
    assert result["content"] == [], f"tool result {call_id!r} holds {result['content']}"


@then(parsers.re(
    f"the {WIRE} tool result for call \"(?P<call_id>[^\"]+)\" is (?P<neg>not )?marked as an error"
))
def tool_result_error(serialize_scenario: SerializeScenario, wire: str, call_id: str,
                      neg: str | None) -> None:
    result = _tool_result(serialize_scenario, _wire(wire), call_id)
    assert result.get("is_error") is (not neg), (
        f"tool result {call_id!r}: is_error is {result.get('is_error')!r}"
    )


# --- Then: assistant output ---------------------------------------------------------------------


@then(parsers.re(f"{WIRE} assistant turn (?P<n>[0-9]+) holds, in order:"))
def assistant_turn_holds(serialize_scenario: SerializeScenario, wire: str, n: str,
                         datatable: list[list[str]]) -> None:
    w = _wire(wire)
    if w != "anthropic":
        raise ValueError("block order of an assistant turn is a Messages check")
    turn = _nth(_request(serialize_scenario, w)["messages"], "assistant", int(n), wire)
    got = []
    for block in turn["content"]:
        if block.get("type") == "thinking" and block.get("signature"):
            got.append(("signed thinking", f"{block['signature']} {block.get('thinking')}"))
        elif block.get("type") == "thinking":  # unsigned: normalized away, never seen here
            got.append(("thinking", block.get("thinking")))
        elif block.get("type") == "text":
            got.append(("text", block.get("text")))
        else:
            got.append((str(block.get("type")), json.dumps(block, sort_keys=True)))
    expected = [(r["block"], _literal(r["value"])) for r in _rows(datatable)]
    assert got == expected, f"assistant turn {n}: expected {expected}, got {got}"


@then(parsers.re(f"{WIRE} assistant turn (?P<n>[0-9]+) makes the tool calls:"))
def assistant_tool_calls(serialize_scenario: SerializeScenario, wire: str, n: str,
                         datatable: list[list[str]]) -> None:
    w = _wire(wire)
    turn = _nth(_request(serialize_scenario, w)["messages"], "assistant", int(n), wire)
    if w == "anthropic":
        got = [(b.get("id"), b.get("name"), b.get("input")) for b in turn["content"]
               if b.get("type") == "tool_use"]
    else:
        got = [(c.get("id"), c.get("function", {}).get("name"),
                c.get("function", {}).get("arguments")) for c in turn["tool_calls"]]
    expected = [(r["id"], r["name"], json.loads(r["arguments"])) for r in _rows(datatable)]
    assert got == expected, f"assistant turn {n} tool calls: expected {expected}, got {got}"


# --- Then: turns, system prompt and updates -----------------------------------------------------


@then(parsers.re(f"the {WIRE} request's turns are \"(?P<roles>[^\"]*)\""))
def turns_are(serialize_scenario: SerializeScenario, wire: str, roles: str) -> None:
    messages = _request(serialize_scenario, _wire(wire))["messages"]
    got = [m["role"] for m in messages]
    expected = [r.strip() for r in roles.split(",") if r.strip()]
    assert got == expected, f"{wire} turns: expected {expected}, got {got}: {messages}"


@then(parsers.re(
    f"the {WIRE} request(?P<cont> for the continued history)? has the top-level system prompt "
    "\"(?P<text>[^\"]*)\""
))
def has_system(serialize_scenario: SerializeScenario, wire: str, cont: str | None,
               text: str) -> None:
    request = _request(serialize_scenario, _wire(wire), "continued" if cont else "main")
    expected = [{"type": "text", "text": text}]
    assert request.get("system") == expected, f"system is {request.get('system')!r}"


@then(parsers.re(f"the {WIRE} request has no top-level system prompt"))
def has_no_system(serialize_scenario: SerializeScenario, wire: str) -> None:
    request = _request(serialize_scenario, _wire(wire))
    assert request.get("system") == [], f"system is {request.get('system')!r}"


def _update_index(messages: list[dict[str, Any]], text: str) -> int:
    """The system message holding the update (consecutive updates are folded into one)."""
    want = {"type": "text", "text": text}
    found = [i for i, m in enumerate(messages) if m["role"] == "system" and want in m["content"]]
    if len(found) != 1:
        pytest.fail(f"expected one system update {text!r} in the Messages request, found "
                    f"{len(found)}: {json.dumps(messages, ensure_ascii=False)[:600]}",
                    pytrace=False)
    return found[0]


def _holds_text(message: dict[str, Any], text: str) -> bool:
    return any(b.get("type") == "text" and b.get("text") == text for b in message["content"])


def _holds_result(message: dict[str, Any], call_id: str) -> bool:
    return any(b.get("type") == "tool_result" and b.get("tool_use_id") == call_id
               for b in message["content"])


def _previous_turn(messages: list[dict[str, Any]], index: int) -> dict[str, Any] | None:
    """The nearest message before ``index`` that is not a system update (updates may stack)."""
    for message in reversed(messages[:index]):
        if message["role"] != "system":
            return message
    return None


@then(parsers.re(
    "the system update \"(?P<text>[^\"]+)\" directly follows the user turn holding "
    "(?:the tool result \"(?P<call_id>[^\"]+)\"|\"(?P<user_text>[^\"]+)\")"
))
def update_follows(serialize_scenario: SerializeScenario, text: str, call_id: str | None,
                   user_text: str | None) -> None:
    messages = _request(serialize_scenario, "anthropic")["messages"]
    previous = _previous_turn(messages, _update_index(messages, text))
    ok = previous is not None and previous["role"] == "user" and (
        _holds_result(previous, call_id) if call_id else _holds_text(previous, str(user_text))
    )
    assert ok, f"update {text!r} follows {previous!r}, not the expected user turn"


@then(parsers.re(
    "the system update \"(?P<text>[^\"]+)\" directly precedes the assistant turn holding "
    "\"(?P<reply>[^\"]+)\""
))
def update_precedes(serialize_scenario: SerializeScenario, text: str, reply: str) -> None:
    messages = _request(serialize_scenario, "anthropic")["messages"]
    after = [m for m in messages[_update_index(messages, text) + 1:] if m["role"] != "system"]
    ok = bool(after) and after[0]["role"] == "assistant" and _holds_text(after[0], reply)
    assert ok, f"update {text!r} is followed by {after[:1]!r}, not the assistant turn {reply!r}"


@then(parsers.re(r"the Messages system updates are, in order: (?P<texts>\".*\")"))
def updates_in_order(serialize_scenario: SerializeScenario, texts: str) -> None:
    messages = _request(serialize_scenario, "anthropic")["messages"]
    got = [b.get("text") for m in messages if m["role"] == "system" for b in m["content"]
           if b.get("type") == "text"]
    expected = re.findall(r'"([^"]*)"', texts)
    assert got == expected, f"system updates: expected {expected}, got {got}"


@then(parsers.re("the system update \"(?P<text>[^\"]+)\" ends the request"))
def update_ends(serialize_scenario: SerializeScenario, text: str) -> None:
    messages = _request(serialize_scenario, "anthropic")["messages"]
    after = messages[_update_index(messages, text) + 1:]
    assert all(m["role"] == "system" for m in after), f"update {text!r} is followed by {after}"


# --- Then: comparing requests -------------------------------------------------------------------


@then(parsers.re(f"serializing the same history again gives the same {WIRE} request"))
def same_again(serialize_scenario: SerializeScenario, tck_target: Any, wire: str) -> None:
    w = _wire(wire)
    first = _request(serialize_scenario, w)
    history = json.loads(json.dumps(serialize_scenario.histories["main"]))
    again = tck_target.call(_OPERATION[w], {"history": history})
    serialize_scenario.results[(w, "again")] = again
    assert _request(serialize_scenario, w, "again") == first, (
        f"the same history gave two different {wire} requests"
    )


@then(parsers.re(f"both histories give the same {WIRE} request"))
def same_request(serialize_scenario: SerializeScenario, wire: str) -> None:
    w = _wire(wire)
    one, other = _request(serialize_scenario, w), _request(serialize_scenario, w, "other")
    assert one == other, f"different {wire} requests:\n{one}\n{other}"


@then(parsers.re(
    f"the {WIRE} request for the continued history begins with the request for the history"
))
def begins_with(serialize_scenario: SerializeScenario, wire: str) -> None:
    w = _wire(wire)
    short = _request(serialize_scenario, w)
    long = _request(serialize_scenario, w, "continued")
    assert short.get("system") == long.get("system"), (
        f"top-level system changed: {short.get('system')!r} -> {long.get('system')!r}"
    )
    prefix = long["messages"][: len(short["messages"])]
    assert prefix == short["messages"], (
        f"the earlier {wire} request was rewritten:\n{short['messages']}\n{prefix}"
    )
