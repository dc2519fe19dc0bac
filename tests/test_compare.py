"""The generic JSON comparison (the wire normalizations have their own tests)."""

from agent_tck.harness.run.compare import compare, first_difference, mode_for


def test_key_order_never_matters_array_order_does():
    assert first_difference({"a": 1, "b": [1, 2]}, {"b": [1, 2], "a": 1}) is None
    assert first_difference([1, 2], [2, 1]) == "/0: expected 1, got 2"


def test_true_is_not_one_but_one_is_one_point_zero():
    assert first_difference(1, 1.0) is None
    assert first_difference(True, 1) is not None
    assert first_difference({"x": 0}, {"x": False}) is not None


def test_missing_and_unexpected_members_are_named_by_pointer():
    assert first_difference({"a/b": 1}, {}) == "/a~1b: missing (expected 1)"
    assert first_difference({}, {"z": None}) == "/z: unexpected member null"


def test_an_extra_item_is_reported_as_such():
    diff = first_difference({"c": ["x", "y"]}, {"c": ["x", "r", "y"]})
    assert diff == ('/c: expected 2 items, got 3; first difference at /c/1: expected "y", '
                    'got "r"')
    assert "got nothing" in first_difference([1, 2], [1])


def test_default_modes_and_an_unnormalizable_output():
    assert mode_for("anthropic.serialize", None) == "anthropic-messages"
    assert mode_for("session.load", None) == "canonical-transcript"
    assert mode_for("message-parts.parts", None) == "json"
    assert mode_for("anthropic.serialize", "json") == "json"
    assert compare({"messages": []}, "not a body", "anthropic-messages").startswith("/: output is")


# ---- send_message traces: only the order the rules define ------------------------------------


def _ev(action, event, **fields):
    return {"action": action, "event": event, **fields}


def test_a_trace_accepts_any_order_no_rule_governs():
    settle = [_ev(0, "turn-end", agent="c1", turn=1),
              _ev(0, "settled", agent="c1", outcome="completed", output="x")]
    assert compare({"trace": settle}, {"trace": settle[::-1]}, "subagent-trace") is None
    # a request head is content, wherever it is reported (spawn, cold resume, first request)
    head = {"agent": "c3", "system": [], "tools": ["read"], "sendMessage": None}
    spawn = [_ev(0, "request-head", **head), _ev(0, "turn-start", agent="c3", turn=1)]
    assert compare({"trace": spawn}, {"trace": spawn[::-1]}, "subagent-trace") is None
    later = [spawn[1], _ev(1, "request-head", **head)]
    assert compare({"trace": spawn}, {"trace": later}, "subagent-trace") is None


def test_a_trace_keeps_the_order_a_rule_governs():
    # SMA-018: the cold resume before the acceptance it causes
    resume = [_ev(0, "cold-resume", agent="c3"), _ev(0, "accepted", **{"from": "p", "to": "c3"})]
    assert compare({"trace": resume}, {"trace": resume[::-1]}, "subagent-trace") is not None
    # SMA-019: an agent's inputs in the order its model sees them
    inputs = [_ev(2, "input", agent="p", turn=1, step=2, kind="human-prompt", text=t)
              for t in ("a", "b")]
    assert compare({"trace": inputs}, {"trace": inputs[::-1]}, "subagent-trace") is not None
    # actions stay sequential
    across = [_ev(0, "turn-end", agent="c1", turn=1), _ev(1, "turn-end", agent="c2", turn=1)]
    moved = [{**across[0], "action": 1}, {**across[1], "action": 0}]
    assert compare({"trace": across}, {"trace": moved}, "subagent-trace") is not None
    assert mode_for("subagents.simulate", None) == "subagent-trace"


# ---- session views and message-parts views: the same mechanism ------------------------------


def test_a_session_view_accepts_any_order_among_one_messages_tool_results():
    def tool(call):
        return {"role": "tool", "toolCallId": call, "isError": False, "content": []}

    call = {"role": "assistant", "status": "complete", "content": [
        {"type": "tool-call", "id": i, "name": "read", "arguments": "{}"} for i in ("a", "b")]}
    load = {"transcript": [call, tool("a"), tool("b")]}
    swapped = {"transcript": [call, tool("b"), tool("a")]}
    assert compare(load, swapped, "canonical-transcript") is None
    history = {"history": [{**call, "status": None}, tool("a"), tool("b")], "tools": None}
    assert compare(history, {**history, "history": [history["history"][0], tool("b"),
                                                    tool("a")]}, "canonical-history") is None
    # governed: an assistant message before its results; a dropped result still differs
    assert compare(load, {"transcript": [tool("a"), call, tool("b")]},
                   "canonical-transcript") is not None
    assert compare(load, {"transcript": [call, tool("a")]}, "canonical-transcript") is not None


def test_a_parts_view_folds_only_the_lists_no_rule_orders():
    answer = {"turns": [{"turn": "t1", "segments": [{"part": "a1", "text": "x"},
                                                    {"part": "a2", "text": "y"}],
                         "links": ["art-a", "art-b"], "citations": ["e1", "e2"]}]}
    links = {"turns": [{**answer["turns"][0], "links": ["art-b", "art-a"],
                        "citations": ["e2", "e1"]}]}
    assert compare(answer, links, "parts-view") is None
    segments = {"turns": [{**answer["turns"][0],
                           "segments": answer["turns"][0]["segments"][::-1]}]}
    assert compare(answer, segments, "parts-view") is not None  # MP-D006: part order
    twice = {"turns": [{**answer["turns"][0], "links": ["art-a", "art-a", "art-b"]}]}
    assert compare(answer, twice, "parts-view") is not None  # MP-D011: each once
    titles = {"titles": [{"turn": "t1", "part": "r1", "title": None},
                         {"turn": "t1", "part": "c1", "title": "read"}]}
    assert compare(titles, {"titles": titles["titles"][::-1]}, "parts-view") is None
    assert mode_for("message-parts.titles", None) == "parts-view"


def test_alternatives_pass_when_any_accepted_outcome_holds():
    from agent_tck.harness.contract.vectors import Expectation
    from agent_tck.harness.run.evaluate import evaluate
    from agent_tck.harness.run.outcome import Output, Rejected

    op = "anthropic.serialize"
    either = Expectation(op, alternatives=(
        Expectation(op, error_code="UNSUPPORTED_CONTENT"),
        Expectation(op, output={"messages": [{"role": "user", "content": "hi"}]}),
    ))
    assert evaluate(either, Rejected("UNSUPPORTED_CONTENT")).status == "pass"
    assert evaluate(either, Output({"messages": [{"role": "user", "content": "hi"}]})).status == (
        "pass")
    miss = evaluate(either, Output({"messages": []}))
    # the outcome class (an output) is accepted; the output check says why it differs
    assert miss.status == "fail" and miss.message.startswith("output: /messages")
    assert [(c.check, c.status) for c in miss.checks] == [
        ("outcome", "pass"), ("error-code", "not-applicable"), ("output", "fail")]
    assert either.to_json()["alternatives"][0] == {"error": {"code": "UNSUPPORTED_CONTENT"}}
