"""The mock provider's vocabulary and its script, sans-I/O: plain JSON -> frozen values.

The routes and the provider vocabulary (stop reasons, error types) as tables; the script
(``vectors/schema/provider-script.schema.json``): replies made of parts (text, thinking, tool
calls) and faults (delay, dropped connection, malformed chunk, in-stream error, HTTP error), and
its parser, which rejects a bad script with ``TckError(INVALID_SCRIPT, pointer)``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.json_pointer import escape
from agent_tck.reference_impl.wire.dialects import ANTHROPIC, OPENAI

Api = Literal["anthropic", "openai"]

# --------------------------------------------------------------------------------------------
# Routes: one table, read top to bottom. path -> (api, request schema name in the OpenAPI doc)
# --------------------------------------------------------------------------------------------
ROUTES: Final[Mapping[str, tuple[Api, str]]] = {
    "/v1/messages": (ANTHROPIC, "AnthropicMessagesRequest"),
    "/anthropic/v1/messages": (ANTHROPIC, "AnthropicMessagesRequest"),  # DeepSeek's Messages path
    "/v1/chat/completions": (OPENAI, "OpenAIChatCompletionsRequest"),
    "/chat/completions": (OPENAI, "OpenAIChatCompletionsRequest"),  # DeepSeek's base URL has no /v1
}
OPENAPI_ROUTE: Final = "/openapi.json"

#: Anthropic documents a 32 MB request limit for the Messages API; the mock applies it to both.
DEFAULT_MAX_BODY_BYTES: Final = 32 * 1024 * 1024

ANTHROPIC_STOP_REASONS: Final = (
    "end_turn",
    "max_tokens",
    "stop_sequence",
    "tool_use",
    "pause_turn",
    "refusal",
    "model_context_window_exceeded",
)
OPENAI_FINISH_REASONS: Final = ("stop", "length", "tool_calls", "content_filter", "function_call")

#: When a script gives only an Anthropic stop_reason, the Chat Completions finish_reason is this.
STOP_TO_FINISH: Final[Mapping[str, str]] = {
    "end_turn": "stop",
    "max_tokens": "length",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "pause_turn": "stop",
    "refusal": "content_filter",
    "model_context_window_exceeded": "length",
}

#: Anthropic's error ``type`` for a status, when the script does not name one.
ANTHROPIC_ERROR_TYPES: Final[Mapping[int, str]] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    405: "invalid_request_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}
#: The status an in-stream Anthropic error type stands for (a stream_error on a plain request).
ANTHROPIC_ERROR_STATUS: Final[Mapping[str, int]] = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}
#: OpenAI's error (``type``, ``code``) for a status, when the script names neither.
OPENAI_ERROR_TYPES: Final[Mapping[int, tuple[str, str | None]]] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", None),
    404: ("invalid_request_error", None),
    405: ("invalid_request_error", None),
    413: ("invalid_request_error", None),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("server_error", None),
}

REASONING_FIELDS: Final = ("reasoning_content", "reasoning", "omit")
ON_EXHAUSTED: Final = ("error", "repeat_last", "cycle")
DEFAULT_CHUNK_CHARS: Final = 16


# --------------------------------------------------------------------------------------------
# The script, as frozen values
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TextPart:
    text: str


@dataclass(frozen=True)
class ThinkingPart:
    thinking: str
    signature: str | None = None


@dataclass(frozen=True)
class RedactedThinkingPart:
    data: str


@dataclass(frozen=True)
class ToolCallPart:
    name: str
    input_json: str  # compact JSON of the input object: a frozen value, decoded on demand
    id: str | None = None

    @property
    def input(self) -> dict[str, Any]:
        return json.loads(self.input_json)


Part = TextPart | ThinkingPart | RedactedThinkingPart | ToolCallPart


@dataclass(frozen=True)
class Delay:
    """Pause ``seconds``: before the response head, or after ``after_events`` stream events."""

    seconds: float
    after_events: int | None = None


@dataclass(frozen=True)
class Drop:
    """Close the connection: mid-stream after ``after_events`` events, or before any response."""

    after_events: int = 0


@dataclass(frozen=True)
class MalformedChunk:
    """Send one SSE event whose data is not JSON (a plain reply gets a truncated JSON body)."""

    after_events: int = 0
    data: str | None = None


@dataclass(frozen=True)
class StreamError:
    """Send the provider's in-stream error event and end the stream there."""

    after_events: int = 0
    error_type: str = "overloaded_error"
    message: str = "Overloaded"


