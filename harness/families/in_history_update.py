"""Descriptor of the in-history-update family (harness.families)."""

from agent_tck.harness.families import Family

FAMILY = Family(
    name="in-history-update",
    prefix="IHU",
    order=20,
    operations=("agent_tck.reference_impl.serialize.ops",),
    compare={"anthropic.serialize": "anthropic-messages", "openai.serialize": "openai-chat"},
    description="note 000, system messages inside the history",
)
