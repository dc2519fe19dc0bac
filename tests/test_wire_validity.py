"""Provider-validity predicates (reference_impl/wire/validity.py) and their invariant adapters.

Every reference output of every ``*.serialize`` and ``session.resume*`` vector is a request the
providers accept; each invalid request below has exactly one defect and gives exactly one
problem, charged to its rule; an input that already has the defect is not blamed on the output.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from agent_tck.harness.contract.catalogue import load_catalogue
from agent_tck.harness.contract.vectors import load_cases
from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.serialize import invariants as serialize_invariants
from agent_tck.reference_impl.serialize.ops import OPERATIONS as SERIALIZE_OPS
from agent_tck.reference_impl.session_log import invariants as resume_invariants
from agent_tck.reference_impl.session_log.ops import OPERATIONS as SESSION_OPS
from agent_tck.reference_impl.wire import validity
from agent_tck.reference_impl.wire.dialects import ANTHROPIC, OPENAI

CATALOGUE = load_catalogue()
INVARIANTS = {**serialize_invariants.INVARIANTS, **resume_invariants.INVARIANTS}
OPERATIONS = {**SERIALIZE_OPS, **SESSION_OPS}


def _reference_outputs() -> list[tuple[str, str, Any, Any]]:
    out = []
    for case in load_cases(known_rules=CATALOGUE.by_id):
        for expectation in case.expect:
            op = expectation.operation
            if op not in INVARIANTS:
                continue
            try:
                output = OPERATIONS[op](copy.deepcopy(case.input))
            except TckError:
                continue
            out.append((case.id, op, case.input, output))
    return out


OUTPUTS = _reference_outputs()


def test_every_operation_with_an_invariant_has_reference_outputs():
    assert {op for _, op, _, _ in OUTPUTS} == set(INVARIANTS)
    assert len(OUTPUTS) > 80


@pytest.mark.parametrize(("case_id", "op", "given", "output"), OUTPUTS,
                         ids=[f"{c}[{o}]" for c, o, _, _ in OUTPUTS])
def test_reference_outputs_are_provider_valid(case_id, op, given, output):
    assert INVARIANTS[op](given, output) == []


def test_reference_serializer_outputs_need_no_suspension():
    # the reference never relies on an input defect: even unsuspended, no problem
    for case_id, op, _, output in OUTPUTS:
        if op.endswith(".serialize"):
            dialect = ANTHROPIC if op.startswith("anthropic") else OPENAI
            assert validity.problems(dialect, output) == [], case_id


def test_every_predicate_rule_is_in_the_catalogue():
    for predicate in validity.PREDICATES:
        assert predicate.rule in CATALOGUE, predicate.key
        assert predicate.source.startswith("https://"), predicate.key
    for keys in validity.SUSPENSIONS.values():
        for key in keys:
            assert key.partition(":")[0] in validity.BY_KEY, key


# --- one defect each: Messages ----------------------------------------------------------------

def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


USE = {"type": "tool_use", "id": "t1", "name": "read", "input": {}}
RESULT = {"type": "tool_result", "tool_use_id": "t1", "content": [_text("ok")]}


def _m(role: str, *blocks: Any) -> dict[str, Any]:
    return {"role": role, "content": list(blocks)}


VALID_MESSAGES = {"messages": [_m("user", _text("hi")), _m("assistant", _text("x"), USE),
                               _m("user", RESULT, _text("go on")), _m("assistant", _text("done"))]}

MESSAGES_DEFECTS = [
    ("unanswered call", [_m("user", _text("hi")), _m("assistant", USE), _m("user", _text("go"))],
     "messages-tool-call-answered", "WA-D002", "/messages/1/content/0"),
    ("result without call", [_m("user", _text("hi")), _m("assistant", _text("x")),
                             _m("user", RESULT)],
     "messages-tool-result-answers-call", "WA-D001", "/messages/2/content/0"),
    ("result twice", [_m("user", _text("hi")), _m("assistant", USE), _m("user", RESULT, RESULT)],
     "messages-tool-result-answers-call", "WA-D001", "/messages/2/content/1"),
    ("result after text", [_m("user", _text("hi")), _m("assistant", USE),
                           _m("user", _text("see"), RESULT)],
     "messages-tool-result-first", "BO-D005", "/messages/2/content/1"),
    ("result after text, split turns", [_m("user", _text("hi")), _m("assistant", USE),
                                        _m("user", _text("see")), _m("user", RESULT)],
     "messages-tool-result-first", "BO-D005", "/messages/3/content/0"),
    ("empty user turn", [_m("user", _text("hi")), _m("assistant", _text("x")), _m("user")],
     "messages-empty-user", "BO-D001", "/messages/2/content"),
    ("empty user string", [_m("user", _text("hi")), _m("assistant", _text("x")),
                           {"role": "user", "content": ""}],
     "messages-empty-user", "BO-D001", "/messages/2/content"),
    ("empty assistant turn", [_m("user", _text("hi")), _m("assistant"), _m("user", _text("?"))],
     "messages-empty-turn", "BO-D009", "/messages/1/content"),
    ("empty system message", [_m("user", _text("hi")), _m("system"), _m("assistant", _text("x"))],
     "messages-empty-turn", "BO-D009", "/messages/1/content"),
    ("empty user text", [_m("user", _text("hi"), _text(""))],
     "messages-empty-input-text", "BO-D008", "/messages/0/content/1"),
    ("empty tool_result text", [_m("user", _text("hi")), _m("assistant", USE),
                                _m("user", {**RESULT, "content": [_text("")]})],
     "messages-empty-input-text", "BO-D008", "/messages/2/content/0/content/0"),
    ("empty assistant text", [_m("user", _text("hi")), _m("assistant", _text(""), _text("x"))],
     "messages-empty-text", "BO-D010", "/messages/1/content/0"),
    ("empty system text", [_m("user", _text("hi")), _m("system", _text("")),
                           _m("assistant", _text("x"))],
     "messages-empty-text", "BO-D010", "/messages/1/content/0"),
]


def test_valid_messages_request_has_no_problem():
    assert validity.messages_problems(VALID_MESSAGES) == []


@pytest.mark.parametrize(("name", "messages", "key", "rule", "pointer"), MESSAGES_DEFECTS,
                         ids=[d[0] for d in MESSAGES_DEFECTS])
def test_messages_one_defect_one_problem(name, messages, key, rule, pointer):
    body = {"messages": messages}
    before = json.dumps(body)
    found = validity.messages_problems(body)
    assert [(p.check, p.rule, p.pointer) for p in found] == [(key, rule, pointer)]
    assert json.dumps(body) == before  # pure


def test_messages_forms_the_provider_treats_as_one_are_accepted():
    body = {"system": "s", "messages": [
        {"role": "user", "content": "hi", "cache_control": {"type": "ephemeral"}},
        _m("assistant", _text("a")), _m("assistant", USE),  # combined: one assistant turn
        _m("user", RESULT), _m("user", _text("more")),  # combined: the result still first
        _m("system", _text("update")),
        _m("assistant"),  # an empty last assistant message is a prefill
    ]}
    assert validity.messages_problems(body) == []


def test_an_assistant_turn_that_ends_the_request_is_not_judged():
    body = {"messages": [_m("user", _text("hi")), _m("assistant", USE)]}
    assert validity.messages_problems(body) == []


def test_unreadable_bodies_give_no_problem():
    for body in (None, [], {"messages": "x"}, {"messages": [{"content": []}]}):
        assert validity.messages_problems(body) == []
        assert validity.chat_problems(body) == []


# --- one defect each: Chat Completions --------------------------------------------------------

CALL = {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
VALID_CHAT = {"messages": [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": None, "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    {"role": "user", "content": "go on"},
    {"role": "assistant", "content": "done"},
]}

CHAT_DEFECTS = [
    ("unanswered call", [{"role": "user", "content": "hi"},
                         {"role": "assistant", "tool_calls": [CALL]},
                         {"role": "user", "content": "go"}],
     "chat-tool-call-answered", "WA-D002", "/messages/1/tool_calls/0"),
    ("user between call and result", [{"role": "user", "content": "hi"},
                                      {"role": "assistant", "tool_calls": [CALL]},
                                      {"role": "user", "content": "go"},
                                      {"role": "tool", "tool_call_id": "c1", "content": "ok"}],
     None, None, None),
    ("result without call", [{"role": "user", "content": "hi"},
                             {"role": "assistant", "content": "x"},
                             {"role": "tool", "tool_call_id": "c1", "content": "ok"}],
     "chat-tool-result-answers-call", "WA-D001", "/messages/2"),
    ("result twice", [{"role": "user", "content": "hi"},
                      {"role": "assistant", "tool_calls": [CALL]},
                      {"role": "tool", "tool_call_id": "c1", "content": "ok"},
                      {"role": "tool", "tool_call_id": "c1", "content": "ok"}],
     "chat-tool-result-answers-call", "WA-D001", "/messages/3"),
    ("assistant without content", [{"role": "user", "content": "hi"},
                                   {"role": "assistant", "content": None},
                                   {"role": "user", "content": "?"}],
     "chat-assistant-content", "BO-D011", "/messages/1"),
]


def test_valid_chat_request_has_no_problem():
    assert validity.chat_problems(VALID_CHAT) == []


@pytest.mark.parametrize(("name", "messages", "key", "rule", "pointer"), CHAT_DEFECTS,
                         ids=[d[0] for d in CHAT_DEFECTS])
def test_chat_one_defect_one_problem(name, messages, key, rule, pointer):
    found = [(p.check, p.rule, p.pointer) for p in validity.chat_problems({"messages": messages})]
    if key is None:  # a user message between: the call unanswered AND the result orphaned
        assert [f[1] for f in found] == ["WA-D002", "WA-D001"]
    else:
        assert found == [(key, rule, pointer)]


def test_unknown_suspension_is_an_error():
    with pytest.raises(ValueError, match="unknown suspension"):
        validity.messages_problems(VALID_MESSAGES, frozenset({"nonsense"}))


# --- the serialize invariants: what the input already holds is not blamed ---------------------

def _history(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"history": list(messages)}


def _c(role: str, *blocks: Any, **extra: Any) -> dict[str, Any]:
    return {"role": role, "content": list(blocks), **extra}


TEXT = _text
CANON_CALL = {"type": "tool-call", "id": "t1", "name": "read", "arguments": "{}"}


def test_passing_an_unanswered_call_through_is_not_blamed():
    given = _history(_c("user", TEXT("hi")), _c("assistant", CANON_CALL), _c("user", TEXT("go")))
    output = SERIALIZE_OPS["anthropic.serialize"](given)
    assert validity.messages_problems(output) != []  # the request is invalid...
    assert serialize_invariants.anthropic_serialize(given, output) == []  # ...as given


def test_dropping_a_tool_result_is_blamed_on_its_rule():
    given = _history(_c("user", TEXT("hi")), _c("assistant", CANON_CALL),
                     _c("tool", TEXT("ok"), toolCallId="t1"), _c("user", TEXT("go")))
    output = SERIALIZE_OPS["anthropic.serialize"](given)
    broken = {**output, "messages": [
        {**m, "content": [b for b in m["content"] if b.get("type") != "tool_result"]}
        for m in output["messages"]]}
    found = serialize_invariants.anthropic_serialize(given, broken)
    assert [(rule, check) for rule, check, _ in found] == [
        ("WA-D002", "invariant:messages-tool-call-answered")]
    assert found[0][2].startswith("/messages/1/content/0: ")


def test_an_empty_assistant_message_passed_through_is_not_blamed():
    given = _history(_c("user", TEXT("hi")), _c("assistant"), _c("user", TEXT("?")))
    for op, invariant in serialize_invariants.INVARIANTS.items():
        output = SERIALIZE_OPS[op](given)
        assert invariant(given, output) == [], op


def test_an_invalid_input_disables_the_invariant():
    assert serialize_invariants.anthropic_serialize({"history": "x"}, {"messages": [
        _m("user")]}) == []


# --- the resume invariants: charged to CFP-024 / CFP-025 --------------------------------------

def _log(*events: dict[str, Any]) -> str:
    header = {"type": "session", "version": 4, "id": "s", "createdAt": 1, "isSeeded": False,
              "delegationDepth": 0}
    lines = [header] + [{**e, "seq": i, "time": 1} for i, e in enumerate(events)]
    return "".join(json.dumps(line) + "\n" for line in lines)


def _assistant(*blocks: Any) -> dict[str, Any]:
    return {"type": "assistant/message", "data": {"turn": 1, "step": 1, "message": {
        "id": "a", "role": "assistant", "content": list(blocks)}}}


USER_EVENT = {"type": "user/message", "data": {"id": "u", "role": "user",
                                               "content": [TEXT("hi")]}}


def test_resume_keeping_an_unanswered_call_fails_cfp_024_and_025():
    given = {"log": _log(USER_EVENT, _assistant(TEXT("x"), CANON_CALL)), "user": [TEXT("go")]}
    kept = {"history": [_c("user", TEXT("hi")), _c("assistant", TEXT("x"), CANON_CALL),
                        _c("user", TEXT("go"))], "tools": None}
    assert resume_invariants.resume(given, SESSION_OPS["session.resume"](given)) == []
    assert {rule for rule, _, _ in resume_invariants.resume(given, kept)} == {"CFP-024",
                                                                            "CFP-025"}
    wire = SERIALIZE_OPS["anthropic.serialize"]({"history": kept["history"]})
    assert [r for r, _, _ in resume_invariants.resume_anthropic(given, wire)] == ["CFP-024"]
    wire = SERIALIZE_OPS["openai.serialize"]({"history": kept["history"]})
    assert [r for r, _, _ in resume_invariants.resume_openai(given, wire)] == ["CFP-025"]


def test_resume_answering_an_unanswered_call_is_valid_too():
    given = {"log": _log(USER_EVENT, _assistant(TEXT("x"), CANON_CALL)), "user": [TEXT("go")]}
    answered = {"history": [_c("user", TEXT("hi")), _c("assistant", TEXT("x"), CANON_CALL),
                            _c("tool", TEXT("interrupted"), toolCallId="t1", isError=True),
                            _c("user", TEXT("go"))], "tools": None}
    assert resume_invariants.resume(given, answered) == []


def test_resume_sending_an_empty_assistant_turn_fails_cfp_024_and_wa_d013():
    """On Chat Completions an assistant message without content or tool calls is BO-D011's, a
    SHOULD (compatible endpoints differ): it keeps its rule, never CFP-025's MUST."""
    given = {"log": _log(USER_EVENT, _assistant()), "user": [TEXT("go")]}
    kept = {"history": [_c("user", TEXT("hi")), _c("assistant"), _c("user", TEXT("go"))],
            "tools": None}
    assert resume_invariants.resume(given, SESSION_OPS["session.resume"](given)) == []
    assert {rule for rule, _, _ in resume_invariants.resume(given, kept)} == {"CFP-024",
                                                                            "BO-D011"}


