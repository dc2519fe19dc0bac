"""Operations of the ``message-parts`` family (vectors/message-parts/README.md).

All five take the same input, ``{"events": [runtime events], "view": {...}?}``, run the
reconciler over every event and render one view of the result. A bad event sequence is
rejected with a code and the pointer ``/events/<index>`` of the event that broke it.
"""

from __future__ import annotations

from typing import Any

from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.message_parts.reconciler import State, reconcile
from agent_tck.reference_impl.message_parts.views import (
    answer_view,
    branches_view,
    parse_marks,
    parse_view,
    parts_view,
    project_view,
    titles_view,
)


def _state(payload: Any) -> State:
    if not isinstance(payload, dict):
        raise TckError("MALFORMED_INPUT", "the input must be an object {events, view?}", "")
    if "events" not in payload:
        raise TckError("MALFORMED_INPUT", "the input has no events list", "/events")
    return reconcile(payload["events"])


def parts(payload: Any) -> dict[str, Any]:
    state = _state(payload)
    return parts_view(state, parse_marks(payload))


def answer(payload: Any) -> dict[str, Any]:
    return answer_view(_state(payload))


def project(payload: Any) -> dict[str, Any]:
    state = _state(payload)
    return project_view(state, parse_view(payload))


def titles(payload: Any) -> dict[str, Any]:
    state = _state(payload)
    return titles_view(state, parse_view(payload))


def branches(payload: Any) -> dict[str, Any]:
    return branches_view(_state(payload))


OPERATIONS = {
    "message-parts.parts": parts,
    "message-parts.answer": answer,
    "message-parts.project": project,
    "message-parts.titles": titles,
    "message-parts.branches": branches,
}
