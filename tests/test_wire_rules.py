"""harness.audit.rules: the rule table, the checks, containment, and robustness."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tck.harness.audit import checks
from agent_tck.harness.audit import rules as wr
from agent_tck.harness.audit.checks import dialect_of, request_headers
from agent_tck.harness.audit.findings import ERROR, RULES, Finding, escape
from agent_tck.harness.audit.rules import CHECKS, WIRE_CHECKS, Check, audit_exchange, check_exchange
from agent_tck.harness.contract.catalogue import load_catalogue

CATALOGUE = load_catalogue()
A_URL = "https://api.anthropic.com/v1/messages"
O_URL = "https://api.openai.com/v1/chat/completions"


def ex(messages: Any, url: str = A_URL, **body: Any) -> dict[str, Any]:
    return {"method": "POST", "url": url,
            "request": {"body": {"model": "m", "messages": messages, **body}}, "response": None}


def keys(findings: list[Finding]) -> list[tuple[str, str, str]]:
    return [(f.rule, f.severity, f.pointer) for f in findings]


# --- the rule table ------------------------------------------------------------------------------


@pytest.mark.parametrize("key", sorted(RULES))
def test_every_cited_rule_exists_and_its_level_fixes_the_severity(key: str) -> None:
    rid, severity = RULES[key]
    assert rid in CATALOGUE, f"{key} cites {rid}, which is not in the catalogue"
    level = CATALOGUE.by_id[rid].level
    assert (level == "MUST") == (severity == ERROR), (
        f"{rid} is {level}; its findings must be {'errors' if level == 'MUST' else 'warnings'}")


def test_every_wire_audit_rule_is_enforced_or_defines_the_tracking() -> None:
    cited = {rid for ids in WIRE_CHECKS.values() for rid in ids}
    family = {r.id for r in CATALOGUE.family("wire-audit")}
    # WA-D008 (grouping), WA-D009 (normal form), WA-D010 (scope) define how checks run
    assert family - cited == {"WA-D008", "WA-D009", "WA-D010"}


def test_each_check_reports_only_the_rules_it_declares() -> None:
    for check in CHECKS:
        assert set(check.rules) <= set(RULES), check.name


# --- scope and headers ---------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "url", "dialect"), [
    ("POST", "https://api.anthropic.com/v1/messages", "anthropic"),
    ("post", "http://127.0.0.1:8080/v1/messages?beta=true", "anthropic"),
    ("POST", "https://api.deepseek.com/anthropic/v1/messages/", "anthropic"),
    ("POST", "https://api.anthropic.com/v1/messages/count_tokens", None),
    ("GET", "https://api.anthropic.com/v1/messages", None),
    ("POST", "https://api.openai.com/v1/chat/completions", "openai"),
    ("POST", "https://api.deepseek.com/chat/completions", "openai"),
    ("POST", "https://api.openai.com/v1/completions", None),
    ("POST", "not a url at all", None),
    ("POST", "http://[::1/v1/messages", None),
])
def test_dialect_by_method_and_path(method: str, url: str, dialect: str | None) -> None:
    assert dialect_of({"method": method, "url": url}) == dialect


def test_request_headers_fold_names_and_join_repeats() -> None:
    assert request_headers({"request": {"headers": [["Anthropic-Beta", "a"],
                                                    ["anthropic-beta", "b"]]}}) == {
        "anthropic-beta": "a, b"}
    assert request_headers({"request": {"headers": {"X-Y": 1}}}) == {"x-y": "1"}
    assert request_headers({"request": {}}) is None
    assert request_headers({"request": {"headers": "nonsense"}}) is None


# --- checks --------------------------------------------------------------------------------------


def test_findings_are_sorted_and_unique() -> None:
    findings = check_exchange(ex([
        {"role": "user", "content": [{"type": "tool_use", "id": "a", "name": "n", "input": {}},
                                     {"type": "thinking", "thinking": "t"}, {"type": "text",
                                                                             "text": ""}]},
    ]))
    assert findings == sorted(findings)
    assert len(set(findings)) == len(findings)
    assert keys(findings) == [
        ("BO-001", "error", "/request/body/messages/0/content/1"),
        ("BO-002", "error", "/request/body/messages/0/content/0"),
        ("BO-D008", "error", "/request/body/messages/0/content/2"),
    ]


def test_assistant_reasoning_and_tool_calls_are_not_findings() -> None:
    assert check_exchange(ex([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "s"},
                                          {"type": "redacted_thinking", "data": "x"},
                                          {"type": "tool_use", "id": "a", "name": "n",
                                           "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a"}]},
    ])) == []


def test_pointer_tokens_are_escaped() -> None:
    findings = check_exchange(ex([{"role": "user", "content": "hi"}], tools=[
        {"name": "report", "input_schema": {"type": "object", "properties": {"output": {}}}}]))
    assert keys(findings) == [("SMA-051", "error", "/request/body/tools/0")]
    assert escape("a/b~c") == "a~1b~0c"


def test_send_message_schema_allows_annotations_but_not_other_shapes() -> None:
    standard = {"type": "object", "title": "SendMessageInput", "additionalProperties": False,
                "properties": {"agent_id": {"type": "string", "description": "id"},
                               "message": {"type": "string", "minLength": 1}},
                "required": ["message", "agent_id"]}
    assert checks._send_message_problem(standard) is None
    assert checks._send_message_problem({**standard, "required": ["agent_id", "message",
                                                              "message"]}) is not None
    assert checks._send_message_problem({**standard, "type": "array"}) is not None
    assert checks._send_message_problem(None) is not None


def test_system_message_placement_and_empty_updates() -> None:
    findings = check_exchange(ex([
        {"role": "user", "content": "a"},
        {"role": "system", "content": "keep"},             # fine: after user, before assistant
        {"role": "assistant", "content": "b"},
        {"role": "system", "content": [{"type": "text", "text": ""}]},  # after assistant, empty
        {"role": "user", "content": "c"},
        {"role": "system", "output_config": {}},           # no content, output_config: fine
    ]))
    assert keys(findings) == [
        ("IHU-D001", "error", "/request/body/messages/3"),
        ("IHU-D004", "error", "/request/body/messages/3/content"),
    ]


def test_tool_definition_inline_declares_a_name_for_later_changes() -> None:
    exchange = ex([
        {"role": "user", "content": "go"},
        {"role": "system", "content": [
            {"type": "tool_addition", "tool": {"type": "tool_definition",
                                               "definition": {"name": "inline"}}},
            {"type": "tool_removal", "tool": {"type": "tool_reference", "name": "inline"}},
            {"type": "tool_addition", "tool": {"type": "mcp_toolset_reference",
                                               "mcp_server_name": "s"}},
        ]},
    ])
    assert check_exchange(exchange) == []


# --- containment ---------------------------------------------------------------------------------


def _boom(req: checks.Request) -> checks.Emit:
    yield ("unknown-block", "/request/body", "before the crash")
    raise ZeroDivisionError("a rule's bug")


def test_an_exception_inside_a_check_is_contained_and_reported() -> None:
    checks = (*CHECKS, Check("boom", frozenset({"anthropic"}), ("unknown-block",), _boom))
    exchange = ex([{"role": "user", "content": [{"type": "thinking", "thinking": "t"}]}])
    audit = audit_exchange(exchange, checks)
    assert [e.check for e in audit.errors] == ["boom"]
    assert audit.errors[0].rules == ("WA-D003",)
    assert "ZeroDivisionError" in audit.errors[0].error
    assert audit.errors[0].traceback  # kept for the report's transcript
    # the other checks still ran
    assert ("BO-001", "error", "/request/body/messages/0/content/0") in keys(list(
        audit.findings))
    assert "BO-001" in audit.checked


def test_check_exchange_is_strict_about_crashes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wr, "CHECKS", (Check("boom", frozenset({"anthropic"}),
                                             ("unknown-block",), _boom),))
    with pytest.raises(RuntimeError, match="boom"):
        wr.check_exchange(ex([{"role": "user", "content": "hi"}]))


def test_unreadable_bodies_are_one_warning() -> None:
    for request in ({"body_error": "not-json"}, {"body": "text"}, {}, {"body": None}):
        audit = audit_exchange({"method": "POST", "url": A_URL, "request": request})
        assert keys(list(audit.findings)) == [("WA-D004", "warning", "/request/body")]
        assert audit.checked == ("WA-D004",)


# --- robustness: any JSON in, findings with resolvable pointers out ------------------------------


def resolve(doc: Any, pointer: str) -> Any:
    assert pointer.startswith("/")
    node = doc
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list):
            node = node[int(token)]
        else:
            assert isinstance(node, dict) and token in node, (pointer, token)
            node = node[token]
    return node


scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=4))
BLOCK_TYPES = ["text", "image", "thinking", "redacted_thinking", "tool_use", "tool_result",
               "tool_addition", "tool_removal", "server_tool_use", "hologram", "document",
               "image_url", "reasoning", "input_audio", 3]


def blocks() -> st.SearchStrategy[Any]:
    inner = st.fixed_dictionaries(
        {"type": st.sampled_from(BLOCK_TYPES)},
        optional={"text": st.sampled_from(["", "x"]),
                  "cache_control": st.just({"type": "ephemeral"}),  # moved between requests
                  "id": st.sampled_from(["a", "b"]), "tool_use_id": st.sampled_from(["a", "b"]),
                  "tool": st.one_of(scalars, st.fixed_dictionaries(
                      {"type": st.sampled_from(["tool_reference", "tool_definition", "x"]),
                       "name": st.sampled_from(["lookup", "nope", 1])}))})
    return st.one_of(scalars, inner, inner.map(
        lambda b: {**b, "type": "tool_result", "content": [b, "junk"]}))


def messages() -> st.SearchStrategy[Any]:
    message = st.fixed_dictionaries(
        {"role": st.sampled_from(["user", "assistant", "system", "tool", "developer", 7])},
        optional={
            "content": st.one_of(scalars, st.lists(blocks(), max_size=4)),
            "tool_calls": st.one_of(scalars, st.lists(st.fixed_dictionaries(
                {"id": st.sampled_from(["a", "b", None])}), max_size=2)),
            "tool_call_id": st.sampled_from(["a", "b", None]),
            "reasoning_content": scalars,
        })
    return st.lists(st.one_of(message, scalars), max_size=7)


tools = st.lists(st.one_of(scalars, st.fixed_dictionaries(
    {"name": st.sampled_from(["send_message", "report", "lookup"])},
    optional={"input_schema": st.one_of(scalars, st.fixed_dictionaries(
        {"type": st.just("object"), "properties": st.dictionaries(
            st.sampled_from(["agent_id", "message", "output"]), scalars, max_size=3)})),
        "function": st.one_of(scalars, st.fixed_dictionaries(
            {"name": st.sampled_from(["send_message", "report"])}))})), max_size=3)


@settings(max_examples=250, deadline=None)
@given(msgs=messages(), tool_list=st.one_of(scalars, tools),
       url=st.sampled_from([A_URL, O_URL]),
       headers=st.one_of(st.none(), st.just({"anthropic-beta": "x"})))
def test_any_request_gives_findings_whose_pointers_resolve(msgs: Any, tool_list: Any,
                                                           url: str, headers: Any) -> None:
    exchange = {"method": "POST", "url": url,
                "request": {"body": {"messages": msgs, "tools": tool_list}}, "response": None}
    if headers is not None:
        exchange["request"]["headers"] = headers
    before = json.dumps(exchange, sort_keys=True)
    findings = check_exchange(exchange)  # strict: raises if any check crashed
    assert json.dumps(exchange, sort_keys=True) == before, "the input was mutated"
    assert findings == sorted(set(findings))
    for f in findings:
        resolve(exchange, f.pointer)
        assert f.severity == RULES[next(k for k, v in RULES.items() if v[0] == f.rule)][1]


# --- incremental auditing gives exactly the full result -------------------------------------------


def conversations() -> st.SearchStrategy[Any]:
    """Mostly well-formed messages, so that requests repeat each other's starts."""
    message = st.fixed_dictionaries(
        {"role": st.sampled_from(["user", "assistant", "system", "tool"]),
         "content": st.one_of(st.sampled_from(["", "x"]), st.lists(blocks(), max_size=3))},
        optional={"tool_calls": st.lists(st.fixed_dictionaries(
            {"id": st.sampled_from(["a", "b"])}), max_size=2),
            "tool_call_id": st.sampled_from(["a", "b"])})
    return st.one_of(messages(), st.lists(message, max_size=6))


