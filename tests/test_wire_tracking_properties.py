"""The tracker on generated captures: conversations with forks, interleaved, re-serialized.

For any set of append-only conversations (some sharing their opening message, some forked from
another after a completed turn), interleaved in any order that keeps each conversation's own
order, and with every request re-serialized with the wire model's equivalences (string or one
text block, cache_control anywhere, key order, tool arguments re-spaced, null members, prior
thinking kept or dropped, a user turn split in two), the tracker reports no WA-D006/WA-D007
and recovers every conversation and parent link. One dropped, inserted or edited message in a
conversation's last request is reported on that request, at that message.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tck.harness.audit.tracker import track

URL = "https://api.anthropic.com/v1/messages"
SYSTEM = "You are a careful agent."
TOOLS = [{"name": "lookup", "input_schema": {"type": "object"}}]


@dataclass
class Conv:
    key: int
    parent: int | None
    fork_requests: int  # the parent's requests completed before the child inherits them
    turns: int
    shared_opening: bool

    def user(self, t: int) -> str:
        return "Shared opening." if t == 0 and self.shared_opening and self.parent is None \
            else f"conversation {self.key} question {t}"

    def reply(self, t: int) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = [
            {"type": "thinking", "thinking": f"c{self.key} t{t}", "signature": "sig"},
            {"type": "text", "text": f"conversation {self.key} answer {t}"}]
        if t % 2:
            blocks.append({"type": "tool_use", "id": f"toolu_{self.key}_{t}", "name": "lookup",
                           "input": {"q": f"{self.key}.{t}", "n": [1, 2]}})
        return blocks


def logical_history(convs: list[Conv], conv: Conv, t: int) -> list[tuple[str, Any]]:
    """The messages of request ``t`` of ``conv``: ("user", text) / ("tool", id, text) /
    ("assistant", blocks), the parent's inherited turns first."""
    out: list[tuple[str, Any]] = []
    if conv.parent is not None:
        parent = convs[conv.parent]
        for k in range(conv.fork_requests):
            out += turn_pair(parent, k)
    for k in range(t):
        out += turn_pair(conv, k)
    out.append(("user", conv.user(t), previous_calls(out)))
    return out


def previous_calls(history: list[tuple[str, Any]]) -> list[str]:
    if history and history[-1][0] == "assistant":
        return [b["id"] for b in history[-1][1] if b["type"] == "tool_use"]
    return []


def turn_pair(conv: Conv, k: int) -> list[tuple[str, Any]]:
    before: list[tuple[str, Any]] = []
    return [("user", conv.user(k), previous_calls(before)), ("assistant", conv.reply(k))]


