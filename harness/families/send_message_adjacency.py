"""Descriptor of the send-message-adjacency family (harness.families)."""

from agent_tck.harness.families import Family

FAMILY = Family(
    name="send-message-adjacency",
    prefix="SMA",
    order=50,
    operations=("agent_tck.reference_impl.subagents.ops",),
    compare={"subagents.simulate": "subagent-trace"},
    description="note 003, parent and subagent send_message",
)
