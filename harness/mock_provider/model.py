"""The scripted mock provider, sans-I/O: an HTTP request in, a plan of bytes to send out.

An agent can be exercised and audited offline against this stand-in for the Anthropic Messages
API (``POST /v1/messages``, also on DeepSeek's ``/anthropic/v1/messages``) and the OpenAI Chat
Completions API (``POST /v1/chat/completions``, also DeepSeek's ``/chat/completions``). Replies
come from a script (``vectors/schema/provider-script.schema.json``): text, thinking and tool
calls, in plain JSON or as a Server-Sent Events stream shaped as each provider shapes it, plus
faults on demand (delay, dropped connection, malformed chunk, in-stream error, HTTP error).

Nothing here touches a socket, a file or a clock. :class:`MockProvider` maps a
(:class:`ProviderState`, :class:`HttpRequest`) pair to a new state and a :class:`Plan`: a tuple
of steps (send the head, send bytes, pause, abort, finish) that the thin HTTP shell in
:mod:`harness.mock_provider.server` carries out. The OpenAPI document is handed in as
data; its request schemas are the only structural check the mock makes, so the published
document and the server's behaviour cannot drift apart.

Suite decisions (see docs/MOCK_PROVIDER.md): the mock checks structure only (conversation rules
are the audit's business); unknown fields are accepted; no API key is required; a request the
script has no reply for is answered 400 ``invalid_request_error``; thinking is rendered on the
Chat Completions side as DeepSeek's ``reasoning_content`` unless the script says otherwise.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal

import jsonschema
import referencing
import referencing.jsonschema

from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.wire.dialects import ANTHROPIC, OPENAI
from agent_tck.reference_impl.wire.sse import decode_sse, encode_sse

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
            raise _bad(f"{pointer}/{_esc(key)}", f"unknown field {key!r}")
    for key in required:
        if key not in value:
            raise _bad(pointer, f"missing required field {key!r}")
    return value


def _esc(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


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
        if data is not None and _is_json(data):
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
                raise _bad(f"{at}/headers/{_esc(name)}", "not a header the script may set")
            if not isinstance(value, str) or any(c in value for c in "\r\n\0"):
                raise _bad(f"{at}/headers/{_esc(name)}", "expected a one-line string")
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


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------------------------
# Requests, state and plans
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class HttpRequest:
    """One request as the shell received it. Header names are lower-case."""

    method: str
    target: str
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    #: Set by a shell that refused to read a body larger than any script allows: its size.
    unread_body_size: int | None = None
    #: Set by a shell that could not read the body's HTTP framing (bad Content-Length, bad
    #: chunk): what was wrong. The core answers 400 in the provider's shape.
    framing_error: str | None = None

    @property
    def body_size(self) -> int:
        return len(self.body) if self.unread_body_size is None else self.unread_body_size

    @property
    def path(self) -> str:
        path = self.target.split("?", 1)[0].split("#", 1)[0]
        if path.startswith(("http://", "https://")):  # absolute-form (a forward proxy's request)
            rest = path.split("://", 1)[1]
            path = "/" + rest.split("/", 1)[1] if "/" in rest else "/"
        return path

    def header(self, name: str) -> str | None:
        name = name.lower()
        for key, value in self.headers:
            if key == name:
                return value
        return None


@dataclass(frozen=True)
class RequestView:
    """What a reply's ``match`` may look at."""

    api: Api
    model: str
    stream: bool
    last_user_text: str


@dataclass(frozen=True)
class ProviderState:
    """Which replies were used. Requests answered so far number the ids of the next reply."""

    consumed: frozenset[int] = frozenset()
    requests: int = 0
    last_reply: int | None = None


@dataclass(frozen=True)
class SendHead:
    status: int
    headers: tuple[tuple[str, str], ...]
    chunked: bool = False  # a stream: the body goes out in HTTP chunks, one per step


@dataclass(frozen=True)
class SendBytes:
    data: bytes


@dataclass(frozen=True)
class Pause:
    seconds: float


@dataclass(frozen=True)
class Abort:
    """Close the connection now: no further bytes, no terminating chunk."""


@dataclass(frozen=True)
class Finish:
    """The response is complete (the shell ends a chunked body with its last chunk)."""