@dataclass(frozen=True)
class HttpError:
    """Answer with an HTTP error status and the provider's error body instead of the reply."""

    status: int
    error_type: str | None = None
    message: str | None = None
    code: str | None = None
    param: str | None = None
    headers: tuple[tuple[str, str], ...] = ()


Fault = Delay | Drop | MalformedChunk | StreamError | HttpError
TERMINAL_FAULTS: Final = (Drop, StreamError, HttpError)


@dataclass(frozen=True)
class RequestView:
    """What a reply's ``match`` may look at."""

    api: Api
    model: str
    stream: bool
    last_user_text: str


@dataclass(frozen=True)
class Match:
    """Which requests a reply may answer; every given field must hold."""

    api: Api | None = None
    model: str | None = None
    stream: bool | None = None
    last_user_text_contains: str | None = None

    def accepts(self, view: RequestView) -> bool:
        return (
            (self.api is None or self.api == view.api)
            and (self.model is None or self.model == view.model)
            and (self.stream is None or self.stream == view.stream)
            and (
                self.last_user_text_contains is None
                or self.last_user_text_contains in view.last_user_text
            )
        )


@dataclass(frozen=True)
class Reply:
    index: int
    content: tuple[Part, ...] = ()
    name: str | None = None
    match: Match = field(default_factory=Match)
    stop_reason: str | None = None
    finish_reason: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    model: str | None = None
    chunk_chars: int = DEFAULT_CHUNK_CHARS
    faults: tuple[Fault, ...] = ()

    def anthropic_stop_reason(self) -> str:
        if self.stop_reason is not None:
            return self.stop_reason
        return "tool_use" if any(isinstance(p, ToolCallPart) for p in self.content) else "end_turn"

    def openai_finish_reason(self) -> str:
        if self.finish_reason is not None:
            return self.finish_reason
        return STOP_TO_FINISH[self.anthropic_stop_reason()]


@dataclass(frozen=True)
class Script:
    replies: tuple[Reply, ...]
    on_exhausted: str = "error"
    ping: bool = True
    reasoning_field: str = "reasoning_content"
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES


# --------------------------------------------------------------------------------------------
# Script parsing: plain JSON -> frozen values, or TckError(INVALID_SCRIPT, pointer)
# --------------------------------------------------------------------------------------------
def _bad(pointer: str, message: str) -> TckError:
    return TckError("INVALID_SCRIPT", message, pointer or "/")


def _obj(value: Any, pointer: str, allowed: Sequence[str], required: Sequence[str] = ()) -> dict:
    if not isinstance(value, dict):
        raise _bad(pointer, "expected an object")
    for key in value:
        if key not in allowed:
            raise _bad(f"{pointer}/{escape(key)}", f"unknown field {key!r}")
    for key in required:
        if key not in value:
            raise _bad(pointer, f"missing required field {key!r}")
    return value


def _str(value: Any, pointer: str, *, nonempty: bool = False) -> str:
    if not isinstance(value, str) or (nonempty and not value):
        raise _bad(pointer, "expected a non-empty string" if nonempty else "expected a string")
    return value


