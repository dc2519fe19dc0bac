"""The reference adapter without the protocol 1.1 ``observe`` capability (a protocol 1.0 adapter).

Whatever ``agent_tck.reference_impl`` is importable (a mutated copy on PYTHONPATH in test_observe)
serves the cases; only the handshake's ``observe`` is left out, so the runner never asks.
"""

from __future__ import annotations

import json
import sys

from agent_tck.harness.reference_adapter import handle

for line in sys.stdin:
    command = json.loads(line)
    if command.get("cmd") == "stop":
        break
    reply = handle(command) or {}
    reply.pop("observe", None)
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
