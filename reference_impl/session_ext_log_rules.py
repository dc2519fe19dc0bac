"""The source runtime's event vocabulary and the note-governed log checks, in the default reader.

Loaded by :func:`reference_impl.session_log.default_vocabulary` (every ``session_ext_*`` module):

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

from collections.abc import Iterator, Mapping
from typing import Any

from reference_impl import dsh_v4
from reference_impl.session_ext_developer_messages import VALIDATORS as _DEVELOPER_VALIDATORS
from reference_impl.session_log import (
    RETIRED_SYNTAX,
    STEP_MESSAGE_REPEATED,
    Admission,
    Problem,
)


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


def _at(data: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if type(data) is not dict:
            return None
        data = data.get(key)
    return data


def _wrapper_in(content: Any) -> int | None:
    if type(content) is list:
        for index, block in enumerate(content):
            if type(block) is dict and block.get("type") == "tool-result":
                return index
    return None


def _content_arrays(kind: str, data: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    for path in dsh_v4.RETIRED_CONTENT_AT.get(kind, ()):
        yield "data." + ".".join(path), _at(data, path)
    if kind == "tool/result":
        yield "data.message.content", _at(data, ("message", "content"))
    name = dsh_v4.RETIRED_MESSAGES_AT.get(kind)
    if name and type(data.get(name)) is list:
        for index, message in enumerate(data[name]):
            yield f"data.{name}[{index}].content", _at(message, ("content",))


def retired_syntax(kind: str, data: Mapping[str, Any]) -> Problem | None:
    """CFP-D011: the pre-v4 forms retired-syntax.ts refuses in a v4 file."""
    if kind == "request/header":
        header = data.get("header")
        if type(header) is dict and "system" in header:
            return (RETIRED_SYNTAX, "CFP-D011: data.header.system is the retired system key "
                    "(v4 keeps the system prompt in system/message events)")
        return None
    for where, content in _content_arrays(kind, data):
        index = _wrapper_in(content)
        if index is not None:
            return (RETIRED_SYNTAX, f"CFP-D011: {where}[{index}] is a tool-result block, the "
                    "v3 wrapper v4 retires (a tool result is a tool/result event with a "
                    "tool-role message)")
    if kind in ("assistant/message", "assistant/attempt") and type(data.get("stream")) is list:
        for index, entry in enumerate(data["stream"]):
            chunk = entry.get("chunk") if type(entry) is dict else None
            if type(chunk) is not dict:
                continue
            block = chunk.get("block")
            if (chunk.get("type") == "block-start" and chunk.get("blockType") == "tool-result") \
                    or (chunk.get("type") == "block-end" and type(block) is dict
                        and block.get("type") == "tool-result"):
                return (RETIRED_SYNTAX, f"CFP-D011: data.stream[{index}] holds a tool-result "
                        "block, the v3 wrapper v4 retires")
    return None


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
        if problem := retired_syntax(kind, data):
            return problem
        if kind == "turn/start":
            self.turn = data.get("turn")
            self.answered.clear()
        elif kind == "assistant/message":
            # CFP-031 "the loop already appends an assistant/message": one per step, never a
            # message split across events (that is the chunk log again).
            key = (data.get("turn"), data.get("step"))
            if key in self.answered:
                return (STEP_MESSAGE_REPEATED, f"CFP-031: a second assistant/message for turn "
                        f"{key[0]} step {key[1]}; a step's assembled message is one event")
            self.answered.add(key)
        return None


ADMISSIONS = (NoteRules,)
