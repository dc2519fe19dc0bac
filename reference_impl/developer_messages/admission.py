"""Developer messages: admission of ``developer/message`` records (DM-*).

Spec: 004_722d83801ee0b82d.txt ("Developer messages for incremental session changes").
Sans-I/O: every function takes parsed JSON log lines (the session header first, then event
envelopes ``{type, seq, time, data, ignorable?}``) and returns values or raises
:class:`DeveloperMessageError`. Nothing here reads a file, a clock or the current tool registry.

The shapes are the source runtime's:

* ``developer/message`` data ``{turn, step, message, headerSeq?}``; the message is
  ``{role: "developer", content: [...]}`` with blocks ``{type: "tool-addition", toolName}`` and
  ``{type: "tool-removal", toolName}``;
* ``request/header`` data ``{header: {tools: [ToolSchema...], ...}, ...}`` with ToolSchema
  ``{name, description, parameters, deferLoading?}``;
* ``step/start`` / ``step/end`` ``{turn, step}`` and ``turn/end`` ``{turn}`` open and close steps.

Checks are table-driven where the note enumerates (reference faults, message slots) and each
carries its rule ID and a few words of the note. The typed record model with its reading and
writing is :mod:`reference_impl.developer_messages.records`; the writers and rewriters built on
admission (roundtrip, append, fork, remap) are :mod:`reference_impl.developer_messages.writers`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final

from agent_tck.reference_impl.developer_messages.records import (
    _ARRAYS,
    _OBJECTS,
    ADDITION,
    DEVELOPER_EVENT,
    HEADER_EVENT,
    TOOL_CHANGES,
    Json,
    _is_array,
    _is_count,
    _is_object,
    freeze,
    no_tool_change,
    thaw,
)
from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.session_log.format import VOCABULARY, default_vocabulary
from agent_tck.reference_impl.session_log.surface import Surface, replacement_range, source_seqs

# ---------------------------------------------------------------------------------------------
# Errors: a stable code, the event's seq and the rule it breaks.


@dataclass(eq=True)  # not frozen, like TckError: Python sets __traceback__ on it
class DeveloperMessageError(TckError):
    """A rejection naming the offending event (``seq``) and the catalogue rule (``rule``)."""

    seq: int | None = None
    rule: str = ""


#: code -> the rule whose breach it reports (documented in vectors/developer-messages/README.md)
ERROR_CODES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "DM_MALFORMED": "DM-027",
        "DM_ROLE_MISMATCH": "DM-036",
        "DM_ROLE_CONFINED": "DM-037..DM-042",
        "DM_TOOL_CHANGE_NOT_DEVELOPER": "DM-043",
        "DM_STEP_NOT_OPEN": "DM-031",
        "DM_INLINE_DEFINITION": "DM-009",
        "DM_HEADER_SEQ_MISSING": "DM-002",
        "DM_HEADER_SEQ_FORWARD": "DM-003",
        "DM_HEADER_SEQ_UNKNOWN": "DM-004",
        "DM_HEADER_SEQ_NOT_HEADER": "DM-005",
        "DM_HEADER_SEQ_UNEXPECTED": "DM-011",
        "DM_DEFINITION_MISSING": "DM-007",
        "DM_DEFINITION_AMBIGUOUS": "DM-006",
        "DM_DEFINITION_INCOMPLETE": "DM-008",
        "DM_REFERENCED_HEADER_DROPPED": "DM-025",
        "DM_REPLACEMENT_UNCITED": "DM-050",
        "DM_PROTECTED_HEAD_SHADOWED": "DM-051",
    }
)


def _reject(
    code: str, rule: str, seq: int | None, pointer: str, what: str
) -> DeveloperMessageError:
    where = f"seq {seq}" if seq is not None else "log"
    return DeveloperMessageError(code, f"{rule} ({where}): {what}", pointer, seq, rule)


# ---------------------------------------------------------------------------------------------
# Known vocabulary: where ordinary messages live (the developer role is confined, DM-037..042).

Slot = Callable[[Mapping[str, Json]], Iterable[tuple[str, Json]]]


def _data_is_message(data: Mapping[str, Json]) -> Iterable[tuple[str, Json]]:
    # user/message: the source runtime stores the message as the data itself; a {message}
    # wrapper is read too. (A tuple, not a generator: this runs for every user/message.)
    if "role" in data or "content" in data:
        return (("", data),)
    if "message" in data:
        return (("/message", data["message"]),)
    return ()


def _field(name: str) -> Slot:
    where = f"/{name}"  # built once, not per event

    def slot(data: Mapping[str, Json]) -> Iterable[tuple[str, Json]]:
        return ((where, data[name]),) if name in data else ()

    return slot


def _array(name: str) -> Slot:
    def slot(data: Mapping[str, Json]) -> Iterator[tuple[str, Json]]:
        items = data.get(name)
        if _is_array(items):
            for index, item in enumerate(items):
                yield f"/{name}/{index}", item

    return slot


#: event type -> (where its ordinary messages are, the rule confining the developer role there)
MESSAGE_SLOTS: Final[Mapping[str, tuple[Slot, str]]] = MappingProxyType(
    {
        "user/message": (_data_is_message, "DM-037"),
        "assistant/message": (_field("message"), "DM-038"),
        "assistant/attempt": (_field("message"), "DM-038"),
        "tool/result": (_field("message"), "DM-039"),
        "system/message": (_field("message"), "DM-040"),
        "agent/inbox/spliced": (_array("inserted"), "DM-041"),
        "session/title-llm-request": (_array("messages"), "DM-042"),
    }
)

#: content arrays outside messages that may not carry tool-change blocks either (DM-043)
CONTENT_SLOTS: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {"compaction/summary": ("summary", "rawOutput")}
)

#: events placed on the model surface (surfaceOp; reference_impl.session_log.surface)
SURFACE_EVENTS: Final = frozenset({"system/message", "user/message", "developer/message",
                                   "assistant/message", "tool/result"})

#: events whose data may embed the step's compact raw stream (CFP-D002)
STREAM_EVENTS: Final = frozenset({"assistant/message", "assistant/attempt"})

#: the known types whose data :meth:`_Reader.ordinary` reads (any other: nothing to check)
_SLOTTED: Final = frozenset({*MESSAGE_SLOTS, *CONTENT_SLOTS, *STREAM_EVENTS})

#: the events that open or close steps (:meth:`_Reader.boundaries`)
_BOUNDARIES: Final = frozenset({"step/start", "step/end", "turn/end"})

#: event types this reader knows without the session log's extensions: the durable vocabulary
#: and the slots above. Any type outside :func:`known_event_types` is an opaque record it never
#: interprets.
KNOWN_EVENT_TYPES: Final = frozenset({*VOCABULARY.validators, *MESSAGE_SLOTS, *CONTENT_SLOTS})


@functools.cache
def known_event_types() -> frozenset[str]:
    """Every type the session log reader knows, other families' extensions included (called
    lazily: the extension modules import this one)."""
    return KNOWN_EVENT_TYPES | frozenset(default_vocabulary().validators)


# ---------------------------------------------------------------------------------------------
# Admission.


@dataclass(frozen=True)
class Change:
    kind: str  # "addition" | "removal"
    tool_name: str
    definition: Mapping[str, Json] | None = None  # additions: the referenced header's schema

    def to_json(self) -> dict[str, Json]:
        out: dict[str, Json] = {"kind": self.kind, "toolName": self.tool_name}
        if self.definition is not None:
            out["definition"] = thaw(self.definition)
        return out


@dataclass(frozen=True)
class AdmittedDeveloperMessage:
    seq: int
    turn: int
    step: int
    header_seq: int | None
    changes: tuple[Change, ...]

    def to_json(self) -> dict[str, Json]:
        out: dict[str, Json] = {
            "seq": self.seq,
            "turn": self.turn,
            "step": self.step,
            "changes": [c.to_json() for c in self.changes],
        }
        if self.header_seq is not None:
            out["headerSeq"] = self.header_seq
        return out


@dataclass(frozen=True)
class Admission:
    """What admission established: each developer record, resolved, in conversation order."""

    developer_messages: tuple[AdmittedDeveloperMessage, ...]

    @property
    def active(self) -> Mapping[str, tuple[int, Mapping[str, Json]]]:
        """Definitions made active by developer records (DM-014: an addition replaces the
        active same-name definition; DM-015: a removal deactivates the name)."""
        active: dict[str, tuple[int, Mapping[str, Json]]] = {}
        for record in self.developer_messages:
            for change in record.changes:
                if change.kind == "addition":
                    assert record.header_seq is not None and change.definition is not None
                    active[change.tool_name] = (record.header_seq, change.definition)
                else:
                    active.pop(change.tool_name, None)
        return MappingProxyType(active)

    def to_json(self) -> dict[str, Json]:
        return {
            "developerMessages": [m.to_json() for m in self.developer_messages],
            "active": {
                name: {"headerSeq": seq, "definition": thaw(definition)}
                for name, (seq, definition) in sorted(self.active.items())
            },
        }


def is_complete_definition(schema: Json) -> bool:
    """DM-D002: a complete ToolSchema has a string name and description and object parameters."""
    return (
        _is_object(schema)
        and isinstance(schema.get("name"), str)
        and isinstance(schema.get("description"), str)
        and _is_object(schema.get("parameters"))
    )


class _SeqIndex:
    """What a headerSeq may name, kept small: the runs of seqs seen (one run on a contiguous
    log), the seqs of opaque records (types outside the vocabulary), and each request/header's
    tool schemas by name. Memory grows with the headers, not with the events."""

    def __init__(self) -> None:
        self.known = known_event_types()
        self.runs: list[list[int]] = []
        self.opaque: set[int] = set()
        self.headers: dict[int, dict[str, tuple[Json, ...]]] = {}
        self.highest = -1

    def add(self, seq: int, etype: str, event: Mapping[str, Json]) -> None:
        if not self.add_run(seq):
            return  # a repeated seq never rebinds what an earlier event established
        if etype == HEADER_EVENT:
            by_name: dict[str, tuple[Json, ...]] = {}
            for tool in header_tools(event):
                if _is_object(tool) and isinstance(tool.get("name"), str):
                    by_name[tool["name"]] = (*by_name.get(tool["name"], ()), tool)
            self.headers[seq] = by_name
        elif etype not in self.known:
            self.opaque.add(seq)

    def add_run(self, seq: int) -> bool:
        """Record ``seq`` (all :meth:`add` does for most types); False: an event already had it."""
        runs = self.runs
        highest = self.highest
        if seq > highest:  # the common case: a new, higher seq
            run = runs[-1] if runs else None
            if run is not None and run[1] + 1 == seq and run[1] == highest:
                run[1] = seq
            else:
                runs.append([seq, seq])
            self.highest = seq
        elif self.kind(seq) is not None:
            return False
        else:
            runs.append([seq, seq])
        return True

    def kind(self, seq: int) -> str | None:
        """"header", "opaque", "known" (any other known event) or None (no such event)."""
        if seq in self.headers:
            return "header"
        if seq in self.opaque:
            return "opaque"
        for first, last in self.runs:
            if first <= seq <= last:
                return "known"
        return None


def header_tools(header_event: Mapping[str, Json]) -> tuple[Json, ...]:
    """The tool schemas a request/header carries (``data.header.tools``), or none."""
    data = header_event.get("data")
    header = data.get("header") if _is_object(data) else None
    tools = header.get("tools") if _is_object(header) else None
    return tuple(tools) if _is_array(tools) else ()


@dataclass
class _Reader:
    """The admission state machine: one pass, one event at a time (a streaming reader)."""

    index: _SeqIndex = field(default_factory=_SeqIndex)
    open_steps: set[tuple[Json, Json]] = field(default_factory=set)  # (turn, step) counts
    admitted: list[AdmittedDeveloperMessage] = field(default_factory=list)
    keep_records: bool = True  # False in the session log hook: validate only, keep memory flat
    surface: Surface = field(default_factory=Surface)  # surface seqs (one int per surface event)

    # -- ordinary events ----------------------------------------------------------------------
    def ordinary(self, event: Mapping[str, Json], seq: int, at: str) -> None:
        """The slots of a type in :data:`_SLOTTED` (:meth:`event` calls this for those only)."""
        etype = event["type"]
        data = event.get("data")
        if not isinstance(data, _OBJECTS):
            return  # DM-034: malformed ordinary slots are the decoder's to recover
        slotted = MESSAGE_SLOTS.get(etype)
        if slotted is not None:
            for where, message in slotted[0](data):
                self.slot_message(message, etype, where, seq, at)
        for name in CONTENT_SLOTS.get(etype) or ():
            self.no_tool_changes(data.get(name), seq, at, "/data/", name)
        if etype in STREAM_EVENTS and "stream" in data:  # most messages embed none
            self.no_tool_changes_in_stream(data["stream"], seq, at)

    def slot_message(self, message: Json, etype: str, where: str, seq: int, at: str) -> None:
        """One ordinary message of a slot: never developer-role, no tool-change block."""
        if not isinstance(message, _OBJECTS):
            return  # DM-034: malformed ordinary slots are the decoder's to recover
        # DM-037..042 "confines developer roles to the developer/message slot"
        if message.get("role") == "developer":
            raise _reject(
                "DM_ROLE_CONFINED", MESSAGE_SLOTS[etype][1], seq, f"{at}/data{where}/role",
                f"a developer-role message in a {etype} slot; the developer role "
                "belongs only in developer/message",
            )
        content = message.get("content")
        if not no_tool_change(content):  # DM-043: the exact walk only on a maybe
            self.no_tool_changes(content, seq, at, "/data", where, "/content")

    def no_tool_changes_in_stream(self, stream: Json, seq: int, at: str) -> None:
        """DM-043 inside the compact stream an assistant/message or assistant/attempt embeds
        (CFP-D002): a chunk entry's block-start ``blockType`` or block-end ``block.type``
        (session-format-v3-to-v4 README, "embedded assistant block-start/block-end records").
        ``at`` is the event's pointer; the stream's is joined only for a refusal."""
        if not _is_array(stream):
            return
        for index, entry in enumerate(stream):
            chunk = entry.get("chunk") if _is_object(entry) else None
            if not _is_object(chunk):
                continue
            kind = chunk.get("type")
            tag = (chunk.get("blockType") if kind == "block-start" else
                   chunk["block"].get("type") if kind == "block-end"
                   and _is_object(chunk.get("block")) else None)
            if tag in TOOL_CHANGES:
                raise _reject(
                    "DM_TOOL_CHANGE_NOT_DEVELOPER", "DM-043", seq,
                    f"{at}/data/stream/{index}/chunk",
                    f"a {tag} block in an assistant stream; tool-change blocks are developer-only",
                )

    def no_tool_changes(self, content: Json, seq: int, at: str, *under: str) -> None:
        """DM-043 in one content array; its pointer is ``at`` + ``under`` (joined only for a
        refusal: this runs for most events of a log)."""
        if not isinstance(content, _ARRAYS):
            return
        for index, block in enumerate(content):
            # DM-043 "developer-only tool-change blocks"
            if isinstance(block, _OBJECTS) and block.get("type") in TOOL_CHANGES:
                raise _reject(
                    "DM_TOOL_CHANGE_NOT_DEVELOPER", "DM-043", seq,
                    "".join((at, *under, f"/{index}")),
                    f"a {block['type']} block outside a developer message",
                )

    def boundaries(self, event: Mapping[str, Json]) -> None:
        data = event.get("data")
        if type(data) is not dict and not _is_object(data):  # a dict without the call
            return
        turn, step = data.get("turn"), data.get("step")
        kind = event["type"]
        if kind == "step/start" and ((type(turn) is int and turn >= 0) or _is_count(turn)) \
                and ((type(step) is int and step >= 0) or _is_count(step)):
            self.open_steps.add((turn, step))
        elif kind == "step/end":
            try:  # noqa: SIM105 - a try costs nothing here; suppress() is an object per step/end
                self.open_steps.discard((turn, step))
            except TypeError:
                pass  # an object turn or step (unhashable) names no open step
        elif kind == "turn/end":
            self.open_steps = {s for s in self.open_steps if s[0] != turn}

    def step_is_open(self, turn: int, step: int) -> bool:
        """Started by step/start and not yet closed by step/end or its turn's turn/end."""
        return (turn, step) in self.open_steps

    # -- developer/message ----------------------------------------------------------------------
    def developer(self, event: Mapping[str, Json], seq: int, at: str) -> None:
        data = event.get("data")
        # DM-027 "developer/message carries the message and its admitting turn/step coordinates"
        if not _is_object(data):
            raise _reject("DM_MALFORMED", "DM-027", seq, f"{at}/data",
                          "developer/message data must be an object")
        message = data.get("message")
        if not _is_object(message):
            raise _reject("DM_MALFORMED", "DM-027", seq, f"{at}/data/message",
                          "developer/message requires a message object")
        if "role" not in message:
            raise _reject("DM_MALFORMED", "DM-027", seq, f"{at}/data/message/role",
                          "the developer message has no role")
        # DM-036: the slot holds a developer-role message, whatever extra fields claim (DM-029)
        if message["role"] != "developer":
            raise _reject("DM_ROLE_MISMATCH", "DM-036", seq, f"{at}/data/message/role",
                          f"developer/message carries a {message['role']!r}-role message")
        name: Json  # the coordinates' names here, a block's toolName below
        for name in ("turn", "step"):
            if not _is_count(data.get(name)):
                raise _reject("DM_MALFORMED", "DM-027", seq, f"{at}/data/{name}",
                              f"developer/message requires an integer {name}")
        content = message.get("content")
        if not _is_array(content):
            raise _reject("DM_MALFORMED", "DM-027", seq, f"{at}/data/message/content",
                          "the developer message requires a content array")
        additions: list[tuple[int, Mapping[str, Json]]] = []
        changes: list[tuple[int, Mapping[str, Json]]] = []
        for index, block in enumerate(content):
            where = f"{at}/data/message/content/{index}"
            if not _is_object(block):
                raise _reject("DM_MALFORMED", "DM-027", seq, where,
                              "a content block is not an object")
            if block.get("type") not in TOOL_CHANGES:
                continue  # future developer content is unspecified: kept, not interpreted
            name = block.get("toolName")
            if not isinstance(name, str) or not name:
                raise _reject("DM_MALFORMED", "DM-027", seq, f"{where}/toolName",
                              f"a {block['type']} block requires a non-empty string toolName")
            # DM-009/DM-010 "reject retired inline definitions"; `tool` is "optional never"
            if block["type"] == ADDITION and "tool" in block:
                raise _reject("DM_INLINE_DEFINITION", "DM-009", seq, f"{where}/tool",
                              "tool-addition must not carry an inline definition (`tool`); "
                              "bind it through headerSeq instead")
            changes.append((index, block))
            if block["type"] == ADDITION:
                additions.append((index, block))
        # DM-031 "its admitting turn/step coordinates": the step must be open (DM-030)
        if not self.step_is_open(data["turn"], data["step"]):
            raise _reject("DM_STEP_NOT_OPEN", "DM-031", seq, f"{at}/data/step",
                          f"turn {data['turn']} step {data['step']} is not open")
        resolved = self.resolve(data, additions, seq, at) if additions else {}
        if not additions and "headerSeq" in data:
            # DM-011 "The header reference is absent when the message contains no additions."
            raise _reject("DM_HEADER_SEQ_UNEXPECTED", "DM-011", seq, f"{at}/data/headerSeq",
                          "headerSeq without any tool-addition block")
        if not self.keep_records:
            return
        self.admitted.append(
            AdmittedDeveloperMessage(
                seq=seq,
                turn=data["turn"],
                step=data["step"],
                header_seq=data["headerSeq"] if additions else None,
                changes=tuple(
                    Change("addition", b["toolName"], resolved[i]) if b["type"] == ADDITION
                    else Change("removal", b["toolName"])
                    for i, b in changes
                ),
            )
        )

    def resolve(
        self, data: Mapping[str, Json], additions: list[tuple[int, Mapping[str, Json]]],
        seq: int, at: str,
    ) -> dict[int, Mapping[str, Json]]:
        """DM-001: bind every addition of the event to the one header it names (DM-012)."""
        pointer = f"{at}/data/headerSeq"
        if "headerSeq" not in data:
            # DM-002 (missing); sourceEventSeqs never stands in for it (DM-023)
            raise _reject("DM_HEADER_SEQ_MISSING", "DM-002", seq, pointer,
                          "tool additions require a headerSeq naming an earlier request/header")
        ref = data["headerSeq"]
        if not _is_count(ref):
            raise _reject("DM_MALFORMED", "DM-D001", seq, pointer,
                          f"headerSeq must be a non-negative integer, not {ref!r}")
        if ref >= seq:  # DM-003 forward (decided by seq order alone, DM-D001)
            raise _reject("DM_HEADER_SEQ_FORWARD", "DM-003", seq, pointer,
                          f"headerSeq {ref} is not earlier than the event itself")
        kind = self.index.kind(ref)
        if kind in (None, "opaque"):  # DM-004 unknown: no such event, or an opaque record
            raise _reject("DM_HEADER_SEQ_UNKNOWN", "DM-004", seq, pointer,
                          f"headerSeq {ref} names no event this reader knows")
        if kind != "header":  # DM-005 non-header
            raise _reject("DM_HEADER_SEQ_NOT_HEADER", "DM-005", seq, pointer,
                          f"headerSeq {ref} names a known event that is not a request/header")
        tools = self.index.headers[ref]
        resolved: dict[int, Mapping[str, Json]] = {}
        for index, block in additions:
            name = block["toolName"]
            matches = tools.get(name, ())
            where = f"{at}/data/message/content/{index}/toolName"
            if not matches:  # DM-007 / DM-012 "exactly one schema for each added name"
                raise _reject("DM_DEFINITION_MISSING", "DM-007", seq, where,
                              f"request/header seq {ref} defines no tool named {name!r}")
            if len(matches) > 1:  # DM-006 ambiguous
                raise _reject("DM_DEFINITION_AMBIGUOUS", "DM-006", seq, where,
                              f"request/header seq {ref} defines {name!r} {len(matches)} times")
            if not is_complete_definition(matches[0]):  # DM-008, DM-D002
                raise _reject("DM_DEFINITION_INCOMPLETE", "DM-008", seq, where,
                              f"the definition of {name!r} in request/header seq {ref} lacks a "
                              "string description or an object parameters")
            resolved[index] = matches[0]
        return resolved

    # -- one line ---------------------------------------------------------------------------
    def feed(self, index: int, line: Json) -> None:
        at = f"/log/{index}"
        if not _is_object(line) or not isinstance(line.get("type"), str) or not _is_count(
            line.get("seq")
        ):
            raise _reject("DM_MALFORMED", "DM-027", None, at,
                          "an event needs a string type and an integer seq")
        self.event(line, line["seq"], line["type"], at)

    def event(self, line: Mapping[str, Json], seq: int, etype: str, at: str) -> None:
        """:meth:`feed` past its envelope check. The session log reader calls this directly:
        its own envelope check (an object, a string type, an integer seq >= 0) is stricter."""
        if etype == DEVELOPER_EVENT:
            # DM-032: an ignorable marker does not establish reader support; checked regardless
            self.developer(line, seq, at)
        elif etype in self.index.known:
            if etype in _SLOTTED:  # a slot, content array or stream to read (most types: none)
                self.ordinary(line, seq, at)
            if etype in _BOUNDARIES:
                self.boundaries(line)
        # any other type is an opaque record: kept, never interpreted
        if etype in SURFACE_EVENTS:
            self.place(line, seq, etype, at)
        self.index.add(seq, etype, line)

    def place(self, event: Mapping[str, Json], seq: int, etype: str, at: str) -> None:
        """Fold one surface event into the current surface (surfaceOp append or replace)."""
        # "append" (a string) is never a replacement: no call for the common case
        span = None if type(event.get("surfaceOp")) is str else replacement_range(event)
        if span is None:
            self.surface.append(etype, seq)
            return
        found = self.surface.span(*span)
        if found is None:
            return  # a range off the surface is the format's to refuse (check-log dsh-v4)
        removed = self.surface.nodes[found[0]:found[1] + 1]
        developer = etype == DEVELOPER_EVENT
        if developer:
            cited = source_seqs(event.get("sourceEventSeqs")) or set()
            missing = [node for node in removed if node not in cited]
            if missing:
                # DM-050 "A replacement ... cites the shadowed surface nodes"
                raise _reject("DM_REPLACEMENT_UNCITED", "DM-050", seq, f"{at}/sourceEventSeqs",
                              f"the replacement shadows surface node(s) {missing} its "
                              "sourceEventSeqs do not cite")
            content = event["data"]["message"]["content"]
            if len(content) == 0 and self.surface.protected in removed:
                # DM-051 "Empty developer content retains its surface position without ...
                # shadowing the protected system head"
                raise _reject("DM_PROTECTED_HEAD_SHADOWED", "DM-051", seq, f"{at}/surfaceOp",
                              f"empty developer content replaces the protected system head "
                              f"(seq {self.surface.protected})")
        self.surface.replace(found[0], found[1], etype, seq)


def new_reader(*, keep_records: bool = True) -> _Reader:
    """A fresh streaming admission state (the session log reader's hook uses one per log,
    without keeping the admitted records)."""
    return _Reader(keep_records=keep_records)


def admit(lines: Sequence[Json], registry: Iterable[Json] | None = None) -> Admission:
    """Admit a session log's developer records (DM-001..DM-049).

    ``registry`` is the runtime's current tool registry. It is accepted only to make the point
    of DM-020: admission never consults it.
    """
    del registry  # DM-020 "without consulting the current registry or latest request header"
    frozen = freeze(list(lines))
    if not frozen or not _is_object(frozen[0]):
        raise _reject("DM_MALFORMED", "DM-027", None, "/log/0",
                      "a log starts with its session header object")
    reader = _Reader()
    for index, line in enumerate(frozen[1:], start=1):
        reader.feed(index, line)
    return Admission(tuple(reader.admitted))
