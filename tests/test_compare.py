"""The generic JSON comparison (the wire normalizations have their own tests)."""

from agent_tck.harness.compare import compare, first_difference, mode_for


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
    assert mode_for("session.load", None) == "json"
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


def test_alternatives_pass_when_any_accepted_outcome_holds():
    from agent_tck.harness.outcome import Output, Rejected
    from agent_tck.harness.runner import evaluate
    from agent_tck.harness.vectors import Expectation

    op = "anthropic.serialize"
    either = Expectation(op, alternatives=(
        Expectation(op, error_code="UNSUPPORTED_CONTENT"),
        Expectation(op, output={"messages": [{"role": "user", "content": "hi"}]}),
    ))
    assert evaluate(either, Rejected("UNSUPPORTED_CONTENT")).status == "pass"
    assert evaluate(either, Output({"messages": [{"role": "user", "content": "hi"}]})).status == (
        "pass")
    miss = evaluate(either, Output({"messages": []}))
    assert miss.status == "fail" and "(1)" in miss.message and "(2)" in miss.message
    assert either.to_json()["alternatives"][0] == {"error": {"code": "UNSUPPORTED_CONTENT"}}
