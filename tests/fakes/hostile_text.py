"""An adapter whose every free-text field carries secrets and terminal escapes.

Usage: hostile_text.py [no-start]. The text comes from the environment variable HOSTILE_TEXT,
a JSON string (so it can hold NUL). It is put in the implementation's version (the run's header
line; the name's pattern admits no such text), on stderr (the tail a failed start shows), in
each case's crash message (the progress line) and in its crash traceback (the transcript), so
the console test sees every path an adapter's words take to the terminal.

``no-start``: writes the text on stderr and exits before the handshake (IMPL_START_FAILED).
"""

from __future__ import annotations

import json
import os
import sys

from agent_tck.harness.reference_adapter import handle

TEXT = json.loads(os.environ.get("HOSTILE_TEXT", '""'))

sys.stderr.write(f"hostile: {TEXT}\n")
sys.stderr.flush()
if "no-start" in sys.argv[1:]:
    raise SystemExit(3)


def reply(obj: object) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    command = json.loads(line)
    if command["cmd"] == "start":
        started = handle(command) or {}
        started["implementation"]["name"] = "hostile"
        started["implementation"]["version"] = TEXT
        reply(started)
        continue
    if command["cmd"] == "stop":
        break
    reply({"seq": command["seq"], "crashed": {"message": f"auth failed: {TEXT}",
                                              "traceback": [TEXT]}})
