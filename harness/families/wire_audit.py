"""Descriptor of the wire-audit family (harness.families)."""

from agent_tck.harness.families import Family

FAMILY = Family(
    name="wire-audit",
    prefix="WA",
    order=70,
    operations=("agent_tck.harness.audit.operations",),
    wire_checks=("agent_tck.harness.audit.rules",),
    description="rules checked only on captured provider traffic",
)
