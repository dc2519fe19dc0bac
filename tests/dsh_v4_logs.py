"""Session logs written the way the source runtime's v4 writer writes them, from its format facts.

Facts (zsagi1368/deepseek-harness-zDSH): the closed header of session-persistence-jsonl/src/
format.ts; seq equal to the row index from 0 and the ``session/end-seed {inherited: true}`` cut of
a seeded child (session-format-v1-to-v2/src/codec.ts, session-format-v3-to-v4/src/validation.ts);
the envelope, surfaceOp, message ids and sources, tool-role results and developer records of the
v3-to-v4 README ("Native V4 admission"); the compact stream inside assistant/message and
assistant/attempt (retired-syntax.ts); the vocabulary of core/session/src/known-event-types.ts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from agent_tck.reference_impl.session_log.dsh_v4 import KNOWN_EVENT_TYPES

T0 = 1_760_000_000_000
MODEL = {"kind": "model", "provider": "deepseek", "model": "deepseek-chat"}
TOOL = {"name": "read_file", "description": "Read a file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}


def header(**extra: Any) -> dict[str, Any]:
    return {"type": "session", "version": 4, "id": "ses-1", "createdAt": T0, "cwd": "/work",
            "isSeeded": False, "delegationDepth": 0, **extra}


class Writer:
    """Appends events with seq = row index (from 0) and time = T0 + seq."""

    def __init__(self, head: Mapping[str, Any] | None = None) -> None:
        self.header = dict(head or header())
        self.events: list[dict[str, Any]] = []

    @property
    def seq(self) -> int:
        return len(self.events)

    def add(self, kind: str, data: Mapping[str, Any], **envelope: Any) -> int:
        seq = self.seq
        self.events.append({"type": kind, "seq": seq, "time": T0 + seq, "data": dict(data),
                            **envelope})
        return seq

    def surface(self, kind: str, data: Mapping[str, Any], **envelope: Any) -> int:
        return self.add(kind, data, surfaceOp=envelope.pop("surfaceOp", "append"), **envelope)

    # --- common shapes --------------------------------------------------------------------
    def user(self, text: str, mid: str = "u1") -> int:
        return self.surface("user/message", {"id": mid, "role": "user", "source": {"kind": "user"},
                                             "content": [{"type": "text", "text": text}]})

    def system(self, turn: int, step: int, text: str = "You are helpful.") -> int:
        return self.surface("system/message", {"turn": turn, "step": step, "message": {
            "id": f"sys-{self.seq}", "role": "system", "source": {"kind": "system-prompt"},
            "content": [{"type": "text", "text": text}]}})

    def header_event(self, tools: Iterable[Mapping[str, Any]] = (TOOL,)) -> int:
        return self.add("request/header", {"header": {
            "config": {"provider": "deepseek", "model": "deepseek-chat"},
            "tools": [dict(t) for t in tools]}, "reason": "initial"})

    def answer(self, turn: int, step: int, text: str, *, stream: bool = True,
               calls: Iterable[tuple[str, str, str]] = ()) -> int:
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        content += [{"type": "tool-call", "id": cid, "name": name, "arguments": args}
                    for cid, name, args in calls]
        data: dict[str, Any] = {"turn": turn, "step": step, "message": {
            "id": f"a-{self.seq}", "role": "assistant", "source": MODEL, "content": content},
            "usage": {"input": 10, "output": 3}}
        if stream:
            data["stream"] = compact_stream(content)
        return self.surface("assistant/message", data)

    def step(self, turn: int, step: int) -> None:
        self.add("step/start", {"turn": turn, "step": step})

    def end_step(self, turn: int, step: int) -> None:
        self.add("step/end", {"turn": turn, "step": step})

    def text(self) -> str:
        rows = [self.header, *self.events]
        return "".join(json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n"
                       for r in rows)

    def bytes(self) -> bytes:
        return self.text().encode("utf-8")


def compact_stream(content: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A step's compact stream record: block-start / delta / block-end chunk entries."""
    out: list[dict[str, Any]] = []
    for index, block in enumerate(content):
        out.append({"type": "chunk", "chunk": {"type": "block-start", "index": index,
                                               "blockType": block["type"]}})
        if block["type"] == "text":
            out.append({"type": "chunk", "chunk": {"type": "text-delta", "index": index,
                                                   "text": block["text"]}})
        out.append({"type": "chunk", "chunk": {"type": "block-end", "index": index,
                                               "block": dict(block)}})
    return out


def one_turn(w: Writer | None = None, *, turn: int = 1, system: bool = True) -> Writer:
    """A turn with a system head, a user message, a tool step and an answer step."""
    w = w or Writer()
    w.add("turn/start", {"turn": turn})
    w.step(turn, 1)
    if system and turn == 1:
        w.system(turn, 1)
    w.user("Read README", mid=f"u-{turn}")
    w.header_event()
    w.answer(turn, 1, "Reading.", calls=[(f"c-{turn}", "read_file", '{"path":"README"}')])
    w.add("tool/call", {"turn": turn, "step": 1, "callId": f"c-{turn}", "name": "read_file",
                        "arguments": '{"path":"README"}'})
    w.surface("tool/result", {"turn": turn, "step": 1, "message": {
        "id": f"r-{turn}", "role": "tool", "toolCallId": f"c-{turn}",
        "source": {"kind": "tool", "callId": f"c-{turn}"},
        "content": [{"type": "text", "text": "# Project"}]}})
    w.end_step(turn, 1)
    w.step(turn, 2)
    w.answer(turn, 2, "It is a project.")
    w.end_step(turn, 2)
    w.add("turn/end", {"turn": turn, "reason": {"kind": "completed"}})
    return w


def seeded_child() -> Writer:
    """A forked child: re-stores the parent's turn from seq 0, then the inherited cut marker."""
    w = one_turn(Writer(header(id="ses-child", parentSession="ses-1", isSeeded=True,
                               origin="subagent", delegationDepth=1)))
    w.add("session/end-seed", {"inherited": True})
    one_turn(w, turn=2)
    return w


#: data for the vocabulary's types that one_turn() does not write (opaque to every rule here)
def every_type() -> Writer:
    w = one_turn()
    written = {e["type"] for e in w.events}
    w.add("turn/start", {"turn": 2})
    w.step(2, 1)
    for kind in sorted(KNOWN_EVENT_TYPES - written - {"session/end-seed"}):
        if kind == "developer/message":
            w.surface(kind, {"turn": 2, "step": 1, "headerSeq": 4, "message": {
                "id": "d1", "role": "developer", "source": {"kind": "tool-registry"},
                "content": [{"type": "tool-addition", "toolName": "read_file"}]}})
        elif kind == "assistant/attempt":
            w.add(kind, {"turn": 2, "step": 1, "stream": compact_stream(
                [{"type": "text", "text": "partial"}])[:2]})
        elif kind == "agent/inbox/spliced":
            w.add(kind, {"inserted": []})
        elif kind == "session/title-llm-request":
            w.add(kind, {"messages": [], "messageSeqs": []})
        else:
            w.add(kind, {"note": kind})
    w.end_step(2, 1)
    w.add("turn/end", {"turn": 2, "reason": {"kind": "completed"}})
    return w
