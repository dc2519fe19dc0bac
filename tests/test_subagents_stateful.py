"""A hypothesis state machine over random agent trees and action sequences.

Each step applies one random action to the simulator through its public stepping function and
holds the observations against oracles written from the note, not from the simulator:

* only adjacent edges are accepted, and every adjacent, exact, live call is (SMA-001..013);
* a rejected send changes nothing (SMA-014); a send never changes its sender (SMA-046);
* every target reads its inbox items exactly once, in insertion order (FIFO, SMA-019/-021),
  which also covers cold resumes: nothing is lost or repeated across them;
* a child's settlement notice comes after all of its accepted messages (SMA-036);
* at the end, after draining every driver and rousing every child with parked input, each
  accepted message was read, or still waits in the inbox of a non-resident target whose parent
  is gone (SMA-D007); and replaying the recorded scenario through ``subagents.simulate`` gives
  a byte-identical trace (determinism).

Besides single random actions, two compound rules make the rare paths frequent: ``park`` (a
parent's message waits while the child's activation fails, then the child may be unloaded)
and ``rouse`` (the parent's next message wakes or cold-resumes such a child).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from agent_tck.reference_impl.subagents.scenario import parse_scenario
from agent_tck.reference_impl.subagents.simulator import canonical_json, simulate, step, trace_json

REGISTRY = ["read", "send_message", "edit"]


@st.composite
def trees(draw: Any) -> list[dict[str, Any]]:
    """1-2 roots and up to 7 children; one-shot children are leaves."""
    agents: list[dict[str, Any]] = []
    for i in range(draw(st.integers(1, 2))):
        agents.append({"id": f"r{i}", "state": draw(st.sampled_from(["running", "idle"]))})
    for i in range(draw(st.integers(1, 7))):
        parents = [a["id"] for a in agents if a.get("mode") != "one-shot"]
        mode = draw(st.sampled_from(["continuable", "continuable", "one-shot"]))
        states = ["running", "idle", "absent"] if mode == "continuable" else ["running", "done"]
        agents.append({"id": f"a{i}", "parent": draw(st.sampled_from(parents)), "mode": mode,
                       "state": draw(st.sampled_from(states)),
                       "generation": draw(st.integers(1, 3))})
    return agents


def adjacent_oracle(world: Any, sender: str, target: str, generation: int, aborted: bool) -> bool:
    """Whether the note admits the call (written from the two edges of the Decision)."""
    s, t = world.agents[sender], world.agents.get(target)
    if aborted or t is None or generation != s.generation:
        return False
    if t.parent == sender:  # parent -> direct continuable child (durable parentSession)
        return t.kind == "continuable" and s.state != "absent"
    if s.parent == target:  # resident continuable child -> live direct parent (Activation)
        return s.kind == "continuable" and s.state in ("running", "waking") and (
            t.state != "absent"
        )
    return False


class Runtime(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.doc: dict[str, Any] = {}
        self.actions: list[Any] = []
        self.seen: list[Any] = []
        self.world: Any = None
        self.counter = 0
        self.expected: dict[str, list[tuple[str, str]]] = defaultdict(list)  # insertion order
        self.read: dict[str, list[tuple[str, str]]] = defaultdict(list)  # admission order
        self.accepted: dict[str, str] = {}  # content -> target
        self.sent_by: dict[str, list[tuple[str, str]]] = defaultdict(list)  # child -> (to, c)
        # child -> for each settlement not yet read: the messages it owes its parent first
        self.owed: dict[str, list[set[tuple[str, str]]]] = defaultdict(list)

    # --- setup and stepping -------------------------------------------------------------------
    @initialize(agents=trees())
    def setup(self, agents: list[dict[str, Any]]) -> None:
        self.doc = {"scenario": "stateful", "world": {"system": ["core"], "registry": REGISTRY,
                                                     "agents": agents}, "actions": []}
        self.world = parse_scenario(self.doc).world

    def apply(self, action: dict[str, Any]) -> list[Any]:
        index = len(self.doc["actions"])
        parsed = parse_scenario({**self.doc, "actions": [action]}).actions[0]
        parsed = replace(parsed, index=index)
        before = self.world
        self.doc["actions"].append(action)
        self.actions.append(parsed)
        self.world, seen = step("stateful", before, parsed, tuple(self.actions))
        self.seen.extend(seen)
        self.account([o.to_json() for o in seen])
        return [o.to_json() for o in seen]

    def account(self, events: list[dict[str, Any]]) -> None:
        for e in events:
            if e["event"] == "accepted":
                content = self.doc["actions"][e["action"]]["message"]
                self.expected[e["to"]].append(("m", content))
                self.accepted[content] = e["to"]
                self.sent_by[e["from"]].append((e["to"], content))
            elif e["event"] == "settled":
                parent = self.world.agents[e["agent"]].parent
                self.expected[parent].append(("n", e["agent"]))
                self.owed[e["agent"]].append(
                    {("m", c) for to, c in self.sent_by[e["agent"]] if to == parent}
                )
            elif e["event"] == "input" and e["kind"] == "agent-message":
                self.read[e["agent"]].append(("m", e["content"]))
            elif e["event"] == "input" and e["kind"] == "settlement":
                # SMA-036: what the child sent this parent before settling is already read
                owed = self.owed[e["child"]].pop(0)
                assert owed <= set(self.read[e["agent"]]), (e, owed, self.read[e["agent"]])
                self.read[e["agent"]].append(("n", e["child"]))

    def ids(self, *states: str, kinds: tuple[str, ...] = ()) -> list[str]:
        return [a.id for a in self.world.agents.values()
                if (not states or a.state in states) and (not kinds or a.kind in kinds)]

    # --- rules --------------------------------------------------------------------------------
    @rule(data=st.data(), aborted=st.integers(0, 5), stale=st.booleans(),
          unknown=st.integers(0, 7), aim=st.sampled_from(["edge", "kin", "any"]))
    def send(self, data: Any, aborted: int, stale: bool, unknown: int, aim: str) -> None:
        resumed = sorted(a.id for a in self.world.agents.values() if a.generation > 1)
        pool = resumed if stale and resumed else sorted(self.world.agents)
        sender = data.draw(st.sampled_from(pool))
        targets = self.aim(sender, aim) or sorted(self.world.agents)
        target = "ghost" if unknown == 0 else data.draw(st.sampled_from(targets))
        generation = self.world.agents[sender].generation
        if stale and generation > 1:
            generation = data.draw(st.integers(1, generation - 1))
        self.counter += 1
        content = f"msg-{self.counter}"
        before = self.world
        action = {"do": "send", "from": sender, "to": target, "message": content,
                  "generation": generation, "signal": "aborted" if aborted == 0 else "live"}
        events = self.apply(action)
        verdicts = [e for e in events if e["event"] in ("accepted", "rejected")]
        assert len(verdicts) == 1
        ok = adjacent_oracle(before, sender, target, generation, aborted == 0)
        assert (verdicts[0]["event"] == "accepted") == ok, (before.agents, action, events)
        if not ok:
            assert self.world == before and events == verdicts  # SMA-014
        else:  # SMA-046: sending changes nothing about the sender
            assert self.world.agents[sender] == before.agents[sender] or target == sender

    def aim(self, sender: str, aim: str) -> list[str]:
        """Targets by relation: the two edges, or kin just off them, or anyone."""
        agents = self.world.agents
        parent = agents[sender].parent
        edge = [a.id for a in agents.values() if a.parent == sender or a.id == parent]
        if aim == "edge":
            return sorted(edge)
        if aim == "kin":
            grand = agents[parent].parent if parent else None
            return sorted(
                a.id for a in agents.values()
                if a.id != sender and (a.id == grand or (parent and a.parent == parent)
                                       or (a.parent in edge and a.parent != parent))
            )
        return []

    @precondition(lambda self: any(a.state in ("running", "waking")
                                   for a in self.world.agents.values()))
    @rule(data=st.data())
    def boundary(self, data: Any) -> None:
        self.apply({"do": "boundary",
                    "agent": data.draw(st.sampled_from(self.ids("running", "waking")))})

    @precondition(lambda self: any(a.state == "running" for a in self.world.agents.values()))
    @rule(data=st.data())
    def finish(self, data: Any) -> None:
        self.apply({"do": "finish", "agent": data.draw(st.sampled_from(self.ids("running"))),
                    "output": "out"})

    @precondition(lambda self: any(a.state == "running" and a.kind == "continuable"
                                   for a in self.world.agents.values()))
    @rule(data=st.data(), outcome=st.sampled_from(["error", "cancelled", "token-exhaustion"]))
    def settle(self, data: Any, outcome: str) -> None:
        agent = data.draw(st.sampled_from(self.ids("running", kinds=("continuable",))))
        self.apply({"do": "settle", "agent": agent, "outcome": outcome})

    @rule(data=st.data())
    def prompt(self, data: Any) -> None:
        root = data.draw(st.sampled_from(self.ids(kinds=("root",))))
        self.counter += 1
        self.apply({"do": "prompt", "agent": root, "text": f"prompt-{self.counter}"})

    @precondition(lambda self: any(a.state == "idle" and a.kind == "continuable"
                                   for a in self.world.agents.values()))
    @rule(data=st.data())
    def dispose(self, data: Any) -> None:
        agent = data.draw(st.sampled_from(self.ids("idle", kinds=("continuable",))))
        self.apply({"do": "dispose", "agent": agent})

    @precondition(lambda self: any(a.state == "running" and a.kind != "one-shot"
                                   for a in self.world.agents.values()))
    @rule(data=st.data(), mode=st.sampled_from(["continuable", "one-shot"]), fork=st.booleans())
    def spawn(self, data: Any, mode: str, fork: bool) -> None:
        parent = data.draw(st.sampled_from(self.ids("running", kinds=("root", "continuable"))))
        self.counter += 1
        self.apply({"do": "spawn", "parent": parent, "child": f"s{self.counter}", "mode": mode,
                    "task": "t", "fork": fork})

    @precondition(lambda self: bool(self.parkable()))
    @rule(data=st.data(), unload=st.booleans())
    def park(self, data: Any, unload: bool) -> None:
        """A parent's message waits when the child's activation ends abnormally (SMA-D007)."""
        child = data.draw(st.sampled_from(self.parkable()))
        parent = self.world.agents[child].parent
        self.counter += 1
        self.apply({"do": "send", "from": parent, "to": child, "message": f"msg-{self.counter}"})
        self.apply({"do": "settle", "agent": child, "outcome": "error"})
        if unload:
            self.apply({"do": "dispose", "agent": child})

    def parkable(self) -> list[str]:
        return [a.id for a in self.world.agents.values()
                if a.kind == "continuable" and a.state == "running"
                and self.world.agents[a.parent].state != "absent"]

    @precondition(lambda self: bool(self.rousable()))
    @rule(data=st.data())
    def rouse(self, data: Any) -> None:
        """A parent's next message reaches a child whose inbox holds parked input."""
        child = data.draw(st.sampled_from(self.rousable()))
        self.counter += 1
        self.apply({"do": "send", "from": self.world.agents[child].parent, "to": child,
                    "message": f"msg-{self.counter}"})

    def rousable(self) -> list[str]:
        return [a.id for a in self.world.agents.values()
                if a.inbox and a.state in ("idle", "absent")
                and self.world.agents[a.parent].state != "absent"]

    @precondition(lambda self: any(a["do"] == "send" for a in self.doc["actions"]))
    @rule(data=st.data())
    def cancel(self, data: Any) -> None:
        sends = [i for i, a in enumerate(self.doc["actions"]) if a["do"] == "send"]
        before = self.world
        self.apply({"do": "cancel", "send": data.draw(st.sampled_from(sends))})
        assert self.world == before  # SMA-027, SMA-028: nothing retracted or disposed

    # --- invariants ---------------------------------------------------------------------------
    @invariant()
    def fifo_and_exactly_once(self) -> None:
        for target, got in self.read.items():
            want = self.expected[target]
            assert got == want[: len(got)], (target, got, want)  # FIFO, no repeat, no loss

    def rouse_all(self) -> None:
        for child in self.rousable():
            self.counter += 1
            self.apply({"do": "send", "from": self.world.agents[child].parent, "to": child,
                        "message": f"msg-{self.counter}"})

    def teardown(self) -> None:
        if not self.doc:
            return
        # drain every driver so accepted input gets its chance to be read
        for _ in range(5000):
            waking, running = self.ids("waking"), self.ids("running")
            if waking:
                self.apply({"do": "boundary", "agent": waking[0]})
            elif running:
                self.apply({"do": "finish", "agent": running[0], "output": "drained"})
            elif self.rousable():
                self.rouse_all()
            else:
                break
        else:
            raise AssertionError("the drain did not terminate")
        self.fifo_and_exactly_once()
        for content, target in self.accepted.items():
            agent = self.world.agents[target]
            read = ("m", content) in self.read[target]
            waiting = any(getattr(i, "content", None) == content for i in agent.inbox)
            assert read != waiting, (content, target)
            if waiting:  # only parked (SMA-D007) in a target without a resident activation
                assert not agent.resident, agent
        # determinism: the recorded scenario replays to the same bytes, twice
        replay = canonical_json(simulate(self.doc))
        assert replay == canonical_json(trace_json(self.seen))
        assert replay == canonical_json(simulate(self.doc))


Runtime.TestCase.settings = settings(
    max_examples=60, stateful_step_count=30, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestRuntime = Runtime.TestCase