def _toggle_mark(message: Any, at: int) -> Any:
    """The message with a cache_control member added or removed: on the message itself, on a
    block, or on a tool_result's block (chosen by ``at``)."""
    def toggle(value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        out = dict(value)
        if out.pop("cache_control", None) is None:
            out["cache_control"] = {"type": "ephemeral"}
        return out

    if not isinstance(message, dict) or at % 3 == 0 or not isinstance(message.get("content"),
                                                                       list):
        return toggle(message)
    blocks = list(message["content"])
    if not blocks:
        return toggle(message)
    j = at % len(blocks)
    inner = blocks[j].get("content") if isinstance(blocks[j], dict) else None
    if at % 3 == 2 and isinstance(inner, list) and inner:
        blocks[j] = {**blocks[j], "content": [toggle(inner[0]), *inner[1:]]}
    else:
        blocks[j] = toggle(blocks[j])
    return {**message, "content": blocks}


def test_no_windowed_check_reads_cache_marks() -> None:
    """Carrying findings over treats a message equal but for its cache_control members as the
    same message (rules._window): no windowed check may read them."""
    import inspect

    for check in CHECKS:
        if check.windowed:
            assert "cache_control" not in inspect.getsource(check.fn), check.name


@settings(max_examples=250, deadline=None)
@given(start=conversations(), steps=st.lists(st.tuples(
    st.sampled_from(["append", "append", "replace", "truncate", "same", "mark"]),
    st.integers(0, 9),
    conversations()), min_size=1, max_size=6), url=st.sampled_from([A_URL, O_URL]))
def test_carrying_findings_over_equals_a_full_audit(start: Any, steps: Any, url: str) -> None:
    history = list(start)
    audits: list[wr.ExchangeAudit] = []
    for op, at, more in steps:
        if op == "append":
            history = history + list(more)
        elif op == "replace" and history:
            history = [*history[:at % len(history)], *more[:1],
                       *history[at % len(history) + 1:]]
        elif op == "truncate":
            history = history[: at % (len(history) + 1)]
        elif op == "mark" and history:  # a prompt-cache breakpoint moved onto or off a message
            history = [_toggle_mark(m, at) if i == at % len(history) else m
                       for i, m in enumerate(history)]
        exchange = {"method": "POST", "url": url, "response": None,
                    "request": {"body": {"messages": json.loads(json.dumps(history))}}}
        full = audit_exchange(exchange)
        incremental = audit_exchange(exchange, previous=list(reversed(audits)))
        assert incremental.findings == full.findings
        assert [(f.message, f.check) for f in incremental.findings] == [
            (f.message, f.check) for f in full.findings]
        assert incremental.checked == full.checked and incremental.errors == full.errors
        audits.append(incremental)


def _carried_equals_full(histories: list[list[Any]], url: str = A_URL) -> list[wr.ExchangeAudit]:
    audits: list[wr.ExchangeAudit] = []
    for history in histories:
        exchange = ex(json.loads(json.dumps(history)), url)
        full = audit_exchange(exchange)
        incremental = audit_exchange(exchange, previous=list(reversed(audits)))
        assert keys(list(incremental.findings)) == keys(list(full.findings)), history
        assert incremental.checked == full.checked and incremental.errors == full.errors
        audits.append(incremental)
    return audits


def test_provider_validity_findings_carry_over_only_between_readable_requests() -> None:
    """The validity predicates judge nothing when one message is not in normal form: a prefix's
    BO-D010 is not carried into a request whose new message is unreadable, and a request after
    an unreadable one is judged whole (its prefix's findings were never computed)."""
    empty_text = {"role": "assistant", "content": [{"type": "text", "text": ""}]}
    user = {"role": "user", "content": "go on"}
    unreadable = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t",
                                               "content": ["junk"]}]}
    base = [user, empty_text, user, {"role": "assistant", "content": "ok"}, user]
    audits = _carried_equals_full([base, [*base, empty_text, unreadable], [*base, empty_text],
                                   [*base, empty_text, user, {"role": "assistant",
                                                              "content": "x"}, user]])
    assert [a.readable for a in audits] == [True, False, True, True]
    assert "BO-D010" in {f.rule for f in audits[0].findings}
    assert "BO-D010" not in {f.rule for f in audits[1].findings}
    assert "BO-D010" in {f.rule for f in audits[2].findings}


