"""Gherkin steps of features/send_message_adjacency.feature (family send-message-adjacency).

``Given`` steps build a scenario (vectors/send-message-adjacency/README.md), ``When`` steps
append its actions, and the first ``Then`` step runs it once through ``tck_target`` (operation
``subagents.simulate``); every later ``Then`` reads the same trace. Steps never call the
reference implementation directly, so ``pytest --impl CMD`` runs them against any adapter.
"""

# ruff: noqa: PLR0917 - pytest-bdd passes step arguments and fixtures by name, positionally
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from agent_tck.harness.run.outcome import Output, Rejected

OPERATION = "subagents.simulate"
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')


@dataclass
class SmaRun:
    """The scenario under construction and, once run, its outcome."""

    world: dict[str, Any] = field(
        default_factory=lambda: {"system": [], "registry": ["send_message"], "agents": []}
    )
    actions: list[dict[str, Any]] = field(default_factory=list)
    outcome: Output | Rejected | None = None

    def scenario(self) -> dict[str, Any]:
        return {"scenario": "gherkin", "world": self.world, "actions": self.actions}

    def agent(self, agent_id: str) -> dict[str, Any]:
        for spec in self.world["agents"]:
            if spec["id"] == agent_id:
                return spec
        raise AssertionError(f"the scenario declares no agent {agent_id!r}")


@pytest.fixture
def sma_run() -> SmaRun:
    return SmaRun()


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def _quoted(text: str) -> list[str]:
    return [json.loads(f'"{m}"') for m in _QUOTED.findall(text)]


def _result(run: SmaRun, target: Any) -> Output | Rejected:
    if run.outcome is None:
        run.outcome = target.call(OPERATION, run.scenario())
    return run.outcome


def _trace(run: SmaRun, target: Any) -> list[dict[str, Any]]:
    result = _result(run, target)
    assert isinstance(result, Output), f"the scenario was rejected: {result}"
    trace = result.value.get("trace") if isinstance(result.value, dict) else None
    assert isinstance(trace, list), f"the output has no trace list: {result.value!r}"
    return trace


def _events(run: SmaRun, target: Any, event: str, **match: Any) -> list[dict[str, Any]]:
    return [
        e for e in _trace(run, target)
        if e.get("event") == event and all(e.get(k) == v for k, v in match.items())
    ]


def _index(trace: list[dict[str, Any]], predicate: Any, what: str) -> int:
    for i, e in enumerate(trace):
        if predicate(e):
            return i
    raise AssertionError(f"the trace has no {what}: {json.dumps(trace, indent=1)}")


def _sends(run: SmaRun) -> list[int]:
    return [i for i, a in enumerate(run.actions) if a["do"] == "send"]


# --- the world --------------------------------------------------------------------------------
@given(parsers.parse('a world with system sections "{sections}" and registry "{names}"'))
def _world(sma_run: SmaRun, sections: str, names: str) -> None:
    sma_run.world["system"] = _names(sections)
    sma_run.world["registry"] = _names(names)


@given(parsers.re(r'an? (?P<state>running|idle) root "(?P<agent>[^"]+)"'
                  r'(?: at turn (?P<turn>\d+))?(?: step (?P<step>\d+))?'
                  r'(?: with preset "(?P<preset>[^"]*)")?$'))
def _root(sma_run: SmaRun, state: str, agent: str, turn: str | None, step: str | None,
          preset: str | None) -> None:
    spec: dict[str, Any] = {"id": agent, "state": state}
    if turn:
        spec["turn"] = int(turn)
    if step:
        spec["step"] = int(step)
    if preset is not None:
        spec["preset"] = _names(preset)
    sma_run.world["agents"].append(spec)


@given(parsers.re(r'an? (?P<state>running|idle|absent|done) (?P<mode>continuable|one-shot) '
                  r'child "(?P<agent>[^"]+)" of "(?P<parent>[^"]+)"'
                  r'(?: at turn (?P<turn>\d+))?(?: step (?P<step>\d+))?'
                  r'(?: whose descriptor filter removes "(?P<removed>[^"]*)")?$'))
def _child(sma_run: SmaRun, state: str, mode: str, agent: str, parent: str, turn: str | None,
           step: str | None, removed: str | None) -> None:
    spec: dict[str, Any] = {"id": agent, "parent": parent, "mode": mode, "state": state}
    if turn:
        spec["turn"] = int(turn)
    if step:
        spec["step"] = int(step)
    if removed is not None:
        spec["resumeFilter"] = _names(removed)
    sma_run.world["agents"].append(spec)