def test_resume_of_an_unreadable_log_is_not_judged():
    assert resume_invariants.resume({"log": "not a log"}, {"history": [_c("user")]}) == []


# --- the seeded resume faults are caught on CFP-024 / CFP-025 by the invariant ----------------

RESUME_FAULTS = {"cfp-resume-keeps-unanswered-tool-calls": {"CFP-024", "CFP-025"},
                 # Chat Completions: BO-D011, a SHOULD, keeps its rule (not CFP-025)
                 "cfp-resume-keeps-empty-assistant-turn": {"CFP-024", "BO-D011"}}


def _mutated_views(name: str) -> Any:
    """reference_impl/session_log/views.py with the seeded fault ``name`` applied, as a fresh
    module object (the real module is left alone)."""
    import types
    from pathlib import Path

    from agent_tck.harness.mutation.mutants import load_mutants, locate
    from agent_tck.reference_impl.session_log import views

    mutant = next(m for m in load_mutants() if m.name == name)
    text = Path(views.__file__).read_text(encoding="utf-8")
    at = locate(mutant, text)
    module = types.ModuleType(f"mutated_views_{name.replace('-', '_')}")
    exec(compile(text[:at] + mutant.replace + text[at + len(mutant.find):],
                 views.__file__, "exec"), module.__dict__)
    return module


