"""harness.audit.tracker: grouping by content, prefix stability, forks, linear cost."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tck.harness.audit import conversation_state
from agent_tck.harness.audit.conversation_state import fingerprint
from agent_tck.harness.audit.tracker import ConversationTracker, track
from agent_tck.reference_impl.wire.normal_form import normal_head, normal_message

URL = "https://api.anthropic.com/v1/messages"
SYSTEM = "You are a careful agent."
TOOLS = [{"name": "lookup", "input_schema": {"type": "object"}}]


def reply(text: str, thinking: bool) -> dict[str, Any]:
    content = ([{"type": "thinking", "thinking": f"about {text}", "signature": "s"}]
               if thinking else []) + [{"type": "text", "text": text, "citations": None}]
    return {"status": 200, "body": {"type": "message", "role": "assistant", "content": content}}


def render(turns: int, style: Any, cached_at: int | None, *, keep_thinking: bool,
           system_as_block: bool) -> list[dict[str, Any]]:
    """The messages of request ``turns`` (1-based) of a linear conversation."""
    messages: list[dict[str, Any]] = []
    for t in range(1, turns + 1):
        text = f"question {t}"
        messages.append({"role": "user", "content": text if style(t) else [
            {"type": "text", "text": text}]})
        if t < turns:
            content = ([{"type": "thinking", "thinking": f"about answer {t}", "signature": "s"}]
                       if keep_thinking else []) + [{"type": "text", "text": f"answer {t}"}]
            messages.append({"role": "assistant", "content": content})
    if cached_at is not None:
        target = messages[cached_at % len(messages)]
        if isinstance(target["content"], str):
            target["content"] = [{"type": "text", "text": target["content"]}]
        target["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return messages


def exchange(messages: list[dict[str, Any]], response: Any, system: Any = SYSTEM,
             tools: Any = None) -> dict[str, Any]:
    return {"method": "POST", "url": URL, "response": response, "request": {"body": {
        "model": "m", "system": system, "tools": TOOLS if tools is None else tools,
        "messages": messages}}}


@st.composite
def linear_conversations(draw: Any) -> list[dict[str, Any]]:
    turns = draw(st.integers(1, 6))
    thinking = draw(st.booleans())
    out = []
    for t in range(1, turns + 1):
        bits = draw(st.lists(st.booleans(), min_size=turns, max_size=turns))
        cached = draw(st.one_of(st.none(), st.integers(0, 20)))
        keep = draw(st.booleans())
        block = draw(st.booleans())
        system = [{"type": "text", "text": SYSTEM, **({"cache_control": {"type": "ephemeral"}}
                                                       if draw(st.booleans()) else {})}] \
            if block else SYSTEM
        out.append(exchange(render(t, lambda i, b=bits: b[i - 1], cached, keep_thinking=keep,
                                   system_as_block=block), reply(f"answer {t}", thinking),
                            system=system))
    return out


@settings(max_examples=120, deadline=None)
@given(exchanges=linear_conversations())
def test_cosmetic_differences_never_break_a_conversation(exchanges: list[dict[str, Any]]) -> None:
    result = track(exchanges)
    assert [c.requests for c in result.conversations] == [tuple(range(len(exchanges)))]
    assert result.findings == []


@settings(max_examples=120, deadline=None)
@given(exchanges=linear_conversations(), data=st.data())
def test_a_changed_earlier_message_is_named_exactly(exchanges: list[dict[str, Any]],
                                                   data: Any) -> None:
    if len(exchanges) < 2:
        return
    last = copy.deepcopy(exchanges[-1])
    messages = last["request"]["body"]["messages"]
    # positions the previous request and its reply cover: all but the new last question
    j = data.draw(st.integers(0, len(messages) - 2))
    target = messages[j]
    if j == len(messages) - 2:
        # the previous reply: an edit must stay recognizably that reply (here its whitespace
        # changes); a different assistant message there is another sample (a branch)
        target["content"] = [{"type": "text", "text": f"  answer {len(exchanges) - 1}\n"}]
    else:
        target["content"] = [{"type": "text", "text": "EDITED"}]
    result = track([*exchanges[:-1], last])
    assert len(result.conversations) == 1
    assert [(x, f.rule, f.pointer) for x, f in result.findings] == [
        (len(exchanges) - 1, "WA-D006", f"/request/body/messages/{j}")]


@settings(max_examples=80, deadline=None)
@given(turns=st.integers(2, 6), data=st.data())
def test_a_fork_child_with_the_parents_head_is_a_fork(turns: int, data: Any) -> None:
    parent = [exchange(render(t, lambda i: True, None, keep_thinking=False,
                              system_as_block=False), reply(f"answer {t}", False))
              for t in range(1, turns + 1)]
    m = data.draw(st.integers(1, turns - 1))  # completed turns the child inherits
    inherited = render(m + 1, lambda i: True, None, keep_thinking=False,
                       system_as_block=False)[:-1]
    child = exchange([*inherited, {"role": "user", "content": "fork task"}], reply("done", False))
    following = exchange(render(turns + 1, lambda i: True, None, keep_thinking=False,
                                system_as_block=False), reply("more", False))
    result = track([*parent, child, following])
    assert [(c.id, c.parent, c.fork_at, c.requests) for c in result.conversations] == [
        ("c1", None, None, (*range(turns), turns + 1)),
        ("c2", "c1", 2 * m, (turns,)),
    ]
    assert result.findings == []


def test_a_fork_child_with_another_head_is_a_fork_with_a_warning() -> None:
    parent = [exchange(render(t, lambda i: True, None, keep_thinking=False,
                              system_as_block=False), reply(f"answer {t}", False))
              for t in (1, 2, 3)]
    child = exchange([*render(3, lambda i: True, None, keep_thinking=False,
                              system_as_block=False)[:-1], {"role": "user", "content": "task"}],
                     reply("done", False), tools=[*TOOLS, {"name": "report"}])
    result = track([*parent, child])
    assert [(c.parent, c.fork_at) for c in result.conversations] == [(None, None), ("c1", 4)]
    assert [(x, f.rule, f.pointer) for x, f in result.findings] == [
        (3, "WA-001", "/request/body/tools/1")]


def test_another_sample_after_a_shared_question_is_another_conversation() -> None:
    # an eval harness runs one task twice: same first request, different model answers
    first = [{"role": "user", "content": "task"}]
    a1 = exchange(first, reply("plan A", False))
    b1 = exchange(first, reply("plan B", False))
    a2 = exchange([*first, {"role": "assistant", "content": "plan A"},
                   {"role": "user", "content": "go"}], reply("done A", False))
    b2 = exchange([*first, {"role": "assistant", "content": "plan B"},
                   {"role": "user", "content": "go"}], reply("done B", False))
    result = track([a1, b1, a2, b2])
    assert result.findings == []
    assert sorted(r for c in result.conversations for r in c.requests) == [0, 1, 2, 3]


def test_an_echo_recognizably_of_the_reply_but_edited_is_named() -> None:
    call = {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": "x"}}
    first = exchange([{"role": "user", "content": "go"}], {"status": 200, "body": {
        "content": [{"type": "text", "text": "Looking."}, call]}})
    edited = {**call, "input": {"q": "X"}}
    second = exchange([{"role": "user", "content": "go"},
                       {"role": "assistant", "content": [{"type": "text", "text": "Looking."},
                                                         edited]},
                       {"role": "user", "content": [{"type": "tool_result",
                                                     "tool_use_id": "toolu_1"}]}],
                      reply("ok", False))
    result = track([first, second])
    assert len(result.conversations) == 1
    assert [(x, f.rule, f.pointer) for x, f in result.findings] == [
        (1, "WA-D006", "/request/body/messages/1")]


def test_a_request_sharing_only_a_question_with_another_head_is_new() -> None:
    a = exchange([{"role": "user", "content": "hi"}], reply("hello", False))
    b = exchange([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "x"},
                  {"role": "user", "content": "y"}], reply("z", False), system="Another agent")
    result = track([a, b])
    assert [(c.parent, c.requests) for c in result.conversations] == [(None, (0,)),
                                                                       (None, (1,))]
    assert result.findings == []


# --- the normal form -----------------------------------------------------------------------------


def test_normal_form_of_messages() -> None:
    a = normal_message("anthropic", {"role": "user", "content": "hi"})
    b = normal_message("anthropic", {"role": "user", "content": [
        {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]})
    assert a == b
    assert normal_message("anthropic", {"role": "user", "content": ""}) == normal_message(
        "anthropic", {"role": "user", "content": []})
    assert normal_message("anthropic", {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "x"}, {"type": "text", "text": "y", "citations": None,
                                                 "extra": 1}]}) == {
        "role": "assistant", "content": [{"type": "text", "text": "y"}]}
    assert normal_message("anthropic", {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "a", "content": "r", "is_error": False}]}) == \
        normal_message("anthropic", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "a",
             "content": [{"type": "text", "text": "r"}]}]})
    # user-side thinking is not reasoning of the model: it stays (and is a BO-001 finding)
    assert normal_message("anthropic", {"role": "user", "content": [
        {"type": "thinking", "thinking": "x"}]})["content"] != []
    assert normal_message("openai", {"role": "assistant", "content": None,
                                     "reasoning_content": "r", "refusal": None,
                                     "tool_calls": [{"id": "c", "function": {"name": "n",
                                                                             "arguments": "{}"}}]}
                          ) == {"role": "assistant", "content": [], "tool_calls": [
                              {"id": "c", "type": "function",
                               "function": {"name": "n", "arguments": {}}}]}
    assert normal_head("openai", {"tools": None}) == {"tools": []}


# --- cost ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("turns", [50, 200])
def test_tracking_fingerprints_each_message_once_per_request(turns: int,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    calls = 0
    real = fingerprint

    def counting(value: Any) -> int:
        nonlocal calls
        calls += 1
        return real(value)

    monkeypatch.setattr(conversation_state, "fingerprint", counting)
    tracker = ConversationTracker()
    messages: list[dict[str, Any]] = []
    total = 0
    for t in range(turns):
        messages.append({"role": "user", "content": f"q{t}"})
        tracker.observe(t, exchange(list(messages), reply(f"a{t}", False)))
        total += len(messages)
        messages.append({"role": "assistant", "content": [{"type": "text", "text": f"a{t}"}]})
    # one fingerprint per message sent, plus a constant per request (head, tools, reply)
    assert calls <= total + 6 * turns
    assert tracker.result().findings == []


# --- the fingerprint and the reuse of known messages are invisible in the results ---------------

json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([2**61 + 1, 2, 1.0]),
              st.sampled_from(["", "a", "b"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(["a", "b", "type", "text"]), inner,
                                            max_size=3)),
    max_leaves=12)


@settings(max_examples=800, deadline=None)
@given(a=json_values, b=json_values)
def test_fingerprints_are_equal_exactly_when_values_are(a: Any, b: Any) -> None:
    def same(x: Any, y: Any) -> bool:  # JSON equality: true is not 1
        if isinstance(x, bool) or isinstance(y, bool):
            return type(x) is type(y) and x == y
        if isinstance(x, dict) and isinstance(y, dict):
            return x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
        if isinstance(x, list) and isinstance(y, list):
            return len(x) == len(y) and all(same(p, q) for p, q in zip(x, y, strict=True))
        return type(x) is type(y) and x == y

    assert (fingerprint(a) == fingerprint(b)) == same(a, b)


@settings(max_examples=80, deadline=None)
@given(exchanges=linear_conversations(), data=st.data())
def test_reusing_known_messages_changes_no_result(exchanges: list[dict[str, Any]],
                                                  data: Any) -> None:
    if len(exchanges) >= 2 and data.draw(st.booleans()):
        exchanges = [*exchanges[:-1], copy.deepcopy(exchanges[-1])]
        messages = exchanges[-1]["request"]["body"]["messages"]
        messages[data.draw(st.integers(0, len(messages) - 1))]["content"] = "EDITED"
    with_reuse, without = ConversationTracker(), ConversationTracker(keep_recent=0)
    for i, x in enumerate(exchanges):
        with_reuse.observe(i, x)
        without.observe(i, x)
    assert with_reuse.result() == without.result()


# --- forks ordered by evidence -------------------------------------------------------------------


def test_a_fork_child_arriving_first_is_told_from_the_parent_by_the_tool_results() -> None:
    # the parent's reply spawns a fork (a tool call); the child's first request repeats the
    # parent's prefix and reply, then its task, and arrives before the parent's next request,
    # which answers the call: the one answering it is the parent's next turn
    call = {"type": "tool_use", "id": "toolu_spawn", "name": "fork", "input": {}}
    start = [{"role": "user", "content": "go"}]
    spawned = {"role": "assistant", "content": [{"type": "text", "text": "Forking."}, call]}
    parent_first = exchange(start, {"status": 200, "body": {"content": spawned["content"]}})
    child = exchange([*start, spawned, {"role": "user", "content": "fork task"}],
                     reply("child done", False))
    parent_next = exchange([*start, spawned, {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_spawn", "content": "child done"}]}],
        reply("parent done", False))
    result = track([parent_first, child, parent_next])
    assert [(c.id, c.parent, c.fork_at, c.requests) for c in result.conversations] == [
        ("c1", None, None, (0, 2)), ("c2", "c1", 2, (1,))]
    assert result.findings == []
    assert [(p.exchange, p.kind) for p in result.placements] == [
        (0, "new"), (1, "fork"), (2, "continuation")]


def test_without_tool_calls_the_first_to_arrive_continues_documented() -> None:
    # what cannot be told apart: the shared reply called no tool, so the first request that
    # extends it continues the conversation and the other is the fork
    start = [{"role": "user", "content": "go"}, {"role": "assistant", "content": "ok"}]
    first = exchange(start[:1], reply("ok", False))
    child = exchange([*start, {"role": "user", "content": "fork task"}], reply("c", False))
    parent_next = exchange([*start, {"role": "user", "content": "next"}], reply("p", False))
    result = track([first, child, parent_next])
    assert [(c.parent, c.fork_at, c.requests) for c in result.conversations] == [
        (None, None, (0, 1)), ("c1", 2, (2,))]


def test_memory_is_bounded_by_the_open_conversations() -> None:
    # at most max_conversations stay open; a closed one leaves the tree (its nodes freed)
    tracker = ConversationTracker(max_conversations=3)
    sizes = []
    for k in range(30):
        messages = [{"role": "user", "content": f"session {k} question {t}"} for t in range(4)]
        tracker.observe(k, exchange(messages, reply(f"answer {k}", False)))
        sizes.append(len(tracker._child))
    # three open conversations, each a path of four messages plus a reply, twice at most
    # (message by message, and as the provider combines the four user turns into one)
    assert max(sizes) <= 3 * 2 * 5
    assert sizes[-1] == sizes[2]  # it stopped growing
    assert len(tracker.result().conversations) == 30  # closed ones are still reported


_records = st.lists(st.builds(
    conversation_state._Msg, role=st.sampled_from(["user", "assistant"]),
    merge=st.sampled_from([None, "user", "assistant"]),
    blocks=st.lists(st.integers(0, 3), max_size=2).map(tuple), rest=st.integers(0, 2),
    turn=st.integers(0, 5)), max_size=8)


@settings(max_examples=400, deadline=None)
@given(old=_records, new=_records, known=st.integers(0, 8))
def test_sequences_resumed_from_a_repeated_request_equal_a_full_fold(old: Any, new: Any,
                                                                     known: int) -> None:
    """The turns of a request repeating ``known`` messages of an earlier one, folded from the
    earlier one's sequences, are those of a fold from scratch (merged turns crossing known)."""
    known = min(known, len(old))
    records = [*old[:known], *new]
    base = conversation_state._sequences(old)
    assert conversation_state._sequences(records, base, known) == conversation_state._sequences(
        records)