# --- actions ----------------------------------------------------------------------------------
@when(parsers.re(r'"(?P<sender>[^"]+)" sends "(?P<message>[^"]*)" to "(?P<to>[^"]*)"'
                 r'(?P<how>| with an aborted signal| through its object of generation '
                 r'(?P<generation>\d+))$'))
def _send(sma_run: SmaRun, sender: str, message: str, to: str, how: str,
          generation: str | None) -> None:
    action: dict[str, Any] = {"do": "send", "from": sender, "to": to, "message": message}
    if "aborted" in how:
        action["signal"] = "aborted"
    if generation:
        action["generation"] = int(generation)
    sma_run.actions.append(action)


@when(parsers.parse('"{sender}" sends "{message}" without an agent_id'))
def _send_without_target(sma_run: SmaRun, sender: str, message: str) -> None:
    # SMA-054: the call carries a message but no agent_id (the action has no "to")
    sma_run.actions.append({"do": "send", "from": sender, "message": message})


@when("the caller cancels the last send")
def _cancel(sma_run: SmaRun) -> None:
    sma_run.actions.append({"do": "cancel", "send": _sends(sma_run)[-1]})


@when(parsers.parse('"{agent}" reaches a step boundary'))
def _boundary(sma_run: SmaRun, agent: str) -> None:
    sma_run.actions.append({"do": "boundary", "agent": agent})


@when(parsers.re(r'"(?P<agent>[^"]+)" finishes its turn(?: with "(?P<output>[^"]*)")?$'))
def _finish(sma_run: SmaRun, agent: str, output: str | None) -> None:
    action: dict[str, Any] = {"do": "finish", "agent": agent}
    if output is not None:
        action["output"] = output
    sma_run.actions.append(action)


@when(parsers.re(r'"(?P<agent>[^"]+)" ends with outcome "(?P<outcome>[^"]+)"'
                 r'(?: and output "(?P<output>[^"]*)")?$'))
def _settle(sma_run: SmaRun, agent: str, outcome: str, output: str | None) -> None:
    action: dict[str, Any] = {"do": "settle", "agent": agent, "outcome": outcome}
    if output is not None:
        action["output"] = output
    sma_run.actions.append(action)


@when(parsers.parse('a human prompts "{agent}" with "{text}"'))
def _prompt(sma_run: SmaRun, agent: str, text: str) -> None:
    sma_run.actions.append({"do": "prompt", "agent": agent, "text": text})


@when(parsers.parse('"{agent}" is unloaded'))
def _dispose(sma_run: SmaRun, agent: str) -> None:
    sma_run.actions.append({"do": "dispose", "agent": agent})


@when(parsers.re(r'"(?P<parent>[^"]+)" spawns a (?P<mode>continuable|one-shot) '
                 r'(?P<fork>child|fork) "(?P<child>[^"]+)" with task "(?P<task>[^"]*)"'
                 r'(?: (?P<option>with preset|whose descriptor filter removes|with a scoped '
                 r'send_message)(?: "(?P<names>[^"]*)")?)?$'))
def _spawn(sma_run: SmaRun, parent: str, mode: str, fork: str, child: str, task: str,
           option: str | None, names: str | None) -> None:
    action: dict[str, Any] = {"do": "spawn", "parent": parent, "child": child, "mode": mode,
                              "task": task, "fork": fork == "fork"}
    if option == "with preset":
        action["preset"] = _names(names or "")
    elif option == "whose descriptor filter removes":
        action["resumeFilter"] = _names(names or "")
    elif option is not None:
        action["scopedSendMessage"] = {"params": {"channel": "string", "text": "string"},
                                       "required": ["text"]}
    sma_run.actions.append(action)


@when("the scenario declares a delivery mode on its last send")
def _delivery_mode(sma_run: SmaRun) -> None:
    sma_run.actions[_sends(sma_run)[-1]]["delivery"] = "queue"


# --- outcomes ---------------------------------------------------------------------------------
@then(parsers.parse('the send from "{sender}" to "{to}" is accepted'))
def _accepted(sma_run: SmaRun, tck_target: Any, sender: str, to: str) -> None:
    assert _events(sma_run, tck_target, "accepted", **{"from": sender, "to": to}), (
        f"no accepted send from {sender} to {to}: {_trace(sma_run, tck_target)}"
    )


