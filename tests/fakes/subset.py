"""The reference adapter declaring only some of its operations.

Usage: subset.py OPS  - OPS is a comma-separated list of operation names (empty: none at all).
"""

from __future__ import annotations

import json
import sys

from agent_tck.harness.reference_adapter import handle

DECLARED = [op for op in sys.argv[1].split(",") if op] if len(sys.argv) > 1 else []

for line in sys.stdin:
    command = json.loads(line)
    if command.get("cmd") == "stop":
        break
    reply = handle(command) or {}
    if command.get("cmd") == "start":
        reply["operations"] = DECLARED
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