@pytest.mark.parametrize("name", RESUME_FAULTS)
def test_resume_faults_are_caught_by_the_provider_validity_invariant(name):
    from agent_tck.reference_impl.session_log import format as sl
    from agent_tck.reference_impl.session_log import ops

    mutated = _mutated_views(name)
    caught: set[str] = set()
    for case in load_cases(known_rules=CATALOGUE.by_id):
        if not any(e.operation == "session.resume" for e in case.expect):
            continue
        try:
            log = ops._read(case.input)
        except (TckError, sl.LogRejected):
            continue
        history, tools = mutated.resume(log, case.input.get("user"))
        found = resume_invariants.resume(case.input, {"history": history, "tools": tools})
        caught |= {rule for rule, _, _ in found}
    assert caught == RESUME_FAULTS[name]


def test_an_unhashable_tool_call_id_is_judged_not_an_error():
    """Task 2 G: a malformed id (a list, an object) gives a finding, never a TypeError that
    fails every rule's invariant with "cannot check the output"."""
    from agent_tck.reference_impl.wire import validity
    from agent_tck.reference_impl.wire.dialects import OPENAI
    body = {"messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": ["c1"], "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": {"id": "c1"}, "content": "x"},
        {"role": "user", "content": "go"}]}
    keys = {p.check for p in validity.problems(OPENAI, body)}
    assert keys == {"chat-tool-result-answers-call", "chat-tool-call-answered"}


