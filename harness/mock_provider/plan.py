"""The mock provider's requests, state and plans, as frozen values.

An :class:`HttpRequest` in, a :class:`Plan` out: the steps the HTTP shell carries out (send the
head, send bytes, pause, abort, finish) and the :class:`Exchange` it records.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_tck.harness.mock_provider.script import Api


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
