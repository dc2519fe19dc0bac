"""The thin HTTP shell around :mod:`harness.mock_provider.model`.

It reads one request off the socket, asks the sans-I/O core for a plan and carries the plan
out: send the head, send bytes (one HTTP chunk per SSE event, flushed at once: Nagle is off),
pause, abort the connection, finish. Nothing here decides what to answer.

Programmatic use (tests, the proxy audit's end-to-end tests)::

    from harness.mock_provider.server import start

    server, base_url = start({"version": 1, "replies": [...]})   # 127.0.0.1, a free port
    try:
        anthropic.Anthropic(base_url=base_url, api_key="x", max_retries=0)
        openai.OpenAI(base_url=base_url + "/v1", api_key="x", max_retries=0)
        ...
    finally:
        server.close()          # or: with start(...)[0] as server: ...

``server.exchanges`` lists what was done with each request (:class:`Exchange`), and
``server.received`` the requests themselves (when started with ``record=True``, the default).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import socket
import threading
import time
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any

from agent_tck.harness.mock_provider.model import MockProvider
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
)
from agent_tck.harness.mock_provider.script import Script, parse_script

log = logging.getLogger("agent_tck.mock_provider")

OPENAPI_RESOURCE = ("openapi", "mock-provider.openapi.json")
_DECIMAL = re.compile(r"[0-9]{1,18}")
_HEX = re.compile(rb"[0-9a-fA-F]{1,15}")
#: How long an idle keep-alive connection is held open.
IDLE_TIMEOUT_SECONDS = 30.0


def load_openapi_document() -> dict[str, Any]:
    """The mock's OpenAPI document (harness/mock_provider/openapi/mock-provider.openapi.json)."""
    path = resources.files("agent_tck.harness.mock_provider").joinpath(*OPENAPI_RESOURCE)
    return json.loads(path.read_text(encoding="utf-8"))


class _Handler(BaseHTTPRequestHandler):
    server: MockProviderServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # every SSE event leaves as soon as it is written
    timeout = IDLE_TIMEOUT_SECONDS

    def version_string(self) -> str:
        return "agent-tck-mock-provider"

    def __getattr__(self, name: str) -> Any:
        # Any method (DELETE, PATCH, OPTIONS, made-up ones) reaches the core, which answers
        # 405 or 404 in the provider's shape, instead of http.server's bare 501.
        if name.startswith("do_"):
            return self._serve
        raise AttributeError(name)

    def handle(self) -> None:
        # A client that resets or stalls an idle keep-alive connection is not an error.
        with contextlib.suppress(ConnectionError, TimeoutError):
            super().handle()

    def _serve(self) -> None:
        framing_error = None
        try:
            body, unread = self._read_body()
        except ValueError as exc:
            body, unread, framing_error = b"", None, str(exc)
            self.close_connection = True  # the rest of the stream cannot be trusted
        request = HttpRequest(
            method=self.command,
            target=self.path,
            headers=tuple((k.lower(), v) for k, v in self.headers.items()),
            body=body,
            unread_body_size=unread,
            framing_error=framing_error,
        )
        try:
            steps = self.server.plan(request).steps
        except Exception:  # a bug in the core: answer, log, keep serving
            log.exception("mock provider: the core failed on %s %s", self.command, self.path)
            steps = self.server.provider.internal_error(request, len(self.server.exchanges) + 1)
            self.close_connection = True
        self._carry_out(steps, head_only=self.command == "HEAD")

    def _read_body(self) -> tuple[bytes, int | None]:
        """The body, or (b"", its size) when it is larger than the script allows."""
        if "chunked" in (self.headers.get("transfer-encoding") or "").lower():
            return self._read_chunked()
        length = self.headers.get("content-length")
        if length is None:
            return b"", None
        if not _DECIMAL.fullmatch(length.strip()):
            raise ValueError(f"Content-Length {length!r} is not a number")
        n = int(length)
        if n > self.server.max_read_bytes:
            # Larger than the script allows: don't buffer it, and don't reuse the connection.
            self.close_connection = True
            return b"", n
        return self.rfile.read(n), None

    def _read_chunked(self) -> tuple[bytes, int | None]:
        parts: list[bytes] = []
        total = 0
        while True:
            size_text = self.rfile.readline(1024).split(b";", 1)[0].strip()
            if not _HEX.fullmatch(size_text):
                raise ValueError(f"bad chunk size {size_text[:20]!r}")
            size = int(size_text, 16)
            if size == 0:
                while self.rfile.readline(1024) not in {b"\r\n", b"\n", b""}:
                    pass  # trailers
                return b"".join(parts), None
            total += size
            if total > self.server.max_read_bytes:
                self.close_connection = True
                return b"", total
            parts.append(self.rfile.read(size))
            self.rfile.readline(1024)

    def _carry_out(self, steps: tuple[Any, ...], *, head_only: bool) -> None:
        chunked = False
        try:
            for step in steps:
                if isinstance(step, Pause):
                    if self.server.stopping.wait(step.seconds):
                        self._abort()
                        return
                elif isinstance(step, SendHead):
                    chunked = step.chunked and not head_only
                    self.send_response(step.status)
                    for name, value in step.headers:
                        self.send_header(name, value)
                    if chunked:
                        self.send_header("transfer-encoding", "chunked")
                    self.end_headers()
                elif isinstance(step, SendBytes):
                    if head_only:
                        continue
                    if chunked:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(step.data), step.data))
                    else:
                        self.wfile.write(step.data)
                elif isinstance(step, Abort):
                    self._abort()
                    return
                elif isinstance(step, Finish):
                    if chunked:
                        self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError):
            self.close_connection = True  # the client went away; nothing left to do

    def _abort(self) -> None:
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)