@then(parsers.parse('the send from "{sender}" to "{to}" is rejected with "{code}"'))
def _rejected(sma_run: SmaRun, tck_target: Any, sender: str, to: str, code: str) -> None:
    found = _events(sma_run, tck_target, "rejected", **{"from": sender, "to": to})
    assert [e["reason"] for e in found] == [code], f"rejections {sender}->{to}: {found}"


@then(parsers.parse('the send from "{sender}" without an agent_id is rejected with "{code}"'))
def _rejected_without_target(sma_run: SmaRun, tck_target: Any, sender: str, code: str) -> None:
    found = _events(sma_run, tck_target, "rejected", **{"from": sender, "to": None})
    assert [e["reason"] for e in found] == [code], f"{sender} without agent_id: {found}"


@then(parsers.parse('"{agent}" reads the message "{content}" from "{sender}" '
                    "at turn {turn:d} step {step:d}"))
def _reads(sma_run: SmaRun, tck_target: Any, agent: str, content: str, sender: str,
           turn: int, step: int) -> None:
    # SMA-022, SMA-023: exact framing line and durable source, derived from the sender
    found = _events(sma_run, tck_target, "input", agent=agent, kind="agent-message",
                    content=content)
    assert found, f"{agent} never read {content!r}: {_trace(sma_run, tck_target)}"
    assert len(found) == 1, f"{agent} read {content!r} {len(found)} times"
    event = found[0]
    assert (event["turn"], event["step"]) == (turn, step), event
    assert event["framing"] == f"Agent {sender} sent a message:", event
    assert event["source"] == {"kind": "agent-message", "form": "relay",
                               "senderSessionId": sender}, event


@then(parsers.parse('"{agent}" reads these inputs in one step, in order: {items}'))
def _reads_in_order(sma_run: SmaRun, tck_target: Any, agent: str, items: str) -> None:
    wanted = _quoted(items)
    seen = [e for e in _events(sma_run, tck_target, "input", agent=agent)
            if e["kind"] in ("agent-message", "settlement", "human-prompt")]
    labels = [
        e.get("content") if e["kind"] == "agent-message"
        else f"settlement of {e['child']}" if e["kind"] == "settlement" else e["text"]
        for e in seen
    ]
    assert labels == wanted, f"{agent} read {labels}, expected {wanted}"
    assert len({(e["turn"], e["step"]) for e in seen}) == 1, f"not one step: {seen}"


@then(parsers.parse('"{agent}" reads the human prompt "{text}" at turn {turn:d} step {step:d}'))
def _reads_prompt(sma_run: SmaRun, tck_target: Any, agent: str, text: str, turn: int,
                  step: int) -> None:
    # SMA-049: a human prompt carries no agent framing or source
    found = _events(sma_run, tck_target, "input", agent=agent, kind="human-prompt", text=text)
    assert [(e["turn"], e["step"]) for e in found] == [(turn, step)], found
    assert "framing" not in found[0] and "source" not in found[0], found[0]


@then(parsers.parse('"{agent}" has not read the human prompt "{text}"'))
def _not_read_prompt(sma_run: SmaRun, tck_target: Any, agent: str, text: str) -> None:
    assert not _events(sma_run, tck_target, "input", agent=agent, kind="human-prompt", text=text)
    assert not _events(sma_run, tck_target, "input", agent=agent, content=text)


@then(parsers.parse('"{agent}" reads at turn {turn:d} step {step:d}, in order: {items}'))
def _reads_at(sma_run: SmaRun, tck_target: Any, agent: str, turn: int, step: int,
              items: str) -> None:
    seen = [e for e in _events(sma_run, tck_target, "input", agent=agent, turn=turn, step=step)
            if e["kind"] in ("agent-message", "settlement", "human-prompt")]
    labels = [
        e.get("content") if e["kind"] == "agent-message"
        else f"settlement of {e['child']}" if e["kind"] == "settlement" else e["text"]
        for e in seen
    ]
    assert labels == _quoted(items), f"{agent} read {labels} at turn {turn} step {step}"


@then(parsers.parse('"{agent}" reads nothing'))
def _reads_nothing(sma_run: SmaRun, tck_target: Any, agent: str) -> None:
    found = [e for e in _events(sma_run, tck_target, "input", agent=agent)
             if e["kind"] != "initial-task"]
    assert found == [], f"{agent} read {found}"


