"""Descriptor of the chunk-free-persistence family (harness.families)."""

from agent_tck.harness.families import Family

FAMILY = Family(
    name="chunk-free-persistence",
    prefix="CFP",
    order=30,
    operations=("agent_tck.reference_impl.session_log.ops",),
    compare={"session.resume": "canonical-history", "session.load": "canonical-transcript",
             "session.record-load": "canonical-transcript",
             "session.record-live": "canonical-transcript"},
    description="note 001, the session log",
)
