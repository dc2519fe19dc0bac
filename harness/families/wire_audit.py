"""Descriptor of the wire-audit family (harness.families)."""

from . import Family

FAMILY = Family(
    name="wire-audit",
    prefix="WA",
    order=70,
    operations=("harness.audit.operations",),
    wire_checks=("harness.audit.rules",),
    description="rules checked only on captured provider traffic",
)
