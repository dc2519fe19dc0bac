"""Adjacency authorization (reference_impl.subagents.routes), case by case, written by hand."""

from __future__ import annotations

import pytest

from agent_tck.reference_impl.subagents.routes import TO_CHILD, TO_PARENT, authorize
from agent_tck.reference_impl.subagents.scenario import parse_scenario

#   root ── c1 (running) ── g1 (running) ── gg1 (running)
#        │               └─ og (one-shot)
#        ├─ c2 (running) ── g2 (running)
#        ├─ c3 (absent, generation 2) ── g3 (running)
#        ├─ c4 (idle)
#        ├─ o1 (one-shot, running)
#        └─ o2 (one-shot, done)
#   other (a second root, idle)
WORLD = parse_scenario({
    "scenario": "routes",
    "world": {"agents": [
        {"id": "root", "state": "running"},
        {"id": "c1", "parent": "root", "mode": "continuable"},
        {"id": "g1", "parent": "c1", "mode": "continuable"},
        {"id": "gg1", "parent": "g1", "mode": "continuable"},
        {"id": "og", "parent": "c1", "mode": "one-shot"},
        {"id": "c2", "parent": "root", "mode": "continuable"},
        {"id": "g2", "parent": "c2", "mode": "continuable"},
        {"id": "c3", "parent": "root", "mode": "continuable", "state": "absent", "generation": 2},
        {"id": "g3", "parent": "c3", "mode": "continuable"},
        {"id": "c4", "parent": "root", "mode": "continuable", "state": "idle"},
        {"id": "o1", "parent": "root", "mode": "one-shot"},
        {"id": "o2", "parent": "root", "mode": "one-shot", "state": "done"},
        {"id": "other", "state": "idle"},
    ]},
    "actions": [],
}).world

ACCEPTED = [
    ("root", "c1", TO_CHILD),  # SMA-001: a running child
    ("root", "c3", TO_CHILD),  # SMA-001: an absent child (durable parent link; cold resume)
    ("root", "c4", TO_CHILD),  # SMA-001: an idle child
    ("c1", "g1", TO_CHILD),  # SMA-001: a continuable child is a parent too
    ("c1", "root", TO_PARENT),  # SMA-002
    ("g1", "c1", TO_PARENT),  # SMA-002: toward a continuable parent
    ("gg1", "g1", TO_PARENT),
]

REJECTED = [
    ("c1", "c2", "SIBLING_TARGET"),  # SMA-003
    ("g1", "og", "SIBLING_TARGET"),  # a one-shot sibling is still a sibling
    ("c1", "c1", "SELF_TARGET"),  # SMA-004
    ("root", "root", "SELF_TARGET"),
    ("g1", "root", "ANCESTOR_BEYOND_EDGE"),  # SMA-005
    ("gg1", "root", "ANCESTOR_BEYOND_EDGE"),
    ("og", "root", "ANCESTOR_BEYOND_EDGE"),  # one-shot codes belong to the direct edge only
    ("root", "g1", "DESCENDANT_BEYOND_EDGE"),  # SMA-006
    ("c1", "gg1", "DESCENDANT_BEYOND_EDGE"),
    ("root", "og", "DESCENDANT_BEYOND_EDGE"),
    ("root", "nobody", "UNKNOWN_TARGET"),  # SMA-008
    ("c1", "", "UNKNOWN_TARGET"),
    ("root", "o1", "ONE_SHOT_TARGET"),  # SMA-009
    ("root", "o2", "ONE_SHOT_TARGET"),
    ("c1", "og", "ONE_SHOT_TARGET"),
    ("o1", "root", "ONE_SHOT_SENDER"),  # SMA-010
    ("c4", "root", "SENDER_NOT_RESIDENT"),  # SMA-011: settled, idle
    ("c3", "root", "SENDER_NOT_RESIDENT"),  # SMA-011: absent
    ("c3", "g3", "SENDER_NOT_RESIDENT"),  # not loaded at all: not even down its own edge
    ("g3", "c3", "PARENT_NOT_LIVE"),  # SMA-012
    ("g1", "g2", "NOT_ADJACENT"),  # SMA-013: cousins
    ("root", "other", "NOT_ADJACENT"),  # another tree
    ("other", "c1", "NOT_ADJACENT"),
    ("c1", None, "MISSING_AGENT_ID"),  # SMA-054: no agent_id, never the parent
    ("root", None, "MISSING_AGENT_ID"),
]


@pytest.mark.parametrize(("sender", "target", "direction"), ACCEPTED)
def test_the_two_adjacent_edges_are_accepted(sender, target, direction):
    route = authorize(WORLD, sender, WORLD.agents[sender].generation, target)
    assert route.accepted and route.direction == direction and route.reason is None


@pytest.mark.parametrize(("sender", "target", "code"), REJECTED)
def test_every_other_route_is_rejected_with_its_code(sender, target, code):
    route = authorize(WORLD, sender, WORLD.agents[sender].generation, target)
    assert not route.accepted and route.reason == code


def test_every_reason_code_is_reachable():
    from agent_tck.reference_impl.subagents.model import REASON_CODES

    reached = {code for *_, code in REJECTED} | {"STALE_SENDER", "SEND_CANCELLED"}
    assert reached == set(REASON_CODES)


def test_a_stale_object_is_rejected_on_an_otherwise_valid_edge():
    # SMA-007: c3 is at its second object; the first one is stale, toward its own child too
    assert authorize(WORLD, "c3", 1, "g3").reason == "STALE_SENDER"
    assert authorize(WORLD, "c1", 1, "root").accepted  # c1's only object is live


def test_an_aborted_signal_wins_before_anything_else():
    # SMA-026; the order among several failing checks is the reference's (SMA-D002)
    assert authorize(WORLD, "root", 1, "c1", aborted=True).reason == "SEND_CANCELLED"
    assert authorize(WORLD, "c1", 1, "c2", aborted=True).reason == "SEND_CANCELLED"


def test_authorize_never_changes_the_world():
    before = dict(WORLD.agents)
    for sender, target, _ in ACCEPTED + [(s, t, None) for s, t, _ in REJECTED]:
        authorize(WORLD, sender, WORLD.agents[sender].generation, target)
    assert dict(WORLD.agents) == before
