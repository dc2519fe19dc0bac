"""Every lifecycle transition of the subagent simulator, in one table read top to bottom.

A row says: an agent of this *kind*, in this *state*, meeting this *event*, while this input
is *pending* (``inbox``: steer items wait; ``prompts``: only human prompts wait; ``nothing``;
``*``: any) has this *effect* and ends in this *next* state. The first matching row wins. A
missing pair is not a silent no-op: :func:`transition` raises :class:`NoTransition` naming the
agent, its state and the event, which the simulator reports as ``INVALID_SCENARIO``.

Events:
    boundary        the agent's driver reaches its next step boundary (for a waking agent: the
                    admission that starts its turn)
    finish          the running model ends its turn (a final answer with no tool call)
    settle          the running activation ends abnormally (error, cancelled, token exhaustion)
    accept-message  an accepted sendMessage is inserted into the agent's steer inbox
    accept-notice   a child's settlement notice is inserted into the agent's steer inbox
    prompt          a human prompt arrives (roots only; it queues as a turn of its own)
    spawn           the agent starts a child (a tool call inside its running turn)
    dispose         the runtime unloads an idle continuable child
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from agent_tck.reference_impl.subagents.model import (
    ABSENT,
    CONTINUABLE,
    DONE,
    IDLE,
    ONE_SHOT,
    ROOT,
    RUNNING,
    WAKING,
)

ANY: Final = "*"

# events
BOUNDARY: Final = "boundary"
FINISH: Final = "finish"
SETTLE: Final = "settle"
ACCEPT_MESSAGE: Final = "accept-message"
ACCEPT_NOTICE: Final = "accept-notice"
PROMPT: Final = "prompt"
SPAWN: Final = "spawn"
DISPOSE: Final = "dispose"

# effects (the simulator has one handler per effect)
NEXT_STEP: Final = "next-step"  # step k -> k+1, admitting the whole inbox FIFO (SMA-015, -019)
START_TURN: Final = "start-turn"  # turn n -> n+1 at step 1, admitting inbox, then one prompt
EXTEND_TURN: Final = "extend-turn"  # a finish meets waiting steer input: same turn (SMA-016)
END_TURN: Final = "end-turn"  # the turn ends; no settlement (roots, one-shot children)
END_AND_SETTLE: Final = "end-and-settle"  # the turn ends and the activation settles (SMA-029)
ENQUEUE: Final = "enqueue"  # insert into the steer inbox; an idle agent wakes (SMA-017)
COLD_RESUME: Final = "cold-resume"  # load an absent child, then enqueue (SMA-018)
PARK: Final = "park"  # insert without waking (a notice for an absent parent)
QUEUE_PROMPT: Final = "queue-prompt"  # a human prompt waits for a turn of its own (SMA-050)
START_CHILD: Final = "start-child"
UNLOAD: Final = "unload"


@dataclass(frozen=True)
class Row:
    kind: str
    state: str
    event: str
    pending: str
    effect: str
    next: str


# fmt: off
TABLE: Final[tuple[Row, ...]] = (
    #   kind         state     event           pending    effect          next
    # --- a root: always resident, never settles; human prompts queue as turns -----------------
    Row(ROOT,        RUNNING,  BOUNDARY,       ANY,       NEXT_STEP,      RUNNING),
    Row(ROOT,        WAKING,   BOUNDARY,       ANY,       START_TURN,     RUNNING),
    Row(ROOT,        RUNNING,  FINISH,         "inbox",   EXTEND_TURN,    RUNNING),
    Row(ROOT,        RUNNING,  FINISH,         "prompts", END_TURN,       WAKING),
    Row(ROOT,        RUNNING,  FINISH,         "nothing", END_TURN,       IDLE),
    Row(ROOT,        RUNNING,  ACCEPT_MESSAGE, ANY,       ENQUEUE,        RUNNING),
    Row(ROOT,        WAKING,   ACCEPT_MESSAGE, ANY,       ENQUEUE,        WAKING),
    Row(ROOT,        IDLE,     ACCEPT_MESSAGE, ANY,       ENQUEUE,        WAKING),
    Row(ROOT,        RUNNING,  ACCEPT_NOTICE,  ANY,       ENQUEUE,        RUNNING),
    Row(ROOT,        WAKING,   ACCEPT_NOTICE,  ANY,       ENQUEUE,        WAKING),
    Row(ROOT,        IDLE,     ACCEPT_NOTICE,  ANY,       ENQUEUE,        WAKING),
    Row(ROOT,        RUNNING,  PROMPT,         ANY,       QUEUE_PROMPT,   RUNNING),
    Row(ROOT,        WAKING,   PROMPT,         ANY,       QUEUE_PROMPT,   WAKING),
    Row(ROOT,        IDLE,     PROMPT,         ANY,       QUEUE_PROMPT,   WAKING),
    Row(ROOT,        RUNNING,  SPAWN,          ANY,       START_CHILD,    RUNNING),
    # --- a continuable child: settles whenever its activation ends ------------------------------
    Row(CONTINUABLE, RUNNING,  BOUNDARY,       ANY,       NEXT_STEP,      RUNNING),
    Row(CONTINUABLE, WAKING,   BOUNDARY,       ANY,       START_TURN,     RUNNING),
    Row(CONTINUABLE, RUNNING,  FINISH,         "inbox",   EXTEND_TURN,    RUNNING),
    Row(CONTINUABLE, RUNNING,  FINISH,         "nothing", END_AND_SETTLE, IDLE),
    Row(CONTINUABLE, RUNNING,  SETTLE,         ANY,       END_AND_SETTLE, IDLE),
    Row(CONTINUABLE, RUNNING,  ACCEPT_MESSAGE, ANY,       ENQUEUE,        RUNNING),
    Row(CONTINUABLE, WAKING,   ACCEPT_MESSAGE, ANY,       ENQUEUE,        WAKING),
    Row(CONTINUABLE, IDLE,     ACCEPT_MESSAGE, ANY,       ENQUEUE,        WAKING),
    Row(CONTINUABLE, ABSENT,   ACCEPT_MESSAGE, ANY,       COLD_RESUME,    WAKING),
    Row(CONTINUABLE, RUNNING,  ACCEPT_NOTICE,  ANY,       ENQUEUE,        RUNNING),
    Row(CONTINUABLE, WAKING,   ACCEPT_NOTICE,  ANY,       ENQUEUE,        WAKING),
    Row(CONTINUABLE, IDLE,     ACCEPT_NOTICE,  ANY,       ENQUEUE,        WAKING),
    Row(CONTINUABLE, ABSENT,   ACCEPT_NOTICE,  ANY,       PARK,           ABSENT),
    Row(CONTINUABLE, RUNNING,  SPAWN,          ANY,       START_CHILD,    RUNNING),
    Row(CONTINUABLE, IDLE,     DISPOSE,        ANY,       UNLOAD,         ABSENT),
    # --- a one-shot child: a leaf that runs one task; nothing is ever delivered to it ----------
    Row(ONE_SHOT,    RUNNING,  BOUNDARY,       ANY,       NEXT_STEP,      RUNNING),
    Row(ONE_SHOT,    RUNNING,  FINISH,         ANY,       END_TURN,       DONE),
)
# fmt: on


class NoTransition(Exception):
    """No row for (kind, state, event, pending): the scenario asked for something impossible."""

    def __init__(self, agent: str, kind: str, state: str, event: str, pending: str) -> None:
        self.agent, self.kind, self.state, self.event, self.pending = (
            agent, kind, state, event, pending,
        )
        waiting = {"inbox": "steer input waiting", "prompts": "human prompts waiting",
                   "nothing": "nothing waiting"}[pending]
        super().__init__(
            f"agent {agent!r} ({kind}) is {state} with {waiting}: it cannot take {event!r}"
        )


def transition(agent: str, kind: str, state: str, event: str, pending: str) -> Row:
    """The first row matching the agent's kind, state, event and pending input."""
    for row in TABLE:
        if (
            row.kind == kind
            and row.state == state
            and row.event == event
            and row.pending in (ANY, pending)
        ):
            return row
    raise NoTransition(agent, kind, state, event, pending)
