"""``check-log --profile dsh-v4``: the source runtime's own v4 strictness, on top of the notes.

The default reader checks what the notes require and accepts every log the source runtime
writes. This profile adds what the source runtime's native v4 reader refuses although no note
requires it: documented strictness, never a conformance verdict on the notes. Each check names
the fact's file in zsagi1368/deepseek-harness-zDSH (constants in
:mod:`reference_impl.session_log.dsh_v4`):

* DSH_HEADER: the header's closed key set and field types (format.ts ``isHeaderLine``,
  validation.ts ``assertReleasedV4Header``), retired ``sandboxMode``/``approvalPolicy``;
* DSH_ENVELOPE: the envelope's closed key set, safe-integer ``time``, ``ignorable`` exactly true,
  ``sourceEventSeqs`` of unique earlier seqs (v3-to-v4 README "Event envelope", codec.ts);
* DSH_SEQ_ORIGIN: ``seq`` equals the row index, from 0 (validation.ts "is not dense");
* DSH_SURFACE: ``surfaceOp`` on every surface event and on no other known event, replacement
  ranges on the current surface citing what they shadow, the protected system head
  (relationships.ts ``foldSurface``);
* DSH_MESSAGE: surface messages carry a non-empty ``id``, their role and an object ``source``
  with a non-empty kind; a tool result's call ids agree (README "Surface messages", "Tool result");
* DSH_LIFECYCLE: turn and step numbering and open owners (relationships.ts ``accept``);
* DSH_DEFER_LOADING: a tool schema's ``deferLoading`` is exactly true (README "Developer changes");
* DSH_SEED: ``isSeeded`` agrees with a ``session/end-seed {inherited: true}`` marker
  (validation.ts ``restoreReleasedV4Artifact``);
* DSH_TOOL: every tool call an assistant/message advertises is started by one matching
  tool/call and answered by one appended tool/result before its step ends, or by the exact
  TOOL_NOT_STARTED repair (relationships.ts ``Relationships.tool``, ``closeTools``,
  ``notStartedRepair``);
* DSH_COMPACTION: a compaction/prune or compaction/summary names an exact span of the current
  surface and never the protected system head (relationships.ts ``span``).

On a damaged log, :meth:`DshV4.admit_row` is the runtime's row admission on the rows a tail drops.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from agent_tck.reference_impl.session_log import dsh_v4 as f
from agent_tck.reference_impl.session_log.format import SAFE_INTEGER, Admission, Problem, Vocabulary
from agent_tck.reference_impl.session_log.surface import Surface, replacement_range, source_seqs

PROFILE: Final = "dsh-v4"

DSH_HEADER: Final = "DSH_HEADER"
DSH_ENVELOPE: Final = "DSH_ENVELOPE"
DSH_SEQ_ORIGIN: Final = "DSH_SEQ_ORIGIN"
DSH_SURFACE: Final = "DSH_SURFACE"
DSH_MESSAGE: Final = "DSH_MESSAGE"
DSH_LIFECYCLE: Final = "DSH_LIFECYCLE"
DSH_DEFER_LOADING: Final = "DSH_DEFER_LOADING"
DSH_SEED: Final = "DSH_SEED"
DSH_TOOL: Final = "DSH_TOOL"
DSH_COMPACTION: Final = "DSH_COMPACTION"

ERROR_CODES: Final = (DSH_HEADER, DSH_ENVELOPE, DSH_SEQ_ORIGIN, DSH_SURFACE, DSH_MESSAGE,
                      DSH_LIFECYCLE, DSH_DEFER_LOADING, DSH_SEED, DSH_TOOL, DSH_COMPACTION)

_ENVELOPE_KEYS: Final = frozenset(f.ENVELOPE_REQUIRED + f.ENVELOPE_OPTIONAL)
_HEADER_KEYS: Final = frozenset(f.HEADER_REQUIRED + f.HEADER_OPTIONAL)
_ABSOLUTE: Final = re.compile(r"^(/|[A-Za-z]:[\\/]|\\\\)")
#: a repair result id's call index (relationships.ts notStartedRepair): a canonical integer
_INDEX: Final = re.compile(r"0|[1-9][0-9]*")
_OPEN_STEP_TYPES: Final = f.STEP_EVENT_TYPES | {"assistant/message", "tool/call"}
_KNOWN: Final = f.KNOWN_EVENT_TYPES  # module names: read for every event
_SURFACE: Final = f.SURFACE_TYPES
#: the event types whose data.message message-sources.ts inspects for a retired source
_MESSAGE_SLOT_TYPES: Final = frozenset({"system/message", "assistant/message", "tool/result"})


def _count(value: Any) -> bool:
    """A non-negative safe integer, as a JSON integer (sessionFormatCount)."""
    return type(value) is int and 0 <= value <= SAFE_INTEGER


def _text(value: Any) -> bool:
    return type(value) is str and value != ""


def _say(code: str, source: str, what: str) -> Problem:
    return (code, f"{what} [dsh-v4: {source}]")


def check_header(value: Mapping[str, Any]) -> Problem | None:
    src = f.JSONL_FORMAT
    for key in f.HEADER_RETIRED:
        if key in value:
            return _say(DSH_HEADER, src, f"retired header field {key!r}")
    for key in f.HEADER_REQUIRED:
        if key not in value:
            return _say(DSH_HEADER, src, f"header.{key} is required")
    extra = sorted(k for k in value if k not in _HEADER_KEYS)
    if extra:
        return _say(DSH_HEADER, src, f"header has unexpected field(s) {extra}")
    if type(value["isSeeded"]) is not bool:
        return _say(DSH_HEADER, src, "header.isSeeded must be a boolean")
    for key in ("createdAt", "delegationDepth"):
        if not _count(value[key]):
            return _say(DSH_HEADER, src, f"header.{key} must be a non-negative safe integer")
    cwd = value.get("cwd")
    if cwd is not None and (type(cwd) is not str or not _ABSOLUTE.match(cwd)):
        return _say(DSH_HEADER, src, "header.cwd must be an absolute path")
    for key in ("parentSession", "agentPreset"):
        if key in value and type(value[key]) is not str:
            return _say(DSH_HEADER, src, f"header.{key} must be a string")
    if "origin" in value and value["origin"] != "subagent":
        return _say(DSH_HEADER, src, 'header.origin must be "subagent"')
    return None


def check_message(kind: str, data: Mapping[str, Any]) -> Problem | None:
    """README "Surface messages" / "Tool result": identified, attributed messages."""
    src = f.V4_README
    # the message: the data itself for a user/message (MESSAGE_AT_DATA), else data.message
    message = data if kind in f.MESSAGE_AT_DATA else data.get("message")
    if type(message) is not dict:
        return _say(DSH_MESSAGE, src, f"{kind} needs a message object")
    if not _text(message.get("id")):
        return _say(DSH_MESSAGE, src, f"{kind} message needs a non-empty id")
    source = message.get("source")
    if type(source) is not dict or not _text(source.get("kind")) or source["kind"] == "plugin":
        return _say(DSH_MESSAGE, src, f"{kind} message needs an object source with a "
                    "non-empty, non-'plugin' kind")
    if kind == "tool/result":
        call = message.get("toolCallId")
        if message.get("role") != "tool" or not _text(call):
            return _say(DSH_MESSAGE, src, "tool/result needs role 'tool' and a toolCallId")
        if source.get("kind") != "tool" or source.get("callId") != call:
            return _say(DSH_MESSAGE, src, "tool/result source must be {kind: 'tool', callId} "
                        "naming its toolCallId")
    return None


class _Tools:
    """relationships.ts ``Relationships.tool`` and ``closeTools``: each tool call an
    assistant/message advertises is started by one matching tool/call and resolved by one
    appended tool/result before its step ends (a result for a call never started is the exact
    TOOL_NOT_STARTED repair, ``notStartedRepair``). State: the open turn's pending calls."""

    def __init__(self) -> None:
        self.pending: dict[str, list[Any]] = {}  # call id -> [name, arguments, started]

    def accept(self, kind: str, event: Mapping[str, Any],
               data: Mapping[str, Any]) -> Problem | None:
        check = self.check_for(kind)
        return None if check is None else check(kind, event, data)

    def check_for(self, kind: str) -> Callable[[str, Mapping[str, Any], Mapping[str, Any]],
                                               Problem | None] | None:
        """The check :meth:`accept` makes on an event of type ``kind`` (None: none)."""
        if kind == "turn/start":
            return self.start_turn
        if kind in ("step/end", "turn/end"):
            return self.close
        if kind == "assistant/message":
            return self.advertised
        if kind == "tool/call":
            return self.start_call
        if kind == "tool/result":
            return self.answered
        return None

    def start_turn(self, kind: str, event: Mapping[str, Any],
                   data: Mapping[str, Any]) -> Problem | None:
        self.pending.clear()
        return None

    def close(self, kind: str, event: Mapping[str, Any],
              data: Mapping[str, Any]) -> Problem | None:
        if self.pending:
            return _say(DSH_TOOL, f.RELATIONSHIPS, f"{kind} leaves unresolved tool call "
                        f"{next(iter(self.pending))!r} (no tool/result answers it)")
        return None

    def advertised(self, kind: str, event: Mapping[str, Any],
                   data: Mapping[str, Any]) -> Problem | None:
        return self.advertise(data)

    def start_call(self, kind: str, event: Mapping[str, Any],
                   data: Mapping[str, Any]) -> Problem | None:
        src = f.RELATIONSHIPS
        call = self.pending.get(data.get("callId"))  # type: ignore[arg-type]
        if call is None:
            return _say(DSH_TOOL, src, f"tool/call {data.get('callId')!r} has no tool call "
                        "advertised by an assistant/message of the open turn")
        if call[2] or call[0] != data.get("name") or call[1] != data.get("arguments"):
            return _say(DSH_TOOL, src, f"tool/call {data.get('callId')!r} does not match "
                        "one advertised tool call (name, arguments, started once)")
        call[2] = True
        return None

    def answered(self, kind: str, event: Mapping[str, Any],
                 data: Mapping[str, Any]) -> Problem | None:
        return self.resolve(event, data) if event.get("surfaceOp") == "append" else None

    def advertise(self, data: Mapping[str, Any]) -> Problem | None:
        message = data.get("message")
        content = message.get("content") if type(message) is dict else None
        for block in content if type(content) is list else ():
            if type(block) is not dict or block.get("type") != "tool-call":
                continue
            ident: Any = block.get("id")
            if not _text(ident):
                return _say(DSH_TOOL, f.RELATIONSHIPS, "a tool-call block needs a non-empty id")
            if ident in self.pending:
                return _say(DSH_TOOL, f.RELATIONSHIPS, f"assistant/message repeats advertised "
                            f"tool call {ident!r}")
            self.pending[ident] = [block.get("name"), block.get("arguments"), False]
        return None

    def resolve(self, event: Mapping[str, Any], data: Mapping[str, Any]) -> Problem | None:
        message = data.get("message")
        ident: Any = message.get("toolCallId") if type(message) is dict else None
        call = self.pending.get(ident) if _text(ident) else None
        if call is None:
            return _say(DSH_TOOL, f.RELATIONSHIPS, f"tool/result {ident!r} answers no tool call "
                        "advertised in the open turn, or one already answered")
        if not call[2] and not _not_started_repair(event, data, ident):
            return _say(DSH_TOOL, f.RELATIONSHIPS, f"tool/result {ident!r} answers a call no "
                        "tool/call started, and is not the exact TOOL_NOT_STARTED repair")
        del self.pending[ident]
        return None