@then(parsers.parse('"{agent}" reads the settlement of "{child}" with outcome "{outcome}" '
                    'and output "{output}"'))
def _reads_settlement(sma_run: SmaRun, tck_target: Any, agent: str, child: str, outcome: str,
                      output: str) -> None:
    found = _events(sma_run, tck_target, "input", agent=agent, kind="settlement", child=child)
    assert len(found) == 1, f"{agent} read {len(found)} settlements of {child}"
    assert (found[0]["outcome"], found[0]["output"]) == (outcome, output), found[0]
    # SMA-030: separately attributed: no agent framing or source on a notice
    assert "framing" not in found[0] and "source" not in found[0], found[0]


@then(parsers.parse('"{agent}" reads the settlement of "{child}" after every message of '
                    '"{child2}"'))
def _settlement_last(sma_run: SmaRun, tck_target: Any, agent: str, child: str,
                     child2: str) -> None:
    trace = _trace(sma_run, tck_target)
    notice = _index(trace, lambda e: e.get("event") == "input" and e.get("agent") == agent
                    and e.get("kind") == "settlement" and e.get("child") == child,
                    f"settlement of {child} at {agent}")
    messages = [i for i, e in enumerate(trace) if e.get("event") == "input"
                and e.get("agent") == agent and e.get("kind") == "agent-message"
                and e["source"].get("senderSessionId") == child2]
    assert messages, f"{agent} read no message of {child2}"
    assert max(messages) < notice, f"a message of {child2} came after its settlement: {trace}"


@then(parsers.parse('"{agent}" starts turn {turn:d}'))
def _starts(sma_run: SmaRun, tck_target: Any, agent: str, turn: int) -> None:
    assert _events(sma_run, tck_target, "turn-start", agent=agent, turn=turn), (
        f"{agent} never started turn {turn}: {_trace(sma_run, tck_target)}"
    )


@then(parsers.parse('"{agent}" starts no turn'))
def _starts_none(sma_run: SmaRun, tck_target: Any, agent: str) -> None:
    assert not _events(sma_run, tck_target, "turn-start", agent=agent)


@then(parsers.parse('"{agent}" ends turn {turn:d} only at action {action:d}'))
def _ends_at(sma_run: SmaRun, tck_target: Any, agent: str, turn: int, action: int) -> None:
    ends = _events(sma_run, tck_target, "turn-end", agent=agent)
    assert [(e["turn"], e["action"]) for e in ends] == [(turn, action)], ends


@then(parsers.parse('"{agent}" is cold-resumed before the send from "{sender}" is accepted'))
def _cold_resumed(sma_run: SmaRun, tck_target: Any, agent: str, sender: str) -> None:
    trace = _trace(sma_run, tck_target)
    resumed = _index(trace, lambda e: e.get("event") == "cold-resume" and e["agent"] == agent,
                     f"cold resume of {agent}")
    # SMA-018: the resume happens during the send that it serves, before its acceptance
    action = trace[resumed]["action"]
    accepted = _index(trace, lambda e: e.get("event") == "accepted" and e["to"] == agent
                      and e["from"] == sender and e["action"] == action,
                      f"accepted send {sender}->{agent} at action {action}")
    assert resumed < accepted
    assert len(_events(sma_run, tck_target, "cold-resume", agent=agent)) == 1


@then("no agent is cold-resumed")
def _no_resume(sma_run: SmaRun, tck_target: Any) -> None:
    assert not _events(sma_run, tck_target, "cold-resume")


@then(parsers.parse('"{agent}" settles with outcome "{outcome}" and output "{output}"'))
def _settles(sma_run: SmaRun, tck_target: Any, agent: str, outcome: str, output: str) -> None:
    found = _events(sma_run, tck_target, "settled", agent=agent)
    assert [(e["outcome"], e["output"]) for e in found] == [(outcome, output)], found


@then(parsers.parse('"{agent}" settles with outcome "{outcome}"'))
def _settles_outcome(sma_run: SmaRun, tck_target: Any, agent: str, outcome: str) -> None:
    found = _events(sma_run, tck_target, "settled", agent=agent)
    assert [e["outcome"] for e in found] == [outcome], found


@then(parsers.parse('"{agent}" does not settle'))
def _no_settle(sma_run: SmaRun, tck_target: Any, agent: str) -> None:
    assert not _events(sma_run, tck_target, "settled", agent=agent)
    assert not [e for e in _events(sma_run, tck_target, "input", kind="settlement")
                if e["child"] == agent]


