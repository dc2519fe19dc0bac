"""Scenarios for the subagent simulator: plain JSON (or YAML text) in, frozen values out.

The shape is documented for implementers in vectors/send-message-adjacency/README.md and as a
JSON Schema in vectors/schema/subagent-scenario.schema.json; this module is the same contract
written a second time, in code (tests keep the two in sync). A scenario that breaks it (an
unknown field, a malformed action, a world that cannot exist) is rejected with
``INVALID_SCENARIO``, a JSON pointer, and a message naming the scenario and the step.

Whether an action is *possible* in the state the world has reached (an unknown actor, a finish
for an idle agent) is only known while simulating; :mod:`reference_impl.subagents.simulator`
reports those the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.json_pointer import escape
from agent_tck.reference_impl.subagents.model import (
    ABNORMAL_OUTCOMES,
    ABSENT,
    CONTINUABLE,
    DONE,
    EVENT_KINDS,
    IDLE,
    INVALID_SCENARIO,
    ONE_SHOT,
    ROOT,
    RUNNING,
    SEND_MESSAGE,
    STANDARD_TOOL,
    Agent,
    RequestHead,
    ToolConfig,
    ToolDef,
    World,
)

JSON_TYPES: Final = ("string", "number", "integer", "boolean", "object", "array", "null")
SIGNALS: Final = ("live", "aborted")


# --- actions ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Send:
    index: int
    sender: str
    target: str | None  # None: the call carried no agent_id (SMA-054)
    message: str
    generation: int | None  # the object the caller holds; None: the live one
    aborted: bool


@dataclass(frozen=True)
class Cancel:
    index: int
    send: int  # the index of an earlier send action whose signal is now aborted


@dataclass(frozen=True)
class Boundary:
    index: int
    agent: str


@dataclass(frozen=True)
class Finish:
    index: int
    agent: str
    output: str | None


@dataclass(frozen=True)
class Settle:
    index: int
    agent: str
    outcome: str
    output: str | None


@dataclass(frozen=True)
class Prompt:
    index: int
    agent: str
    text: str


@dataclass(frozen=True)
class Dispose:
    index: int
    agent: str


@dataclass(frozen=True)
class Spawn:
    index: int
    parent: str
    child: str
    mode: str
    task: str
    fork: bool
    tools: ToolConfig


Action = Send | Cancel | Boundary | Finish | Settle | Prompt | Dispose | Spawn


@dataclass(frozen=True)
class Scenario:
    name: str
    world: World
    actions: tuple[Action, ...]
    observe: frozenset[str]
    source: str | None = None  # the file it came from, quoted in error messages


# --- helpers ----------------------------------------------------------------------------------
class _Reader:
    """Checks one scenario document, raising INVALID_SCENARIO that names scenario and place."""

    def __init__(self, name: str, source: str | None) -> None:
        self.name = name
        self.source = source

    def fail(self, pointer: str, what: str) -> TckError:
        return invalid(self.name, pointer, what, self.source)

    def obj(self, value: Any, pointer: str, required: set[str],
            optional: set[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(pointer, "must be an object")
        missing = sorted(required - set(value))
        if missing:
            raise self.fail(pointer, f"missing required field {missing[0]!r}")
        unknown = sorted(set(value) - required - optional)
        if unknown:
            raise self.fail(f"{pointer}/{escape(unknown[0])}", f"unknown field {unknown[0]!r}")
        return value

    def string(self, value: Any, pointer: str, *, empty: bool = True) -> str:
        if not isinstance(value, str):
            raise self.fail(pointer, "must be a string")
        if not empty and not value:
            raise self.fail(pointer, "must not be empty")
        return value

    def opt_string(self, value: Any, pointer: str) -> str | None:
        return None if value is None else self.string(value, pointer)

    def integer(self, value: Any, pointer: str, minimum: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(pointer, "must be an integer")
        if value < minimum:
            raise self.fail(pointer, f"must be at least {minimum}")
        return value

    def boolean(self, value: Any, pointer: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(pointer, "must be true or false")
        return value

    def names(self, value: Any, pointer: str, *, unique: bool = True) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise self.fail(pointer, "must be an array of strings")
        out = tuple(self.string(v, f"{pointer}/{i}", empty=False) for i, v in enumerate(value))
        if unique and len(set(out)) != len(out):
            raise self.fail(pointer, "must not repeat a name")
        return out

    def choice(self, value: Any, pointer: str, options: tuple[str, ...]) -> str:
        if value not in options:
            raise self.fail(pointer, f"must be one of {', '.join(options)}")
        return str(value)


def invalid(name: str, pointer: str, what: str, source: str | None = None) -> TckError:
    """The one error of a bad scenario: it names the file (when known), scenario and place."""
    place = describe_pointer(pointer)
    origin = f"{source}: " if source else ""
    return TckError(INVALID_SCENARIO, f"{origin}scenario {name!r}, {place}: {what}", pointer)


def describe_pointer(pointer: str) -> str:
    parts = pointer.split("/")
    if len(parts) >= 3 and parts[1] == "actions":
        rest = "/".join(parts[3:])
        return f"step {parts[2]} (/actions/{parts[2]}{'/' + rest if rest else ''})"
    return pointer or "the document"


# --- the world --------------------------------------------------------------------------------
_AGENT_FIELDS: Final = {
    "parent", "mode", "state", "turn", "step", "generation",
    "preset", "resumeFilter", "scopedSendMessage", "system",
}


def _tool_config(r: _Reader, spec: Mapping[str, Any], pointer: str) -> ToolConfig:
    preset = r.names(spec["preset"], f"{pointer}/preset") if "preset" in spec else None
    resume_filter = (
        r.names(spec["resumeFilter"], f"{pointer}/resumeFilter") if "resumeFilter" in spec else ()
    )
    scoped = None
    if "scopedSendMessage" in spec:
        sp = f"{pointer}/scopedSendMessage"
        body = r.obj(spec["scopedSendMessage"], sp, {"params"}, {"required"})
        params = body["params"]
        if not isinstance(params, dict):
            raise r.fail(f"{sp}/params", "must be an object: parameter name -> JSON type")
        typed = tuple(
            (k, r.choice(v, f"{sp}/params/{escape(k)}", JSON_TYPES))
            for k, v in sorted(params.items())
        )
        required = r.names(body.get("required", []), f"{sp}/required")
        for i, name in enumerate(required):
            if name not in params:
                raise r.fail(f"{sp}/required/{i}", f"{name!r} is not one of the params")
        scoped = ToolDef(False, typed, tuple(sorted(required)))
    system = None
    if "system" in spec:
        system = r.names(spec["system"], f"{pointer}/system", unique=False)
    return ToolConfig(preset, resume_filter, scoped, system)


def head_for(registry: tuple[str, ...], system: tuple[str, ...], tools: ToolConfig) -> RequestHead:
    """An agent's request head from the global registry (SMA-037: always in registry order).

    The standard send_message is visible unless a preset omits it or a resume filter removes
    it (SMA-040, SMA-041); a scoped same-name tool shadows the global one in its registry place
    and is not the standard definition (SMA-042).
    """
    names = [
        n for n in registry
        if (tools.preset is None or n in tools.preset) and n not in tools.resume_filter
    ]
    definition: ToolDef | None = STANDARD_TOOL if SEND_MESSAGE in names else None
    if tools.scoped is not None:
        definition = tools.scoped
        if SEND_MESSAGE not in names:
            names.append(SEND_MESSAGE)
    return RequestHead(tools.system if tools.system is not None else system, tuple(names),
                       definition)


def _world(r: _Reader, doc: Any) -> World:
    w = r.obj(doc, "/world", {"agents"}, {"system", "registry"})
    system = r.names(w.get("system", []), "/world/system", unique=False)
    registry = r.names(w.get("registry", [SEND_MESSAGE]), "/world/registry")
    if not isinstance(w["agents"], list) or not w["agents"]:
        raise r.fail("/world/agents", "must be a non-empty array of agents")
    agents: dict[str, Agent] = {}
    for i, raw in enumerate(w["agents"]):
        p = f"/world/agents/{i}"
        spec = r.obj(raw, p, {"id"}, _AGENT_FIELDS)
        aid = r.string(spec["id"], f"{p}/id", empty=False)
        if aid in agents:
            raise r.fail(f"{p}/id", f"agent {aid!r} is declared twice")
        parent = r.opt_string(spec.get("parent"), f"{p}/parent")
        tools = _tool_config(r, spec, p)
        if parent is None:
            if "mode" in spec:
                raise r.fail(f"{p}/mode", "a root has no mode (only children are continuable "
                                          "or one-shot)")
            if "generation" in spec:
                raise r.fail(f"{p}/generation", "a root is always resident: it has one object")
            states: tuple[str, ...]
            kind, states = ROOT, (RUNNING, IDLE)
        else:
            if parent not in agents:
                raise r.fail(f"{p}/parent", f"unknown agent {parent!r} (declare a parent "
                                            "before its children)")
            if agents[parent].kind == ONE_SHOT:
                raise r.fail(f"{p}/parent", f"{parent!r} is a one-shot child: one-shot children "
                                            "are leaves (suite decision SMA-D008)")
            if "mode" not in spec:
                raise r.fail(p, "missing required field 'mode' (continuable or one-shot)")
            kind = r.choice(spec["mode"], f"{p}/mode", (CONTINUABLE, ONE_SHOT))
            states = (RUNNING, IDLE, ABSENT) if kind == CONTINUABLE else (RUNNING, DONE)
        state = r.choice(spec.get("state", RUNNING), f"{p}/state", states)
        turn = r.integer(spec.get("turn", 1), f"{p}/turn", 1)
        if "step" in spec and state != RUNNING:
            raise r.fail(f"{p}/step", f"only a running agent is at a step (this one is {state})")
        step = r.integer(spec.get("step", 1), f"{p}/step", 1) if state == RUNNING else 0
        generation = r.integer(spec.get("generation", 1), f"{p}/generation", 1)
        head = head_for(registry, system, tools)
        agents[aid] = Agent(aid, parent, kind, state, turn, step, generation, head, tools)
    return World.of(list(agents.values()), registry, system)


# --- actions ----------------------------------------------------------------------------------
_SPAWN_TOOL_FIELDS: Final = {"preset", "resumeFilter", "scopedSendMessage", "system"}


def _action(r: _Reader, raw: Any, i: int) -> Action:
    p = f"/actions/{i}"
    if not isinstance(raw, dict):
        raise r.fail(p, "an action must be an object with a 'do' field")
    kinds = ("send", "cancel", "boundary", "finish", "settle", "prompt", "dispose", "spawn")
    do = r.choice(raw.get("do"), f"{p}/do", kinds)
    if do == "send":
        a = r.obj(raw, p, {"do", "from", "message"}, {"to", "generation", "signal"})
        gen = a.get("generation")
        return Send(
            i,
            r.string(a["from"], f"{p}/from", empty=False),
            None if "to" not in a else r.string(a["to"], f"{p}/to"),
            r.string(a["message"], f"{p}/message"),
            None if gen is None else r.integer(gen, f"{p}/generation", 1),
            r.choice(a.get("signal", "live"), f"{p}/signal", SIGNALS) == "aborted",
        )
    if do == "cancel":
        a = r.obj(raw, p, {"do", "send"}, set())
        return Cancel(i, r.integer(a["send"], f"{p}/send", 0))
    if do in ("boundary", "dispose"):
        a = r.obj(raw, p, {"do", "agent"}, set())
        agent = r.string(a["agent"], f"{p}/agent", empty=False)
        return Boundary(i, agent) if do == "boundary" else Dispose(i, agent)
    if do == "finish":
        a = r.obj(raw, p, {"do", "agent"}, {"output"})
        return Finish(i, r.string(a["agent"], f"{p}/agent", empty=False),
                      r.opt_string(a.get("output"), f"{p}/output"))
    if do == "settle":
        a = r.obj(raw, p, {"do", "agent", "outcome"}, {"output"})
        return Settle(
            i,
            r.string(a["agent"], f"{p}/agent", empty=False),
            r.choice(a["outcome"], f"{p}/outcome", ABNORMAL_OUTCOMES),
            r.opt_string(a.get("output"), f"{p}/output"),
        )
    if do == "prompt":
        a = r.obj(raw, p, {"do", "agent", "text"}, set())
        return Prompt(i, r.string(a["agent"], f"{p}/agent", empty=False),
                      r.string(a["text"], f"{p}/text"))
    a = r.obj(raw, p, {"do", "parent", "child", "mode", "task"}, {"fork"} | _SPAWN_TOOL_FIELDS)
    fork = r.boolean(a.get("fork", False), f"{p}/fork")
    if fork:
        for key in sorted(_SPAWN_TOOL_FIELDS & set(a)):
            raise r.fail(f"{p}/{key}", "a fork child inherits its parent's request head "
                                       "(SMA-044, SMA-045): it takes no tool or system options")
    return Spawn(
        i,
        r.string(a["parent"], f"{p}/parent", empty=False),
        r.string(a["child"], f"{p}/child", empty=False),
        r.choice(a["mode"], f"{p}/mode", (CONTINUABLE, ONE_SHOT)),
        r.string(a["task"], f"{p}/task"),
        fork,
        _tool_config(r, a, p),
    )


def parse_scenario(doc: Any, source: str | None = None) -> Scenario:
    """Check a scenario document and return it as frozen values (INVALID_SCENARIO otherwise)."""
    name = doc.get("scenario") if isinstance(doc, dict) else None
    name = name if isinstance(name, str) and name else "<unnamed>"
    r = _Reader(name, source)
    top = r.obj(doc, "", {"scenario", "world", "actions"}, {"observe", "description"})
    r.string(top["scenario"], "/scenario", empty=False)
    if "description" in top:
        r.string(top["description"], "/description")
    world = _world(r, top["world"])
    if not isinstance(top["actions"], list):
        raise r.fail("/actions", "must be an array of actions")
    actions = tuple(_action(r, raw, i) for i, raw in enumerate(top["actions"]))
    observe = frozenset(EVENT_KINDS)
    if "observe" in top:
        chosen = r.names(top["observe"], "/observe")
        for i, kind in enumerate(chosen):
            r.choice(kind, f"/observe/{i}", EVENT_KINDS)
        observe = frozenset(chosen)
    return Scenario(name, world, actions, observe, source)


def parse_scenario_text(text: str, source: str) -> Scenario:
    """A scenario file's text (JSON, or YAML when ``source`` ends in .yaml/.yml).

    For trusted text (tests, vectors); ``agent-tck subagents`` reads untrusted files with
    harness.common.safe_yaml (no aliases) and strict JSON, then calls :func:`parse_scenario`."""
    try:
        if source.endswith((".yaml", ".yml")):
            import yaml

            doc = yaml.safe_load(text)
        else:
            from agent_tck.reference_impl.strict_json import loads

            doc = loads(text)
    except Exception as exc:  # any parse failure of the file is a bad scenario
        raise TckError(INVALID_SCENARIO, f"{source}: not a readable scenario: {exc}", "") from exc
    return parse_scenario(doc, source)
