"""The source runtime's event vocabulary and the note-governed log checks, in the default reader.

Loaded by :func:`reference_impl.session_log.format.default_vocabulary` (every ``ext_*`` module):

* ``VALIDATORS`` makes every event type of the source runtime's vocabulary known
  (``dsh_v4.KNOWN_EVENT_TYPES``); the data of a type no rule reads stays opaque (an object, as
  the envelope requires, and nothing more). Types another module already validates keep their
  validator.
* ``ADMISSIONS`` adds the checks the notes require that need more than one line:

  - CFP-031: one assembled assistant/message per step (note 001: "the loop already appends an
    assistant/message");
  - CFP-D011: pre-v4 syntax a v4 file may not hold (the retired ``request/header`` ``system``
    key, the retired ``tool-result`` wrapper block) - the note rejects non-current stored logs;

DM-050 and DM-051 (replacements) are the developer admission's (``developer_messages``).

Each problem is ``(code, message)`` naming the rule; the reader adds line and seq.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from agent_tck.reference_impl.session_log import dsh_v4
from agent_tck.reference_impl.session_log.ext_developer_messages import (
    VALIDATORS as _DEVELOPER_VALIDATORS,
)
from agent_tck.reference_impl.session_log.format import (
    STEP_MESSAGE_REPEATED,
    Admission,
    Problem,
)
from agent_tck.reference_impl.session_log.retired_syntax import (
    READ_TYPES as RETIRED_READ_TYPES,
)
from agent_tck.reference_impl.session_log.retired_syntax import checker as retired_checker
from agent_tck.reference_impl.session_log.retired_syntax import retired_syntax


def _opaque(data: Mapping[str, Any]) -> Problem | None:
    return None  # no rule reads this type's data: the envelope's "data is an object" is all


#: The durable types the session log's own vocabulary validates (session_log.VOCABULARY); never
#: re-added here as opaque, so a vocabulary that lost one of them still fails (CFP-004..006).
_VALIDATED_ELSEWHERE = frozenset({
    "turn/start", "turn/end", "step/start", "step/end", "request/header", "system/message",
    "user/message", "assistant/message", "assistant/attempt", "tool/call", "tool/result",
    "developer/message", *_DEVELOPER_VALIDATORS,
})

VALIDATORS = dict.fromkeys(sorted(dsh_v4.KNOWN_EVENT_TYPES - _VALIDATED_ELSEWHERE), _opaque)


#: the event types CFP-031 and CFP-D011 read (the reader calls the admission for these only)
_READ_TYPES = frozenset({
    "turn/start", "assistant/message", "assistant/attempt", "request/header", "tool/result",
    *dsh_v4.RETIRED_CONTENT_AT, *dsh_v4.RETIRED_MESSAGES_AT,
})


class NoteRules(Admission):
    """CFP-031 and CFP-D011 for one log."""

    types = _READ_TYPES

    def __init__(self) -> None:
        self.turn: Any = None
        self.answered: set[tuple[Any, Any]] = set()

    def admit(self, event: Mapping[str, Any], line: int) -> Problem | None:
        kind = event["type"]
        data = event["data"]
        if kind in RETIRED_READ_TYPES and (problem := retired_syntax(kind, data)):
            return problem
        if kind == "turn/start":
            self.start_turn(data)
        elif kind == "assistant/message":
            return self.step_message(data)
        return None

    def plan(self, kind: str | None) -> Callable[[Mapping[str, Any], int], Problem | None] | None:
        """:meth:`admit` for one type (the reader asks once per type)."""
        if kind is None or kind not in _READ_TYPES:
            return None
        retired = retired_checker(kind) if kind in RETIRED_READ_TYPES else None
        if retired is None or kind == "turn/start":
            return self.admit  # turn/start: once a turn
        if kind == "assistant/message":
            def message(event: Mapping[str, Any], line: int) -> Problem | None:
                data = event["data"]
                return retired(data) or self.step_message(data)

            return message

        def only_retired(event: Mapping[str, Any], line: int) -> Problem | None:
            return retired(event["data"])

        return only_retired

    def start_turn(self, data: Mapping[str, Any]) -> None:
        self.turn = data.get("turn")
        self.answered.clear()

    def step_message(self, data: Mapping[str, Any]) -> Problem | None:
        # CFP-031 "the loop already appends an assistant/message": one per step, never a
        # message split across events (that is the chunk log again).
        key = (data.get("turn"), data.get("step"))
        if key in self.answered:
            return (STEP_MESSAGE_REPEATED, f"CFP-031: a second assistant/message for turn "
                    f"{key[0]} step {key[1]}; a step's assembled message is one event")
        self.answered.add(key)
        return None

    def admit_row(self, event: Mapping[str, Any]) -> Problem | None:
        # CFP-D011 on the rows a tail drops too: the source runtime refuses retired syntax before
        # any recovery (retired-syntax.ts, run by format.ts SessionLogScanner on every row).
        return retired_syntax(event["type"], event["data"])


ADMISSIONS = (NoteRules,)