def test_an_input_assistant_message_of_empty_text_only_may_be_cleaned_to_no_blocks():
    """Task 2 D: passing [text ""] through is suspended; cleaning it to content [] repeats the
    same input defect and is suspended too (it was a BO-D009 MUST failure); a valid assistant
    message emptied by the serializer still fails BO-D009."""
    from agent_tck.reference_impl.serialize import invariants as serialize_invariants

    def turns(assistant: list[Any]) -> dict[str, Any]:
        return {"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]},
                             {"role": "assistant", "content": assistant},
                             {"role": "user", "content": [{"type": "text", "text": "go"}]}]}

    def given(text: str) -> dict[str, Any]:
        return {"history": [{"role": "user", "content": [{"type": "text", "text": "hi"}]},
                            {"role": "assistant", "content": [{"type": "text", "text": text}]},
                            {"role": "user", "content": [{"type": "text", "text": "go"}]}]}

    check = serialize_invariants.anthropic_serialize
    assert check(given(""), turns([])) == []
    assert check(given(""), turns([{"type": "text", "text": ""}])) == []
    assert [f[0] for f in check(given("ok"), turns([]))] == ["BO-D009"]


def test_naming_the_rules_reported_changes_none_of_their_problems() -> None:
    """``messages_problems(rules=...)`` runs only the predicates that can report one of the
    rules: the problems of those rules are the full run's, on every Messages output of the
    vectors and on requests breaking each predicate."""
    from pathlib import Path

    bodies: list[Any] = [
        {"messages": []},
        {"messages": [{"role": "user", "content": [{"type": "text", "text": ""}]},
                      {"role": "assistant", "content": []},
                      {"role": "assistant", "content": [
                          {"type": "text", "text": ""},
                          {"type": "tool_use", "id": "a", "name": "t", "input": {}}]},
                      {"role": "user", "content": [
                          {"type": "text", "text": "x"},
                          {"type": "tool_result", "tool_use_id": "b", "content": [
                              {"type": "text", "text": ""}]}]},
                      {"role": "system", "content": []}]},
    ]
    root = Path(__file__).resolve().parent.parent / "vectors"
    for path in sorted(root.glob("*/*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        for case in doc.get("cases", []) if isinstance(doc, dict) else []:
            out = (case.get("expect") or {}).get("anthropic.serialize")
            if isinstance(out, dict) and isinstance(out.get("output"), dict):
                bodies.append(out["output"])
    assert len(bodies) > 50
    predicates = [p for p in validity.PREDICATES if p.dialect == ANTHROPIC]
    rule_sets = [frozenset({p.rule}) for p in predicates] + [
        frozenset({"BO-D009", "BO-D010", "BO-D011"}), frozenset()]
    for body in bodies:
        full = validity.messages_problems(body)
        for rules in rule_sets:
            some = validity.messages_problems(body, rules=rules)
            assert [p for p in some if p.rule in rules] == [p for p in full if p.rule in rules]
