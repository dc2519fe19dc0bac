"""``agent-tck simulate-provider --script FILE [--listen 127.0.0.1:PORT]``: the mock provider.

Serves the scripted Anthropic Messages (``POST /v1/messages``) and OpenAI Chat Completions
(``POST /v1/chat/completions``) endpoints until interrupted, so an agent can be exercised and
audited offline. The first line on stdout is ``listening on http://HOST:PORT`` (with the port
actually bound when PORT is 0), for a parent process to read. One line per request goes to
stderr with ``--verbose``. Exit 0 after SIGINT/SIGTERM, 2 for a bad script or address.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from agent_tck.harness.common.errors import HarnessError

SCRIPT_SCHEMA = "provider-script.schema.json"


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "simulate-provider",
        help="serve a scripted mock Anthropic / OpenAI provider on 127.0.0.1",
        description="Serve scripted replies (text, thinking, tool calls) and stream faults on "
        "POST /v1/messages and POST /v1/chat/completions (plain JSON and SSE), with the "
        "OpenAPI document at GET /openapi.json. See docs/MOCK_PROVIDER.md.",
    )
    p.add_argument(
        "--script",
        required=True,
        type=Path,
        metavar="FILE",
        help="the script: JSON or YAML (vectors/schema/provider-script.schema.json)",
    )
    p.add_argument(
        "--listen",
        default="127.0.0.1:0",
        metavar="HOST:PORT",
        help="address to listen on (default 127.0.0.1:0, a free port, printed)",
    )
    p.add_argument("--verbose", action="store_true", help="log one line per request to stderr")
    p.set_defaults(func=simulate_provider)


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` or ``[IPv6]:PORT`` or ``PORT`` (on 127.0.0.1)."""
    host, port_text = "127.0.0.1", text
    if text.startswith("["):
        end = text.find("]")
        if end < 0 or not text[end + 1 :].startswith(":"):
            raise HarnessError("BAD_ADDRESS", f"expected [IPv6]:PORT, got {text!r}", "--listen")
        host, port_text = text[1:end], text[end + 2 :]
    elif ":" in text:
        host, port_text = text.rsplit(":", 1)
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535 or not host:
        raise HarnessError("BAD_ADDRESS", f"expected HOST:PORT, got {text!r}", "--listen")
    return host, int(port_text)


def load_script(path: Path) -> Any:
    """Read and check a script file: the JSON Schema first, then the core's own checks."""
    from agent_tck.harness.common.jsonschema_util import pointer, validator
    from agent_tck.harness.common.safe_yaml import load
    from agent_tck.harness.common.whole_file import read_whole
    from agent_tck.harness.mock_provider.script import parse_script
    from agent_tck.reference_impl.errors import TckError
    from agent_tck.reference_impl.strict_json import loads

    try:
        raw = read_whole(path)  # capped: docs/RELIABILITY.md
    except OSError as exc:
        raise HarnessError("SCRIPT_INVALID", f"cannot read the script: {exc.strerror or exc}",
                           str(path)) from None
    try:  # untrusted: YAML without aliases, strict JSON (no NaN, duplicate keys, deep nesting)
        data = load(raw.decode("utf-8")) if path.suffix.lower() in {".yaml", ".yml"} else (
            loads(raw))
    except ValueError as exc:  # YAMLInputError, StrictJSONError, UnicodeDecodeError
        raise HarnessError("SCRIPT_INVALID", f"not valid JSON/YAML: {exc}", str(path)) from None
    errors = sorted(validator(SCRIPT_SCHEMA).iter_errors(data), key=lambda e: list(e.path))
    if errors:
        best = errors[0]
        raise HarnessError(
            "SCRIPT_INVALID",
            f"{best.message} (schema {SCRIPT_SCHEMA})",
            f"{path}#{pointer(best.path)}",
        )
    try:
        return parse_script(data)
    except TckError as exc:
        raise HarnessError("SCRIPT_INVALID", exc.message, f"{path}#{exc.pointer}") from exc


def simulate_provider(
    args: argparse.Namespace, out: Any = None, ready: threading.Event | None = None
) -> int:
    """Run until SIGINT/SIGTERM (or until ``ready``'s owner sets ``args.stop``, in tests)."""
    from agent_tck.harness.mock_provider.server import start

    out = out or sys.stdout
    script = load_script(args.script)
    host, port = parse_listen(args.listen)
    if args.verbose:
        logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(message)s")
    try:
        server, base_url = start(script, port, host=host, record=False)
    except OSError as exc:
        raise HarnessError(
            "BAD_ADDRESS", f"cannot listen on {host}:{port}: {exc}", "--listen"
        ) from exc
    stop: threading.Event = getattr(args, "stop", None) or threading.Event()
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, lambda *_: stop.set())
    try:
        out.write(f"listening on {base_url}\n")
        out.write(
            f"  anthropic: ANTHROPIC_BASE_URL={base_url}  (POST /v1/messages)\n"
            f"  openai:    OPENAI_BASE_URL={base_url}/v1  (POST /v1/chat/completions)\n"
            f"  openapi:   {base_url}/openapi.json\n"
        )
        out.flush()
        if ready is not None:
            ready.set()
        while not stop.wait(0.5):
            pass
    finally:
        server.close()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    served = len(server.exchanges)
    sys.stderr.write(f"agent-tck simulate-provider: stopped after {served} requests\n")
    return 0
