"""Descriptor of the message-parts family (harness.families)."""

from agent_tck.harness.families import Family

FAMILY = Family(
    name="message-parts",
    prefix="MP",
    order=40,
    operations=("agent_tck.reference_impl.message_parts.ops",),
    compare={"message-parts.answer": "parts-view", "message-parts.titles": "parts-view",
             "message-parts.branches": "parts-view"},
    description="note 002, streamed output reconciled into message parts",
)
