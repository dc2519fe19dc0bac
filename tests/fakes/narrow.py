"""An adapter that declares one operation only (``tck.echo``), and optionally a bad name.

Usage: narrow.py [NAME]  - NAME (JSON-decoded, so "\\"x\\\\n\\"" gives a trailing newline) replaces
the implementation name in the handshake.
"""

from __future__ import annotations

import json
import sys

NAME = json.loads(sys.argv[1]) if len(sys.argv) > 1 else "narrow"

for line in sys.stdin:
    command = json.loads(line)
    if command["cmd"] == "start":
        reply: dict = {"protocol": 1, "implementation": {"name": NAME, "language": "python"},
                       "operations": ["tck.echo"]}
    elif command["cmd"] == "stop":
        break
    else:
        reply = {"seq": command["seq"], "output": command["input"]}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
