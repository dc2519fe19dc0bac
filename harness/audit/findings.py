"""The wire audit's rule table and its findings (family wire-audit).

:data:`RULES` maps each check's rule key to its catalogue ID and severity, one place, each
beside the words of the note or the suite decision it enforces; a :class:`Finding` is one
violation at a JSON pointer into the exchange (:func:`body_pointer`). A finding's severity is
fixed by its rule: ``error`` for MUST rules, ``warning`` for SHOULD.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from agent_tck.reference_impl.json_pointer import escape

ERROR = "error"
WARNING = "warning"

# ---------------------------------------------------------------------------------------------
# Rule table: key -> (catalogue ID, severity). Where another family's rule is the one a wire
# check enforces, its ID is cited; the wire-audit family (vectors/rules/wire-audit.yaml) holds
# the rest.

RULES: dict[str, tuple[str, str]] = {
    # 000 block omission: "The Messages serializer omits reasoning and tool-call blocks from
    # user and tool-result input." Chat Completions "omit these blocks from user input" too.
    "user-reasoning": ("BO-001", ERROR),
    "user-tool-call": ("BO-002", ERROR),
    "tool-result-reasoning": ("BO-003", ERROR),
    "tool-result-tool-call": ("BO-004", ERROR),
    # 000: "rejection of other unsupported blocks" (Messages)
    "user-unsupported": ("BO-005", ERROR),
    "tool-result-unsupported": ("BO-006", ERROR),
    # BO-D001 / BO-D002: a user message with nothing left is skipped, never sent empty
    "empty-user-messages": ("BO-D001", ERROR),
    "empty-user-chat": ("BO-D002", WARNING),
    # BO-D008: an empty text block in user or tool-result input is not sent (Messages)
    "empty-text-block": ("BO-D008", ERROR),
    # BO-D005: tool_result blocks come before the other blocks of their user turn
    "tool-result-first": ("BO-D005", ERROR),
    # BO-D004: Chat Completions omits other unsupported parts of user and tool input
    "chat-unsupported-part": ("BO-D004", WARNING),
    # in-history system updates (000, Anthropic's mid-conversation system messages):
    # IHU-D001 directly after a user turn, before an assistant turn or the end;
    # IHU-D003 never first; IHU-D004 never empty
    "system-placement": ("IHU-D001", ERROR),
    "system-first": ("IHU-D003", ERROR),
    "system-empty": ("IHU-D004", ERROR),
    # 004 developer messages: "developer-only tool-change blocks"; DM-D004 the beta header;
    # DM-D005 placement of the tool-change system message; DM-D006 names declared tools
    "tool-change-developer-only": ("DM-043", ERROR),
    "tool-change-beta": ("DM-D004", ERROR),
    "tool-change-placement": ("DM-D005", ERROR),
    "tool-change-declared": ("DM-D006", WARNING),  # SHOULD: the source serializer sends it
    # 003: "The standalone ... report schema ... are absent."
    "retired-report-tool": ("SMA-051", ERROR),
    # the wire-audit family's own rules (vectors/rules/wire-audit.yaml)
    "fork-head": ("WA-001", WARNING),
    "tool-result-answers-call": ("WA-D001", ERROR),
    "tool-call-answered": ("WA-D002", ERROR),
    "unknown-block": ("WA-D003", WARNING),
    "unreadable-body": ("WA-D004", WARNING),
    "send-message-schema": ("WA-D005", WARNING),
    "prefix-stable": ("WA-D006", WARNING),
    "head-stable": ("WA-D007", WARNING),
    # requests the providers accept: the wire model's predicates (reference_impl/wire/
    # validity.py), the same the serializer invariants hold every serializer output to
    "empty-turn": ("BO-D009", ERROR),
    "empty-text": ("BO-D010", ERROR),
    "assistant-content": ("BO-D011", WARNING),  # SHOULD: compatible endpoints differ
}


def rule_id(key: str) -> str:
    return RULES[key][0]


@dataclass(frozen=True, order=True)
class Finding:
    """One violation: the catalogue rule, where it is (JSON pointer into the exchange), why."""

    rule: str
    pointer: str
    severity: str
    message: str = field(compare=False, default="")
    check: str = field(compare=False, default="")

    def to_json(self) -> dict[str, str]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "pointer": self.pointer,
            "message": self.message,
            "check": self.check,
        }

    def key(self) -> dict[str, str]:
        """What vectors pin: rule, severity and pointer (the message is for people)."""
        return {"rule": self.rule, "severity": self.severity, "pointer": self.pointer}


def make_finding(key: str, pointer: str, message: str, check: str = "") -> Finding:
    rid, severity = RULES[key]
    return Finding(rid, pointer, severity, message, check)


def sort_findings(findings: Sequence[Finding]) -> list[Finding]:
    """Sorted by (rule, pointer, severity), duplicates removed: the order vectors pin."""
    return sorted(set(findings))


# ---------------------------------------------------------------------------------------------
# JSON pointers


def body_pointer(*tokens: object) -> str:
    return "/request/body" + "".join("/" + escape(t) for t in tokens)