Step = SendHead | SendBytes | Pause | Abort | Finish


@dataclass(frozen=True)
class Exchange:
    """A one-line record of what the mock did with one request."""

    ordinal: int
    method: str
    path: str
    api: Api | None
    status: int | None  # None: the connection was dropped before any response
    stream: bool
    reply: int | None  # index of the script reply used
    note: str = ""


@dataclass(frozen=True)
class Plan:
    steps: tuple[Step, ...]
    exchange: Exchange

    @property
    def status(self) -> int | None:
        for step in self.steps:
            if isinstance(step, SendHead):
                return step.status
        return None


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
class _Problem:
    """A rejection before any reply is chosen, in provider-neutral terms."""

    status: int
    message: str
    param: str | None = None  # OpenAI's dotted/bracketed parameter path
    code: str | None = None  # OpenAI's code
    headers: tuple[tuple[str, str], ...] = ()


def _error_plan(
    api: Api, problem: _Problem, request_id: str, head_only: bool = False
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
    return _json_steps(problem.status, body, (id_header, *problem.headers), head_only)


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _json_steps(
    status: int,
    value: Any,
    headers: tuple[tuple[str, str], ...] = (),
    head_only: bool = False,
) -> tuple[Step, ...]:
    data = value if isinstance(value, bytes) else _json_bytes(value)
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


def _anthropic_loc(path: Sequence[Any]) -> str:
    return ".".join(str(p) for p in path) or "body"


def _openai_param(path: Sequence[Any]) -> str | None:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or None


def _describe(error: jsonschema.ValidationError) -> tuple[list[Any], str, str]:
    """(path, human message, OpenAI code) for one schema violation."""
    path = list(error.absolute_path)
    keyword = error.validator
    instance = error.instance
    if keyword == "required":
        missing = next(
            (k for k in error.validator_value if isinstance(instance, dict) and k not in instance),
            "?",
        )
        return [*path, missing], "Field required", "missing_required_parameter"
    if keyword == "type":
        wanted = error.validator_value
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
        return path, f"must be {bound} {error.validator_value}", f"{kind}_{side}_value"
    if keyword == "enum":
        allowed = ", ".join(repr(v) for v in error.validator_value)
        return path, f"invalid value; supported values are {allowed}", "invalid_value"
    if keyword == "minLength":
        return path, "must not be empty", "string_below_min_length"
    if keyword in {"anyOf", "oneOf"}:
        return path, f"unexpected {_TYPE_WORDS[_json_type(instance)]}", "invalid_type"
    return path, f"invalid value ({keyword})", "invalid_value"


# --------------------------------------------------------------------------------------------
# Rendering a reply: Anthropic Messages
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RenderContext:
    """Per-request values a reply is rendered with (all derived from the request and state)."""

    ordinal: int
    model: str
    input_tokens: int
    created: int
    include_usage: bool = False


def _chunks(text: str, size: int) -> Iterator[str]:
    for start in range(0, len(text), size):
        yield text[start : start + size]


def _estimate_tokens(chars: int) -> int:
    return max(1, math.ceil(chars / 4))


def _output_tokens(reply: Reply) -> int:
    if reply.output_tokens is not None:
        return reply.output_tokens
    chars = 0
    for part in reply.content:
        if isinstance(part, TextPart):
            chars += len(part.text)
        elif isinstance(part, ThinkingPart):
            chars += len(part.thinking)
        elif isinstance(part, ToolCallPart):
            chars += len(part.name) + len(part.input_json)
    return _estimate_tokens(chars)


def _signature(part: ThinkingPart) -> str:
    if part.signature is not None:
        return part.signature
    digest = hashlib.sha256(("mock-signature:" + part.thinking).encode("utf-8")).digest()
    return base64.b64encode(digest).decode("ascii")


def _tool_id(api: Api, part: ToolCallPart, ctx: RenderContext, k: int) -> str:
    if part.id is not None:
        return part.id
    prefix = "toolu_mock" if api == ANTHROPIC else "call_mock"
    return f"{prefix}_{ctx.ordinal:06d}_{k}"


def anthropic_message(reply: Reply, ctx: RenderContext) -> dict[str, Any]:
    """The non-streaming Messages response for a reply."""
    content: list[dict[str, Any]] = []
    for k, part in enumerate(reply.content):
        content.append(_anthropic_block(part, ctx, k, final=True))
    return {
        "id": f"msg_mock_{ctx.ordinal:06d}",
        "type": "message",
        "role": "assistant",
        "model": reply.model or ctx.model,
        "content": content,
        "stop_reason": reply.anthropic_stop_reason(),
        "stop_sequence": None,
        "usage": {
            "input_tokens": _input_tokens(reply, ctx),
            "output_tokens": _output_tokens(reply),
        },
    }


def _input_tokens(reply: Reply, ctx: RenderContext) -> int:
    return reply.input_tokens if reply.input_tokens is not None else ctx.input_tokens


def _anthropic_block(part: Part, ctx: RenderContext, k: int, *, final: bool) -> dict[str, Any]:
    """A content block: complete (``final``) or as content_block_start opens it."""
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text if final else ""}
    if isinstance(part, ThinkingPart):
        return {
            "type": "thinking",
            "thinking": part.thinking if final else "",
            "signature": _signature(part) if final else "",
        }
    if isinstance(part, RedactedThinkingPart):
        return {"type": "redacted_thinking", "data": part.data}
    return {
        "type": "tool_use",
        "id": _tool_id(ANTHROPIC, part, ctx, k),
        "name": part.name,
        "input": part.input if final else {},
    }


