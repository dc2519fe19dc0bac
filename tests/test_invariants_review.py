"""Review Task 2 B/C/E/F and the empty system update: each fix shown on a hand-made wrong output,
and the reference's own output still passing (tests/test_wire_validity.py runs the reference
over every vector; these are the shapes no vector holds).
"""

from __future__ import annotations

import json
from typing import Any

from agent_tck.harness.run.invariants import check_output
from agent_tck.reference_impl.serialize import invariants as serialize_invariants
from agent_tck.reference_impl.serialize.ops import OPERATIONS as SERIALIZE_OPS
from agent_tck.reference_impl.session_log import invariants as resume_invariants
from agent_tck.reference_impl.session_log.ops import OPERATIONS as SESSION_OPS
from agent_tck.reference_impl.wire import validity
from agent_tck.reference_impl.wire.dialects import ANTHROPIC, OPENAI


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _c(role: str, *blocks: Any, **extra: Any) -> dict[str, Any]:
    return {"role": role, "content": list(blocks), **extra}


def _call(call_id: str) -> dict[str, Any]:
    return {"type": "tool-call", "id": call_id, "name": "read", "arguments": "{}"}


def _rules(found: list[tuple[str, str, str]]) -> list[str]:
    return [rule for rule, _check, _message in found]


SERIALIZE = serialize_invariants.INVARIANTS


# --- C: a request without messages ------------------------------------------------------------

def test_an_empty_messages_list_is_refused_by_both_providers():
    assert [(p.check, p.rule) for p in validity.messages_problems({"messages": []})] == [
        ("messages-not-empty", "BO-D009")]
    assert [(p.check, p.rule) for p in validity.chat_problems({"messages": []})] == [
        ("chat-not-empty", "BO-D011")]


def test_a_serializer_emptying_a_history_fails_the_not_empty_predicate():
    given = {"history": [_c("system", _text("be brief")), _c("user", _text("hi"))]}
    assert _rules(SERIALIZE["anthropic.serialize"](given, {"system": "be brief",
                                                           "messages": []})) == ["BO-D009"]
    assert _rules(SERIALIZE["openai.serialize"](given, {"messages": []})) == ["BO-D011"]
    for op, invariant in SERIALIZE.items():  # the reference sends the user message
        assert invariant(given, SERIALIZE_OPS[op](given)) == [], op


def test_an_input_with_nothing_to_send_may_give_an_empty_request():
    """Suspended where the input history itself has nothing the wire must carry: a system head
    alone (Messages: the top-level system prompt), a user message of omitted blocks or empty
    text (BO-D001 skips it), an assistant message of empty text (a reading may drop it)."""
    for history in ([_c("system", _text("s"))], [_c("user", {"type": "reasoning", "text": "r"})],
                    [_c("user", _text(""))], [_c("assistant", _text(""))], []):
        given = {"history": history}
        assert SERIALIZE["anthropic.serialize"](given, {"messages": []}) == [], history
    # Chat Completions carries the system prompt as a message: not suspended there
    given = {"history": [_c("system", _text("s"))]}
    assert _rules(SERIALIZE["openai.serialize"](given, {"messages": []})) == ["BO-D011"]
    assert SERIALIZE["openai.serialize"]({"history": [_c("user", _text(""))]},
                                         {"messages": []}) == []


# --- E: the pairing suspension narrowed to the defective id ------------------------------------

UNPAIRED = {"history": [
    _c("user", _text("hi")),
    _c("assistant", _call("a"), _call("b")),
    _c("tool", _text("B"), toolCallId="b"),  # "a" is never answered: the input's defect
    _c("user", _text("go on")),
    _c("assistant", _call("c")),
    _c("tool", _text("C"), toolCallId="c"),
    _c("user", _text("thanks")),
]}


def _without_result(body: dict[str, Any], call_id: str, dialect: str) -> dict[str, Any]:
    if dialect == OPENAI:
        return {**body, "messages": [m for m in body["messages"] if m.get("tool_call_id")
                                     != call_id]}
    kept = [{**m, "content": [b for b in m["content"] if b.get("tool_use_id") != call_id]}
            if isinstance(m["content"], list) else m for m in body["messages"]]
    return {**body, "messages": [m for m in kept if m["content"]]}


def test_one_unpaired_call_suspends_its_own_id_only():
    for op, dialect in (("anthropic.serialize", ANTHROPIC), ("openai.serialize", OPENAI)):
        output = SERIALIZE_OPS[op](UNPAIRED)
        assert validity.problems(dialect, output) != []  # the pass-through is invalid...
        assert SERIALIZE[op](UNPAIRED, output) == [], op  # ...as given: not blamed
        broken = _without_result(output, "c", dialect)  # another pair, broken by the serializer
        found = SERIALIZE[op](UNPAIRED, broken)
        assert _rules(found) == ["WA-D002"], (op, found)
        assert "'c'" in found[0][2]


def test_renamed_ids_keep_the_whole_request_suspended():
    """A serializer that renames tool call ids cannot be matched id by id: the pairing of the
    whole request stays suspended (as before the narrowing), never a false failure."""
    output = SERIALIZE_OPS["openai.serialize"](UNPAIRED)
    renamed = json.loads(json.dumps(output).replace('"a"', '"call_a"'))
    assert SERIALIZE["openai.serialize"](UNPAIRED, renamed) == []


# --- F: whitespace-only text is accepted --------------------------------------------------------

