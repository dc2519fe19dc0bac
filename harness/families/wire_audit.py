"""Descriptor of the wire-audit family (harness.families)."""

from harness.families import Family

FAMILY = Family(
    name="wire-audit",
    prefix="WA",
    order=70,
    operations=("reference_impl.ops.wire",),
    wire_checks=("reference_impl.wire_rules",),
    description="rules checked only on captured provider traffic",
)
