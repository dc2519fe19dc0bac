"""The send-message-adjacency simulator's vocabulary, as frozen values.

Spec: 003_7f014f7791204b77.txt ("Adjacent Agents share one Steer send_message operation").
Nothing here decides anything; :mod:`reference_impl.subagents.table` (the transitions),
:mod:`reference_impl.subagents.routes` (authorization) and
:mod:`reference_impl.subagents.simulator` (the simulator) do. Every value is immutable, so a
world is replayable and a step never mutates its input (``World.replace_agent`` returns a new
world).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Final

INVALID_SCENARIO: Final = "INVALID_SCENARIO"

# --- agent kinds ------------------------------------------------------------------------------
ROOT: Final = "root"
CONTINUABLE: Final = "continuable"
ONE_SHOT: Final = "one-shot"
KINDS: Final = (ROOT, CONTINUABLE, ONE_SHOT)

# --- agent states (suite decision SMA-D004: the activation model) ------------------------------
RUNNING: Final = "running"  # resident activation, a turn at step k
WAKING: Final = "waking"  # resident activation, accepted input waiting for driver admission
IDLE: Final = "idle"  # loaded, no resident activation (a child's activation has settled)
ABSENT: Final = "absent"  # not loaded: reaching it needs a cold resume
DONE: Final = "done"  # a one-shot child that finished; never woken again
STATES: Final = (RUNNING, WAKING, IDLE, ABSENT, DONE)
RESIDENT_STATES: Final = frozenset({RUNNING, WAKING})

# --- settlement outcomes (SMA-031..034) ---------------------------------------------------------
COMPLETED: Final = "completed"
ERROR: Final = "error"
CANCELLED: Final = "cancelled"
TOKEN_EXHAUSTION: Final = "token-exhaustion"
ABNORMAL_OUTCOMES: Final = (ERROR, CANCELLED, TOKEN_EXHAUSTION)

# --- rejection reason codes (one per route; SMA-D002 fixes the names and their precedence) ----
SEND_CANCELLED: Final = "SEND_CANCELLED"
STALE_SENDER: Final = "STALE_SENDER"
UNKNOWN_TARGET: Final = "UNKNOWN_TARGET"
MISSING_AGENT_ID: Final = "MISSING_AGENT_ID"
SELF_TARGET: Final = "SELF_TARGET"
ONE_SHOT_TARGET: Final = "ONE_SHOT_TARGET"
ONE_SHOT_SENDER: Final = "ONE_SHOT_SENDER"
SENDER_NOT_RESIDENT: Final = "SENDER_NOT_RESIDENT"
PARENT_NOT_LIVE: Final = "PARENT_NOT_LIVE"
ANCESTOR_BEYOND_EDGE: Final = "ANCESTOR_BEYOND_EDGE"
DESCENDANT_BEYOND_EDGE: Final = "DESCENDANT_BEYOND_EDGE"
SIBLING_TARGET: Final = "SIBLING_TARGET"
NOT_ADJACENT: Final = "NOT_ADJACENT"
REASON_CODES: Final = (
    SEND_CANCELLED,
    STALE_SENDER,
    MISSING_AGENT_ID,
    UNKNOWN_TARGET,
    SELF_TARGET,
    ONE_SHOT_TARGET,
    ONE_SHOT_SENDER,
    SENDER_NOT_RESIDENT,
    PARENT_NOT_LIVE,
    ANCESTOR_BEYOND_EDGE,
    DESCENDANT_BEYOND_EDGE,
    SIBLING_TARGET,
    NOT_ADJACENT,
)

# --- the standard tool (SMA-025: one fixed schema) ----------------------------------------------
SEND_MESSAGE: Final = "send_message"
STANDARD_PARAMS: Final = MappingProxyType({"agent_id": "string", "message": "string"})
STANDARD_REQUIRED: Final = ("agent_id", "message")

# --- durable sources ------------------------------------------------------------------------
AGENT_MESSAGE_KIND: Final = "agent-message"
RELAY_FORM: Final = "relay"

#: Every observation kind a trace may hold (a scenario's ``observe`` picks some).
EVENT_KINDS: Final = (
    "accepted",
    "rejected",
    "cold-resume",
    "request-head",
    "turn-start",
    "input",
    "turn-end",
    "settled",
)


def framing(sender_id: str) -> str:
    """SMA-022: the model-visible header, built from the authorized sender's id only."""
    return f"Agent {sender_id} sent a message:"