class MockProviderServer(ThreadingHTTPServer):
    """A ThreadingHTTPServer holding the core and its state (changed under a lock)."""

    daemon_threads = True
    allow_reuse_address = True
    #: listen() backlog: socketserver's default of 5 reset ~5% of connections when 200 clients
    #: connected at once; the kernel caps this at net.core.somaxconn
    request_queue_size = 1024

    def __init__(
        self,
        address: tuple[str, int],
        provider: MockProvider,
        *,
        record: bool = True,
        clock: Any = time.time,
    ) -> None:
        self.provider = provider
        self.state = ProviderState()
        self.exchanges: list[Exchange] = []
        self.received: list[HttpRequest] = []
        self.record = record
        self.stopping = threading.Event()
        self.max_read_bytes = provider.script.max_body_bytes
        self._clock = clock
        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        self._conn_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        super().__init__(address, _Handler)

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        host = host.decode() if isinstance(host, bytes) else host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{port}"

    def plan(self, request: HttpRequest) -> Plan:
        """Ask the core, outside the lock (parsing a large body takes time), then commit.

        The core is pure, so a plan computed from a state another request has since moved on
        from is simply computed again from the new state.
        """
        created = int(self._clock())
        while True:
            with self._lock:
                seen = self.state
            state, plan = self.provider.respond(seen, request, created=created)
            with self._lock:
                if self.state is not seen:
                    continue
                self.state = state
                self.exchanges.append(plan.exchange)
                if self.record:
                    self.received.append(request)
                break
        log.info(
            "#%d %s %s -> %s%s",
            plan.exchange.ordinal,
            request.method,
            request.path,
            plan.exchange.status if plan.exchange.status is not None else "dropped",
            f" (reply {plan.exchange.reply})" if plan.exchange.reply is not None else "",
        )
        return plan

    # -- connection bookkeeping, so close() also ends idle keep-alive connections ----------
    def process_request(self, request: Any, client_address: Any) -> None:
        with self._conn_lock:
            self._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._conn_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Keep the server up and the log quiet; a failure inside the core is a bug, logged.
        log.exception("mock provider: error while serving %s", client_address)

    def serve_in_thread(self) -> None:
        self._thread = threading.Thread(
            target=self.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"mock-provider:{self.server_address[1]}",
            daemon=True,
        )
        self._thread.start()

    def close(self) -> None:
        """Stop accepting, wake any scripted pause, end open connections, free the port."""
        self.stopping.set()
        if self._thread is not None:
            self.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self.server_close()
        with self._conn_lock:
            open_connections = list(self._connections)
        for conn in open_connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> MockProviderServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _MockProviderServerV6(MockProviderServer):
    address_family = socket.AF_INET6


def make_provider(script: Script | Mapping[str, Any]) -> MockProvider:
    """A core from a parsed script or plain JSON (raises TckError INVALID_SCRIPT)."""
    parsed = script if isinstance(script, Script) else parse_script(script)
    return MockProvider(parsed, load_openapi_document())


def start(
    script: Script | Mapping[str, Any],
    port: int = 0,
    *,
    host: str = "127.0.0.1",
    record: bool = True,
) -> tuple[MockProviderServer, str]:
    """Serve ``script`` on ``host:port`` (port 0: a free one) in a background thread.

    Returns the server and its base URL (``http://127.0.0.1:PORT``). Call ``server.close()``
    (or use the server as a context manager) to stop it.
    """
    provider = make_provider(script)
    server_class = _MockProviderServerV6 if ":" in host else MockProviderServer
    server = server_class((host, port), provider, record=record)
    server.serve_in_thread()
    return server, server.base_url