def test_whitespace_only_text_is_not_judged():
    """Decision: only empty text is refused by the documented API; the source runtime sends
    whitespace text as recorded (BO-007: no trimming), so no predicate judges it."""
    body = {"messages": [_c("user", _text(" ")), _c("assistant", _text("\n")),
                         _c("user", _text("go")), _c("assistant", _text("prefill "))]}
    assert validity.messages_problems(body) == []
    given = {"history": [_c("user", _text(" ")), _c("assistant", _text("\n")),
                         _c("user", _text("go"))]}
    for op, invariant in SERIALIZE.items():
        assert invariant(given, SERIALIZE_OPS[op](given)) == [], op


# --- one defect, one rule: an empty in-history system update is IHU-D004's -------------------

def test_an_empty_system_update_sent_is_charged_to_ihu_d004_alone():
    given = {"history": [_c("user", _text("hi")), _c("system", _text("")),
                         _c("assistant", _text("ok"))]}
    for content in ([], [_text("")]):
        sent = {"messages": [_c("user", _text("hi")), _c("system", *content),
                             _c("assistant", _text("ok"))]}
        assert validity.messages_problems(sent) != []  # the provider refuses it...
        # ...and the case's own checks (IHU-D004) judge it: the invariant adds nothing
        assert SERIALIZE["anthropic.serialize"](given, sent) == [], content


def test_an_empty_system_message_made_from_a_developer_message_stays_bo_d009():
    given = {"history": [_c("user", _text("hi")), _c("developer", _text("")),
                         _c("assistant", _text("ok"))]}
    sent = {"messages": [_c("user", _text("hi")), _c("system"), _c("assistant", _text("ok"))]}
    assert _rules(SERIALIZE["anthropic.serialize"](given, sent)) == ["BO-D009"]


# --- B: a resumed history no provider request can carry ---------------------------------------

def _log(*events: dict[str, Any]) -> str:
    header = {"type": "session", "version": 4, "id": "s", "createdAt": 1, "isSeeded": False,
              "delegationDepth": 0}
    lines = [header] + [{**e, "seq": i, "time": 1} for i, e in enumerate(events)]
    return "".join(json.dumps(line) + "\n" for line in lines)


USER = {"type": "user/message", "data": {"id": "u", "role": "user", "content": [_text("hi")]}}
ASSISTANT = {"type": "assistant/message", "data": {"turn": 1, "step": 1, "message": {
    "id": "a", "role": "assistant", "content": [_text("hello")]}}}
GIVEN = {"log": _log(USER, ASSISTANT), "user": [_text("go on")]}


def test_a_resumed_history_the_serializers_refuse_fails_cfp_024():
    reference = SESSION_OPS["session.resume"](GIVEN)
    assert resume_invariants.resume(GIVEN, reference) == []
    # a plugin block in the user message: no Messages request can carry it (BO-005), so this
    # resumed history is not a valid provider history; Chat Completions omits it (BO-D004)
    history = [_c("user", _text("hi"), {"type": "x-plugin"}), *reference["history"][1:]]
    found = resume_invariants.resume(GIVEN, {**reference, "history": history})
    assert _rules(found) == ["CFP-024"]
    assert found[0][1] == "invariant:provider-request" and "cannot be made" in found[0][2]


def test_a_log_holding_content_no_request_carries_is_not_blamed_on_the_resume():
    user = {"type": "user/message", "data": {"id": "u", "role": "user", "content": [
        _text("hi"), {"type": "x-plugin"}]}}
    given = {"log": _log(user, ASSISTANT), "user": [_text("go on")]}
    reference = SESSION_OPS["session.resume"](given)
    assert resume_invariants.resume(given, reference) == []


def test_a_resume_output_that_is_not_a_history_is_errored_not_passed():
    checks = list(check_output("session.resume", GIVEN, {"history": "nonsense"}))
    assert {c.rule for c in checks} >= {"CFP-024", "CFP-025"}
    assert {c.status for c in checks} == {"errored"}
    assert all("cannot check the output" in c.message for c in checks)
    reference = SESSION_OPS["session.resume"](GIVEN)
    assert {c.status for c in check_output("session.resume", GIVEN, reference)} == {"pass"}


def test_a_resumed_request_without_messages_fails_cfp_025_not_the_should():
    """BO-D011 is a SHOULD because endpoints differ on reasoning-only assistant messages; no
    endpoint accepts a request without messages, so a resumed one fails CFP-025."""
    found = resume_invariants.resume_openai(GIVEN, {"messages": []})
    assert _rules(found) == ["CFP-025"]
    assert _rules(resume_invariants.resume_anthropic(GIVEN, {"messages": []})) == ["CFP-024"]


def test_a_wire_output_that_is_not_a_request_is_errored_not_passed():
    """A body the predicates cannot read was a pass ("no problem found"): it is errored now,
    for the serializers and the wire resumes alike; a readable body is still judged."""
    given = {"history": [_c("user", _text("hi"))]}
    for op, output in (("anthropic.serialize", {"messages": "hi"}),
                       ("openai.serialize", ["not", "a", "body"]),
                       ("anthropic.serialize", {"messages": [{"content": []}]}),
                       ("session.resume-anthropic", {"messages": None}),
                       ("session.resume-openai", "text")):
        given_input = GIVEN if op.startswith("session") else given
        checks = list(check_output(op, given_input, output))
        assert checks and {c.status for c in checks} == {"errored"}, op
        assert all(c.message.startswith("cannot check the output") for c in checks), op
    reference = SERIALIZE_OPS["anthropic.serialize"](given)
    assert {c.status for c in check_output("anthropic.serialize", given, reference)} == {"pass"}
