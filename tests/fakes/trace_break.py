"""The reference adapter with one trace constraint broken: in the scenario named by argv[1]
(default ``sma-route-sibling``) a send rejected as SIBLING_TARGET is reported as NOT_ADJACENT,
everything else of the trace kept. That reason code is the constraint
``trace:action-0/rejected`` of ``sma-route-sibling``, charged to SMA-003 alone
(tests/test_trace_checks.py).
"""

from __future__ import annotations

import json
import sys

from agent_tck.harness.reference_adapter import handle

SCENARIO = sys.argv[1] if len(sys.argv) > 1 else "sma-route-sibling"

for line in sys.stdin:
    command = json.loads(line)
    if command.get("cmd") == "stop":
        break
    reply = handle(command) or {}
    output = reply.get("output")
    if (command.get("operation") == "subagents.simulate" and isinstance(output, dict)
            and command.get("input", {}).get("scenario") == SCENARIO):
        for event in output.get("trace", []):
            if event.get("reason") == "SIBLING_TARGET":
                event["reason"] = "NOT_ADJACENT"
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