#: relationships.ts ``notStartedRepair``: the text of an interrupted call's repair result.
_NOT_STARTED_TEXT: Final = ("The tool call was interrupted before the Harness recorded it as "
                            "started. Retry it if it is still needed.")
_COMPACTION_SPAN_TYPES: Final = frozenset({"compaction/prune", "compaction/summary"})
#: the event types :meth:`_Tools.accept` reads (any other: nothing to do)
_TOOL_TYPES: Final = frozenset({"turn/start", "step/end", "turn/end", "assistant/message",
                                "tool/call", "tool/result"})


def _not_started_repair(event: Mapping[str, Any], data: Mapping[str, Any], ident: str) -> bool:
    error, message = data.get("error"), data["message"]
    if (type(error) is not dict or error.get("name") != "ToolNotStartedError"
            or error.get("code") != "TOOL_NOT_STARTED" or message.get("isError") is not True
            or "sourceEventSeqs" in event or not _text(message.get("id"))):
        return False
    if message["id"].startswith(f"forked-tool-result-{ident}-"):
        return True
    suffix = message["id"].removeprefix(f"interrupted-tool-result-{ident}-")
    content = message.get("content")
    return (suffix != message["id"] and _INDEX.fullmatch(suffix) is not None
            and int(suffix) <= SAFE_INTEGER and type(content) is list and len(content) == 1
            and type(content[0]) is dict and content[0].get("type") == "text"
            and content[0].get("text") == _NOT_STARTED_TEXT)


