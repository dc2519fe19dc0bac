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
document and the server's behaviour cannot drift apart. The script and its parser are
:mod:`~harness.mock_provider.script`, the values of a request and a plan
:mod:`~harness.mock_provider.plan`, error replies :mod:`~harness.mock_provider.problems`, and
the rendering of a reply :mod:`~harness.mock_provider.render`; this module is the provider
itself, one method per stage of a request.

Suite decisions (see docs/MOCK_PROVIDER.md): the mock checks structure only (conversation rules
are the audit's business); unknown fields are accepted; no API key is required; a request the
script has no reply for is answered 400 ``invalid_request_error``; thinking is rendered on the
Chat Completions side as DeepSeek's ``reasoning_content`` unless the script says otherwise.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

import jsonschema
import referencing
import referencing.jsonschema

from agent_tck.harness.mock_provider.plan import (
    Abort,
    Exchange,
    Finish,
    HttpRequest,
    Pause,
    Plan,
    ProviderState,
    SendBytes,
    SendHead,
    Step,
)
from agent_tck.harness.mock_provider.problems import (
    Problem,
    anthropic_error_body,
    anthropic_loc,
    describe,
    error_plan,
    json_bytes,
    json_steps,
    openai_error_body,
    openai_param,
)
from agent_tck.harness.mock_provider.render import (
    OPENAI_DONE,
    RenderContext,
    anthropic_frame,
    anthropic_message,
    anthropic_stream_events,
    estimate_tokens,
    openai_completion,
    openai_frame,
    openai_stream_chunks,
)
from agent_tck.harness.mock_provider.script import (
    ANTHROPIC_ERROR_STATUS,
    ANTHROPIC_ERROR_TYPES,
    OPENAI_ERROR_TYPES,
    OPENAPI_ROUTE,
    ROUTES,
    Api,
    Delay,
    Drop,
    Fault,
    HttpError,
    MalformedChunk,
    Reply,
    RequestView,
    Script,
    StreamError,
    is_json,
)
from agent_tck.reference_impl.wire.dialects import ANTHROPIC, OPENAI
from agent_tck.reference_impl.wire.sse import decode_sse, encode_sse


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


@dataclass(frozen=True)
class _Call:
    """One request on its way through :meth:`MockProvider.respond`."""

    ordinal: int
    method: str
    path: str

    @property
    def head_only(self) -> bool:
        return self.method == "HEAD"

    @property
    def rid(self) -> str:
        return f"req_mock_{self.ordinal:06d}"

    def done(
        self,
        api: Api | None,
        steps: tuple[Step, ...],
        *,
        stream: bool = False,
        reply: int | None = None,
        note: str = "",
    ) -> Plan:
        """The plan: the steps, and the exchange the shell records for them."""
        status = next((s.status for s in steps if isinstance(s, SendHead)), None)
        exchange = Exchange(self.ordinal, self.method, self.path, api, status, stream, reply, note)
        return Plan(steps, exchange)


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
        call = _Call(ordinal, request.method.upper(), request.path)
        if call.path == OPENAPI_ROUTE:
            return state, self._openapi(call, request)
        checked = self._check(call, request)
        if isinstance(checked, Plan):
            return state, checked
        api, body = checked
        return self._answer(state, call, request, api=api, body=body, created=created)

    def _openapi(self, call: _Call, request: HttpRequest) -> Plan:
        """``GET /openapi.json``: the document; another method is refused."""
        if call.method not in {"GET", "HEAD"}:
            problem = Problem(
                405,
                f"{call.method} is not allowed on {call.path}; use GET",
                headers=(("allow", "GET, HEAD"),),
            )
            steps = error_plan(_api_for_unknown_route(request), problem, call.rid,
                               call.head_only)
            return call.done(None, steps, note="method not allowed")
        return call.done(None, json_steps(200, self.openapi_bytes, (), call.head_only))

    def _check(self, call: _Call, request: HttpRequest) -> Plan | tuple[Api, Any]:
        """The request's route, method, framing, size, JSON and schema: the API and the parsed
        body, or the plan of the error reply for the first check that fails."""
        path, method, rid = call.path, call.method, call.rid
        route = ROUTES.get(path)
        if route is None:
            api = _api_for_unknown_route(request)
            msg = "Not Found" if api == ANTHROPIC else f"Invalid URL ({method} {path})"
            return call.done(
                api, error_plan(api, Problem(404, msg), rid, call.head_only), note="no such route"
            )
        api, schema_name = route

        if method != "POST":
            problem = Problem(
                405,
                f"Method Not Allowed: {method} {path} accepts POST only",
                headers=(("allow", "POST"),),
            )
            return call.done(
                api, error_plan(api, problem, rid, call.head_only), note="method not allowed"
            )

        if request.framing_error is not None:
            problem = Problem(400, f"The request body could not be read: {request.framing_error}")
            return call.done(api, error_plan(api, problem, rid), note="bad framing")

        limit = self.script.max_body_bytes
        if request.body_size > limit:
            problem = Problem(
                413, f"Request body of {request.body_size} bytes exceeds the limit of {limit} bytes"
            )
            return call.done(api, error_plan(api, problem, rid), note="body too large")

        try:
            body = json.loads(request.body.decode("utf-8"), parse_constant=_reject_constant)
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            detail = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
            problem = Problem(400, f"The request body is not valid JSON ({detail})")
            return call.done(api, error_plan(api, problem, rid), note="body not JSON")

        if _SURROGATE_ESCAPE.search(request.body) and _has_lone_surrogate(body):
            problem = Problem(400, "The request body is not valid JSON (an unpaired surrogate)")
            return call.done(api, error_plan(api, problem, rid), note="body not JSON")

        invalid = self._validate(api, schema_name, body)
        if invalid is not None:
            return call.done(api, error_plan(api, invalid, rid), note="request schema")
        return api, body

    def _answer(
        self, state: ProviderState, call: _Call, request: HttpRequest, *, api: Api, body: Any,
        created: int,
    ) -> tuple[ProviderState, Plan]:
        """A valid request: the script's next reply for it, rendered, or the error saying the
        script has none left."""
        stream = body.get("stream") is True
        view = RequestView(api, body["model"], stream, _last_user_text(body))
        picked = self._pick(state, view)
        if picked is None:
            problem = Problem(
                400,
                f"mock provider: the script has no reply left for request #{call.ordinal} "
                f"({api}, model {body['model']!r}, stream={str(stream).lower()}; "
                f"on_exhausted is {self.script.on_exhausted!r})",
            )
            steps = error_plan(api, problem, call.rid)
            return state, call.done(api, steps, stream=stream, note="script exhausted")
        reply, state = picked
        include_usage = bool(
            api == OPENAI
            and isinstance(body.get("stream_options"), dict)
            and body["stream_options"].get("include_usage") is True
        )
        ctx = RenderContext(
            ordinal=call.ordinal,
            model=body["model"],
            input_tokens=estimate_tokens(len(request.body)),
            created=created,
            include_usage=include_usage,
        )
        steps = self._render(api, reply, ctx, stream, call.rid)
        plan = call.done(api, steps, stream=stream, reply=reply.index, note=reply.name or "")
        return state, plan

    def internal_error(self, request: HttpRequest, ordinal: int) -> tuple[Step, ...]:
        """A provider-shaped 500 for a shell whose call to :meth:`respond` failed (a bug)."""
        route = ROUTES.get(request.path)
        api = route[0] if route is not None else _api_for_unknown_route(request)
        problem = Problem(500, "mock provider: internal error (see the server log)")
        return error_plan(api, problem, f"req_mock_{ordinal:06d}")

    def _validate(self, api: Api, schema_name: str, body: Any) -> Problem | None:
        validator = self._validators[schema_name]
        try:
            error = jsonschema.exceptions.best_match(validator.iter_errors(body))
        except RecursionError:
            return Problem(400, "The request body is nested too deeply")
        if error is None:
            return None
        path, text, code = describe(error)
        if api == ANTHROPIC:
            return Problem(400, f"{anthropic_loc(path)}: {text}")
        param = openai_param(path)
        where = f"'{param}'" if param else "the request body"
        return Problem(400, f"Invalid {where}: {text}.", param=param, code=code)

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
                anthropic_frame(e)
                for e in anthropic_stream_events(reply, ctx, ping=self.script.ping)
            ]
        else:
            frames = [
                openai_frame(c)
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
            data = json_bytes(anthropic_message(reply, ctx))
        else:
            data = json_bytes(openai_completion(reply, ctx, self.script.reasoning_field))
        if any(isinstance(f, MalformedChunk) for f in faults):
            data = data[: max(1, len(data) // 2)]  # a 200 whose JSON body is cut short
        return json_steps(200, data, (id_header,))

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
        return json_steps(status, body, headers)

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
            if is_json(bad):  # e.g. "[DONE]" halves to "[DO"; keep it certainly not JSON
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
