"""Operations of the wire-audit family (vectors/wire-audit/README.md documents the shapes).

They run the audit's own rules (:mod:`harness.audit.rules`, :mod:`harness.audit.tracker`), so
they live beside them in ``harness/audit/`` rather than in ``reference_impl/``.

* ``wire.check``: one captured exchange -> its findings, sorted by (rule, pointer, severity),
  each ``{"rule", "severity", "pointer"}``; ``[]`` for traffic that is not an LLM request.
* ``wire.conversation``: ``{"exchanges": [...]}`` -> how the requests group into
  conversations and the cross-request findings (prompt-cache prefix and head stability).

Both reject an input of the wrong JSON type with ``INVALID_EXCHANGE``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_tck.harness.audit.rules import check_exchange
from agent_tck.harness.audit.tracker import track
from agent_tck.reference_impl.errors import TckError


def _exchange(value: Any, pointer: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise TckError("INVALID_EXCHANGE", "an exchange is a JSON object", pointer or "/")
    request = value.get("request")
    if request is not None and not isinstance(request, Mapping):
        raise TckError("INVALID_EXCHANGE", "request must be an object", f"{pointer}/request")
    return value


def wire_check(payload: Any) -> list[dict[str, str]]:
    return [f.key() for f in check_exchange(_exchange(payload, ""))]


def wire_conversation(payload: Any) -> dict[str, Any]:
    if not isinstance(payload, Mapping) or not isinstance(payload.get("exchanges"), list):
        raise TckError("INVALID_EXCHANGE", "input is {\"exchanges\": [exchange, ...]}",
                       "/exchanges")
    exchanges = [_exchange(x, f"/exchanges/{i}") for i, x in enumerate(payload["exchanges"])]
    result = track(exchanges)
    findings = sorted(
        ({"exchange": ref, **f.key()} for ref, f in result.findings),
        key=lambda f: (f["exchange"], f["rule"], f["pointer"], f["severity"]),
    )
    return {
        "conversations": [
            {"id": c.id, "parent": c.parent, "fork_at": c.fork_at, "requests": list(c.requests)}
            for c in result.conversations
        ],
        "findings": findings,
    }


OPERATIONS = {
    "wire.check": wire_check,
    "wire.conversation": wire_conversation,
}
