"""The reference implementation's adapter: the adapter protocol over stdin/stdout.

Run as ``python -m agent_tck.harness.reference_adapter``. A thin shell: it decodes a command,
calls the pure operation of ``reference_impl/<family>/ops.py`` that the family descriptors name
(:func:`harness.families.operations`), encodes the reply. It lives in ``harness/`` because it
reads stdin and writes stdout (``reference_impl/`` does no I/O). Apart from that registry it is
deliberately written the way an implementer's adapter in any language would be
(vectors/PROTOCOL.md), without the harness's own code.
"""

from __future__ import annotations

import json
import sys
import traceback
from typing import IO, Any

from agent_tck.harness.families import operations
from agent_tck.reference_impl.errors import TckError

OPERATIONS = operations()

PROTOCOL = 1
#: Protocol 1.1: this adapter can run an operation twice on one input and report the input after.
OBSERVE = ["input-after", "repeat"]


def handle(command: dict[str, Any]) -> dict[str, Any] | None:
    """One command -> one reply (None for ``stop``)."""
    cmd = command.get("cmd")
    if cmd == "start":
        return {
            "protocol": PROTOCOL,
            "implementation": {
                "name": "agent-tck-reference",
                "version": "0.1.0",
                "language": "python",
                "homepage": "https://github.com/agent-tck/agent-tck",
            },
            "operations": sorted(OPERATIONS),
            "observe": OBSERVE,
        }
    if cmd == "run":
        seq = command["seq"]
        fn = OPERATIONS.get(command["operation"])
        if fn is None:
            return {"seq": seq, "crashed": {"message": f"unknown operation {command['operation']}"}}
        data = command["input"]
        first = _once(fn, data)
        if not command.get("observe") or "crashed" in first:
            return {"seq": seq, **first}
        # protocol 1.1 observe: the same in-memory input again; the reply is encoded only after
        # both calls, so an output that shares an array with the input shows what became of it
        second = _once(fn, data)
        if "crashed" in second:
            return {"seq": seq, **second}
        return {"seq": seq, **first, "observed": {"repeat": second, "input_after": data}}
    return None


def _once(fn: Any, data: Any) -> dict[str, Any]:
    """One call as the body of a reply: output, error or crashed."""
    try:
        return {"output": fn(data)}
    except TckError as err:
        return {"error": err.to_json()}
    except Exception as exc:
        return {
            "crashed": {
                "message": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc().splitlines(),
            },
        }


def serve(stdin: IO[str], stdout: IO[str]) -> int:
    for line in stdin:
        if not line.strip():
            continue
        command = json.loads(line)
        if command.get("cmd") == "stop":
            return 0
        reply = handle(command)
        if command.get("cmd") == "start" and reply is not None:
            # this loop reads each command when it is ready for it, so the runner may send
            # commands ahead (a property of the loop, not of handle(): other loops reuse that)
            reply["pipeline"] = True
        stdout.write(json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n")
        stdout.flush()
    return 0


def main() -> int:
    sys.stdin.reconfigure(encoding="utf-8")  # type: ignore[union-attr]
    sys.stdout.reconfigure(encoding="utf-8")  # type: ignore[union-attr]
    return serve(sys.stdin, sys.stdout)


if __name__ == "__main__":
    raise SystemExit(main())