def test_the_history_is_compared_once_and_shared_with_the_tracker() -> None:
    from agent_tck.harness.audit.tracker import ConversationTracker

    user = {"role": "user", "content": "hello"}
    first = ex([user])
    second = ex([user, {"role": "assistant", "content": "hi"}, user])
    one = audit_exchange(first)
    two = audit_exchange(second, previous=[one])
    assert two.compared == ((one.messages, 1, 1),)
    plain, shared = ConversationTracker(), ConversationTracker()
    plain.observe(0, first), shared.observe(0, first, one.compared)
    assert plain.observe(1, second) == shared.observe(1, second, two.compared)


def test_a_repeated_message_normalized_by_the_prior_request_judges_as_its_own() -> None:
    """The window's repeated messages take their normal form from the earlier request, but
    only one whose tool ids are text: ``==`` holds ``1`` and ``true`` equal and the predicates
    read ids as text, so another form is made again. The findings are a full run's."""
    from agent_tck.harness.audit.provider_checks import carried_normals

    user = {"role": "user", "content": "go"}

    def call(call_id: Any) -> dict[str, Any]:
        return {"role": "assistant", "content": [
            {"type": "tool_use", "id": call_id, "name": "t", "input": {}}]}

    answer = {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "True", "content": "ok"}]}
    for old_id, new_id in ((1, True), (True, 1), ("a", "a")):
        first = audit_exchange(ex([user, call(old_id)]))
        second = ex([user, call(new_id), answer])
        carried = audit_exchange(second, previous=[first])
        assert carried.findings == audit_exchange(second).findings
        taken = carried_normals({2: {}}, first.normals, 1, 2)
        assert (1 in taken) == (old_id == "a")


def test_tool_findings_carried_from_the_same_tools_equal_a_full_run() -> None:
    """A check that reads the tools alone (``Check.reads``) is not run again on a request
    whose tools are the previous request's, byte for byte: its findings carry over, the same
    as a full run; other tools (1 is not true) run it again."""
    bad = [{"name": "send_message", "input_schema": {"type": "object", "properties": {}}},
           {"name": "report", "input_schema": {"properties": {"output": {}}}}]
    user = {"role": "user", "content": "go"}
    two = [user, {"role": "assistant", "content": "ok"}, user]
    first = audit_exchange(ex([user], tools=bad))
    assert {"WA-D005", "SMA-051"} <= {f.rule for f in first.findings}
    for tools in (bad, bad[:1], [], [{**bad[0], "strict": 1}]):
        second = ex(two, tools=tools)
        assert audit_exchange(second, previous=[first]).findings == audit_exchange(
            second).findings
    flag = [{**bad[0], "strict": True}]
    carried = audit_exchange(ex(two, tools=flag), previous=[audit_exchange(ex([user], tools=[
        {**bad[0], "strict": 1}]))])
    assert carried.findings == audit_exchange(ex(two, tools=flag)).findings
