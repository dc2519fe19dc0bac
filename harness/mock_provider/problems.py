"""Error replies of the mock provider, shaped as each provider shapes them.

Error bodies, the plan of an error reply, and the structural validation of a request mapped to
each provider's error wording.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import jsonschema

from agent_tck.harness.mock_provider.plan import Finish, SendBytes, SendHead, Step
from agent_tck.harness.mock_provider.script import ANTHROPIC_ERROR_TYPES, OPENAI_ERROR_TYPES, Api
from agent_tck.reference_impl.wire.dialects import ANTHROPIC


# --------------------------------------------------------------------------------------------
# Error bodies, as each provider shapes them
# --------------------------------------------------------------------------------------------
def anthropic_error_body(
    error_type: str, message: str, request_id: str | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"type": "error", "error": {"type": error_type, "message": message}}
    if request_id is not None:
        body["request_id"] = request_id
    return body


def openai_error_body(
    message: str, error_type: str, param: str | None = None, code: str | None = None
) -> dict[str, Any]:
    return {"error": {"message": message, "type": error_type, "param": param, "code": code}}


@dataclass(frozen=True)
class Problem:
    """A rejection before any reply is chosen, in provider-neutral terms."""

    status: int
    message: str
    param: str | None = None  # OpenAI's dotted/bracketed parameter path
    code: str | None = None  # OpenAI's code
    headers: tuple[tuple[str, str], ...] = ()


def error_plan(
    api: Api, problem: Problem, request_id: str, head_only: bool = False
) -> tuple[Step, ...]:
    if api == ANTHROPIC:
        etype = ANTHROPIC_ERROR_TYPES.get(
            problem.status, "api_error" if problem.status >= 500 else "invalid_request_error"
        )
        body = anthropic_error_body(etype, problem.message, request_id)
        id_header = ("request-id", request_id)
    else:
        etype, default_code = OPENAI_ERROR_TYPES.get(
            problem.status,
            ("server_error" if problem.status >= 500 else "invalid_request_error", None),
        )
        body = openai_error_body(
            problem.message, etype, problem.param, problem.code or default_code
        )
        id_header = ("x-request-id", request_id)
    return json_steps(problem.status, body, (id_header, *problem.headers), head_only)


def json_bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def json_steps(
    status: int,
    value: Any,
    headers: tuple[tuple[str, str], ...] = (),
    head_only: bool = False,
) -> tuple[Step, ...]:
    data = value if isinstance(value, bytes) else json_bytes(value)
    head = SendHead(
        status,
        (
            ("content-type", "application/json"),
            ("content-length", str(len(data))),
            *headers,
        ),
    )
    if head_only:
        return (head, Finish())
    return (head, SendBytes(data), Finish())


# --------------------------------------------------------------------------------------------
# Structural validation, mapped to each provider's error wording
# --------------------------------------------------------------------------------------------
_TYPE_WORDS: Final[Mapping[str, str]] = {
    "object": "an object",
    "array": "an array",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "null": "null",
}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def anthropic_loc(path: Sequence[Any]) -> str:
    return ".".join(str(p) for p in path) or "body"


def openai_param(path: Sequence[Any]) -> str | None:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or None


def describe(error: jsonschema.ValidationError) -> tuple[list[Any], str, str]:
    """(path, human message, OpenAI code) for one schema violation."""
    path = list(error.absolute_path)
    keyword = error.validator
    instance = error.instance
    value: Any = error.validator_value  # typed Any | Unset; set for every keyword read here
    if keyword == "required":
        missing = next(
            (k for k in value if isinstance(instance, dict) and k not in instance),
            "?",
        )
        return [*path, missing], "Field required", "missing_required_parameter"
    if keyword == "type":
        wanted = value
        wanted_list = wanted if isinstance(wanted, list) else [wanted]
        words = " or ".join(_TYPE_WORDS.get(w, w) for w in wanted_list)
        got = _TYPE_WORDS[_json_type(instance)]
        return path, f"expected {words}, but got {got} instead", "invalid_type"
    if keyword == "minItems" and isinstance(instance, list) and not instance:
        return path, "empty array; expected at least one item", "empty_array"
    if keyword in {"minimum", "maximum"}:
        side = "below_min" if keyword == "minimum" else "above_max"
        kind = "integer" if isinstance(instance, int) else "decimal"
        bound = "at least" if keyword == "minimum" else "at most"
        return path, f"must be {bound} {value}", f"{kind}_{side}_value"
    if keyword == "enum":
        allowed = ", ".join(repr(v) for v in value)
        return path, f"invalid value; supported values are {allowed}", "invalid_value"
    if keyword == "minLength":
        return path, "must not be empty", "string_below_min_length"
    if keyword in {"anyOf", "oneOf"}:
        return path, f"unexpected {_TYPE_WORDS[_json_type(instance)]}", "invalid_type"
    return path, f"invalid value ({keyword})", "invalid_value"