def anthropic_stream_events(
    reply: Reply, ctx: RenderContext, *, ping: bool
) -> list[dict[str, Any]]:
    """The Messages SSE events for a reply, in order (each is one ``event:``/``data:`` frame)."""
    message = anthropic_message(reply, ctx)
    start = dict(message, content=[], stop_reason=None, stop_sequence=None)
    start["usage"] = {"input_tokens": message["usage"]["input_tokens"], "output_tokens": 1}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    if ping:
        events.append({"type": "ping"})
    size = reply.chunk_chars
    for k, part in enumerate(reply.content):
        events.append(
            {
                "type": "content_block_start",
                "index": k,
                "content_block": _anthropic_block(part, ctx, k, final=False),
            }
        )
        deltas: list[dict[str, Any]] = []
        if isinstance(part, TextPart):
            deltas = [{"type": "text_delta", "text": c} for c in _chunks(part.text, size)]
        elif isinstance(part, ThinkingPart):
            deltas = [
                {"type": "thinking_delta", "thinking": c} for c in _chunks(part.thinking, size)
            ]
            deltas.append({"type": "signature_delta", "signature": _signature(part)})
        elif isinstance(part, ToolCallPart):
            # The real API opens a tool's input with an empty partial_json delta.
            deltas = [{"type": "input_json_delta", "partial_json": ""}]
            deltas += [
                {"type": "input_json_delta", "partial_json": c}
                for c in _chunks(part.input_json, size)
            ]
        events.extend({"type": "content_block_delta", "index": k, "delta": d} for d in deltas)
        events.append({"type": "content_block_stop", "index": k})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": message["usage"]["output_tokens"]},
        }
    )
    events.append({"type": "message_stop"})
    return events


def _anthropic_frame(event: Mapping[str, Any]) -> bytes:
    # The event name always equals the data's type (clients such as DSH check that they agree).
    return encode_sse(str(event["type"]), json.dumps(event, ensure_ascii=False))


