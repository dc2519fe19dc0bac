"""A deterministic, discrete-step simulator of a subagent runtime (spec 003, send_message).

A scenario sets up a world of agents and applies actions one at a time; each action yields
observations, and the operation ``subagents.simulate`` returns them as a trace. The simulator
is a pure function: :func:`apply` takes a frozen :class:`World` and one action and returns a new
world and the observations, so the same scenario always gives the same trace (byte-identical
under :func:`canonical_json`). There is no clock, thread, queue object or randomness: time is
the action list.

Who may send to whom is :func:`reference_impl.subagent_routes.authorize`; every lifecycle
change is a row of :data:`reference_impl.subagent_table.TABLE`; this module runs the effect a
row names and records what an observer of the runtime would see.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from agent_tck.reference_impl.subagents.model import (
    COMPLETED,
    CONTINUABLE,
    RUNNING,
    Agent,
    AgentMessage,
    InboxItem,
    SettlementNotice,
    World,
    agent_message_source,
    framing,
)
from agent_tck.reference_impl.subagents.routes import authorize
from agent_tck.reference_impl.subagents.scenario import (
    Action,
    Boundary,
    Cancel,
    Dispose,
    Finish,
    Prompt,
    Scenario,
    Send,
    Settle,
    Spawn,
    head_for,
    invalid,
    parse_scenario,
)
from agent_tck.reference_impl.subagents.table import (
    ACCEPT_MESSAGE,
    ACCEPT_NOTICE,
    BOUNDARY,
    COLD_RESUME,
    DISPOSE,
    END_AND_SETTLE,
    END_TURN,
    ENQUEUE,
    EXTEND_TURN,
    FINISH,
    NEXT_STEP,
    PARK,
    PROMPT,
    QUEUE_PROMPT,
    SETTLE,
    SPAWN,
    START_CHILD,
    START_TURN,
    UNLOAD,
    NoTransition,
    Row,
    transition,
)


@dataclass(frozen=True)
class Observation:
    """One trace event: what happened, during which action (its index)."""

    action: int
    event: str
    data: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, "event": self.event, **json.loads(json.dumps(
            dict(self.data)))}


def _obs(action: int, event: str, **data: Any) -> Observation:
    return Observation(action, event, MappingProxyType(data))


Step = tuple[World, tuple[Observation, ...]]


class _Bad(Exception):
    """Internal: a step that cannot happen; :func:`step` turns it into INVALID_SCENARIO."""

    def __init__(self, field: str, what: str) -> None:
        super().__init__(what)
        self.field = field
        self.what = what


# --- driving one agent through the table ------------------------------------------------------
def _input(agent: Agent, index: int, item: InboxItem) -> Observation:
    """The model-visible input an admitted inbox item becomes."""
    if isinstance(item, AgentMessage):
        # SMA-022, SMA-023, SMA-024: framing and durable source come from the authorized
        # sender recorded at acceptance, never from the message text.
        return _obs(
            index, "input", agent=agent.id, turn=agent.turn, step=agent.step,
            kind="agent-message", framing=framing(item.sender), content=item.content,
            source=agent_message_source(item.sender),
        )
    # SMA-030: a settlement notice is attributed on its own, never as an agent message.
    return _obs(
        index, "input", agent=agent.id, turn=agent.turn, step=agent.step,
        kind="settlement", child=item.child, outcome=item.outcome, output=item.output,
    )


def _admit(agent: Agent, index: int) -> tuple[Agent, list[Observation]]:
    """SMA-019: everything waiting in the steer inbox enters the current step, FIFO."""
    seen = [_input(agent, index, item) for item in agent.inbox]
    return agent.evolve(inbox=()), seen


def _drive(world: World, agent_id: str, event: str, index: int, **extra: Any) -> Step:
    agent = world.agents[agent_id]
    row = transition(agent.id, agent.kind, agent.state, event, agent.pending())
    return _EFFECTS[row.effect](world, agent, row, index, extra)


def _next_step(world: World, agent: Agent, row: Row, index: int, _: dict[str, Any]) -> Step:
    # SMA-015 "A running target receives it at the nearest step boundary"; SMA-016 a finish
    # that meets waiting steer input extends the same turn instead of ending it.
    agent = agent.evolve(state=row.next, step=agent.step + 1)
    agent, seen = _admit(agent, index)
    return world.replace_agent(agent), tuple(seen)


def _start_turn(world: World, agent: Agent, row: Row, index: int, _: dict[str, Any]) -> Step:
    # SMA-017 "an idle target starts a turn". SMA-D005: the turn's first step admits the
    # waiting steer batch, then at most one queued human prompt (SMA-050: one per turn).
    agent = agent.evolve(state=row.next, turn=agent.turn + 1, step=1)
    seen = [_obs(index, "turn-start", agent=agent.id, turn=agent.turn)]
    agent, admitted = _admit(agent, index)
    seen += admitted
    if agent.prompts:
        # SMA-049: a human prompt is not an agent message: no framing, no agent source.
        seen.append(_obs(index, "input", agent=agent.id, turn=agent.turn, step=agent.step,
                         kind="human-prompt", text=agent.prompts[0]))
        agent = agent.evolve(prompts=agent.prompts[1:])
    return world.replace_agent(agent), tuple(seen)


def _end_turn(world: World, agent: Agent, row: Row, index: int, _: dict[str, Any]) -> Step:
    seen = (_obs(index, "turn-end", agent=agent.id, turn=agent.turn),)
    return world.replace_agent(agent.evolve(state=row.next, step=0)), seen


def _end_and_settle(world: World, agent: Agent, row: Row, index: int,
                    extra: dict[str, Any]) -> Step:
    # SMA-029 "The manager-owned subagent-settled notice remains unconditional": every end
    # of a continuable child's activation, however it ended (SMA-031..034), with its terminal
    # output (SMA-035). The notice enters the parent's steer inbox *after* everything the
    # child sent before (SMA-036, SMA-D006). SMA-D007: steer input still waiting for this
    # child stays parked in its inbox for its next activation.
    outcome, output = extra.get("outcome", COMPLETED), extra.get("output")
    seen = [
        _obs(index, "turn-end", agent=agent.id, turn=agent.turn),
        _obs(index, "settled", agent=agent.id, outcome=outcome, output=output),
    ]
    world = world.replace_agent(agent.evolve(state=row.next, step=0))
    assert agent.parent is not None  # a continuable agent is a child
    notice = SettlementNotice(agent.id, outcome, output, index)
    world, more = _drive(world, agent.parent, ACCEPT_NOTICE, index, item=notice)
    return world, (*seen, *more)


def _enqueue(world: World, agent: Agent, row: Row, index: int, extra: dict[str, Any]) -> Step:
    # SMA-020: inbox insertion moves an idle target to waking in the same step, so nothing can
    # settle it before the driver admits the input (waking-send accounting).
    agent = agent.evolve(state=row.next, inbox=(*agent.inbox, extra["item"]))
    return world.replace_agent(agent), ()


def _cold_resume(world: World, agent: Agent, row: Row, index: int, extra: dict[str, Any]) -> Step:
    # SMA-018 "An absent direct child is cold-resumed ... before the same Steer delivery":
    # a new object (older ones are stale, SMA-D004), the head its descriptor gives.
    agent = agent.evolve(
        state=row.next, generation=agent.generation + 1, inbox=(*agent.inbox, extra["item"])
    )
    seen = (
        _obs(index, "cold-resume", agent=agent.id),
        _obs(index, "request-head", agent=agent.id, **agent.head.to_json()),
    )
    return world.replace_agent(agent), seen


def _park(world: World, agent: Agent, row: Row, index: int, extra: dict[str, Any]) -> Step:
    return world.replace_agent(agent.evolve(inbox=(*agent.inbox, extra["item"]))), ()


def _queue_prompt(world: World, agent: Agent, row: Row, index: int, extra: dict[str, Any]) -> Step:
    # SMA-050 "each human prompt remains a distinct turn": prompts never join the steer inbox.
    agent = agent.evolve(state=row.next, prompts=(*agent.prompts, extra["text"]))
    return world.replace_agent(agent), ()


def _unload(world: World, agent: Agent, row: Row, index: int, _: dict[str, Any]) -> Step:
    return world.replace_agent(agent.evolve(state=row.next)), ()


def _start_child(world: World, parent: Agent, row: Row, index: int, extra: dict[str, Any]) -> Step:
    spawn: Spawn = extra["spawn"]
    if spawn.fork:
        # SMA-044, SMA-045: a fork child's request head *is* its parent's; SMA-043: its task
        # follows the parent's completed turns.
        head, prefix = parent.head, parent.completed_turns
    else:
        head, prefix = head_for(world.registry, world.system, spawn.tools), 0
    instruction = None
    if spawn.mode == CONTINUABLE and head.has_standard_tool:
        # SMA-038, SMA-039: only when the *standard* tool stays visible (SMA-040..042); a
        # one-shot child has no return edge and gets none (SMA-D008).
        instruction = {
            "parentIdJson": json.dumps(parent.id, ensure_ascii=False),
            "selfContainedResult": True,
            "earlierFindings": True,
        }
    child = Agent(
        spawn.child, parent.id, spawn.mode, RUNNING, 1, 1, 1, head,
        spawn.tools if not spawn.fork else parent.tools,
    )
    seen = (
        _obs(index, "request-head", agent=child.id, **head.to_json()),
        _obs(index, "turn-start", agent=child.id, turn=1),
        _obs(index, "input", agent=child.id, turn=1, step=1, kind="initial-task",
             task=spawn.task, prefixTurns=prefix, returnInstruction=instruction),
    )
    world = World.of([*world.agents.values(), child], world.registry, world.system)
    return world, seen


_EFFECTS: dict[str, Callable[[World, Agent, Row, int, dict[str, Any]], Step]] = {
    NEXT_STEP: _next_step,
    EXTEND_TURN: _next_step,
    START_TURN: _start_turn,
    END_TURN: _end_turn,
    END_AND_SETTLE: _end_and_settle,
    ENQUEUE: _enqueue,
    COLD_RESUME: _cold_resume,
    PARK: _park,
    QUEUE_PROMPT: _queue_prompt,
    UNLOAD: _unload,
    START_CHILD: _start_child,
}


# --- one action -------------------------------------------------------------------------------
def _actor(world: World, agent_id: str, field: str) -> str:
    if world.get(agent_id) is None:
        raise _Bad(field, f"unknown agent {agent_id!r}")
    return agent_id


def _send(world: World, a: Send, history: tuple[Action, ...]) -> Step:
    sender = world.agents[_actor(world, a.sender, "from")]
    generation = sender.generation if a.generation is None else a.generation
    if generation > sender.generation:
        raise _Bad("generation", f"agent {a.sender!r} has had only {sender.generation} "
                                 f"object(s); generation {generation} never existed")
    # SMA-054: a call without agent_id has no target; it never falls back to the parent.
    target = a.target
    route = authorize(world, a.sender, generation, target, aborted=a.aborted)
    if not route.accepted or target is None:
        # SMA-014: a rejected send changes nothing: no insertion, no wake, no cold resume.
        return world, (_obs(a.index, "rejected", **{"from": a.sender, "to": target,
                                                     "reason": route.reason}),)
    item = AgentMessage(a.sender, a.message, a.index)
    world, seen = _drive(world, target, ACCEPT_MESSAGE, a.index, item=item)
    accepted = _obs(a.index, "accepted", **{"from": a.sender, "to": target})
    return world, (*seen, accepted)


def _cancel(world: World, a: Cancel, history: tuple[Action, ...]) -> Step:
    if a.send >= a.index or not isinstance(history[a.send], Send):
        raise _Bad("send", f"action {a.send} is not an earlier send")
    # SMA-027, SMA-028 "does not retract an accepted message or dispose the target": once
    # accepted, the caller's signal owns nothing. (A rejected send has nothing to cancel.)
    return world, ()


def apply(world: World, action: Action, history: tuple[Action, ...] = ()) -> Step:
    """One action on a world: the new world and what was observed. Raises _Bad/NoTransition."""
    match action:
        case Send():
            return _send(world, action, history)
        case Cancel():
            return _cancel(world, action, history)
        case Boundary(agent=agent):
            return _drive(world, _actor(world, agent, "agent"), BOUNDARY, action.index)
        case Finish(agent=agent, output=output):
            return _drive(world, _actor(world, agent, "agent"), FINISH, action.index,
                          output=output)
        case Settle(agent=agent, outcome=outcome, output=output):
            return _drive(world, _actor(world, agent, "agent"), SETTLE, action.index,
                          outcome=outcome, output=output)
        case Prompt(agent=agent, text=text):
            return _drive(world, _actor(world, agent, "agent"), PROMPT, action.index, text=text)
        case Dispose(agent=agent):
            return _drive(world, _actor(world, agent, "agent"), DISPOSE, action.index)
        case Spawn(parent=parent, child=child):
            _actor(world, parent, "parent")
            if world.get(child) is not None:
                raise _Bad("child", f"agent {child!r} already exists")
            return _drive(world, parent, SPAWN, action.index, spawn=action)
    raise AssertionError(f"unhandled action {action!r}")  # pragma: no cover


def step(scenario_name: str, world: World, action: Action,
         history: tuple[Action, ...] = (), source: str | None = None) -> Step:
    """:func:`apply`, with an impossible step reported as INVALID_SCENARIO naming the scenario
    (and its file, when known) and the step; the pointer is the step's JSON pointer."""
    pointer = f"/actions/{action.index}"
    try:
        return apply(world, action, history)
    except _Bad as bad:
        raise invalid(scenario_name, f"{pointer}/{bad.field}", bad.what, source) from None
    except NoTransition as nt:
        raise invalid(scenario_name, pointer, str(nt), source) from None


def run(scenario: Scenario) -> tuple[World, tuple[Observation, ...]]:
    world = scenario.world
    seen: list[Any] = []
    for action in scenario.actions:
        world, more = step(scenario.name, world, action, scenario.actions, scenario.source)
        seen.extend(more)
    return world, tuple(o for o in seen if o.event in scenario.observe)


def trace_json(observations: Iterable[Observation]) -> dict[str, Any]:
    return {"trace": [o.to_json() for o in observations]}


def simulate(doc: Any, source: str | None = None) -> dict[str, Any]:
    """The operation ``subagents.simulate``: scenario JSON -> ``{"trace": [...]}``."""
    scenario = parse_scenario(doc, source)
    _, observations = run(scenario)
    return trace_json(observations)


def canonical_json(value: Any) -> str:
    """The one byte form of a trace: sorted keys, no spaces, UTF-8 text kept as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


__all__ = [
    "Observation",
    "apply",
    "canonical_json",
    "run",
    "simulate",
    "step",
    "trace_json",
]