class DshV4(Admission):
    """The profile's per-log state: seq origin, surface, turn/step owners, seed marker."""

    def __init__(self) -> None:
        self.index = 0
        self.seeded = False
        self.inherited_marker = False
        self.surface = Surface()
        self.turn: int | None = None
        self.step: int | None = None
        self.next_turn = 1
        self.next_step = 1
        self.tools = _Tools()

    def header(self, value: Mapping[str, Any], line: int) -> Problem | None:
        self.seeded = value.get("isSeeded") is True
        return check_header(value)

    def finish(self, line: int) -> Problem | None:
        if self.seeded and not self.inherited_marker:
            return _say(DSH_SEED, f.VALIDATION, "a seeded header (isSeeded true) needs a "
                        "session/end-seed {inherited: true} marking the inherited cut")
        if not self.seeded and self.inherited_marker:
            return _say(DSH_SEED, f.VALIDATION, "an unseeded log holds an inherited "
                        "session/end-seed marker")
        return None

    def admit_row(self, event: Mapping[str, Any]) -> Problem | None:
        """Row admission on a row a tail drops (format.ts SessionLogScanner runs it on every
        parsed row): a tool-role result's id and tool source (tool-role.ts
        ``assertV4ToolResultMessage``), a system message's id (system-message.ts
        ``assertV4SystemMessageFields``), no retired ``plugin`` source (message-sources.ts
        ``assertV4SourceRowAdmission``)."""
        kind, data = event["type"], event["data"]
        if kind == "tool/result":
            return check_message(kind, data)
        message = data.get("message")
        if kind == "system/message" and type(message) is dict and not _text(message.get("id")):
            return _say(DSH_MESSAGE, f.SYSTEM_MESSAGE, "system message needs a non-empty id")
        messages = ([data] if kind == "user/message" else [message] if kind in _MESSAGE_SLOT_TYPES
                    else data.get(f.RETIRED_MESSAGES_AT.get(kind, ""), ()))
        for item in messages if type(messages) is list else ():
            if type(item) is dict and type(item.get("source")) is dict \
                    and item["source"].get("kind") == "plugin":
                return _say(DSH_MESSAGE, f.MESSAGE_SOURCES, f"{kind}: the retired 'plugin' "
                            "source kind")
        return None

    def admit(self, event: Mapping[str, Any], line: int) -> Problem | None:
        kind = event["type"]
        if kind not in _KNOWN:
            return self.unknown(event, line)
        return self.known(kind)(event, line)

    def plan(self, kind: str | None) -> Callable[[Mapping[str, Any], int], Problem | None]:
        """:meth:`admit` for one type (the reader asks once per type)."""
        return self.unknown if kind is None or kind not in _KNOWN else self.known(kind)

    def unknown(self, event: Mapping[str, Any], line: int) -> Problem | None:
        """A type outside the source runtime's vocabulary: its envelope only."""
        problem = self.envelope(event, event["seq"])
        self.index += 1
        return problem

    def known(self, kind: str) -> Callable[[Mapping[str, Any], int], Problem | None]:
        """The checks for an event of a known type ``kind``, in their order."""
        envelope, on_surface = self.envelope, self.on_surface
        surface = self.placement_for(kind) == on_surface
        lifecycle = self.lifecycle_for(kind)
        end_seed = kind == f.END_SEED
        # the checks after the lifecycle read a few types each: made part of those types' only
        tools = self.tools.check_for(kind) if kind in _TOOL_TYPES else None
        compaction = kind in _COMPACTION_SPAN_TYPES
        header = kind == "request/header"

        def check(event: Mapping[str, Any], line: int) -> Problem | None:
            seq = event["seq"]
            when = event.get("time")
            # the envelope's common case (the row index as seq, a safe integer time, neither
            # ignorable nor sourceEventSeqs, no other key) without the call; else envelope()
            if not (seq == self.index and type(seq) is int and type(when) is int
                    and -SAFE_INTEGER <= when <= SAFE_INTEGER and "ignorable" not in event
                    and "sourceEventSeqs" not in event and _ENVELOPE_KEYS.issuperset(event)) \
                    and (problem := envelope(event, seq)):
                self.index += 1
                return problem
            self.index += 1
            data = event["data"]
            if end_seed and data.get("inherited") is True:
                self.inherited_marker = True  # numbering goes on: the child re-stores the prefix
            if surface:
                if problem := on_surface(kind, event, data, seq):
                    return problem
            elif "surfaceOp" in event or "sourceEventSeqs" in event:  # log_only(), inline
                return self.log_only(kind, event, data, seq)
            if lifecycle is not None and (problem := lifecycle(kind, event, data)):
                return problem
            if tools is not None and (problem := tools(kind, event, data)):
                return problem
            if compaction:
                return self.compaction(kind, data, seq)
            return self.defer_loading(kind, data) if header else None

        return check

    def compaction(self, kind: str, data: Mapping[str, Any], seq: int) -> Problem | None:
        """relationships.ts ``span``: a compaction/prune or compaction/summary whose data holds a
        ``shadowedRange`` object and a ``shadowedSeqs`` array names an exact span of the current
        surface with them, and never the protected system head."""
        if kind not in _COMPACTION_SPAN_TYPES:
            return None
        src = f.RELATIONSHIPS
        bounds = data.get("shadowedRange")
        seqs = data.get("shadowedSeqs")
        if type(bounds) is not dict or type(seqs) is not list:
            return None  # the span's shape is the event data's, which this profile keeps opaque
        start: Any = bounds.get("start")
        end: Any = bounds.get("end")
        found = self.surface.span(start, end) if _count(start) and _count(end) \
            and start < seq and end < seq else None
        if found is None or self.surface.nodes[found[0]:found[1] + 1] != seqs:
            return _say(DSH_COMPACTION, src, f"{kind} shadowedSeqs do not name an exact span "
                        "of the current surface")
        if self.surface.protected is not None and self.surface.protected in seqs:
            return _say(DSH_COMPACTION, src, f"{kind}: a compaction never shadows the "
                        f"protected system head (seq {self.surface.protected})")
        return None

    def envelope(self, event: Mapping[str, Any], seq: Any) -> Problem | None:
        src = f.V4_README
        if not _ENVELOPE_KEYS.issuperset(event):  # the extra keys are listed for a refusal only
            extra = sorted(k for k in event if k not in _ENVELOPE_KEYS)
            return _say(DSH_ENVELOPE, src, f"envelope has unexpected field(s) {extra}")
        if seq != self.index or type(seq) is not int:
            return _say(DSH_SEQ_ORIGIN, f.VALIDATION,
                        f"seq {seq} at row {self.index}: v4 seq is the row index, from 0")
        if type(event["time"]) is not int or abs(event["time"]) > SAFE_INTEGER:
            return _say(DSH_ENVELOPE, src, "time must be a safe integer")
        if "ignorable" in event and event["ignorable"] is not True:
            return _say(DSH_ENVELOPE, src, "a present ignorable is exactly true")
        if "sourceEventSeqs" in event:
            cited = source_seqs(event["sourceEventSeqs"])
            raw = event["sourceEventSeqs"]
            if (not cited or any(s < 0 or s >= seq for s in cited)
                    or len(cited) != sum(1 if type(e) is int else e[1] - e[0] + 1 for e in raw)):
                return _say(DSH_ENVELOPE, f.V2_CODEC, "sourceEventSeqs must be a non-empty "
                            "array of unique earlier seqs (or [start, end] ranges)")
        return None

    def placement(self, kind: str, event: Mapping[str, Any], data: Mapping[str, Any],
                  seq: int) -> Problem | None:
        return self.placement_for(kind)(kind, event, data, seq)

    def placement_for(self, kind: str) -> Callable[
            [str, Mapping[str, Any], Mapping[str, Any], int], Problem | None]:
        """:meth:`placement` for events of type ``kind`` (chosen once per type)."""
        return self.on_surface if kind in _SURFACE else self.log_only

    def log_only(self, kind: str, event: Mapping[str, Any], data: Mapping[str, Any],
                 seq: int) -> Problem | None:
        if "surfaceOp" in event or "sourceEventSeqs" in event:
            return _say(DSH_SURFACE, f.V4_README, f"{kind} is log-only: it carries neither "
                        "surfaceOp nor sourceEventSeqs")
        return None

    def on_surface(self, kind: str, event: Mapping[str, Any], data: Mapping[str, Any],
                   seq: int) -> Problem | None:
        if problem := check_message(kind, data):
            return problem
        op = event.get("surfaceOp")
        if kind == "assistant/message" and "sourceEventSeqs" in event:
            return _say(DSH_SURFACE, f.V4_README, "assistant/message must omit sourceEventSeqs")
        if op == "append":
            self.surface.append(kind, seq)
            return None
        if type(op) is not dict or set(op) != {"op", "startSeq", "endSeq"} \
                or op["op"] != "replace":
            return _say(DSH_SURFACE, f.V4_README, f"{kind} needs surfaceOp \"append\" or "
                        "{op: \"replace\", startSeq, endSeq}")
        src = f.RELATIONSHIPS  # a replacement (rare): the checks below cite relationships.ts
        start, end = replacement_range(event) or (None, None)
        found = self.surface.span(start, end)
        if found is None:
            return _say(DSH_SURFACE, src, f"replacement range {start}..{end} is not on the "
                        "current surface")
        removed = self.surface.nodes[found[0]:found[1] + 1]
        cited = source_seqs(event.get("sourceEventSeqs")) or set()
        if any(node not in cited for node in removed):
            return _say(DSH_SURFACE, src, "replacement sourceEventSeqs omit a shadowed node")
        if self.surface.protected in removed and (kind != "system/message" or len(removed) != 1):
            return _say(DSH_SURFACE, src, "only one system/message covering exactly the "
                        "protected system head may replace it")
        self.surface.replace(found[0], found[1], kind, seq)
        return None

    def lifecycle(self, kind: str, event: Mapping[str, Any],
                  data: Mapping[str, Any]) -> Problem | None:
        check = self.lifecycle_for(kind)
        return None if check is None else check(kind, event, data)

    def lifecycle_for(self, kind: str) -> Callable[
            [str, Mapping[str, Any], Mapping[str, Any]], Problem | None] | None:
        """relationships.ts ``accept``: the turn and step numbering check of an event of type
        ``kind`` (chosen once per type; None: none)."""
        by_kind = {"turn/start": self.turn_start, "turn/end": self.turn_end,
                   "step/start": self.step_start, "step/end": self.step_end}
        if kind in by_kind:
            return by_kind[kind]
        if kind in _OPEN_STEP_TYPES:
            return self.in_step
        if kind == "tool/result":
            return self.tool_result_in_turn
        return self.in_turn if kind in ("request/header", "request/context") else None

    # (turn, step) != (self.turn, self.step) below, without building two tuples per event
    def turn_start(self, kind: str, event: Mapping[str, Any],
                   data: Mapping[str, Any]) -> Problem | None:
        turn = data.get("turn")
        if self.turn is not None or turn != self.next_turn:
            return _say(DSH_LIFECYCLE, f.RELATIONSHIPS, f"turn/start {turn}: expected turn "
                        f"{self.next_turn} with no turn open")
        self.turn, self.next_step = turn, 1
        return None

    def turn_end(self, kind: str, event: Mapping[str, Any],
                 data: Mapping[str, Any]) -> Problem | None:
        turn = data.get("turn")
        if self.turn is None or turn != self.turn or self.step is not None:
            return _say(DSH_LIFECYCLE, f.RELATIONSHIPS, f"turn/end {turn} does not close the "
                        "open turn with no open step")
        self.turn = None
        self.next_turn += 1
        return None

    def step_start(self, kind: str, event: Mapping[str, Any],
                   data: Mapping[str, Any]) -> Problem | None:
        turn, step = data.get("turn"), data.get("step")
        if self.turn is None or turn != self.turn or self.step is not None \
                or step != self.next_step:
            return _say(DSH_LIFECYCLE, f.RELATIONSHIPS, f"step/start {turn}.{step}: expected "
                        f"step {self.next_step} of the open turn with no step open")
        self.step = step
        return None

    def step_end(self, kind: str, event: Mapping[str, Any],
                 data: Mapping[str, Any]) -> Problem | None:
        turn, step = data.get("turn"), data.get("step")
        if self.step is None or turn != self.turn or step != self.step:
            return _say(DSH_LIFECYCLE, f.RELATIONSHIPS, f"step/end {turn}.{step} does not close "
                        "the open step")
        self.step = None
        self.next_step += 1
        return None

    def in_step(self, kind: str, event: Mapping[str, Any],
                data: Mapping[str, Any]) -> Problem | None:
        turn, step = data.get("turn"), data.get("step")
        if self.step is None or turn != self.turn or step != self.step:
            return _say(DSH_LIFECYCLE, f.RELATIONSHIPS, f"{kind} {turn}.{step} does not match "
                        "the open turn and step")
        return None

    def tool_result_in_turn(self, kind: str, event: Mapping[str, Any],
                            data: Mapping[str, Any]) -> Problem | None:
        """An appended tool/result is in the open step; any other, in the open turn."""
        if event.get("surfaceOp") == "append":
            return self.in_step(kind, event, data)
        return self.in_turn(kind, event, data)

    def in_turn(self, kind: str, event: Mapping[str, Any],
                data: Mapping[str, Any]) -> Problem | None:
        if self.turn is None:
            return _say(DSH_LIFECYCLE, f.RELATIONSHIPS, f"{kind} outside an open turn")
        return None

    def defer_loading(self, kind: str, data: Mapping[str, Any]) -> Problem | None:
        if kind != "request/header" or type(data.get("header")) is not dict:
            return None
        tools = data["header"].get("tools")
        for index, tool in enumerate(tools if type(tools) is list else ()):
            if type(tool) is dict and "deferLoading" in tool and tool["deferLoading"] is not True:
                return _say(DSH_DEFER_LOADING, f.V4_README, f"data.header.tools[{index}]"
                            ".deferLoading must be exactly true when present")
        return None


def vocabulary(base: Vocabulary) -> Vocabulary:
    """The profile's vocabulary: ``base`` (the default) plus the dsh-v4 admission."""
    return base.extended(admissions=[DshV4])
