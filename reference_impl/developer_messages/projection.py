"""Wire projection of developer messages onto Anthropic Messages (DM-D003..DM-D006, DM-043..048).

Input: a canonical history (``vectors/schema/history.schema.json``) that may hold developer
messages ``{role: "developer", content: [{type: "tool-addition"|"tool-removal", toolName}]}``,
and the request's tool declarations ``{name, description?, inputSchema, deferLoading?}``.

The conversation itself is serialized by
:mod:`reference_impl.serialize.anthropic_messages`, which already
turns a developer message into a pending mid-conversation system update placed like an
in-history update (DM-D005). This module adds what belongs to developer messages:

* empty developer content is dropped before anything else (DM-045: no model message; DM-046:
  it cannot displace the system head, even ahead of it);
* every tool a change names must be declared in the request's tools (DM-D006);
* a declaration whose schema has ``deferLoading: true`` is sent with ``defer_loading: true``
  (DM-047), and no tool addition is ever invented for it (DM-048);
* the beta header the tool changes need (DM-D004).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.serialize import anthropic_messages as serialize_anthropic
from agent_tck.reference_impl.serialize.model import INVALID_HISTORY

#: Anthropic's beta for tool_addition / tool_removal blocks in mid-conversation system messages.
TOOL_CHANGES_BETA: Final = "mid-conversation-tool-changes-2026-07-01"
WIRE_TOOL_CHANGES: Final = frozenset({"tool_addition", "tool_removal"})
UNDECLARED_TOOL: Final = "DM_UNDECLARED_TOOL"


def _invalid(message: str, pointer: str) -> TckError:
    return TckError(INVALID_HISTORY, message, pointer)


def _check_declared(history: Sequence[Any], tools: list[Any] | None) -> None:
    """DM-D006: every tool a developer change names is declared in the request's tools."""
    declared = {
        t["name"] for t in tools or () if isinstance(t, Mapping) and isinstance(t.get("name"), str)
    }
    for i, message in enumerate(history):
        if not isinstance(message, Mapping) or message.get("role") != "developer":
            continue
        content = message.get("content")
        for j, block in enumerate(content if isinstance(content, list) else ()):
            if not isinstance(block, Mapping) or block.get("type") not in (
                "tool-addition", "tool-removal"
            ):
                continue
            name = block.get("toolName")
            if isinstance(name, str) and name not in declared:
                raise TckError(
                    UNDECLARED_TOOL,
                    f"DM-D006: {block['type']} names {name!r}, which the request's tools do not "
                    "declare",
                    f"/history/{i}/content/{j}/toolName",
                )


def anthropic_request(payload: Any) -> dict[str, Any]:
    """``{history, tools?}`` -> the Messages request body ``{system?, messages, tools?}``."""
    if not isinstance(payload, Mapping):
        raise _invalid("the input must be an object", "")
    for key in payload:
        if key not in ("history", "tools"):
            raise _invalid(f"unexpected member {key!r} in the input", f"/{key}")
    history = payload.get("history")
    if not isinstance(history, list):
        raise _invalid("'history' must be an array of messages", "/history")
    tools = payload.get("tools")
    # DM-045 / DM-046 (empty developer content adds no model message and never shadows the
    # system head) and DM-047 (deferLoading survives prompt assembly, sent as defer_loading)
    # are the canonical model's and the Messages serializer's: nothing to redo here.
    body = serialize_anthropic.serialize(history, tools)
    _check_declared(history, tools)
    return body


def anthropic_betas(payload: Any) -> list[str]:
    """The anthropic-beta values the projected request needs for its developer content (DM-D004)."""
    body = anthropic_request(payload)
    for message in body["messages"]:
        content = message.get("content")
        if isinstance(content, list) and any(
            isinstance(b, Mapping) and b.get("type") in WIRE_TOOL_CHANGES for b in content
        ):
            return [TOOL_CHANGES_BETA]
    return []