def agent_message_source(sender_id: str) -> dict[str, str]:
    """SMA-023: the one durable source of every direction (senderSessionId = the sender's id)."""
    return {"kind": AGENT_MESSAGE_KIND, "form": RELAY_FORM, "senderSessionId": sender_id}


@dataclass(frozen=True)
class ToolDef:
    """The tool named ``send_message`` in a request head: the standard one or a scoped one."""

    standard: bool
    params: tuple[tuple[str, str], ...]
    required: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "standard": self.standard,
            "params": dict(self.params),
            "required": list(self.required),
        }


STANDARD_TOOL: Final = ToolDef(True, tuple(STANDARD_PARAMS.items()), STANDARD_REQUIRED)


@dataclass(frozen=True)
class RequestHead:
    """What precedes the history in an agent's requests: system sections and tools, in order."""

    system: tuple[str, ...]
    tools: tuple[str, ...]
    send_message: ToolDef | None

    @property
    def has_standard_tool(self) -> bool:
        return self.send_message is not None and self.send_message.standard

    def to_json(self) -> dict[str, object]:
        return {
            "system": list(self.system),
            "tools": list(self.tools),
            "sendMessage": None if self.send_message is None else self.send_message.to_json(),
        }


@dataclass(frozen=True)
class ToolConfig:
    """How an agent's tools derive from the global registry (SMA-037, SMA-040..042)."""

    preset: tuple[str, ...] | None = None  # an independently selected allow-list
    resume_filter: tuple[str, ...] = ()  # names a historical descriptor filter removes
    scoped: ToolDef | None = None  # a scoped same-name replacement for send_message
    system: tuple[str, ...] | None = None  # the agent's own system sections (not for forks)


@dataclass(frozen=True)
class AgentMessage:
    """An accepted send waiting in the target's steer inbox."""

    sender: str
    content: str
    accepted_at: int  # the action index of the accepting send


@dataclass(frozen=True)
class SettlementNotice:
    """A child's subagent-settled notice waiting in its parent's steer inbox."""

    child: str
    outcome: str
    output: str | None
    settled_at: int


InboxItem = AgentMessage | SettlementNotice


@dataclass(frozen=True)
class Agent:
    id: str
    parent: str | None
    kind: str
    state: str
    turn: int  # the current turn when running, else the last turn started (0: none yet)
    step: int  # the current step when running, else 0
    generation: int  # which loaded object is live: +1 on every cold resume (SMA-D004)
    head: RequestHead
    tools: ToolConfig = field(default_factory=ToolConfig)
    inbox: tuple[InboxItem, ...] = ()  # the steer (next-step) FIFO
    prompts: tuple[str, ...] = ()  # queued human prompts (roots only), one per turn

    @property
    def resident(self) -> bool:
        if self.kind == ROOT:
            return True  # a root is its own session: always resident
        return self.state in RESIDENT_STATES

    @property
    def completed_turns(self) -> int:
        return self.turn - 1 if self.state == RUNNING else self.turn

    def pending(self) -> str:
        """The guard the transition table reads: what input waits for this agent."""
        if self.inbox:
            return "inbox"
        if self.prompts:
            return "prompts"
        return "nothing"

    def evolve(self, **changes: object) -> Agent:
        return replace(self, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True)
class World:
    """Every agent by id, in declaration (then spawn) order."""

    agents: Mapping[str, Agent]
    registry: tuple[str, ...]
    system: tuple[str, ...]

    @staticmethod
    def of(agents: list[Agent], registry: tuple[str, ...], system: tuple[str, ...]) -> World:
        return World(MappingProxyType({a.id: a for a in agents}), registry, system)

    def get(self, agent_id: str) -> Agent | None:
        return self.agents.get(agent_id)

    def replace_agent(self, agent: Agent) -> World:
        agents = dict(self.agents)
        agents[agent.id] = agent
        return World(MappingProxyType(agents), self.registry, self.system)

    def ancestors(self, agent_id: str) -> tuple[str, ...]:
        """Parent, grandparent, ... (nearest first)."""
        out: list[str] = []
        current = self.agents[agent_id].parent
        while current is not None:
            out.append(current)
            current = self.agents[current].parent
        return tuple(out)