# --------------------------------------------------------------------------------------------
# Rendering a reply: OpenAI Chat Completions
# --------------------------------------------------------------------------------------------
def openai_completion(reply: Reply, ctx: RenderContext, reasoning_field: str) -> dict[str, Any]:
    """The non-streaming chat.completion object for a reply."""
    texts = [p.text for p in reply.content if isinstance(p, TextPart)]
    thoughts = [p.thinking for p in reply.content if isinstance(p, ThinkingPart)]
    message: dict[str, Any] = {
        "role": "assistant",
        "content": "".join(texts) if texts else None,
        "refusal": None,
    }
    if "".join(thoughts) and reasoning_field != "omit":  # as streamed: no deltas, no field
        message[reasoning_field] = "".join(thoughts)
    calls = [
        {
            "id": _tool_id(OPENAI, p, ctx, k),
            "type": "function",
            "function": {"name": p.name, "arguments": p.input_json},
        }
        for k, p in enumerate(reply.content)
        if isinstance(p, ToolCallPart)
    ]
    if calls:
        message["tool_calls"] = calls
    prompt, completion = _input_tokens(reply, ctx), _output_tokens(reply)
    return {
        "id": f"chatcmpl-mock-{ctx.ordinal:06d}",
        "object": "chat.completion",
        "created": ctx.created,
        "model": reply.model or ctx.model,
        "system_fingerprint": None,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": reply.openai_finish_reason(),
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


def openai_stream_chunks(
    reply: Reply, ctx: RenderContext, reasoning_field: str
) -> list[dict[str, Any]]:
    """The chat.completion.chunk objects for a reply, in order (``data: [DONE]`` follows)."""
    base = {
        "id": f"chatcmpl-mock-{ctx.ordinal:06d}",
        "object": "chat.completion.chunk",
        "created": ctx.created,
        "model": reply.model or ctx.model,
        "system_fingerprint": None,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return dict(base, choices=[choice])

    size = reply.chunk_chars
    # The opening delta carries the role; content starts as "" when text follows, else null.
    has_text = any(isinstance(p, TextPart) for p in reply.content)
    chunks = [chunk({"role": "assistant", "content": "" if has_text else None})]
    call_index = 0
    for k, part in enumerate(reply.content):
        if isinstance(part, TextPart):
            chunks += [chunk({"content": c}) for c in _chunks(part.text, size)]
        elif isinstance(part, ThinkingPart) and reasoning_field != "omit":
            chunks += [chunk({reasoning_field: c}) for c in _chunks(part.thinking, size)]
        elif isinstance(part, ToolCallPart):
            opening = {
                "index": call_index,
                "id": _tool_id(OPENAI, part, ctx, k),
                "type": "function",
                "function": {"name": part.name, "arguments": ""},
            }
            chunks.append(chunk({"tool_calls": [opening]}))
            chunks += [
                chunk({"tool_calls": [{"index": call_index, "function": {"arguments": c}}]})
                for c in _chunks(part.input_json, size)
            ]
            call_index += 1
    chunks.append(chunk({}, reply.openai_finish_reason()))
    if ctx.include_usage:
        prompt, completion = _input_tokens(reply, ctx), _output_tokens(reply)
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        chunks.append(dict(base, choices=[], usage=usage))
    return chunks


def _openai_frame(chunk: Mapping[str, Any]) -> bytes:
    return encode_sse(None, json.dumps(chunk, ensure_ascii=False))


OPENAI_DONE: Final = encode_sse(None, "[DONE]")


# --------------------------------------------------------------------------------------------
# The provider: (state, request) -> (state, plan)
# --------------------------------------------------------------------------------------------
def _api_for_unknown_route(request: HttpRequest) -> Api:
    """The error shape for a path that belongs to neither provider (decision: by headers)."""
    if request.header("anthropic-version") is not None or request.header("x-api-key") is not None:
        return ANTHROPIC
    return OPENAI


def _last_user_text(body: Mapping[str, Any]) -> str:
    messages = body.get("messages") or []
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        return "\n".join(_texts(message.get("content")))
    return ""


def _texts(content: Any) -> Iterator[str]:
    """Text of a message's content, including text inside tool results (Anthropic)."""
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            if isinstance(block.get("text"), str):
                yield block["text"]
            elif block.get("type") == "tool_result":
                yield from _texts(block.get("content"))


_SURROGATE_ESCAPE: Final = re.compile(rb"\\u[dD][89a-fA-F]")


def _has_lone_surrogate(value: Any) -> bool:
    """True when a string anywhere in ``value`` holds an unpaired UTF-16 surrogate.

    Python's JSON decoder accepts ``"\\ud800"``; RFC 8259 text cannot carry it, real providers
    refuse it, and echoing it back would make the mock's own output invalid.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class MockProvider:
    """A script plus the OpenAPI document: pure, immutable once built, safe to share.

    ``respond(state, request, created=...)`` returns the next state and the plan for the
    request. ``created`` is the Unix time the shell read from its clock (Chat Completions
    objects carry it); the core never reads a clock.
    """

    def __init__(self, script: Script, openapi: Mapping[str, Any]) -> None:
        self.script = script
        self.openapi_bytes = json.dumps(openapi, indent=2, ensure_ascii=False).encode("utf-8")
        resource = referencing.jsonschema.DRAFT202012.create_resource(dict(openapi))
        registry = referencing.Registry().with_resource("urn:mock-provider-openapi", resource)
        self._validators: dict[str, jsonschema.Draft202012Validator] = {}
        for _api, name in ROUTES.values():
            if name in self._validators:
                continue
            if name not in openapi.get("components", {}).get("schemas", {}):
                raise ValueError(f"the OpenAPI document has no components.schemas.{name}")
            self._validators[name] = jsonschema.Draft202012Validator(
                {"$ref": f"urn:mock-provider-openapi#/components/schemas/{name}"},
                registry=registry,
            )

    # -- the whole request path, one branch per outcome ------------------------------------
    def respond(
        self, state: ProviderState, request: HttpRequest, *, created: int = 0
    ) -> tuple[ProviderState, Plan]:
        ordinal = state.requests + 1
        state = replace(state, requests=ordinal)
        path = request.path
        method = request.method.upper()
        head_only = method == "HEAD"
        rid = f"req_mock_{ordinal:06d}"

        def done(
            api: Api | None,
            steps: tuple[Step, ...],
            *,
            stream: bool = False,
            reply: int | None = None,
            note: str = "",
        ) -> Plan:
            status = next((s.status for s in steps if isinstance(s, SendHead)), None)
            exchange = Exchange(ordinal, method, path, api, status, stream, reply, note)
            return Plan(steps, exchange)

        if path == OPENAPI_ROUTE:
            if method not in {"GET", "HEAD"}:
                problem = _Problem(
                    405,
                    f"{method} is not allowed on {path}; use GET",
                    headers=(("allow", "GET, HEAD"),),
                )
                steps = _error_plan(_api_for_unknown_route(request), problem, rid, head_only)
                return state, done(None, steps, note="method not allowed")
            return state, done(None, _json_steps(200, self.openapi_bytes, (), head_only))

        route = ROUTES.get(path)
        if route is None:
            api = _api_for_unknown_route(request)
            msg = "Not Found" if api == ANTHROPIC else f"Invalid URL ({method} {path})"
            return state, done(
                api, _error_plan(api, _Problem(404, msg), rid, head_only), note="no such route"
            )
        api, schema_name = route

        if method != "POST":
            problem = _Problem(
                405,
                f"Method Not Allowed: {method} {path} accepts POST only",
                headers=(("allow", "POST"),),
            )
            return state, done(
                api, _error_plan(api, problem, rid, head_only), note="method not allowed"
            )

        if request.framing_error is not None:
            problem = _Problem(400, f"The request body could not be read: {request.framing_error}")
            return state, done(api, _error_plan(api, problem, rid), note="bad framing")

        limit = self.script.max_body_bytes
        if request.body_size > limit:
            problem = _Problem(
                413, f"Request body of {request.body_size} bytes exceeds the limit of {limit} bytes"
            )
            return state, done(api, _error_plan(api, problem, rid), note="body too large")

        try:
            body = json.loads(request.body.decode("utf-8"), parse_constant=_reject_constant)
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            detail = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
            problem = _Problem(400, f"The request body is not valid JSON ({detail})")
            return state, done(api, _error_plan(api, problem, rid), note="body not JSON")

        if _SURROGATE_ESCAPE.search(request.body) and _has_lone_surrogate(body):
            problem = _Problem(400, "The request body is not valid JSON (an unpaired surrogate)")
            return state, done(api, _error_plan(api, problem, rid), note="body not JSON")

        problem = self._validate(api, schema_name, body)
        if problem is not None:
            return state, done(api, _error_plan(api, problem, rid), note="request schema")

        stream = body.get("stream") is True
        view = RequestView(api, body["model"], stream, _last_user_text(body))
        picked = self._pick(state, view)
        if picked is None:
            problem = _Problem(
                400,
                f"mock provider: the script has no reply left for request #{ordinal} "
                f"({api}, model {body['model']!r}, stream={str(stream).lower()}; "
                f"on_exhausted is {self.script.on_exhausted!r})",
            )
            steps = _error_plan(api, problem, rid)
            return state, done(api, steps, stream=stream, note="script exhausted")
        reply, state = picked
        include_usage = bool(
            api == OPENAI
            and isinstance(body.get("stream_options"), dict)
            and body["stream_options"].get("include_usage") is True
        )
        ctx = RenderContext(
            ordinal=ordinal,
            model=body["model"],
            input_tokens=_estimate_tokens(len(request.body)),
            created=created,
            include_usage=include_usage,
        )
        steps = self._render(api, reply, ctx, stream, rid)
        return state, done(api, steps, stream=stream, reply=reply.index, note=reply.name or "")

    def internal_error(self, request: HttpRequest, ordinal: int) -> tuple[Step, ...]:
        """A provider-shaped 500 for a shell whose call to :meth:`respond` failed (a bug)."""
        route = ROUTES.get(request.path)
        api = route[0] if route is not None else _api_for_unknown_route(request)
        problem = _Problem(500, "mock provider: internal error (see the server log)")
        return _error_plan(api, problem, f"req_mock_{ordinal:06d}")

    def _validate(self, api: Api, schema_name: str, body: Any) -> _Problem | None:
        validator = self._validators[schema_name]
        try:
            error = jsonschema.exceptions.best_match(validator.iter_errors(body))
        except RecursionError:
            return _Problem(400, "The request body is nested too deeply")
        if error is None:
            return None
        path, text, code = _describe(error)
        if api == ANTHROPIC:
            return _Problem(400, f"{_anthropic_loc(path)}: {text}")
        param = _openai_param(path)
        where = f"'{param}'" if param else "the request body"
        return _Problem(400, f"Invalid {where}: {text}.", param=param, code=code)

    def _pick(self, state: ProviderState, view: RequestView) -> tuple[Reply, ProviderState] | None:
        replies = self.script.replies
        for reply in replies:
            if reply.index not in state.consumed and reply.match.accepts(view):
                consumed = state.consumed | {reply.index}
                return reply, replace(state, consumed=consumed, last_reply=reply.index)
        policy = self.script.on_exhausted
        if policy == "repeat_last" and state.last_reply is not None:
            return replies[state.last_reply], state
        if policy == "cycle":
            for reply in replies:
                if reply.match.accepts(view):
                    fresh = frozenset({reply.index})
                    return reply, replace(state, consumed=fresh, last_reply=reply.index)
        return None

    # -- rendering, faults woven in ---------------------------------------------------------
    def _render(
        self, api: Api, reply: Reply, ctx: RenderContext, stream: bool, rid: str
    ) -> tuple[Step, ...]:
        id_header = ("request-id" if api == ANTHROPIC else "x-request-id", rid)
        lead = tuple(
            Pause(f.seconds)
            for f in reply.faults
            if isinstance(f, Delay) and f.after_events is None
        )
        http_error = next((f for f in reply.faults if isinstance(f, HttpError)), None)
        if http_error is not None:
            return lead + self._http_error_steps(api, http_error, rid)
        if not stream:
            return lead + self._plain_steps(api, reply, ctx, id_header, rid)
        if api == ANTHROPIC:
            frames = [
                _anthropic_frame(e)
                for e in anthropic_stream_events(reply, ctx, ping=self.script.ping)
            ]
        else:
            frames = [
                _openai_frame(c)
                for c in openai_stream_chunks(reply, ctx, self.script.reasoning_field)
            ]
            frames.append(OPENAI_DONE)
        head = SendHead(
            200,
            (
                ("content-type", "text/event-stream; charset=utf-8"),
                ("cache-control", "no-cache"),
                id_header,
            ),
            chunked=True,
        )
        return (*lead, head, *self._weave(api, frames, reply.faults))

    def _plain_steps(
        self, api: Api, reply: Reply, ctx: RenderContext, id_header: tuple[str, str], rid: str
    ) -> tuple[Step, ...]:
        faults = reply.faults
        if any(isinstance(f, Drop) for f in faults):
            return (Abort(),)  # a plain request's drop: the connection closes with no response
        stream_error = next((f for f in faults if isinstance(f, StreamError)), None)
        if stream_error is not None:  # on a plain request it is the matching HTTP error
            status = ANTHROPIC_ERROR_STATUS[stream_error.error_type]
            as_http = HttpError(status, stream_error.error_type, stream_error.message)
            return self._http_error_steps(api, as_http, rid)
        if api == ANTHROPIC:
            data = _json_bytes(anthropic_message(reply, ctx))
        else:
            data = _json_bytes(openai_completion(reply, ctx, self.script.reasoning_field))
        if any(isinstance(f, MalformedChunk) for f in faults):
            data = data[: max(1, len(data) // 2)]  # a 200 whose JSON body is cut short
        return _json_steps(200, data, (id_header,))

    def _http_error_steps(self, api: Api, fault: HttpError, rid: str) -> tuple[Step, ...]:
        status = fault.status
        if api == ANTHROPIC:
            etype = fault.error_type or ANTHROPIC_ERROR_TYPES.get(
                status, "api_error" if status >= 500 else "invalid_request_error"
            )
            message = fault.message or f"mock provider: scripted {status} ({etype})"
            body = anthropic_error_body(etype, message, rid)
            headers = (("request-id", rid), *fault.headers)
        else:
            default_type, default_code = OPENAI_ERROR_TYPES.get(
                status, ("server_error" if status >= 500 else "invalid_request_error", None)
            )
            etype = fault.error_type or default_type
            message = fault.message or f"mock provider: scripted {status} ({etype})"
            body = openai_error_body(message, etype, fault.param, fault.code or default_code)
            headers = (("x-request-id", rid), *fault.headers)
        return _json_steps(status, body, headers)

    def _weave(self, api: Api, frames: list[bytes], faults: tuple[Fault, ...]) -> tuple[Step, ...]:
        """Interleave stream faults with the frames: a fault at N acts once N frames are out.

        An ``after_events`` beyond the last frame means "after the last frame" (a drop there
        leaves a complete stream whose HTTP body never ends).
        """
        n = len(frames)
        woven = [
            f
            for f in faults
            if isinstance(f, Drop | MalformedChunk | StreamError)
            or (isinstance(f, Delay) and f.after_events is not None)
        ]
        steps: list[Step] = []
        for i in range(n + 1):
            for fault in woven:
                if min(fault.after_events or 0, n) != i:
                    continue
                if isinstance(fault, Delay):
                    steps.append(Pause(fault.seconds))
                elif isinstance(fault, MalformedChunk):
                    spoiled = frames[min(i, n - 1)]
                    steps.append(SendBytes(self._malformed(api, spoiled, fault)))
                elif isinstance(fault, Drop):
                    return (*steps, Abort())
                elif isinstance(fault, StreamError):
                    return (*steps, SendBytes(self._stream_error_frame(api, fault)), Finish())
            if i < n:
                steps.append(SendBytes(frames[i]))
        return (*steps, Finish())

    @staticmethod
    def _malformed(api: Api, next_frame: bytes, fault: MalformedChunk) -> bytes:
        frames = decode_sse(next_frame)  # the one SSE codec (reference_impl.wire.sse)
        event, data = (frames[0].event, frames[0].data) if frames else ("message", "{}")
        if fault.data is not None:
            bad = fault.data
        else:
            bad = data[: max(1, len(data) // 2)]
            if _is_json(bad):  # e.g. "[DONE]" halves to "[DO"; keep it certainly not JSON
                bad = "{" + bad
        return encode_sse(event if api == ANTHROPIC else None, bad)

    @staticmethod
    def _stream_error_frame(api: Api, fault: StreamError) -> bytes:
        if api == ANTHROPIC:
            body = anthropic_error_body(fault.error_type, fault.message)
            return encode_sse("error", json.dumps(body, ensure_ascii=False))
        status = ANTHROPIC_ERROR_STATUS[fault.error_type]
        etype, code = OPENAI_ERROR_TYPES.get(
            status, ("server_error" if status >= 500 else "invalid_request_error", None)
        )
        return encode_sse(None, json.dumps(openai_error_body(fault.message, etype, None, code)))