_cc = {"type": "ephemeral"}
_inner = st.fixed_dictionaries({"type": st.sampled_from(["text", "tool_result", "document"])},
                               optional={"text": st.sampled_from(["", "x"]),
                                         "content": st.sampled_from(["s", [{"type": "text"}]]),
                                         "cache_control": st.just(_cc)})
_block = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "tool_result", "tool_use", "thinking", "document"])},
    optional={"text": st.sampled_from(["", "x"]), "content": st.one_of(
        st.sampled_from(["s", None]), st.lists(st.one_of(_inner, st.just(1)), max_size=2)),
        "input": st.sampled_from([{}, {"cache_control": _cc}]), "cache_control": st.just(_cc)})
_message = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "system", 3])},
    optional={"content": st.one_of(st.sampled_from(["", "x", None]),
                                   st.lists(st.one_of(_block, st.just("junk")), max_size=3)),
              "cache_control": st.just(_cc)})


def _toggle_marks(value: Any, data: Any) -> Any:
    """``value`` with cache_control members added or removed at random, at any depth."""
    if isinstance(value, list):
        return [_toggle_marks(v, data) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: _toggle_marks(v, data) for k, v in value.items()}
    if data.draw(st.booleans()):
        if "cache_control" in out:
            del out["cache_control"]
        else:
            out["cache_control"] = _cc
    return out