def fix_calls(history: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """Each user turn after an assistant tool call answers it first."""
    out: list[tuple[str, Any]] = []
    for item in history:
        out.append(("user", item[1], previous_calls(out)) if item[0] == "user" else item)
    return out


def render(history: list[tuple[str, Any]], draw: Any) -> list[dict[str, Any]]:
    """One request's messages, each element in a form drawn from the equivalences."""
    messages: list[dict[str, Any]] = []
    for index, item in enumerate(history):
        if item[0] == "user":
            _, text, calls = item
            results = [{"type": "tool_result", "tool_use_id": c, "content": draw(st.sampled_from(
                ["ok", [{"type": "text", "text": "ok"}]]))} | (
                {"is_error": False} if draw(st.booleans()) else {}) for c in calls]
            block = {"type": "text", "text": text}
            if draw(st.booleans()):
                block["cache_control"] = {"type": "ephemeral"}
            if not results and not block.get("cache_control") and draw(st.booleans()):
                content: Any = text  # a string for one text block
            else:
                content = [*results, block]
            split = 2 <= index < len(history) - 1 and isinstance(content, list)
            if split and len(content) == 2 and draw(st.booleans()):
                # split: two consecutive user turns the provider combines
                messages += [{"role": "user", "content": [content[0]]},
                             {"role": "user", "content": [content[1]]}]
                continue
            messages.append({"role": "user", "content": content})
        else:
            blocks = []
            for original in item[1]:
                if original["type"] == "thinking" and draw(st.booleans()):
                    continue  # prior-turn thinking dropped
                b = dict(original)
                if b["type"] == "tool_use" and draw(st.booleans()):
                    # arguments sent as compact JSON text, members in another order
                    b["input"] = json.dumps(b["input"], separators=(",", ":"))
                    b = dict(reversed(list(b.items())))
                if b["type"] == "text" and draw(st.booleans()):
                    b["citations"] = None  # a null member, response-only
                blocks.append(b)
            messages.append({"role": "assistant", "content": blocks})
    return messages


def exchange(messages: list[dict[str, Any]], reply: list[dict[str, Any]]) -> dict[str, Any]:
    system: Any = SYSTEM
    return {"method": "POST", "url": URL, "request": {"body": {
        "model": "m", "system": system, "tools": TOOLS, "messages": messages}},
        "response": {"status": 200, "body": {"type": "message", "role": "assistant",
                                             "content": reply}}}


@st.composite
def captures(draw: Any) -> tuple[list[Conv], list[tuple[int, int]]]:
    convs: list[Conv] = []
    for key in range(draw(st.integers(1, 4))):
        turns = draw(st.integers(1, 4))
        parents = [c for c in convs if c.parent is None and c.turns >= 2]
        if parents and draw(st.booleans()):
            parent = draw(st.sampled_from(parents))
            convs.append(Conv(key, parent.key, draw(st.integers(1, parent.turns - 1)), turns,
                              False))
        else:
            convs.append(Conv(key, None, 0, turns, draw(st.booleans())))
    # an order keeping each conversation's requests in order; a fork child's first request
    # comes after the parent has moved past the fork point (else it is the parent's next turn)
    pending = {c.key: 0 for c in convs}
    order: list[tuple[int, int]] = []
    while any(pending[c.key] < c.turns for c in convs):
        ready = []
        for c in convs:
            t = pending[c.key]
            if t >= c.turns:
                continue
            if c.parent is not None and t == 0 and pending[c.parent] <= c.fork_requests:
                continue
            ready.append(c.key)
        key = draw(st.sampled_from(ready))
        order.append((key, pending[key]))
        pending[key] += 1
    return convs, order


def build(convs: list[Conv], order: list[tuple[int, int]], draw: Any) -> list[dict[str, Any]]:
    out = []
    for key, t in order:
        conv = convs[key]
        history = fix_calls(logical_history(convs, conv, t))
        out.append(exchange(render(history, draw), conv.reply(t)))
    return out


def last_start(x: dict[str, Any]) -> int:
    """Where a request's last (never split) message starts: a fork child's first request
    shares everything before it with its parent."""
    return len(x["request"]["body"]["messages"]) - 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(capture=captures(), data=st.data())
def test_generated_conversations_are_recovered_without_findings(capture: Any, data: Any) -> None:
    convs, order = capture
    exchanges = build(convs, order, data.draw)
    result = track(exchanges)
    assert result.findings == []
    got = {c.requests: c for c in result.conversations}
    by_key = {}
    for conv in convs:
        requests = tuple(i for i, (key, _) in enumerate(order) if key == conv.key)
        assert requests in got, f"conversation {conv.key} not recovered"
        by_key[conv.key] = got[requests]
    for conv in convs:
        tracked = by_key[conv.key]
        if conv.parent is None:
            assert tracked.parent is None
        else:
            first = exchanges[tracked.requests[0]]
            assert (tracked.parent, tracked.fork_at) == (by_key[conv.parent].id,
                                                         last_start(first))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(capture=captures(), data=st.data(), change=st.sampled_from(["drop", "insert", "edit"]))
def test_one_rewritten_message_is_reported_where_it_happens(capture: Any, data: Any,
                                                            change: str) -> None:
    convs, order = capture
    exchanges = build(convs, order, data.draw)
    # the last request of a conversation with at least two requests rewrites its history
    candidates = [i for i, (key, t) in enumerate(order) if t >= 1 and t == convs[key].turns - 1]
    if not candidates:
        return
    target = data.draw(st.sampled_from(candidates))
    before = next(i for i in range(target - 1, -1, -1) if order[i][0] == order[target][0])
    messages = exchanges[target]["request"]["body"]["messages"]
    previous = exchanges[before]["request"]["body"]["messages"]
    # a position inside what the previous request sent, where the message is the same
    same = [i for i in range(min(len(previous), len(messages))) if previous[i] == messages[i]]
    at = data.draw(st.sampled_from(same)) if same else None
    if at is None:
        return
    if change == "drop":
        del messages[at]
    elif change == "insert":
        messages.insert(at, {"role": "user", "content": "An inserted note."})
    else:
        messages[at] = {"role": messages[at]["role"], "content": "An edited message."}
    result = track(exchanges)
    pointers = [f.pointer for x, f in result.findings if x == target and f.rule == "WA-D006"]
    assert pointers == [f"/request/body/messages/{at}"]
    placed = next(p for p in result.placements if p.exchange == target)
    assert placed.kind == "continuation"


def test_a_dropped_message_keeps_its_finding_when_fork_children_follow() -> None:
    """Found by the property above: a parent's request that drops one earlier message and
    answers its tool calls stays the parent's continuation (WA-D006 at the drop), and two
    children forked after the same tool call are forks. Before, the tool results were looked
    for one message too far, the next child was taken for the parent's real next turn and the
    parent's request was re-filed as a fork, its finding lost."""
    def user(text: str, *results: str) -> dict[str, Any]:
        blocks = [{"type": "tool_result", "tool_use_id": r, "content": "ok"} for r in results]
        return {"role": "user", "content": [*blocks, {"type": "text", "text": text}]}

    a0 = [{"type": "text", "text": "answer 0"}]
    a1 = [{"type": "text", "text": "answer 1"},
          {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": "1"}}]
    q0, q1 = user("question 0"), user("question 1")
    shared = [q0, {"role": "assistant", "content": a0}, q1, {"role": "assistant", "content": a1}]
    dropped = [q0, {"role": "assistant", "content": a0}, {"role": "assistant", "content": a1},
               user("question 2", "toolu_1")]
    exchanges = [exchange([q0], a0), exchange(shared[:3], a1), exchange(dropped, a0),
                 exchange([*shared, user("child 1", "toolu_1")], a0),
                 exchange([*shared, user("child 2", "toolu_1")], a0)]
    result = track(exchanges)
    parent = result.placements[2]
    assert (parent.kind, parent.rewrite) == ("continuation", ("dropped", 2))
    assert [(x, f.rule, f.pointer) for x, f in result.findings] == [
        (2, "WA-D006", "/request/body/messages/2")]
    assert [p.kind for p in result.placements[3:]] == ["fork", "fork"]
