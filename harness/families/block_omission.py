"""Descriptor of the block-omission family (harness.families)."""

from agent_tck.harness.families import Family

FAMILY = Family(
    name="block-omission",
    prefix="BO",
    order=10,
    operations=("agent_tck.reference_impl.serialize.ops",),
    compare={"anthropic.serialize": "anthropic-messages", "openai.serialize": "openai-chat"},
    description="note 000, what the serializers omit from user and tool-result input",
)