def _normal_text(message: Any, purpose: Any) -> str | None:
    import json

    from agent_tck.reference_impl.wire.normal_form import NotARequest

    try:
        return json.dumps(normal_message("anthropic", message, purpose), sort_keys=True)
    except NotARequest:
        return None


@settings(max_examples=500, deadline=None)
@given(message=_message, data=st.data())
def test_a_message_equal_but_for_cache_marks_has_the_same_normal_form(message: Any,
                                                                       data: Any) -> None:
    """The tracker reuses the normal form of a message that only lost or gained its
    prompt-cache breakpoint: sound (same normal form, for both purposes) wherever the marks
    are toggled, and found for a breakpoint moved off a block."""
    from agent_tck.reference_impl.wire.normal_form import same_but_cache_control

    other = _toggle_marks(message, data)
    if same_but_cache_control(message, other):
        for purpose in ("track", "compare"):
            assert _normal_text(message, purpose) == _normal_text(other, purpose)
    moved = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t",
                                          "content": [{"type": "text", "text": "r"}],
                                          "cache_control": _cc}]}
    assert same_but_cache_control(moved, {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": "r"}]}]})


@settings(max_examples=80, deadline=None)
@given(exchanges=linear_conversations(), data=st.data())
def test_a_walk_from_the_latest_path_ends_where_one_from_the_root_does(
        exchanges: list[dict[str, Any]], data: Any) -> None:
    """Walks start at the end of the latest path they extend, while no node was removed: the
    node reached is the one a walk from the root reaches (conversations closed on the way)."""
    tracker = ConversationTracker(max_conversations=data.draw(st.integers(1, 3)))
    real = tracker._walk

    def both(dialect: str, prints: tuple[int, ...], which: str = "single") -> int:
        node = tracker._roots[dialect]
        for turn in prints:
            nxt = tracker._child.get((node, turn))
            if nxt is None:
                break
            node = nxt
        assert real(dialect, prints, which) == node
        return node

    tracker._walk = both  # type: ignore[method-assign]
    for i, x in enumerate([*exchanges, *exchanges[:2]]):  # a second start after the first
        tracker.observe(i, x)
