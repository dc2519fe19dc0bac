"""The note's tables as data (spec 002_37b03d34ed5e6e9a.txt, family ``message-parts``).

The reconciler (:mod:`reference_impl.message_parts.reconciler`) reads them top to bottom:

1. ``KINDS``: the note's table of the 11 standard parts, as data (surface, default behaviour).
2. ``EVENT_FIELDS`` / ``KIND_FIELDS``: what a well-formed event carries (else MALFORMED_EVENT).
3. ``TURN_TABLE`` and ``PART_TABLE``: every transition, ``(event type, state) -> (action,
   next state)``; an action names a function of the reconciler.

Pure data and the field checks they use; nothing here reads files, sockets or clocks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any

# ---------------------------------------------------------------------------------------------
# 1. The standard parts ("标准 part"): kind -> surface, default behaviour.


class PartState(StrEnum):
    ABSENT = "absent"  # no part.start seen for this id
    OPEN = "open"  # streaming (or, for action_required, pending)
    FINAL = "final"  # closed by a final payload (part.final)
    ENDED = "ended"  # closed without a final payload (part.end, turn.end, or born complete)
    ABORTED = "aborted"  # its turn was aborted while it was open


class TurnState(StrEnum):
    ABSENT = "absent"
    ACTIVE = "active"
    COMPLETED = "completed"
    ABORTED = "aborted"


#: The surface named by the event (MP-D001) for the kinds whose row says "Process 或 Task".
EVENT_SURFACE = None


@dataclass(frozen=True)
class KindSpec:
    kind: str
    rule: str
    surface: str | None  # None: "Process 或 Task", the event names which (MP-D001)
    behaviour: str  # the table's 默认行为, as a stable token
    streamable: bool  # takes part.delta / part.final
    process: bool  # a process or task fact (projected inline / timeline / task), not message body
    initial: PartState  # its state right after part.start


KINDS: Mapping[str, KindSpec] = MappingProxyType({
    s.kind: s
    for s in (
        # "user_text Conversation 立即显示，并保留作者身份。"
        KindSpec("user_text", "MP-010", "Conversation", "show_immediately_with_author",
                 False, False, PartState.ENDED),
        # "assistant_text Conversation 渲染为最终回答文本。"
        KindSpec("assistant_text", "MP-011", "Conversation", "render_as_final_answer",
                 True, False, PartState.OPEN),
        # "reasoning_summary Process 默认折叠或摘要。"
        KindSpec("reasoning_summary", "MP-012", "Process", "collapse_or_summarize",
                 True, True, PartState.OPEN),
        # "reasoning_detail Process 只有 policy 和用户设置允许时展示。"
        KindSpec("reasoning_detail", "MP-013", "Process", "show_only_if_policy_and_user_allow",
                 True, True, PartState.OPEN),
        # "runtime_status Process 或 Task 作为紧凑状态，不作为消息正文。"
        KindSpec("runtime_status", "MP-014", EVENT_SURFACE, "compact_status_not_body",
                 True, True, PartState.OPEN),
        # "tool_call Process 展示紧凑步骤和输入摘要。"
        KindSpec("tool_call", "MP-015", "Process", "compact_step_with_input_summary",
                 True, True, PartState.OPEN),
        # "tool_result Process 展示预览、摘要或详情抽屉。"
        KindSpec("tool_result", "MP-016", "Process", "preview_summary_or_detail_drawer",
                 True, True, PartState.OPEN),
        # "action_required Task 展示明确 CTA 和 pending state。"
        KindSpec("action_required", "MP-017", "Task", "explicit_cta_with_pending_state",
                 False, True, PartState.OPEN),
        # "artifact_ref Artifact 展示摘要卡，并在 Artifact 工作区打开。"
        KindSpec("artifact_ref", "MP-018", "Artifact", "summary_card_opens_artifact_workspace",
                 False, False, PartState.ENDED),
        # "evidence_ref Evidence 展示 source、verification 或 replay entry。"
        KindSpec("evidence_ref", "MP-019", "Evidence", "source_verification_or_replay_entry",
                 False, False, PartState.ENDED),
        # "error Process 或 Task 展示可恢复诊断和下一步。"
        KindSpec("error", "MP-020", EVENT_SURFACE, "recoverable_diagnostic_and_next_step",
                 False, True, PartState.ENDED),
    )
})

REASONING_KINDS = frozenset({"reasoning_summary", "reasoning_detail"})
SURFACE_CHOICES = ("Process", "Task")
EVIDENCE_ENTRIES = ("source", "verification", "replay")
LOG_CHANNELS = ("debug", "trace", "queue", "tool")

# ---------------------------------------------------------------------------------------------
# 2. Well-formed events. A field spec is (required, check, description).

Check = Callable[[Any], bool]


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _is_id(v: Any) -> bool:
    return isinstance(v, str) and v != ""


def _is_bool(v: Any) -> bool:
    return isinstance(v, bool)


def _is_seq(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _is_any(v: Any) -> bool:
    return True


def _is_opt_str(v: Any) -> bool:
    return v is None or isinstance(v, str)


def _is_id_list(v: Any) -> bool:
    return isinstance(v, list) and all(_is_id(x) for x in v)


def _is_str_list(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def _one_of(*values: str) -> Check:
    return lambda v: v in values


def _is_user(v: Any) -> bool:
    return (
        isinstance(v, dict)
        and _is_id(v.get("id"))
        and _is_str(v.get("author"))
        and _is_str(v.get("text"))
    )


@dataclass(frozen=True)
class FieldSpec:
    required: bool
    check: Check
    expects: str


def _req(check: Check, expects: str) -> FieldSpec:
    return FieldSpec(True, check, expects)


def _opt(check: Check, expects: str) -> FieldSpec:
    return FieldSpec(False, check, expects)


ID = "a non-empty string"
EVENT_FIELDS: Mapping[str, Mapping[str, FieldSpec]] = MappingProxyType({
    "turn.start": {
        "turn": _req(_is_id, ID),
        "user": _req(_is_user, "an object {id, author, text} of strings (id non-empty)"),
        "context": _opt(_is_str_list, "a list of strings"),
        "mode": _opt(_is_opt_str, "a string or null"),
        "artifacts": _opt(_is_id_list, "a list of artifact ids"),
    },
    "turn.branch": {"turn": _req(_is_id, ID), "from": _req(_is_id, ID)},
    "turn.end": {"turn": _req(_is_id, ID)},
    "turn.abort": {"turn": _req(_is_id, ID), "reason": _opt(_is_str, "a string")},
    "part.start": {"id": _req(_is_id, ID), "kind": _req(_is_str, "a part kind")},
    "part.delta": {
        "id": _req(_is_id, ID),
        "text": _req(_is_str, "a string"),
        "seq": _opt(_is_seq, "an integer >= 0"),
    },
    "part.final": {
        "id": _req(_is_id, ID),
        "text": _req(_is_str, "a string"),
        "summary": _opt(_is_str, "a string"),
        "is_error": _opt(_is_bool, "a boolean"),
    },
    "part.end": {
        "id": _req(_is_id, ID),
        "summary": _opt(_is_str, "a string"),
        "is_error": _opt(_is_bool, "a boolean"),
    },
    "part.export": {"id": _req(_is_id, ID)},
    "answer.link": {"artifact": _req(_is_id, ID)},
    "answer.cite": {"evidence": _req(_is_id, ID)},
    "runtime.log": {
        "channel": _req(_one_of(*LOG_CHANNELS), f"one of {', '.join(LOG_CHANNELS)}"),
        "data": _opt(_is_any, "any JSON value"),
    },
})

#: Kind-specific fields of part.start.
KIND_FIELDS: Mapping[str, Mapping[str, FieldSpec]] = MappingProxyType({
    "user_text": {"author": _req(_is_str, "a string"), "text": _req(_is_str, "a string")},
    "assistant_text": {},
    "reasoning_summary": {"summary": _opt(_is_str, "a string")},
    "reasoning_detail": {
        "summary": _opt(_is_str, "a string"),
        "redacted": _opt(_is_bool, "a boolean"),
    },
    "runtime_status": {"surface": _req(_one_of(*SURFACE_CHOICES), "Process or Task")},
    "tool_call": {
        "name": _req(_is_id, ID),
        "summary": _opt(_is_str, "a string"),
        "retry_of": _opt(_is_id, ID),
    },
    "tool_result": {
        "call": _req(_is_id, ID),
        "summary": _opt(_is_str, "a string"),
        "is_error": _opt(_is_bool, "a boolean"),
    },
    "action_required": {"prompt": _req(_is_str, "a string"), "payload": _opt(_is_any, "JSON")},
    "artifact_ref": {
        "artifact": _req(_is_id, ID),
        "title": _req(_is_str, "a string"),
        "summary": _opt(_is_str, "a string"),
    },
    "evidence_ref": {
        "evidence": _req(_is_id, ID),
        "entry": _req(_one_of(*EVIDENCE_ENTRIES), "source, verification or replay"),
        "label": _opt(_is_str, "a string"),
        "pack": _opt(_is_any, "any JSON value"),
    },
    "error": {
        "surface": _req(_one_of(*SURFACE_CHOICES), "Process or Task"),
        "message": _req(_is_str, "a string"),
        "recoverable": _req(_is_bool, "a boolean"),
        "next_step": _opt(_is_opt_str, "a string or null"),
    },
})

# ---------------------------------------------------------------------------------------------
# 3. The transition tables.


@dataclass(frozen=True)
class Transition:
    """``action`` names a function below (``"reject:CODE"`` rejects); ``next`` is the new state
    (``None``: decided by the action, e.g. the kind's initial state on create)."""

    action: str
    next: PartState | TurnState | None


# Turn events, keyed by the state of the turn the event names. A turn.start / turn.branch also
# needs no other turn running (one active turn at a time): checked in ``_start_turn``.
TURN_TABLE: Mapping[tuple[str, TurnState], Transition] = MappingProxyType({
    ("turn.start", TurnState.ABSENT): Transition("start_turn", TurnState.ACTIVE),
    ("turn.branch", TurnState.ABSENT): Transition("branch_turn", TurnState.ACTIVE),
    ("turn.end", TurnState.ACTIVE): Transition("end_turn", TurnState.COMPLETED),
    ("turn.end", TurnState.COMPLETED): Transition("drop", TurnState.COMPLETED),  # MP-D007 late
    ("turn.end", TurnState.ABORTED): Transition("drop", TurnState.ABORTED),  # MP-D007 late
    ("turn.end", TurnState.ABSENT): Transition("reject:UNKNOWN_TURN", None),
    ("turn.abort", TurnState.ACTIVE): Transition("abort_turn", TurnState.ABORTED),
    ("turn.abort", TurnState.COMPLETED): Transition("drop", TurnState.COMPLETED),  # MP-D007
    ("turn.abort", TurnState.ABORTED): Transition("drop", TurnState.ABORTED),  # MP-D007
    ("turn.abort", TurnState.ABSENT): Transition("reject:UNKNOWN_TURN", None),
})

# Part events, keyed by the state of the part the event names.
S = PartState
PART_TABLE: Mapping[tuple[str, PartState], Transition] = MappingProxyType({
    ("part.start", S.ABSENT): Transition("create", None),
    # MP-081: only typed deltas append, each to its own part; MP-D003 duplicates, gaps.
    ("part.delta", S.ABSENT): Transition("reject:UNKNOWN_PART", None),
    ("part.delta", S.OPEN): Transition("append", S.OPEN),
    ("part.delta", S.FINAL): Transition("drop", S.FINAL),  # MP-D004: final before last delta
    ("part.delta", S.ENDED): Transition("drop", S.ENDED),  # MP-D004: the part is closed
    ("part.delta", S.ABORTED): Transition("drop", S.ABORTED),  # MP-D007
    # MP-080 / MP-087 / MP-088: a final is compared, then replaces or marks; never appended.
    ("part.final", S.ABSENT): Transition("reject:UNKNOWN_PART", None),
    ("part.final", S.OPEN): Transition("reconcile", S.FINAL),
    ("part.final", S.ENDED): Transition("reconcile", S.FINAL),  # MP-D005: final after close
    ("part.final", S.FINAL): Transition("reconcile", S.FINAL),  # MP-D004: repeated final
    ("part.final", S.ABORTED): Transition("drop", S.ABORTED),  # MP-D007
    ("part.end", S.ABSENT): Transition("reject:UNKNOWN_PART", None),
    ("part.end", S.OPEN): Transition("close", S.ENDED),
    ("part.end", S.ENDED): Transition("close", S.ENDED),  # idempotent
    ("part.end", S.FINAL): Transition("close", S.FINAL),  # idempotent, keeps the final
    ("part.end", S.ABORTED): Transition("drop", S.ABORTED),  # MP-D007
    # MP-D012 / MP-100: reasoning enters the answer only when explicitly exported.
    ("part.export", S.ABSENT): Transition("reject:UNKNOWN_PART", None),
    ("part.export", S.OPEN): Transition("export", S.OPEN),
    ("part.export", S.FINAL): Transition("export", S.FINAL),
    ("part.export", S.ENDED): Transition("export", S.ENDED),
    ("part.export", S.ABORTED): Transition("export", S.ABORTED),
})

#: Events that need a running turn (MP-D017: NO_ACTIVE_TURN otherwise).
NEEDS_ACTIVE_TURN = frozenset({"part.start", "answer.link", "answer.cite"})
#: Part events only the streamable kinds take (else INVALID_TRANSITION).
STREAM_EVENTS = frozenset({"part.delta", "part.final"})
