"""Writes the developer-messages vector files (run: python vectors/developer-messages/generate.py).

Inputs are built with a small log builder so every log is a valid chunk-free session log apart
from the one fault a case is about; every expectation below is written by hand (an expected
definition is the very schema the case puts in the header it binds to, an expected error the
code the case is about). Nothing here runs the reference implementation: the vector tests do.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FAMILY = "developer-messages"
VERSION = 4  # the session format version (chunk-free-persistence, CFP-D001)
T0 = 1767225600000
ABSENT = object()

ADMIT = "developer-messages.admit"
ROUNDTRIP = "developer-messages.roundtrip"
APPEND = "developer-messages.append"
FORK = "developer-messages.fork"
REMAP = "developer-messages.remap"
REQUEST = "developer-messages.anthropic-request"
BETAS = "developer-messages.anthropic-betas"
BETA = "mid-conversation-tool-changes-2026-07-01"


# --- tool schemas (the session log's ToolSchema: name, description, parameters) ---------------


def schema(name: str, description: str, **properties: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "parameters": {
            "type": "object",
            "properties": {k: {"type": v} for k, v in properties.items()},
        },
    }


SEARCH_V1 = schema("search", "Search the workspace (v1)", query="string")
SEARCH_V2 = schema("search", "Search the workspace (v2)", query="string", limit="number")
SEARCH_V3 = schema("search", "Search the workspace (v3, current registry)", pattern="string")
READ = schema("read_file", "Read a file", path="string")
GREP = schema("grep", "Grep files", pattern="string")
DEFERRED_SEARCH = {**SEARCH_V1, "deferLoading": True}


def add(name: str, **extra: Any) -> dict[str, Any]:
    return {"type": "tool-addition", "toolName": name, **extra}


def remove(name: str, **extra: Any) -> dict[str, Any]:
    return {"type": "tool-removal", "toolName": name, **extra}


# --- the log builder ----------------------------------------------------------------------------


#: surface events carry surfaceOp in the source runtime's v4 (its session-format-v3-to-v4 README)
SURFACE = {"system/message", "user/message", "developer/message", "assistant/message",
           "tool/result"}


class Log:
    """A session log under construction, in the source runtime's v4 shape: seq is the row index
    from 0, the header has isSeeded and delegationDepth, surface events carry surfaceOp."""

    def __init__(self, **header_extra: Any) -> None:
        self.lines: list[dict[str, Any]] = [
            {"type": "session", "version": VERSION, "id": "s-dm", "createdAt": T0,
             "isSeeded": False, "delegationDepth": 0, **header_extra}
        ]
        self.seq = -1

    def event(self, etype: str, data: dict[str, Any], **envelope: Any) -> int:
        if etype in SURFACE:
            envelope.setdefault("surfaceOp", "append")
        self.seq += 1
        self.lines.append(
            {"type": etype, "seq": self.seq, "time": T0 + 1000 * self.seq, "data": data,
             **envelope}
        )
        return self.seq

    def turn(self, turn: int = 1) -> int:
        return self.event("turn/start", {"turn": turn})

    def step(self, turn: int = 1, step: int = 1) -> int:
        return self.event("step/start", {"turn": turn, "step": step})

    def end_step(self, turn: int = 1, step: int = 1) -> int:
        return self.event("step/end", {"turn": turn, "step": step})

    def end_turn(self, turn: int = 1) -> int:
        return self.event("turn/end", {"turn": turn, "reason": {"kind": "completed"}})

    def open(self, turn: int = 1, step: int = 1) -> Log:
        self.turn(turn)
        self.step(turn, step)
        return self

    def header(self, *tools: dict[str, Any], reason: str = "initial", **extra: Any) -> int:
        data: dict[str, Any] = {
            "reason": reason,
            "header": {"config": {"provider": "test", "model": "test"}, "tools": list(tools)},
        }
        data.update(extra)
        return self.event("request/header", data)

    def bare_header(self, **header: Any) -> int:
        return self.event("request/header", {"reason": "initial", "header": header})

    def user(self, text: str = "hello", **extra: Any) -> int:
        return self.event(
            "user/message",
            {"id": f"u-{self.seq + 1}", "role": "user", "content": [{"type": "text", "text": text}],
             "source": {"kind": "user"}, **extra},
        )

    def assistant(self, text: str = "ok", turn: int = 1, step: int = 1) -> int:
        return self.event(
            "assistant/message",
            {"turn": turn, "step": step,
             "message": {"id": f"a-{self.seq + 1}", "role": "assistant",
                         "content": [{"type": "text", "text": text}],
                         "source": {"kind": "model", "provider": "test", "model": "test"}}},
        )

    def dev(
        self, *content: dict[str, Any], header_seq: Any = ABSENT, turn: int = 1, step: int = 1,
        message_extra: dict[str, Any] | None = None, envelope: dict[str, Any] | None = None,
        **data_extra: Any,
    ) -> int:
        message = {"id": f"d-{self.seq + 1}", "role": "developer",
                   "source": {"kind": "tool-registry"}, "content": list(content),
                   **(message_extra or {})}
        data: dict[str, Any] = {"turn": turn, "step": step, "message": message, **data_extra}
        if header_seq is not ABSENT:
            data["headerSeq"] = header_seq
        return self.event("developer/message", data, **(envelope or {}))

    def opaque(self, etype: str = "x/telemetry", **data: Any) -> int:
        return self.event(etype, data or {"note": "opaque"}, ignorable=True)

    def json(self) -> list[dict[str, Any]]:
        return copy.deepcopy(self.lines)


# --- expected admission outputs ---------------------------------------------------------------


def addition(name: str, definition: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "addition", "toolName": name, "definition": definition}


def removal(name: str) -> dict[str, Any]:
    return {"kind": "removal", "toolName": name}


def record(seq: int, *changes: dict[str, Any], header_seq: int | None = None, turn: int = 1,
           step: int = 1) -> dict[str, Any]:
    out: dict[str, Any] = {"seq": seq, "turn": turn, "step": step, "changes": list(changes)}
    if header_seq is not None:
        out["headerSeq"] = header_seq
    return out


def admitted(*records: dict[str, Any], active: dict[str, tuple[int, dict[str, Any]]]
             | None = None) -> dict[str, Any]:
    return {
        "developerMessages": list(records),
        "active": {n: {"headerSeq": s, "definition": d} for n, (s, d) in (active or {}).items()},
    }


# --- cases --------------------------------------------------------------------------------------

FILES: dict[str, tuple[str, list[dict[str, Any]]]] = {}


def case(  # noqa: PLR0917 - the fields of a vector case, in the file's order
    file: str, cid: str, rules: list[str], description: str, payload: Any,
    expect: dict[str, Any],
) -> None:
    FILES.setdefault(file, ("", []))[1].append(
        {"id": cid, "rules": rules, "description": description, "input": payload,
         "expect": expect}
    )


def out(value: Any) -> dict[str, Any]:
    return {"output": value}


def err(code: str) -> dict[str, Any]:
    return {"error": {"code": code}}


def admit_error(  # noqa: PLR0917 - the fields of a vector case, in the file's order
    file: str, cid: str, rules: list[str], description: str, log: Log, code: str,
    **payload: Any,
) -> None:
    case(file, cid, rules, description, {"log": log.json(), **payload}, {ADMIT: err(code)})


def binding() -> None:  # noqa: PLR0915 - one statement group per vector case reads best
    f = "binding"
    FILES[f] = ("Binding additions to request headers: headerSeq, the five reference faults, "
                "definitions, inline definitions, removals (DM-001..DM-015).", [])

    log = Log().open()
    h = log.header(SEARCH_V1, READ)
    d = log.dev(add("search"), header_seq=h)
    case(f, "dm-addition-resolves", ["DM-001"],
         "An addition names the tool only; headerSeq binds it to an earlier request/header with "
         "one complete schema of that name, which it resolves to.",
         {"log": log.json()},
         {ADMIT: out(admitted(record(d, addition("search", SEARCH_V1), header_seq=h),
                              active={"search": (h, SEARCH_V1)}))})

    log = Log().open()
    log.header(SEARCH_V1)
    h2 = log.header(SEARCH_V2, reason="change")
    log.header(SEARCH_V1, READ, reason="change")
    d = log.dev(add("search"), header_seq=h2)
    case(f, "dm-addition-resolves-the-header-it-names", ["DM-001", "DM-016", "DM-020"],
         "Three request headers define 'search' (v1, v2, then v1 again); the addition names the "
         "middle one and resolves to its schema, neither the first nor the latest header's.",
         {"log": log.json()},
         {ADMIT: out(admitted(record(d, addition("search", SEARCH_V2), header_seq=h2),
                              active={"search": (h2, SEARCH_V2)}))})

    log = Log().open()
    h = log.header(SEARCH_V1, READ)
    d = log.dev(add("search"), add("read_file"), header_seq=h)
    case(f, "dm-one-event-two-additions", ["DM-001", "DM-012"],
         "One event adds two tools the same header defines; both resolve through its one "
         "headerSeq, in content order.",
         {"log": log.json()},
         {ADMIT: out(admitted(
             record(d, addition("search", SEARCH_V1), addition("read_file", READ), header_seq=h),
             active={"read_file": (h, READ), "search": (h, SEARCH_V1)}))})

    log = Log().open()
    log.header(SEARCH_V1)
    log.dev(add("search"))
    admit_error(f, "dm-headerseq-missing", ["DM-002"],
                "A tool addition without headerSeq has no header to bind to.",
                log, "DM_HEADER_SEQ_MISSING")

    log = Log().open()
    d_seq = log.seq + 1
    log.dev(add("search"), header_seq=d_seq + 1)
    log.header(SEARCH_V1)
    admit_error(f, "dm-headerseq-forward", ["DM-003"],
                "headerSeq names a request/header written after the developer/message.",
                log, "DM_HEADER_SEQ_FORWARD")

    log = Log().open()
    log.header(SEARCH_V1)
    log.dev(add("search"), header_seq=log.seq + 1)
    admit_error(f, "dm-headerseq-self", ["DM-003", "DM-D001"],
                "headerSeq names the developer/message itself: not earlier, so forward.",
                log, "DM_HEADER_SEQ_FORWARD")

    log = Log().open()
    log.header(SEARCH_V1)
    log.dev(add("search"), header_seq=log.seq + 50)
    admit_error(f, "dm-headerseq-beyond-end", ["DM-003", "DM-D001"],
                "headerSeq names a seq beyond the end of the log: forward is decided by seq "
                "order alone.", log, "DM_HEADER_SEQ_FORWARD")

    log = Log().open()
    o = log.opaque("x/request-header-draft",
                   header={"tools": [SEARCH_V1]}, note="an extension's record, not a header")
    log.dev(add("search"), header_seq=o)
    admit_error(f, "dm-headerseq-unknown-record", ["DM-004", "DM-D001"],
                "headerSeq names an ignorable record of a type the reader does not know (even "
                "though it looks like it holds tools): the reader must not interpret it.",
                log, "DM_HEADER_SEQ_UNKNOWN")

    log = Log()
    log.seq = 0  # this log numbers from 1 (CFP-D003: any origin), so seq 0 names nothing
    log.open()
    log.header(SEARCH_V1)
    log.dev(add("search"), header_seq=0)
    admit_error(f, "dm-headerseq-before-the-first-event", ["DM-004"],
                "headerSeq 0 is earlier than the event but names nothing: the log's first event "
                "is seq 1.", log, "DM_HEADER_SEQ_UNKNOWN")

    log = Log().open()
    log.header(SEARCH_V1)
    u = log.user()
    log.dev(add("search"), header_seq=u)
    admit_error(f, "dm-headerseq-names-user-message", ["DM-005"],
                "headerSeq names a user/message.", log, "DM_HEADER_SEQ_NOT_HEADER")

    log = Log().open()
    log.header(SEARCH_V1)
    r = log.dev(remove("grep"))
    log.dev(add("search"), header_seq=r)
    admit_error(f, "dm-headerseq-names-developer-message", ["DM-005"],
                "headerSeq names an earlier developer/message.", log, "DM_HEADER_SEQ_NOT_HEADER")

    log = Log()
    log.turn()
    s = log.step()
    log.header(SEARCH_V1)
    log.dev(add("search"), header_seq=s)
    admit_error(f, "dm-headerseq-names-step-start", ["DM-005"],
                "headerSeq names the step/start event.", log, "DM_HEADER_SEQ_NOT_HEADER")

    log = Log().open()
    h = log.header(SEARCH_V1, SEARCH_V2)
    log.dev(add("search"), header_seq=h)
    admit_error(f, "dm-definition-ambiguous", ["DM-006"],
                "The referenced header defines 'search' twice, differently.",
                log, "DM_DEFINITION_AMBIGUOUS")

    log = Log().open()
    h = log.header(SEARCH_V1, READ, SEARCH_V1)
    log.dev(add("search"), header_seq=h)
    admit_error(f, "dm-definition-ambiguous-identical", ["DM-006"],
                "The referenced header holds two identical 'search' schemas: still not exactly "
                "one.", log, "DM_DEFINITION_AMBIGUOUS")

    log = Log().open()
    h = log.header(READ)
    log.dev(add("search"), header_seq=h)
    admit_error(f, "dm-definition-missing", ["DM-007"],
                "The referenced header does not define the added name.",
                log, "DM_DEFINITION_MISSING")

    log = Log().open()
    h = log.bare_header(config={"provider": "test", "model": "test"})
    log.dev(add("search"), header_seq=h)
    admit_error(f, "dm-definition-missing-no-tools", ["DM-007"],
                "The referenced header has no tools list at all.", log, "DM_DEFINITION_MISSING")

    log = Log().open()
    log.header(SEARCH_V1)
    h = log.header(READ, reason="change")
    log.dev(add("search"), header_seq=h)
    admit_error(f, "dm-definition-missing-though-an-earlier-header-has-it", ["DM-007"],
                "The referenced header does not define the added name; an earlier header does, "
                "but only the referenced header counts.", log, "DM_DEFINITION_MISSING")

    incomplete = {
        "no-parameters": {"name": "search", "description": "Search"},
        "no-description": {"name": "search", "parameters": {"type": "object"}},
        "parameters-not-object": {"name": "search", "description": "Search",
                                  "parameters": "query:string"},
    }
    for label, bad in incomplete.items():
        log = Log().open()
        h = log.header(bad, READ)
        log.dev(add("search"), header_seq=h)
        admit_error(f, f"dm-definition-incomplete-{label}", ["DM-008", "DM-D002"],
                    f"The one 'search' schema of the referenced header is incomplete ({label}).",
                    log, "DM_DEFINITION_INCOMPLETE")

    log = Log().open()
    h = log.header(SEARCH_V1)
    log.dev(add("search", tool=SEARCH_V1), header_seq=h)
    admit_error(f, "dm-inline-definition", ["DM-009", "DM-010"],
                "An addition carries the retired inline definition (`tool`) beside a valid "
                "binding.", log, "DM_INLINE_DEFINITION")

    for label, value in {"null": None, "string": "search", "false": False, "empty-object": {},
                         "reference": {"type": "tool_reference", "name": "search"}}.items():
        log = Log().open()
        h = log.header(SEARCH_V1)
        log.dev(add("search", tool=value), header_seq=h)
        admit_error(f, f"dm-inline-tool-{label}", ["DM-010"],
                    f"The reserved `tool` field is present with a {label} value: rejected "
                    "whatever its value.", log, "DM_INLINE_DEFINITION")

    log = Log().open()
    h = log.header(SEARCH_V1)
    log.dev(remove("search"), header_seq=h)
    admit_error(f, "dm-headerseq-on-removal-only", ["DM-011", "DM-015"],
                "A removal-only message carries a header reference.",
                log, "DM_HEADER_SEQ_UNEXPECTED")

    log = Log().open()
    h = log.header(SEARCH_V1)
    log.dev(header_seq=h)
    admit_error(f, "dm-headerseq-on-empty-content", ["DM-011"],
                "An empty developer message carries a header reference.",
                log, "DM_HEADER_SEQ_UNEXPECTED")

    log = Log().open()
    h1 = log.header(SEARCH_V1)
    h2 = log.header(READ)
    log.dev(add("read_file"), add("search"), header_seq=h2)
    assert h1 < h2
    admit_error(f, "dm-one-event-two-revisions", ["DM-012"],
                "One event adds read_file (defined by the header it names) and search (defined "
                "only by an earlier header): one event binds to one revision.",
                log, "DM_DEFINITION_MISSING")

    log = Log().open()
    h1 = log.header(SEARCH_V1)
    h2 = log.header(READ)
    log.dev(add("read_file"), add("search", headerSeq=h1), header_seq=h2)
    admit_error(f, "dm-per-block-headerseq-is-no-binding", ["DM-012"],
                "An addition block carries its own headerSeq naming another revision; it is an "
                "unrelated field, not a binding, so the event's header must define the name.",
                log, "DM_DEFINITION_MISSING")

    log = Log().open()
    h1 = log.header(SEARCH_V1)
    h2 = log.header(READ)
    d1 = log.dev(add("search"), header_seq=h1)
    d2 = log.dev(add("read_file"), header_seq=h2)
    case(f, "dm-separate-events-per-revision", ["DM-013"],
         "Additions from two header revisions, each in its own event, each resolved from its own "
         "header.",
         {"log": log.json()},
         {ADMIT: out(admitted(
             record(d1, addition("search", SEARCH_V1), header_seq=h1),
             record(d2, addition("read_file", READ), header_seq=h2),
             active={"read_file": (h2, READ), "search": (h1, SEARCH_V1)}))})

    log = Log().open()
    h1 = log.header(SEARCH_V1)
    d1 = log.dev(add("search"), header_seq=h1)
    h2 = log.header(SEARCH_V2)
    d2 = log.dev(add("search"), header_seq=h2)
    case(f, "dm-addition-replaces-active", ["DM-014", "DM-016"],
         "A second addition of 'search' bound to a newer header replaces the active definition; "
         "the first record keeps its own resolution.",
         {"log": log.json()},
         {ADMIT: out(admitted(
             record(d1, addition("search", SEARCH_V1), header_seq=h1),
             record(d2, addition("search", SEARCH_V2), header_seq=h2),
             active={"search": (h2, SEARCH_V2)}))})

    log = Log().open()
    h = log.header(SEARCH_V1, READ)
    d1 = log.dev(add("search"), add("read_file"), header_seq=h)
    d2 = log.dev(remove("search"))
    case(f, "dm-removal-names-only", ["DM-015", "DM-014"],
         "A removal carries only the name, no header reference, and deactivates it.",
         {"log": log.json()},
         {ADMIT: out(admitted(
             record(d1, addition("search", SEARCH_V1), addition("read_file", READ), header_seq=h),
             record(d2, removal("search")),
             active={"read_file": (h, READ)}))})

    log = Log().open()
    h = log.header(SEARCH_V1)
    d1 = log.dev(remove("search"), add("search"), header_seq=h)
    case(f, "dm-removal-then-addition-in-one-event", ["DM-015", "DM-014"],
         "A removal and a re-addition of the same name in one event apply in content order.",
         {"log": log.json()},
         {ADMIT: out(admitted(
             record(d1, removal("search"), addition("search", SEARCH_V1), header_seq=h),
             active={"search": (h, SEARCH_V1)}))})

    log = Log().open()
    d = log.dev(remove("never_added"))
    case(f, "dm-removal-without-any-header", ["DM-015"],
         "A removal needs no request/header at all, not even an earlier one in the log.",
         {"log": log.json()},
         {ADMIT: out(admitted(record(d, removal("never_added"))))})

    log = Log().open()
    h = log.header(DEFERRED_SEARCH, READ)
    d = log.dev(add("search"), add("read_file"), header_seq=h)
    case(f, "dm-addition-binds-deferred-and-plain-schemas", ["DM-049", "DM-047", "DM-001"],
         "An addition may bind to a deferred schema or a plain one alike; the resolved "
         "definition keeps deferLoading exactly as the header has it.",
         {"log": log.json()},
         {ADMIT: out(admitted(
             record(d, addition("search", DEFERRED_SEARCH), addition("read_file", READ),
                    header_seq=h),
             active={"read_file": (h, READ), "search": (h, DEFERRED_SEARCH)}))})

    for label, value in {"string": str(2), "negative": -1, "float": 2.5, "null": None}.items():
        log = Log().open()
        log.header(SEARCH_V1)
        log.dev(add("search"), header_seq=value)
        admit_error(f, f"dm-headerseq-not-a-seq-{label}", ["DM-D001"],
                    f"headerSeq is not a non-negative integer ({label}).", log, "DM_MALFORMED")


def history() -> None:  # noqa: PLR0915 - one statement group per vector case reads best
    f = "history"
    FILES[f] = ("Historical identity: replacement, restart, fork, surface replacement, registry "
                "and latest-header independence, compaction, sourceEventSeqs, migrations "
                "(DM-016..DM-025).", [])

    log = Log().open()
    h1 = log.header(SEARCH_V1)
    d1 = log.dev(add("search"), header_seq=h1)
    log.header(SEARCH_V2, reason="change")
    log.user("next")
    case(f, "dm-latest-header-not-consulted", ["DM-016", "DM-020"],
         "A later request/header redefines 'search'; the earlier addition still resolves to the "
         "header it references, and stays the active definition.",
         {"log": log.json()},
         {ADMIT: out(admitted(record(d1, addition("search", SEARCH_V1), header_seq=h1),
                              active={"search": (h1, SEARCH_V1)}))})

    log = Log().open()
    h1 = log.header(SEARCH_V1)
    d1 = log.dev(add("search"), header_seq=h1)
    log.end_step()
    log.end_turn()
    log.turn(2)
    log.step(2, 1)
    h2 = log.header(SEARCH_V2, READ, reason="restart", restartedAt=T0 + 99_000)
    d2 = log.dev(add("read_file"), header_seq=h2, turn=2)
    case(f, "dm-restart-keeps-history", ["DM-017", "DM-020"],
         "After a restart the resumed process writes a header with a new 'search' schema (and "
         "its registry now holds a third one); additions recorded before the restart resolve as "
         "before.",
         {"log": log.json(), "registry": [SEARCH_V3, READ]},
         {ADMIT: out(admitted(
             record(d1, addition("search", SEARCH_V1), header_seq=h1),
             record(d2, addition("read_file", READ), header_seq=h2, turn=2),
             active={"read_file": (h2, READ), "search": (h1, SEARCH_V1)}))})

    log = Log().open()
    h1 = log.header(SEARCH_V1, READ)
    d1 = log.dev(add("search"), header_seq=h1)
    payload_plain = {"log": log.json()}
    payload_registry = {"log": log.json(), "registry": [SEARCH_V3, GREP]}
    payload_empty = {"log": log.json(), "registry": []}
    expected = admitted(record(d1, addition("search", SEARCH_V1), header_seq=h1),
                        active={"search": (h1, SEARCH_V1)})
    case(f, "dm-registry-not-consulted", ["DM-020"],
         "The current registry holds another 'search' schema; admission ignores it.",
         payload_registry, {ADMIT: out(expected)})
    case(f, "dm-registry-without-the-tool", ["DM-020"],
         "The current registry no longer holds 'search' at all; the historical addition is "
         "still admitted and resolved.", payload_empty, {ADMIT: out(expected)})
    case(f, "dm-no-registry-given", ["DM-020", "DM-001"],
         "The same log with no registry input gives the same result.",
         payload_plain, {ADMIT: out(expected)})

    parent = Log().open()
    h1 = parent.header(SEARCH_V1)
    d1 = parent.dev(add("search"), header_seq=h1)
    h2 = parent.header(SEARCH_V2, reason="change")
    d2 = parent.dev(add("search"), header_seq=h2)
    parent.end_step()
    parent.end_turn()
    case(f, "dm-fork-keeps-inherited-resolution", ["DM-018", "DM-021"],
         "A fork at the first addition inherits the prefix with its header; the child resolves "
         "'search' to v1 although the parent later rebound it to v2.",
         {"log": parent.json(), "at": d1},
         {FORK: out(admitted(record(d1, addition("search", SEARCH_V1), header_seq=h1),
                             active={"search": (h1, SEARCH_V1)}))})
    case(f, "dm-fork-after-a-newer-header", ["DM-018", "DM-020"],
         "A fork right after the parent wrote a newer header (but before any addition bound to "
         "it): the child's active 'search' is still v1.",
         {"log": parent.json(), "at": h2},
         {FORK: out(admitted(record(d1, addition("search", SEARCH_V1), header_seq=h1),
                             active={"search": (h1, SEARCH_V1)}))})
    case(f, "dm-fork-at-the-end", ["DM-018", "DM-021"],
         "A fork at the parent's last event inherits every record with its own resolution.",
         {"log": parent.json(), "at": parent.seq},
         {FORK: out(admitted(record(d1, addition("search", SEARCH_V1), header_seq=h1),
                             record(d2, addition("search", SEARCH_V2), header_seq=h2),
                             active={"search": (h2, SEARCH_V2)}))})

    log = Log().open()
    h1 = log.header(SEARCH_V1)
    d1 = log.dev(add("search"), header_seq=h1)
    log.header(SEARCH_V2, reason="change")
    d2 = log.dev(add("search"), header_seq=h1,
                 envelope={"surfaceOp": {"kind": "replace", "startSeq": d1, "endSeq": d1}})
    case(f, "dm-surface-replacement-keeps-its-header", ["DM-019", "DM-016"],
         "A developer/message replacing an earlier surface node (surfaceOp citing it) keeps the "
         "header it selected, although a newer header redefines the tool.",
         {"log": log.json()},
         {ADMIT: out(admitted(record(d1, addition("search", SEARCH_V1), header_seq=h1),
                              record(d2, addition("search", SEARCH_V1), header_seq=h1),
                              active={"search": (h1, SEARCH_V1)}))})

    log = Log().open()
    h1 = log.header(SEARCH_V1, READ)
    u = log.user("first question")
    log.assistant("first answer")
    log.event("compaction/summary", {
        "turn": 1, "step": 1, "shadowedRange": {"start": h1, "end": log.seq},
        "summary": [{"type": "text", "text": "The user asked a question and got an answer."}],
    })
    d = log.dev(add("read_file"), header_seq=h1)
    assert u > h1
    case(f, "dm-compaction-keeps-headers", ["DM-022"],
         "A compaction summary covers the range holding the request/header; a later addition "
         "bound to that header is admitted and resolved from it.",
         {"log": log.json()},
         {ADMIT: out(admitted(record(d, addition("read_file", READ), header_seq=h1),
                              active={"read_file": (h1, READ)}))})

    log = Log().open()
    h = log.header(SEARCH_V1)
    log.dev(add("search"), envelope={"sourceEventSeqs": [h]})
    admit_error(f, "dm-sourceeventseqs-is-not-a-binding", ["DM-023", "DM-002"],
                "The envelope's sourceEventSeqs names the header, but headerSeq is missing.",
                log, "DM_HEADER_SEQ_MISSING")

    log = Log().open()
    h = log.header(SEARCH_V1)
    u = log.user()
    d = log.dev(add("search"), header_seq=h, envelope={"sourceEventSeqs": [u, 1]})
    case(f, "dm-sourceeventseqs-stays-independent", ["DM-023"],
         "sourceEventSeqs names a user message and the turn start; it is derivation metadata, "
         "not validated as a header reference.",
         {"log": log.json()},
         {ADMIT: out(admitted(record(d, addition("search", SEARCH_V1), header_seq=h),
                              active={"search": (h, SEARCH_V1)}))})

    log = Log().open()
    log.header(SEARCH_V1)
    log.user()
    log.assistant()
    log.end_step()
    log.step(1, 2)
    log.header(SEARCH_V1, reason="change")
    case(f, "dm-unexposed-registry-changes-need-no-record", ["DM-024"],
         "The registry holds tools no request exposed (read_file, grep) and a newer search "
         "definition; both request headers expose the same search: no developer record is "
         "required for any of it.",
         {"log": log.json(), "registry": [SEARCH_V3, READ, GREP]},
         {ADMIT: out(admitted())})

    log = Log().open()
    log.header(SEARCH_V1)
    log.user()
    case(f, "dm-unexposed-registry-single-header", ["DM-024"],
         "One request header exposes search; the registry meanwhile gained read_file and grep "
         "and changed search (never exposed): the log needs no developer record and is "
         "admitted.",
         {"log": log.json(), "registry": [SEARCH_V3, READ, GREP]},
         {ADMIT: out(admitted())})

    log = Log().open()
    log.opaque()
    h = log.header(SEARCH_V1, READ)
    log.opaque()
    log.opaque("x/metrics")
    d1 = log.dev(add("search"), header_seq=h)
    log.opaque()
    d2 = log.dev(add("read_file"), header_seq=h)
    dropped = [2, 4, 5, 7]  # the four opaque records
    assert [line["seq"] for line in log.lines[1:] if line["type"].startswith("x/")] == dropped
    assert (h, d1, d2) == (3, 6, 8)
    # by hand: seq 0, 1, 3, 6, 8 become 0..4; headerSeq 3 becomes 2; nothing else changes
    new_seq = {0: 0, 1: 1, 3: 2, 6: 3, 8: 4}
    migrated = [log.json()[0]]
    for line in log.json()[1:]:
        if line["seq"] in dropped:
            continue
        line["seq"] = new_seq[line["seq"]]
        if line["type"] == "developer/message":
            line["data"]["headerSeq"] = 2
        migrated.append(line)
    case(f, "dm-migration-remaps-headerseq", ["DM-025"],
         "A migration drops four obsolete ignorable records; seq is renumbered contiguously from "
         "the first event and each headerSeq follows its request/header from seq 3 to seq 2.",
         {"log": log.json(), "drop": dropped},
         {REMAP: out({"log": migrated})})

    log = Log().open()
    h = log.header(SEARCH_V1)
    log.dev(add("search"), header_seq=h)
    case(f, "dm-migration-cannot-drop-a-referenced-header", ["DM-025"],
         "A migration that would drop the request/header an addition references is refused.",
         {"log": log.json(), "drop": [h]},
         {REMAP: err("DM_REFERENCED_HEADER_DROPPED")})


def reading() -> None:  # noqa: PLR0915 - one statement group per vector case reads best
    f = "reading"
    FILES[f] = ("Reading and writing: unknown fields preserved, required fields, extra fields "
                "that cannot weaken checks, open steps, ignorable markers, writers "
                "(DM-026..DM-035).", [])

    log = Log(cwd="/work", futureHeaderField={"kept": True})
    log.turn()
    log.step()
    h = log.header({**SEARCH_V1, "annotations": {"readOnly": True}, "x-origin": "mcp"},
                   READ, reason="initial", headerMetadata=[1, 2])
    d = log.dev(
        add("search", note="kept on the block", rank=1),
        remove("grep", why="retired"),
        header_seq=h,
        message_extra={"createdAt": T0, "x-ui": {"collapsed": True}},
        envelope={"surfaceOp": "append", "x-trace": "abc", "ignorable": False},
        x_data_field="kept on data", producer={"name": "tools", "version": 3},
    )
    log.opaque("x/future-record", payload={"nested": [1, {"deep": None}]})
    log.user("after", userExtra=True)
    full = log.json()
    expected = admitted(
        record(d, addition("search", {**SEARCH_V1, "annotations": {"readOnly": True},
                                      "x-origin": "mcp"}), removal("grep"), header_seq=h),
        active={"search": (h, {**SEARCH_V1, "annotations": {"readOnly": True},
                               "x-origin": "mcp"})})
    case(f, "dm-roundtrip-keeps-unrelated-fields", ["DM-026", "DM-035"],
         "Unknown fields on the header, envelope, data, message, blocks and tool schemas, and an "
         "opaque record, survive read and re-write exactly; the developer record stays a "
         "developer record.",
         {"log": full},
         {ROUNDTRIP: out({"log": full}), ADMIT: out(expected)})

    log = Log().open()
    log.header(SEARCH_V1)
    log.user()
    h = log.header(SEARCH_V1, READ, reason="change")
    log.dev(add("read_file"), header_seq=h)
    log.dev(remove("search"))
    case(f, "dm-adoption-keeps-developer-records", ["DM-052"],
         "An installed session holding an addition and a removal is adopted (read and written "
         "back): both stay developer/message records with the developer role; neither becomes "
         "a released-V3 user record.",
         {"log": log.json()},
         {ROUNDTRIP: out({"log": log.json()})})

    log = Log().open()
    h = log.header(SEARCH_V1)
    prefix = log.json()
    event = {"type": "developer/message", "time": T0 + 50_000,
             "data": {"turn": 1, "step": 1, "headerSeq": h, "x-extra": {"kept": [1, 2]},
                      "message": {"id": "d-new", "role": "developer",
                                  "source": {"kind": "tool-registry"},
                                  "content": [add("search", note="kept")]}},
             "x-envelope": "kept"}
    case(f, "dm-append-writes-with-fields-intact", ["DM-033", "DM-026"],
         "The writer appends a valid developer/message: it assigns the next seq and keeps every "
         "other field as given.",
         {"log": prefix, "event": event},
         {APPEND: out({"event": {**copy.deepcopy(event), "seq": h + 1}})})

    bad_events = {
        "missing-turn": (lambda e: e["data"].pop("turn"), "DM_MALFORMED"),
        "unbound-addition": (lambda e: e["data"].pop("headerSeq"), "DM_HEADER_SEQ_MISSING"),
        "inline-definition": (lambda e: e["data"]["message"]["content"][0].update(tool=SEARCH_V1),
                              "DM_INLINE_DEFINITION"),
        "not-developer-role": (lambda e: e["data"]["message"].update(role="user"),
                               "DM_ROLE_MISMATCH"),
    }
    for label, (mutate, code) in bad_events.items():
        bad = copy.deepcopy(event)
        mutate(bad)
        case(f, f"dm-append-refuses-{label}", ["DM-033"],
             f"The writer refuses to append a malformed developer/message ({label}).",
             {"log": prefix, "event": bad}, {APPEND: err(code)})

    def fresh() -> tuple[Log, int]:
        log = Log().open()
        return log, log.header(SEARCH_V1)

    for label, mutate in {
        "turn": lambda d: d.pop("turn"),
        "step": lambda d: d.pop("step"),
        "message": lambda d: d.pop("message"),
        "content": lambda d: d["message"].pop("content"),
        "content-not-array": lambda d: d["message"].update(content={"type": "tool-addition"}),
        "turn-not-integer": lambda d: d.update(turn="1"),
        "toolname": lambda d: d["message"]["content"][0].pop("toolName"),
        "toolname-empty": lambda d: d["message"]["content"][0].update(toolName=""),
        "toolname-not-string": lambda d: d["message"]["content"][0].update(toolName=["search"]),
        "removal-toolname": lambda d: d["message"]["content"].append({"type": "tool-removal"}),
    }.items():
        log, h = fresh()
        log.dev(add("search"), header_seq=h)
        mutate(log.lines[-1]["data"])
        admit_error(f, f"dm-required-{label}", ["DM-027"],
                    f"A required developer field is missing or ill-typed ({label}).",
                    log, "DM_MALFORMED")

    log, h = fresh()
    log.dev(add("search"), header_seq=h, turnNumber=1, coordinates={"turn": 1, "step": 1})
    log.lines[-1]["data"].pop("turn")
    admit_error(f, "dm-extra-fields-do-not-supply-turn", ["DM-028", "DM-027"],
                "turn is missing; extra fields (turnNumber, coordinates) do not stand in for it.",
                log, "DM_MALFORMED")

    log, h = fresh()
    log.dev({"type": "tool-addition", "name": "search", "tool_name": "search"}, header_seq=h)
    admit_error(f, "dm-extra-fields-do-not-supply-toolname", ["DM-028", "DM-027"],
                "An addition has no toolName; name / tool_name aliases do not stand in for it.",
                log, "DM_MALFORMED")

    log, h = fresh()
    log.dev(add("search"), header_seq=h, message_extra={"developer": True, "trueRole": "developer"})
    log.lines[-1]["data"]["message"]["role"] = "user"
    admit_error(f, "dm-extra-fields-do-not-make-a-developer", ["DM-029", "DM-036"],
                "The developer/message's message has role user; extra fields claiming a "
                "developer role do not change that.", log, "DM_ROLE_MISMATCH")

    log = Log().open()
    log.user("hi", isDeveloper=False, displayRole="user")
    log.lines[-1]["data"]["role"] = "developer"
    admit_error(f, "dm-extra-fields-do-not-excuse-a-developer-role", ["DM-029", "DM-037"],
                "A user/message slot holds a developer-role message; extra fields claiming it "
                "is a user message do not excuse it.", log, "DM_ROLE_CONFINED")

    log = Log().open()
    h = log.header(SEARCH_V1)
    log.end_step()
    log.dev(add("search"), header_seq=h, stepOpen=True, envelope={"openStep": {"turn": 1,
                                                                               "step": 1}})
    admit_error(f, "dm-extra-fields-do-not-open-a-step", ["DM-030", "DM-031"],
                "The step has ended; extra fields claiming it is open do not admit the event.",
                log, "DM_STEP_NOT_OPEN")

    log = Log().open()
    h = log.header(SEARCH_V1)
    d = log.dev(add("search"), header_seq=h)
    log.end_step()
    log.step(1, 2)
    d2 = log.dev(remove("search"), step=2)
    case(f, "dm-open-step-admits", ["DM-031"],
         "Developer messages inside open steps (step 1, then step 2 of the same turn) are "
         "admitted with their coordinates.",
         {"log": log.json()},
         {ADMIT: out(admitted(record(d, addition("search", SEARCH_V1), header_seq=h),
                              record(d2, removal("search"), step=2)))})

    log = Log().open()
    h = log.header(SEARCH_V1)
    log.dev(add("search"), header_seq=h, step=2)
    admit_error(f, "dm-step-not-started", ["DM-031"],
                "The developer/message names step 2, which has not started.",
                log, "DM_STEP_NOT_OPEN")

    log = Log().open()
    h = log.header(SEARCH_V1)
    log.end_step()
    log.dev(add("search"), header_seq=h)
    admit_error(f, "dm-step-ended", ["DM-031"],
                "The developer/message names step 1 after its step/end.", log, "DM_STEP_NOT_OPEN")

    log = Log().open()
    h = log.header(SEARCH_V1)
    log.end_turn()
    log.turn(2)
    log.dev(add("search"), header_seq=h, turn=1)
    admit_error(f, "dm-turn-ended", ["DM-031"],
                "The developer/message names turn 1 step 1 after turn 1 ended.",
                log, "DM_STEP_NOT_OPEN")

    log = Log()
    h = log.header(SEARCH_V1)
    log.dev(add("search"), header_seq=h)
    admit_error(f, "dm-no-step-at-all", ["DM-031"],
                "A developer/message before any turn or step.", log, "DM_STEP_NOT_OPEN")

    log, h = fresh()
    log.dev(add("search"), header_seq=h, envelope={"ignorable": True})
    log.lines[-1]["data"].pop("step")
    admit_error(f, "dm-ignorable-malformed-developer", ["DM-032", "DM-027"],
                "A developer/message marked ignorable lacks its step: the marker does not make "
                "the reader skip a type it knows.", log, "DM_MALFORMED")

    log, h = fresh()
    log.dev(add("search"), envelope={"ignorable": True})
    admit_error(f, "dm-ignorable-unbound-developer", ["DM-032", "DM-002"],
                "A developer/message marked ignorable has an addition without headerSeq.",
                log, "DM_HEADER_SEQ_MISSING")

    log = Log().open()
    h = log.header(SEARCH_V1)
    log.event("user/message", {"role": "user", "content": "not an array", "source": {}})
    log.event("assistant/attempt", {"turn": 1, "step": 1,
                                    "message": {"role": "assistant", "content": [{"text": 1}]}})
    d = log.dev(add("search"), header_seq=h)
    case(f, "dm-ordinary-malformations-left-to-decoder", ["DM-034"],
         "Ordinary message slots with malformations unrelated to developer rules (content not "
         "an array, a block without type) are not developer admission's to reject.",
         {"log": log.json()},
         {ADMIT: out(admitted(record(d, addition("search", SEARCH_V1), header_seq=h),
                              active={"search": (h, SEARCH_V1)}))})


def roles() -> None:
    f = "roles"
    FILES[f] = ("The developer role is confined to developer/message; tool-change blocks are "
                "developer-only (DM-036..DM-043).", [])

    for role in ("user", "system", "assistant"):
        log = Log().open()
        h = log.header(SEARCH_V1)
        log.dev(add("search"), header_seq=h)
        log.lines[-1]["data"]["message"]["role"] = role
        admit_error(f, f"dm-slot-holds-{role}-role", ["DM-036"],
                    f"A developer/message carries a {role}-role message.", log, "DM_ROLE_MISMATCH")

    def developer_message(**extra: Any) -> dict[str, Any]:
        return {"id": "x-1", "role": "developer", "source": {"kind": "tool-registry"},
                "content": [{"type": "text", "text": "smuggled"}], **extra}

    slots = {
        "DM-037": ("user/message", developer_message),
        "DM-038": ("assistant/message", lambda: {"turn": 1, "step": 1,
                                                 "message": developer_message()}),
        "DM-039": ("tool/result", lambda: {"turn": 1, "step": 1,
                                           "message": developer_message(toolCallId="call-1")}),
        "DM-040": ("system/message", lambda: {"turn": 1, "step": 1,
                                              "message": developer_message()}),
        "DM-041": ("agent/inbox/spliced", lambda: {
            "start": 2, "target": "self",
            "inserted": [{"id": "i-1", "role": "user", "source": {"kind": "user"},
                          "content": [{"type": "text", "text": "from the inbox"}]},
                         developer_message()]}),
        "DM-042": ("session/title-llm-request", lambda: {
            "messageSeqs": [3],
            "messages": [{"id": "t-1", "role": "user", "source": {"kind": "user"},
                          "content": [{"type": "text", "text": "title this"}]},
                         developer_message()]}),
    }
    for rule, (etype, data) in slots.items():
        log = Log().open()
        log.user()
        log.event(etype, data())
        slug = etype.replace("/", "-")
        admit_error(f, f"dm-developer-role-in-{slug}", [rule],
                    f"A developer-role message inside a {etype} event.", log, "DM_ROLE_CONFINED")

    # a valid inbox splice and title request (ordinary roles) are admitted
    log = Log().open()
    log.user()
    log.event("agent/inbox/spliced", {"start": 2, "target": "self", "inserted": [
        {"id": "i-1", "role": "user", "source": {"kind": "user"},
         "content": [{"type": "text", "text": "queued"}]}]})
    log.event("session/title-llm-request", {"messageSeqs": [3], "messages": [
        {"id": "t-1", "role": "user", "source": {"kind": "user"},
         "content": [{"type": "text", "text": "title this"}]}]})
    case(f, "dm-ordinary-roles-in-inbox-and-title-request", ["DM-041", "DM-042"],
         "Inbox and title-request arrays holding ordinary user messages are admitted.",
         {"log": log.json()}, {ADMIT: out(admitted())})

    changes = {
        "user-message": ("user/message", lambda b: {
            "id": "u-x", "role": "user", "source": {"kind": "user"},
            "content": [{"type": "text", "text": "hi"}, b]}),
        "assistant-message": ("assistant/message", lambda b: {
            "turn": 1, "step": 1, "message": {
                "id": "a-x", "role": "assistant", "content": [b],
                "source": {"kind": "model", "provider": "test", "model": "test"}}}),
        "system-message": ("system/message", lambda b: {
            "turn": 1, "step": 1, "message": {"id": "s-x", "role": "system", "content": [b],
                                              "source": {"kind": "plugin", "plugin": "p"}}}),
        "inbox": ("agent/inbox/spliced", lambda b: {"start": 2, "target": "self", "inserted": [
            {"id": "i-x", "role": "user", "source": {"kind": "user"}, "content": [b]}]}),
        "compaction-summary": ("compaction/summary", lambda b: {
            "turn": 1, "step": 1, "shadowedRange": {"start": 1, "end": 2}, "summary": [b]}),
    }
    # DM-043 inside the compact stream an assistant record embeds (CFP-D002)
    def chunk_start(block: dict[str, Any]) -> dict[str, Any]:
        return {"type": "chunk", "chunk": {"type": "block-start", "index": 0,
                                           "blockType": block["type"]}}

    def chunk_end(block: dict[str, Any]) -> dict[str, Any]:
        return {"type": "chunk", "chunk": {"type": "block-end", "index": 0, "block": block}}

    streams = {
        "assistant-message-stream": ("assistant/message", add("search"), chunk_start, lambda e: {
            "turn": 1, "step": 1, "stream": [e], "message": {
                "id": "a-x", "role": "assistant", "content": [{"type": "text", "text": "ok"}],
                "source": {"kind": "model", "provider": "test", "model": "test"}}}),
        "assistant-attempt-stream": ("assistant/attempt", remove("search"), chunk_end,
                                     lambda e: {"turn": 1, "step": 1, "stream": [e]}),
    }
    for label, (etype, block, entry, data) in streams.items():
        log = Log().open()
        log.header(SEARCH_V1)
        log.event(etype, data(entry(block)))
        kind = block["type"]
        admit_error(f, f"dm-{kind}-in-{label}", ["DM-043"],
                    f"A {kind} block inside the compact stream of an {etype} event.", log,
                    "DM_TOOL_CHANGE_NOT_DEVELOPER")

    for label, (etype, data) in changes.items():
        for block in (add("search"), remove("search")):
            log = Log().open()
            log.header(SEARCH_V1)
            log.event(etype, data(block))
            kind = block["type"]
            admit_error(f, f"dm-{kind}-in-{label}", ["DM-043"],
                        f"A {kind} block inside a {etype} event.", log,
                        "DM_TOOL_CHANGE_NOT_DEVELOPER")


def empty_and_deferred() -> None:
    f = "empty-and-deferred"
    FILES[f] = ("Empty developer content, surface replacements and deferred loading in the log "
                "(DM-044, DM-047..051).", [])

    def system(log: Log) -> int:
        return log.event("system/message", {"turn": 1, "step": 1, "message": {
            "id": f"s-{log.seq + 1}", "role": "system", "source": {"kind": "system-prompt"},
            "content": [{"type": "text", "text": "You are helpful."}]}}, surfaceOp="append")

    def replace(start: int, end: int) -> dict[str, Any]:
        return {"surfaceOp": {"op": "replace", "startSeq": start, "endSeq": end}}

    log = Log().open()
    system(log)
    u1 = log.user("first")
    u2 = log.user("second")
    d = log.dev(envelope={**replace(u1, u2), "sourceEventSeqs": [u1, u2]})
    case(f, "dm-replacement-cites-shadowed-nodes", ["DM-050", "DM-051"],
         "An empty developer message replaces two user messages (not the system head) and "
         "cites both in sourceEventSeqs: admitted.",
         {"log": log.json()}, {ADMIT: out(admitted(record(d)))})

    log = Log().open()
    system(log)
    u1 = log.user("first")
    u2 = log.user("second")
    log.dev(envelope={**replace(u1, u2), "sourceEventSeqs": [u1]})
    admit_error(f, "dm-replacement-omits-a-shadowed-node", ["DM-050"],
                "A developer replacement shadows two user messages but cites only the first.",
                log, "DM_REPLACEMENT_UNCITED")

    log = Log().open()
    s0 = system(log)
    log.user("first")
    log.dev(envelope={**replace(s0, s0), "sourceEventSeqs": [s0]})
    admit_error(f, "dm-empty-content-over-protected-head", ["DM-051"],
                "Empty developer content replaces the protected system head (citing it).",
                log, "DM_PROTECTED_HEAD_SHADOWED")

    log = Log().open()
    h = log.header(SEARCH_V1)
    d1 = log.dev()
    d2 = log.dev(add("search"), header_seq=h)
    d3 = log.dev()
    case(f, "dm-empty-content-keeps-position", ["DM-044"],
         "Empty developer messages are admitted without a header reference and keep their "
         "places in conversation order around a non-empty one.",
         {"log": log.json()},
         {ADMIT: out(admitted(record(d1), record(d2, addition("search", SEARCH_V1), header_seq=h),
                              record(d3), active={"search": (h, SEARCH_V1)}))})

    log = Log().open()
    log.header(DEFERRED_SEARCH, READ)
    log.user()
    log.assistant()
    case(f, "dm-predeclared-deferred-needs-no-record", ["DM-048", "DM-049"],
         "A request header declares a deferred tool that is never added; the log is admitted "
         "with no developer record.",
         {"log": log.json()}, {ADMIT: out(admitted())})


# --- the wire projection ----------------------------------------------------------------------


def tool(name: str, description: str, *, deferred: bool | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "description": description,
                           "inputSchema": {"type": "object"}}
    if deferred is not None:
        out["deferLoading"] = deferred
    return out


def wire_tool(name: str, description: str, *, deferred: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "description": description,
                           "input_schema": {"type": "object"}}
    if deferred:
        out["defer_loading"] = True
    return out


def text(role: str, value: str) -> dict[str, Any]:
    return {"role": role, "content": [{"type": "text", "text": value}]}


def developer(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "developer", "content": list(blocks)}


def wire_change(kind: str, name: str) -> dict[str, Any]:
    return {"type": kind, "tool": {"type": "tool_reference", "name": name}}


def wire_text(role: str, value: str) -> dict[str, Any]:
    return {"role": role, "content": [{"type": "text", "text": value}]}


def wire() -> None:
    f = "wire-anthropic"
    FILES[f] = ("Projection of developer messages onto Anthropic Messages: mid-conversation "
                "system messages, beta header, defer_loading, placement, empty content "
                "(DM-035, DM-043, DM-045..DM-048, DM-D003..DM-D006).", [])
    system = text("system", "You are a coding agent.")
    tools = [tool("read_file", "Read a file"), tool("search", "Search", deferred=True)]
    wire_tools = [wire_tool("read_file", "Read a file"),
                  wire_tool("search", "Search", deferred=True)]

    def both(body: dict[str, Any], betas: list[str] | None) -> dict[str, Any]:
        expect = {REQUEST: {"output": body, "compare": "anthropic-messages"}}
        if betas is not None:
            expect[BETAS] = out({"betas": betas})
        return expect

    history_ = [system, text("user", "find the bug"), developer(add("search")),
                text("assistant", "searching")]
    case(f, "dm-wire-addition-before-assistant", ["DM-D003", "DM-D004", "DM-035", "DM-047"],
         "A tool addition after a user turn becomes a system message with a tool_addition "
         "reference before the assistant turn; the request needs the tool changes beta; the "
         "deferred tool is declared with defer_loading.",
         {"history": history_, "tools": tools},
         both({"system": "You are a coding agent.",
               "messages": [wire_text("user", "find the bug"),
                            {"role": "system", "content": [wire_change("tool_addition", "search")]},
                            wire_text("assistant", "searching")],
               "tools": wire_tools}, [BETA]))

    history_ = [system, text("user", "stop searching"), developer(remove("search"),
                                                                   add("read_file"))]
    case(f, "dm-wire-removal-and-addition-at-end", ["DM-D003", "DM-D004", "DM-D005"],
         "A removal and an addition in one developer message end the request: one system "
         "message, blocks in order, after the user turn.",
         {"history": history_, "tools": tools},
         both({"system": "You are a coding agent.",
               "messages": [wire_text("user", "stop searching"),
                            {"role": "system", "content": [wire_change("tool_removal", "search"),
                                                           wire_change("tool_addition",
                                                                       "read_file")]}],
               "tools": wire_tools}, [BETA]))

    history_ = [system, text("user", "no more searching"), developer(remove("search"))]
    case(f, "dm-wire-removal-only-needs-the-beta", ["DM-D004", "DM-D003"],
         "A developer message holding only a tool removal: a system message with a "
         "tool_removal reference, and the request still needs the tool changes beta.",
         {"history": history_, "tools": tools},
         both({"system": "You are a coding agent.",
               "messages": [wire_text("user", "no more searching"),
                            {"role": "system", "content": [wire_change("tool_removal",
                                                                       "search")]}],
               "tools": wire_tools}, [BETA]))

    history_ = [system, text("user", "go"),
                {"role": "assistant", "content": [{"type": "tool-call", "id": "call-1",
                                                   "name": "read_file",
                                                   "arguments": "{\"path\":\"a.py\"}"}]},
                {"role": "tool", "toolCallId": "call-1", "content": [{"type": "text",
                                                                      "text": "print(1)"}]},
                developer(add("search")),
                text("assistant", "now I can search")]
    case(f, "dm-wire-after-tool-result", ["DM-D005", "DM-D003"],
         "A developer message after a tool result: the tool-result user turn counts, the system "
         "message follows it and precedes the next assistant turn.",
         {"history": history_, "tools": tools},
         both({"system": "You are a coding agent.",
               "messages": [
                   wire_text("user", "go"),
                   {"role": "assistant", "content": [{"type": "tool_use", "id": "call-1",
                                                      "name": "read_file",
                                                      "input": {"path": "a.py"}}]},
                   {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call-1",
                                                 "content": [{"type": "text",
                                                              "text": "print(1)"}]}]},
                   {"role": "system", "content": [wire_change("tool_addition", "search")]},
                   wire_text("assistant", "now I can search")],
               "tools": wire_tools}, [BETA]))

    history_ = [system, text("user", "first"), text("assistant", "done"),
                developer(add("search")), text("user", "second")]
    case(f, "dm-wire-waits-for-the-next-user-turn", ["DM-D005"],
         "A developer message written after an assistant turn waits for the next user turn and "
         "ends the request after it; it is never placed after the assistant turn.",
         {"history": history_, "tools": tools},
         both({"system": "You are a coding agent.",
               "messages": [wire_text("user", "first"), wire_text("assistant", "done"),
                            wire_text("user", "second"),
                            {"role": "system", "content": [wire_change("tool_addition",
                                                                       "search")]}],
               "tools": wire_tools}, [BETA]))

    history_ = [system, developer(add("search")), text("user", "hi"), text("assistant", "ok")]
    case(f, "dm-wire-before-the-first-user-turn", ["DM-D005", "DM-D003"],
         "A developer message recorded before the turn's user input is placed after that user "
         "turn (later, never earlier) and before the assistant turn.",
         {"history": history_, "tools": tools},
         both({"system": "You are a coding agent.",
               "messages": [wire_text("user", "hi"),
                            {"role": "system", "content": [wire_change("tool_addition",
                                                                       "search")]},
                            wire_text("assistant", "ok")],
               "tools": wire_tools}, [BETA]))

    case(f, "dm-wire-never-first", ["DM-D005"],
         "A request holding only the system head and a tool change: the system message would "
         "be the first wire message, with no user turn before it. Rejected.",
         {"history": [system, developer(add("search"))], "tools": tools},
         {REQUEST: err("UNSUPPORTED_CONTENT")})

    history_ = [system, text("user", "first"), text("assistant", "done"),
                developer(add("search")),
                {"role": "user", "content": [{"type": "reasoning", "text": "hidden"}]}]
    case(f, "dm-wire-user-input-omitted-at-end", ["DM-D005"],
         "All user input after the developer message is omitted (reasoning only), so an "
         "assistant turn would precede the system message at the end: rejected.",
         {"history": history_, "tools": tools},
         {REQUEST: err("UNSUPPORTED_CONTENT")})

    history_ = [system, text("user", "first"), text("assistant", "done"),
                developer(remove("search")),
                {"role": "user", "content": [{"type": "tool-call", "id": "c", "name": "x",
                                              "arguments": "{}"}]},
                text("assistant", "next")]
    case(f, "dm-wire-user-input-omitted-before-assistant", ["DM-D005"],
         "All user input after the developer message is omitted (a tool call in user input), "
         "so the system message would sit between two assistant turns: rejected.",
         {"history": history_, "tools": tools},
         {REQUEST: err("UNSUPPORTED_CONTENT")})

    # DM-D006 (SHOULD): two accepted outcomes, the explicit rejection and the source runtime's
    # projection, which leaves the change out before serialization.
    left_out = {REQUEST: {"alternatives": [
        err("DM_UNDECLARED_TOOL"),
        {"output": {"system": "You are a coding agent.", "messages": [wire_text("user", "hi")],
                    "tools": wire_tools}, "compare": "anthropic-messages"}]}}
    history_ = [system, text("user", "hi"), developer(add("grep"))]
    case(f, "dm-wire-undeclared-tool", ["DM-D006"],
         "A tool addition names a tool the request does not declare: rejected, or left out "
         "(the source runtime's projection drops it); never sent.",
         {"history": history_, "tools": tools}, left_out)

    history_ = [system, text("user", "hi"), developer(remove("grep"))]
    case(f, "dm-wire-undeclared-removal", ["DM-D006"],
         "A tool removal names a tool the request does not declare: rejected, or left out; "
         "never sent.",
         {"history": history_, "tools": tools}, left_out)

    history_ = [system, text("user", "hi"), developer(), text("assistant", "hello")]
    case(f, "dm-wire-empty-developer-adds-nothing", ["DM-045"],
         "An empty developer message between a user and an assistant turn adds no message.",
         {"history": history_, "tools": tools},
         both({"system": "You are a coding agent.",
               "messages": [wire_text("user", "hi"), wire_text("assistant", "hello")],
               "tools": wire_tools}, None))

    history_ = [system, text("user", "hi"), text("assistant", "hello"), developer()]
    case(f, "dm-wire-empty-developer-after-assistant", ["DM-045"],
         "An empty developer message right after an assistant turn at the end of the request "
         "adds no message, so there is nothing to misplace.",
         {"history": history_, "tools": tools},
         both({"system": "You are a coding agent.",
               "messages": [wire_text("user", "hi"), wire_text("assistant", "hello")],
               "tools": wire_tools}, None))

    history_ = [developer(), system, text("user", "hi")]
    case(f, "dm-wire-empty-developer-before-system-head", ["DM-046", "DM-045"],
         "An empty developer message ahead of the system message does not displace the "
         "protected system head: the request's top-level system is still the system prompt.",
         {"history": history_, "tools": tools},
         both({"system": "You are a coding agent.", "messages": [wire_text("user", "hi")],
               "tools": wire_tools}, None))

    history_ = [system, developer(), text("user", "hi")]
    case(f, "dm-wire-empty-developer-after-system-head", ["DM-046", "DM-045"],
         "An empty developer message right after the system head neither blanks it nor adds "
         "a system message.",
         {"history": history_, "tools": tools},
         both({"system": "You are a coding agent.", "messages": [wire_text("user", "hi")],
               "tools": wire_tools}, None))

    history_ = [system, text("user", "hi"), text("assistant", "hello")]
    case(f, "dm-wire-predeclared-deferred-tool", ["DM-048", "DM-047"],
         "A deferred tool declared without any developer message: declared with defer_loading, "
         "and no tool_addition is fabricated for it.",
         {"history": history_, "tools": tools},
         both({"system": "You are a coding agent.",
               "messages": [wire_text("user", "hi"), wire_text("assistant", "hello")],
               "tools": wire_tools}, None))

    for role, label in (("user", "user"), ("assistant", "assistant")):
        history_ = [system, text("user", "hi"),
                    {"role": role, "content": [{"type": "text", "text": "x"}, add("search")]}]
        case(f, f"dm-wire-tool-change-in-{label}-message", ["DM-043"],
             f"A tool-addition block inside a {label} message has no wire form outside a "
             "developer message.",
             {"history": history_, "tools": tools}, {REQUEST: err("UNSUPPORTED_CONTENT")})


def main() -> None:
    binding()
    history()
    reading()
    roles()
    empty_and_deferred()
    wire()
    seen: set[str] = set()
    for name, (description, cases) in FILES.items():
        for c in cases:
            assert c["id"] not in seen, c["id"]
            seen.add(c["id"])
        doc = {"family": FAMILY, "description": description, "cases": cases}
        (HERE / f"{name}.json").write_text(
            json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    print(f"{len(seen)} cases in {len(FILES)} files")


if __name__ == "__main__":
    main()
