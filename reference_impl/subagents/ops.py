"""Operations of the send-message-adjacency family (vectors/send-message-adjacency/README.md).

``subagents.simulate``: a scenario (world + actions) -> ``{"trace": [...]}``; a bad scenario is
rejected with ``INVALID_SCENARIO``. Rejected *sends* are not errors: they are ``rejected``
events of the trace, each with its reason code.
"""

from __future__ import annotations

from typing import Any

from agent_tck.reference_impl.subagents.simulator import simulate


def _simulate(payload: Any) -> Any:
    return simulate(payload)


OPERATIONS = {"subagents.simulate": _simulate}
