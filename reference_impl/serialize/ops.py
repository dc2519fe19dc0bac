"""Operations ``anthropic.serialize`` and ``openai.serialize`` (vectors/block-omission/README.md).

Input: ``{"history": [canonical messages], "tools": [{name, description?, inputSchema}]?}``.
Output: the request body for the wire format. Errors: ``UNSUPPORTED_CONTENT``,
``INVALID_HISTORY`` (with a JSON pointer into the input).
"""

from __future__ import annotations

from typing import Any

from agent_tck.reference_impl.serialize import anthropic_messages as serialize_anthropic
from agent_tck.reference_impl.serialize import model
from agent_tck.reference_impl.serialize import openai_chat as serialize_openai


def anthropic_serialize(payload: Any) -> dict[str, Any]:
    request = model.parse_serialize_input(payload)
    return serialize_anthropic.build(request.history, request.tools)


def openai_serialize(payload: Any) -> dict[str, Any]:
    request = model.parse_serialize_input(payload)
    return serialize_openai.build(request.history, request.tools)


OPERATIONS = {
    "anthropic.serialize": anthropic_serialize,
    "openai.serialize": openai_serialize,
}