def _int(value: Any, pointer: str, lo: int, hi: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < lo:
        raise _bad(pointer, f"expected an integer >= {lo}")
    if hi is not None and value > hi:
        raise _bad(pointer, f"expected an integer <= {hi}")
    return value


def _enum(value: Any, pointer: str, choices: Sequence[str]) -> str:
    if value not in choices:
        raise _bad(pointer, f"expected one of {', '.join(choices)}")
    return value


def _opt_str(obj: dict, key: str, pointer: str) -> str | None:
    return None if key not in obj else _str(obj[key], f"{pointer}/{key}")


def parse_script(data: Any) -> Script:
    """Validate a script (plain JSON) and freeze it; raises ``TckError("INVALID_SCRIPT")``."""
    top = _obj(
        data,
        "",
        ("$schema", "version", "description", "replies", "on_exhausted", "defaults"),
        ("version", "replies"),
    )
    if top["version"] != 1 or isinstance(top["version"], bool):
        raise _bad("/version", "only version 1 is known")
    if "description" in top:
        _str(top["description"], "/description")
    on_exhausted = _enum(top.get("on_exhausted", "error"), "/on_exhausted", ON_EXHAUSTED)
    defaults = _obj(
        top.get("defaults", {}),
        "/defaults",
        ("chunk_chars", "ping", "reasoning_field", "max_body_bytes", "model"),
    )
    chunk_chars = _int(defaults.get("chunk_chars", DEFAULT_CHUNK_CHARS), "/defaults/chunk_chars", 1)
    ping = defaults.get("ping", True)
    if not isinstance(ping, bool):
        raise _bad("/defaults/ping", "expected a boolean")
    reasoning_field = _enum(
        defaults.get("reasoning_field", "reasoning_content"),
        "/defaults/reasoning_field",
        REASONING_FIELDS,
    )
    max_body = _int(
        defaults.get("max_body_bytes", DEFAULT_MAX_BODY_BYTES), "/defaults/max_body_bytes", 1
    )
    default_model = None
    if "model" in defaults:
        default_model = _str(defaults["model"], "/defaults/model", nonempty=True)
    if not isinstance(top["replies"], list):
        raise _bad("/replies", "expected an array")
    replies = tuple(
        _parse_reply(raw, i, chunk_chars, default_model) for i, raw in enumerate(top["replies"])
    )
    return Script(
        replies=replies,
        on_exhausted=on_exhausted,
        ping=ping,
        reasoning_field=reasoning_field,
        max_body_bytes=max_body,
    )


def _parse_reply(raw: Any, index: int, chunk_chars: int, default_model: str | None) -> Reply:
    at = f"/replies/{index}"
    obj = _obj(
        raw,
        at,
        (
            "name",
            "match",
            "content",
            "stop_reason",
            "finish_reason",
            "usage",
            "model",
            "chunk_chars",
            "faults",
        ),
    )
    content_raw = obj.get("content", [])
    if not isinstance(content_raw, list):
        raise _bad(f"{at}/content", "expected an array")
    parts = tuple(_parse_part(p, f"{at}/content/{k}") for k, p in enumerate(content_raw))
    ids = [p.id for p in parts if isinstance(p, ToolCallPart) and p.id is not None]
    if len(ids) != len(set(ids)):
        raise _bad(f"{at}/content", "tool call ids repeat within one reply")
    match = _parse_match(obj.get("match", {}), f"{at}/match")
    stop_reason = None
    if "stop_reason" in obj:
        stop_reason = _enum(obj["stop_reason"], f"{at}/stop_reason", ANTHROPIC_STOP_REASONS)
    finish_reason = None
    if "finish_reason" in obj:
        finish_reason = _enum(obj["finish_reason"], f"{at}/finish_reason", OPENAI_FINISH_REASONS)
    usage = _obj(obj.get("usage", {}), f"{at}/usage", ("input_tokens", "output_tokens"))
    input_tokens = output_tokens = None
    if "input_tokens" in usage:
        input_tokens = _int(usage["input_tokens"], f"{at}/usage/input_tokens", 0)
    if "output_tokens" in usage:
        output_tokens = _int(usage["output_tokens"], f"{at}/usage/output_tokens", 0)
    model = default_model
    if "model" in obj:
        model = _str(obj["model"], f"{at}/model", nonempty=True)
    chunk = chunk_chars
    if "chunk_chars" in obj:
        chunk = _int(obj["chunk_chars"], f"{at}/chunk_chars", 1)
    faults_raw = obj.get("faults", [])
    if not isinstance(faults_raw, list):
        raise _bad(f"{at}/faults", "expected an array")
    faults = tuple(_parse_fault(f, f"{at}/faults/{k}") for k, f in enumerate(faults_raw))
    terminal = [k for k, f in enumerate(faults) if isinstance(f, TERMINAL_FAULTS)]
    if len(terminal) > 1:
        raise _bad(
            f"{at}/faults/{terminal[1]}",
            "at most one terminal fault (drop, stream_error, http_error) per reply",
        )
    return Reply(
        index=index,
        content=parts,
        name=_opt_str(obj, "name", at),
        match=match,
        stop_reason=stop_reason,
        finish_reason=finish_reason,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        model=model,
        chunk_chars=chunk,
        faults=faults,
    )


def _parse_part(raw: Any, at: str) -> Part:
    if not isinstance(raw, dict) or "type" not in raw:
        raise _bad(at, "expected an object with a type")
    kind = raw["type"]
    if kind == "text":
        obj = _obj(raw, at, ("type", "text"), ("text",))
        return TextPart(_str(obj["text"], f"{at}/text"))
    if kind == "thinking":
        obj = _obj(raw, at, ("type", "thinking", "signature"), ("thinking",))
        signature = None
        if "signature" in obj:
            signature = _str(obj["signature"], f"{at}/signature", nonempty=True)
        return ThinkingPart(_str(obj["thinking"], f"{at}/thinking"), signature)
    if kind == "redacted_thinking":
        obj = _obj(raw, at, ("type", "data"), ("data",))
        return RedactedThinkingPart(_str(obj["data"], f"{at}/data", nonempty=True))
    if kind == "tool_call":
        obj = _obj(raw, at, ("type", "name", "input", "id"), ("name",))
        tool_input = obj.get("input", {})
        if not isinstance(tool_input, dict):
            raise _bad(f"{at}/input", "expected an object (a tool's input is a JSON object)")
        tool_id = None
        if "id" in obj:
            tool_id = _str(obj["id"], f"{at}/id", nonempty=True)
        return ToolCallPart(
            name=_str(obj["name"], f"{at}/name", nonempty=True),
            input_json=json.dumps(tool_input, ensure_ascii=False, separators=(",", ":")),
            id=tool_id,
        )
    raise _bad(f"{at}/type", "expected text, thinking, redacted_thinking or tool_call")


def _parse_match(raw: Any, at: str) -> Match:
    obj = _obj(raw, at, ("api", "model", "stream", "last_user_text_contains"))
    api = None if "api" not in obj else _enum(obj["api"], f"{at}/api", (ANTHROPIC, OPENAI))
    stream = obj.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise _bad(f"{at}/stream", "expected a boolean")
    return Match(
        api=api,  # type: ignore[arg-type]
        model=_opt_str(obj, "model", at),
        stream=stream,
        last_user_text_contains=_opt_str(obj, "last_user_text_contains", at),
    )


def _after(obj: dict, at: str) -> int:
    return _int(obj.get("after_events", 0), f"{at}/after_events", 0)


def _parse_fault(raw: Any, at: str) -> Fault:
    if not isinstance(raw, dict) or "kind" not in raw:
        raise _bad(at, "expected an object with a kind")
    kind = raw["kind"]
    if kind == "delay":
        obj = _obj(raw, at, ("kind", "seconds", "after_events"), ("seconds",))
        seconds = obj["seconds"]
        if (
            isinstance(seconds, bool)
            or not isinstance(seconds, int | float)
            or not math.isfinite(seconds)
            or not 0 <= seconds <= 600
        ):
            raise _bad(f"{at}/seconds", "expected a number of seconds from 0 to 600")
        after = None if "after_events" not in obj else _after(obj, at)
        return Delay(float(seconds), after)
    if kind == "drop":
        obj = _obj(raw, at, ("kind", "after_events"))
        return Drop(_after(obj, at))
    if kind == "malformed_chunk":
        obj = _obj(raw, at, ("kind", "after_events", "data"))
        data = _opt_str(obj, "data", at)
        if data is not None and is_json(data):
            raise _bad(f"{at}/data", "a malformed chunk's data must not be valid JSON")
        return MalformedChunk(_after(obj, at), data)
    if kind == "stream_error":
        obj = _obj(raw, at, ("kind", "after_events", "error_type", "message"))
        error_type = obj.get("error_type", "overloaded_error")
        _enum(error_type, f"{at}/error_type", tuple(ANTHROPIC_ERROR_STATUS))
        return StreamError(
            _after(obj, at), error_type, _str(obj.get("message", "Overloaded"), f"{at}/message")
        )
    if kind == "http_error":
        obj = _obj(
            raw,
            at,
            ("kind", "status", "error_type", "message", "code", "param", "headers"),
            ("status",),
        )
        raw_headers = obj.get("headers", {})
        headers = _obj(
            raw_headers,
            f"{at}/headers",
            tuple(raw_headers) if isinstance(raw_headers, dict) else (),
        )
        for name, value in headers.items():
            if not _is_token(name) or name.lower() in _RESERVED_HEADERS:
                raise _bad(f"{at}/headers/{escape(name)}", "not a header the script may set")
            if not isinstance(value, str) or any(c in value for c in "\r\n\0"):
                raise _bad(f"{at}/headers/{escape(name)}", "expected a one-line string")
        return HttpError(
            status=_int(obj["status"], f"{at}/status", 400, 599),
            error_type=_opt_str(obj, "error_type", at),
            message=_opt_str(obj, "message", at),
            code=_opt_str(obj, "code", at),
            param=_opt_str(obj, "param", at),
            headers=tuple((k.lower(), v) for k, v in headers.items()),
        )
    raise _bad(f"{at}/kind", "expected delay, drop, malformed_chunk, stream_error or http_error")


_RESERVED_HEADERS: Final = frozenset(
    {"content-length", "transfer-encoding", "content-type", "connection"}
)
_TOKEN_CHARS: Final = frozenset(
    "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
)


def _is_token(name: str) -> bool:
    return bool(name) and all(c in _TOKEN_CHARS for c in name)


def is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
