"""The builders every developer-messages section uses: tool schemas, a session-log builder,
the expected admission outputs, and the vector file a section fills.

Inputs are built with the log builder so every log is a valid chunk-free session log apart from
the one fault a case is about; every expectation is written by hand in the sections (an expected
definition is the very schema the case puts in the header it binds to, an expected error the
code the case is about). Nothing here runs the reference implementation: the vector tests do.
"""

from __future__ import annotations

import copy
import json
from typing import Any

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
    from 0 (``first_seq`` moves the origin, CFP-D003), the header has isSeeded and
    delegationDepth, surface events carry surfaceOp."""

    def __init__(self, first_seq: int = 0, **header_extra: Any) -> None:
        self.lines: list[dict[str, Any]] = [
            {"type": "session", "version": VERSION, "id": "s-dm", "createdAt": T0,
             "isSeeded": False, "delegationDepth": 0, **header_extra}
        ]
        self.seq = first_seq - 1

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


# --- the vector file a section fills ----------------------------------------------------------


def out(value: Any) -> dict[str, Any]:
    return {"output": value}


def err(code: str) -> dict[str, Any]:
    return {"error": {"code": code}}


class VectorFile:
    """One vector file: its name (without .json), its description and its cases in order."""

    def __init__(self, name: str, description: str) -> None:
        self.name = name
        self.description = description
        self.cases: list[dict[str, Any]] = []

    def case(
        self, cid: str, rules: list[str], description: str, payload: Any,
        expect: dict[str, Any],
    ) -> None:
        self.cases.append({"id": cid, "rules": rules, "description": description,
                           "input": payload, "expect": expect})

    def admit_error(
        self, cid: str, rules: list[str], description: str, log: Log, code: str,
        **payload: Any,
    ) -> None:
        """A case whose log developer admission must reject with ``code``."""
        self.case(cid, rules, description, {"log": log.json(), **payload}, {ADMIT: err(code)})

    def admit_either(
        self, cid: str, rules: list[str], description: str, log: Log, *,
        codes: tuple[str, ...], checks: dict[str, str] | None = None, **payload: Any,
    ) -> None:
        """A case whose log admission must reject with any of ``codes`` (an input that fits
        each code's definition: vectors/README.md "Accepted alternatives"); ``checks`` says
        which rule the rejection and the code are each charged to (none: a one-rule case)."""
        spec: dict[str, Any] = {"alternatives": [err(code) for code in codes]}
        if checks:
            spec["checks"] = checks
        self.case(cid, rules, description, {"log": log.json(), **payload}, {ADMIT: spec})

    def text(self) -> str:
        """The file's exact text: the family's one JSON layout (two-space indent, UTF-8)."""
        doc = {"family": FAMILY, "description": self.description, "cases": self.cases}
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
