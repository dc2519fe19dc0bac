"""roles.json: the developer role is confined to developer/message (DM-036..DM-043)."""

from __future__ import annotations

from typing import Any

from .build import ADMIT, SEARCH_V1, Log, VectorFile, add, admitted, out, remove


def build() -> VectorFile:
    f = VectorFile("roles", "The developer role is confined to developer/message; tool-change "
                   "blocks are developer-only (DM-036..DM-043).")
    for section in (_role_mismatch, _role_confined, _tool_change_in_stream, _tool_change_outside):
        section(f)
    return f


def _developer_message(**extra: Any) -> dict[str, Any]:
    return {"id": "x-1", "role": "developer", "source": {"kind": "tool-registry"},
            "content": [{"type": "text", "text": "smuggled"}], **extra}


#: rule -> (event type, its data holding a developer-role message)
SLOTS = {
    "DM-037": ("user/message", _developer_message),
    "DM-038": ("assistant/message", lambda: {"turn": 1, "step": 1,
                                             "message": _developer_message()}),
    "DM-039": ("tool/result", lambda: {"turn": 1, "step": 1,
                                       "message": _developer_message(toolCallId="call-1")}),
    "DM-040": ("system/message", lambda: {"turn": 1, "step": 1,
                                          "message": _developer_message()}),
    "DM-041": ("agent/inbox/spliced", lambda: {
        "start": 2, "target": "self",
        "inserted": [{"id": "i-1", "role": "user", "source": {"kind": "user"},
                      "content": [{"type": "text", "text": "from the inbox"}]},
                     _developer_message()]}),
    "DM-042": ("session/title-llm-request", lambda: {
        "messageSeqs": [3],
        "messages": [{"id": "t-1", "role": "user", "source": {"kind": "user"},
                      "content": [{"type": "text", "text": "title this"}]},
                     _developer_message()]}),
}

#: label -> (event type, its data holding a given tool-change block)
CHANGES = {
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
def _chunk_start(block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "chunk", "chunk": {"type": "block-start", "index": 0,
                                       "blockType": block["type"]}}


def _chunk_end(block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "chunk", "chunk": {"type": "block-end", "index": 0, "block": block}}


#: label -> (event type, the block, the stream entry carrying it, the event's data)
STREAMS = {
    "assistant-message-stream": ("assistant/message", add("search"), _chunk_start, lambda e: {
        "turn": 1, "step": 1, "stream": [e], "message": {
            "id": "a-x", "role": "assistant", "content": [{"type": "text", "text": "ok"}],
            "source": {"kind": "model", "provider": "test", "model": "test"}}}),
    "assistant-attempt-stream": ("assistant/attempt", remove("search"), _chunk_end,
                                 lambda e: {"turn": 1, "step": 1, "stream": [e]}),
}


def _role_mismatch(f: VectorFile) -> None:
    """A developer/message whose message has another role."""
    for role in ("user", "system", "assistant"):
        log = Log().open()
        log.header(SEARCH_V1)
        # issue 21 C: text only, so no tool-change block sits in a message of an ordinary role
        # (DM_TOOL_CHANGE_NOT_DEVELOPER would fit as well)
        log.dev({"type": "text", "text": "x"})
        log.lines[-1]["data"]["message"]["role"] = role
        f.admit_error(f"dm-slot-holds-{role}-role", ["DM-036"],
                      f"A developer/message carries a {role}-role message.", log,
                      "DM_ROLE_MISMATCH")


def _role_confined(f: VectorFile) -> None:
    """A developer-role message in any other slot; ordinary roles there are admitted."""
    for rule, (etype, data) in SLOTS.items():
        log = Log().open()
        log.user()
        log.event(etype, data())
        slug = etype.replace("/", "-")
        f.admit_error(f"dm-developer-role-in-{slug}", [rule],
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
    f.case("dm-ordinary-roles-in-inbox-and-title-request", ["DM-041", "DM-042"],
           "Inbox and title-request arrays holding ordinary user messages are admitted.",
           {"log": log.json()}, {ADMIT: out(admitted())})


def _tool_change_in_stream(f: VectorFile) -> None:
    """A tool-change block inside an assistant record's compact stream."""
    for label, (etype, block, entry, data) in STREAMS.items():
        log = Log().open()
        log.header(SEARCH_V1)
        log.event(etype, data(entry(block)))
        kind = block["type"]
        f.admit_error(f"dm-{kind}-in-{label}", ["DM-043"],
                      f"A {kind} block inside the compact stream of an {etype} event.", log,
                      "DM_TOOL_CHANGE_NOT_DEVELOPER")


def _tool_change_outside(f: VectorFile) -> None:
    """A tool-change block in a message of any record but developer/message."""
    for label, (etype, data) in CHANGES.items():
        for block in (add("search"), remove("search")):
            log = Log().open()
            log.header(SEARCH_V1)
            log.event(etype, data(block))
            kind = block["type"]
            f.admit_error(f"dm-{kind}-in-{label}", ["DM-043"],
                          f"A {kind} block inside a {etype} event.", log,
                          "DM_TOOL_CHANGE_NOT_DEVELOPER")
