"""Descriptor of the wire-audit family (harness.families)."""

from . import Family

FAMILY = Family(
    name="wire-audit",
    prefix="WA",
    order=70,
    operations=("agent_tck.reference_impl.ops.wire",),
    wire_checks=("agent_tck.reference_impl.wire_rules",),
    description="rules checked only on captured provider traffic",
)
