"""Who may send to whom: the adjacency authorization of ``SubagentRuntime.sendMessage``.

Spec 003: "The continuation manager accepts only the exact live sender and a target on one
adjacent edge". One pure function, :func:`authorize`, reads a world and a call and returns a
:class:`Route`: accepted along one of the two edges, or rejected with the reason code of the
first failing check. The checks run top to bottom in the order of suite decision SMA-D002, so a
call that fails several of them gets one stable code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from agent_tck.reference_impl.subagents.model import (
    ABSENT,
    ANCESTOR_BEYOND_EDGE,
    CONTINUABLE,
    DESCENDANT_BEYOND_EDGE,
    MISSING_AGENT_ID,
    NOT_ADJACENT,
    ONE_SHOT,
    ONE_SHOT_SENDER,
    ONE_SHOT_TARGET,
    PARENT_NOT_LIVE,
    SELF_TARGET,
    SEND_CANCELLED,
    SENDER_NOT_RESIDENT,
    SIBLING_TARGET,
    STALE_SENDER,
    UNKNOWN_TARGET,
    World,
)

TO_CHILD: Final = "to-child"
TO_PARENT: Final = "to-parent"


@dataclass(frozen=True)
class Route:
    """The verdict on one sendMessage call: ``direction`` when accepted, else ``reason``."""

    direction: str | None = None
    reason: str | None = None

    @property
    def accepted(self) -> bool:
        return self.direction is not None


def authorize(
    world: World, sender_id: str, generation: int, target_id: str | None, *,
    aborted: bool = False
) -> Route:
    """The route of ``sendMessage(sender, target_id, ..., {signal})``.

    ``sender_id`` must name a known agent and ``generation`` the object the caller holds (the
    simulator checks both before calling). Never raises.
    """
    sender = world.agents[sender_id]

    # SMA-026 "Caller cancellation owns work only until inbox acceptance": an already
    # aborted signal ends the call before any authorization, resume or insertion.
    if aborted:
        return Route(reason=SEND_CANCELLED)
    # SMA-007 "stale Agent objects ... are not alternate routes": only the exact live object.
    if generation != sender.generation:
        return Route(reason=STALE_SENDER)
    # SMA-054 "The unified tool gives up the recipient-free child shortcut": a call without
    # agent_id names no target; it fails instead of defaulting to the sender's parent.
    if target_id is None:
        return Route(reason=MISSING_AGENT_ID)
    target = world.get(target_id)
    # SMA-008 "unknown targets ... are not alternate routes".
    if target is None:
        return Route(reason=UNKNOWN_TARGET)
    # SMA-004 "self-targets ... are not alternate routes".
    if target_id == sender_id:
        return Route(reason=SELF_TARGET)

    if target.parent == sender_id:
        # SMA-001 "parent to direct continuable child, authorized by the child's durable
        # SessionHeader.parentSession": the edge is the child's durable parent, whatever the
        # child's residency (an absent child is cold-resumed later, SMA-018).
        # SMA-009 "one-shot children are not alternate routes".
        if target.kind == ONE_SHOT:
            return Route(reason=ONE_SHOT_TARGET)
        # "the exact live sender": a sender that is not even loaded cannot send (SMA-D002).
        if sender.state == ABSENT:
            return Route(reason=SENDER_NOT_RESIDENT)
        return Route(direction=TO_CHILD)

    if sender.parent == target_id:
        # SMA-002 "resident continuable child to its exact live direct parent, authorized by
        # the child's Activation".
        # SMA-010: a one-shot child has no continuable edge to its parent.
        if sender.kind == ONE_SHOT:
            return Route(reason=ONE_SHOT_SENDER)
        # SMA-011: the child's own Activation is the authority; without it, no route.
        if sender.kind == CONTINUABLE and not sender.resident:
            return Route(reason=SENDER_NOT_RESIDENT)
        # SMA-012 "no ... offline parent mailbox": the parent must be live (loaded); an idle
        # parent is live and starts a turn (SMA-017), an absent one has no mailbox.
        if target.state == ABSENT:
            return Route(reason=PARENT_NOT_LIVE)
        return Route(direction=TO_PARENT)

    sender_ancestors = world.ancestors(sender_id)
    # SMA-005 "ancestors beyond one edge ... are not alternate routes".
    if target_id in sender_ancestors:
        return Route(reason=ANCESTOR_BEYOND_EDGE)
    # SMA-006: a descendant beyond one edge is not "a target on one adjacent edge".
    if sender_id in world.ancestors(target_id):
        return Route(reason=DESCENDANT_BEYOND_EDGE)
    # SMA-003 "Siblings ... are not alternate routes".
    if sender.parent is not None and target.parent == sender.parent:
        return Route(reason=SIBLING_TARGET)
    # SMA-013: every other pair (cousins, another tree) is off the adjacent edges too.
    return Route(reason=NOT_ADJACENT)