@then("no send is rejected")
def _none_rejected(sma_run: SmaRun, tck_target: Any) -> None:
    assert not _events(sma_run, tck_target, "rejected")


# --- heads and initial tasks ------------------------------------------------------------------
def _head(run: SmaRun, target: Any, agent: str) -> dict[str, Any]:
    found = _events(run, target, "request-head", agent=agent)
    assert found, f"no request head of {agent}: {_trace(run, target)}"
    return found[0]


@then(parsers.parse('the request head of "{agent}" has system "{sections}" and tools "{names}"'))
def _head_is(sma_run: SmaRun, tck_target: Any, agent: str, sections: str, names: str) -> None:
    head = _head(sma_run, tck_target, agent)
    assert (head["system"], head["tools"]) == (_names(sections), _names(names)), head


@then(parsers.parse('the request head of "{agent}" has the standard send_message'))
def _head_standard(sma_run: SmaRun, tck_target: Any, agent: str) -> None:
    # SMA-025: {agent_id: string, message: string}, both required, nothing else
    assert _head(sma_run, tck_target, agent)["sendMessage"] == {
        "standard": True,
        "params": {"agent_id": "string", "message": "string"},
        "required": ["agent_id", "message"],
    }


@then(parsers.parse('the request head of "{agent}" has no send_message'))
def _head_without(sma_run: SmaRun, tck_target: Any, agent: str) -> None:
    head = _head(sma_run, tck_target, agent)
    assert head["sendMessage"] is None and "send_message" not in head["tools"], head


@then(parsers.parse('the request head of "{agent}" equals the world\'s head of "{parent}"'))
def _head_equals_parent(sma_run: SmaRun, tck_target: Any, agent: str, parent: str) -> None:
    # SMA-044, SMA-045: the fork's head is its parent's, section for section, tool for tool
    spec = sma_run.agent(parent)
    registry = sma_run.world["registry"]
    preset = spec.get("preset")
    tools = [t for t in registry if preset is None or t in preset]
    head = _head(sma_run, tck_target, agent)
    assert head["system"] == spec.get("system", sma_run.world["system"]), head
    assert head["tools"] == tools, head


@then("no request head carries a report tool or a tool:report section")
def _no_report(sma_run: SmaRun, tck_target: Any) -> None:
    heads = _events(sma_run, tck_target, "request-head")
    assert heads, "the scenario produced no request head"
    for head in heads:
        assert "report" not in head["tools"], head
        assert "tool:report" not in head["system"], head


def _task(run: SmaRun, target: Any, agent: str) -> dict[str, Any]:
    found = _events(run, target, "input", agent=agent, kind="initial-task")
    assert len(found) == 1, f"{agent} has {len(found)} initial tasks"
    return found[0]


@then(parsers.parse('the initial task of "{agent}" carries the parent id {literal} and the '
                    "return instruction"))
def _task_instruction(sma_run: SmaRun, tck_target: Any, agent: str, literal: str) -> None:
    assert _task(sma_run, tck_target, agent)["returnInstruction"] == {
        "parentIdJson": literal,
        "selfContainedResult": True,
        "earlierFindings": True,
    }


@then(parsers.parse('the initial task of "{agent}" has no return instruction'))
def _task_plain(sma_run: SmaRun, tck_target: Any, agent: str) -> None:
    assert _task(sma_run, tck_target, agent)["returnInstruction"] is None


@then(parsers.parse('the initial task of "{agent}" follows {turns:d} inherited turns'))
def _task_prefix(sma_run: SmaRun, tck_target: Any, agent: str, turns: int) -> None:
    assert _task(sma_run, tck_target, agent)["prefixTurns"] == turns


# --- the scenario itself ----------------------------------------------------------------------
@then("the scenario is rejected as invalid")
def _invalid(sma_run: SmaRun, tck_target: Any) -> None:
    result = _result(sma_run, tck_target)
    assert isinstance(result, Rejected) and result.code == "INVALID_SCENARIO", result


@then("running the scenario again gives the same trace")
def _deterministic(sma_run: SmaRun, tck_target: Any) -> None:
    first = _trace(sma_run, tck_target)
    again = tck_target.call(OPERATION, sma_run.scenario())
    assert isinstance(again, Output)
    assert json.dumps(again.value["trace"], sort_keys=True) == json.dumps(first, sort_keys=True)
