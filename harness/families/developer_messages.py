"""Descriptor of the developer-messages family (harness.families)."""

from harness.families import Family

FAMILY = Family(
    name="developer-messages",
    prefix="DM",
    order=60,
    operations=("reference_impl.ops.developer_messages",),
    description="note 004, developer messages for tool changes",
)
