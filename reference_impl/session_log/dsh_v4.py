"""Facts about the source runtime's session format v4 (DSH), each with the file it comes from.

Data only: the kit's readers (``ext_log_rules``, ``profile_dsh``) and the CLI
(``harness/commands/check_log.py``) use these tables; nothing here reads a file. Paths are in the
public repository zsagi1368/deepseek-harness-zDSH.
"""

from __future__ import annotations

from typing import Final

KNOWN_EVENT_TYPES_SOURCE: Final = "packages/core/session/src/known-event-types.ts"
FORMAT_DOC: Final = "docs/persistence-changes/2026-09-16-session-format-v4.md"
V4_README: Final = "packages/session/session-format-v3-to-v4/README.md"
RELATIONSHIPS: Final = "packages/session/session-format-v3-to-v4/src/relationships.ts"
VALIDATION: Final = "packages/session/session-format-v3-to-v4/src/validation.ts"
RETIRED_SYNTAX_SOURCE: Final = "packages/session/session-format-v3-to-v4/src/retired-syntax.ts"
JSONL_FORMAT: Final = "packages/session/session-persistence-jsonl/src/format.ts"
V2_CODEC: Final = "packages/session/session-format-v1-to-v2/src/codec.ts"
V4_CODEC: Final = "packages/session/session-format-v3-to-v4/src/codec.ts"
TOOL_ROLE: Final = "packages/session/session-format-v3-to-v4/src/tool-role.ts"
SYSTEM_MESSAGE: Final = "packages/session/session-format-v3-to-v4/src/system-message.ts"
MESSAGE_SOURCES: Final = "packages/session/session-format-v3-to-v4/src/message-sources.ts"

#: The event vocabulary the source runtime's reader understands (known-event-types.ts, 60 types).
#: A type outside it is read only when marked ignorable (CFP-D004).
KNOWN_EVENT_TYPES: Final = frozenset({
    "agent-preset/selected", "agent/inbox/spliced", "approval/asked", "approval/decided",
    "approval/policy", "assistant/attempt", "assistant/message", "command/done", "command/run",
    "compaction/end", "compaction/prune", "compaction/start", "compaction/summary",
    "deliverables/presented", "developer/message", "feedback/message-delete",
    "feedback/message-put", "feedback/record", "goal/change", "hook/invoked", "hook/result",
    "image/offload", "llm/retry", "llm/retry-started", "model/selection", "permission/preset",
    "plan/mode", "request/context", "request/header", "sandbox/mode", "schedule/change",
    "session-log-deepseek/delivery-accepted", "session/end-seed", "session/title",
    "session/title-llm-request", "slots/dispatch", "step/end", "step/start", "subagent/catalog",
    "subagent/descriptor", "subagent/model-selection-policy", "system/message", "team/member",
    "team/message/delivered", "team/message/queued", "team/task", "todo/write",
    "tool-workflow/agent-end", "tool-workflow/agent-start", "tool-workflow/run-end",
    "tool-workflow/run-start", "tool/call", "tool/ptc-dispatch", "tool/ptc-dispatch-start",
    "tool/result", "turn/end", "turn/start", "user/message", "web/deepseek-search-llm-request",
    "workspace/changes",
})

#: The header's closed key set (format.ts HEADER_REQUIRED_KEYS / HEADER_OPTIONAL_KEYS).
HEADER_REQUIRED: Final = ("type", "version", "id", "createdAt", "isSeeded", "delegationDepth")
HEADER_OPTIONAL: Final = ("cwd", "parentSession", "origin", "agentPreset")
#: Retired header policy fields the reader refuses (format.ts assertNoRetiredHeaderFields).
HEADER_RETIRED: Final = ("sandboxMode", "approvalPolicy")

#: The event envelope's closed key set (v3-to-v4 README, "Event envelope").
ENVELOPE_REQUIRED: Final = ("type", "seq", "time", "data")
ENVELOPE_OPTIONAL: Final = ("ignorable", "sourceEventSeqs", "surfaceOp")

#: Events placed on the model surface; each carries surfaceOp (relationships.ts SURFACE_TYPES).
SURFACE_TYPES: Final = frozenset({
    "system/message", "user/message", "developer/message", "assistant/message", "tool/result",
})
#: Events that must match the open turn and step (relationships.ts STEP_EVENT_TYPES).
STEP_EVENT_TYPES: Final = frozenset({"system/message", "developer/message", "assistant/attempt"})

#: Where a surface event keeps its message (v3-to-v4 README, "Message-source conversion").
MESSAGE_AT_DATA: Final = frozenset({"user/message"})

#: The inherited-cut marker of a seeded or forked child (codec.ts deriveInheritedEventCount).
END_SEED: Final = "session/end-seed"

#: Zstandard frame magic (RFC 8878 section 3.1.1): a ``.jsonl.zstd`` file starts with it
#: (format.ts logSuffix: the default compression is zstd).
ZSTD_MAGIC: Final = b"\x28\xb5\x2f\xfd"

#: Content positions the retired ``tool-result`` wrapper may not appear in
#: (retired-syntax.ts; v3-to-v4 README, "Content inspected for the retired tag").
#: event type -> (path to a content array | path to an array of messages holding content)
RETIRED_CONTENT_AT: Final = {
    "user/message": (("content",),),
    "system/message": (("message", "content"),),
    "developer/message": (("message", "content"),),
    "assistant/message": (("message", "content"),),
    "team/message/queued": (("message", "content"),),
    "compaction/summary": (("summary",), ("rawOutput",)),
    "tool/ptc-dispatch": (("content",),),
}
RETIRED_MESSAGES_AT: Final = {
    "agent/inbox/spliced": "inserted",
    "session/title-llm-request": "messages",
}
