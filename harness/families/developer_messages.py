"""Descriptor of the developer-messages family (harness.families)."""

from agent_tck.harness.families import Family

FAMILY = Family(
    name="developer-messages",
    prefix="DM",
    order=60,
    operations=("agent_tck.reference_impl.developer_messages.ops",),
    description="note 004, developer messages for tool changes",
)
