"""A wrong implementation: flattens reasoning in user input into user text.

It answers through the reference implementation after rewriting each user message's
reasoning blocks into text blocks: exactly what note 000 forbids ("flattening sends child
reasoning as parent input"). The suite must fail it on the reasoning-omission rules only.
"""

from __future__ import annotations

import json
import sys

from agent_tck.harness.reference_adapter import handle


def flatten(history: list) -> list:
    out = []
    for message in history:
        if isinstance(message, dict) and message.get("role") == "user" and isinstance(
            message.get("content"), list
        ):
            content = [
                {"type": "text", "text": b.get("text", "")}
                if isinstance(b, dict) and b.get("type") == "reasoning" else b
                for b in message["content"]
            ]
            out.append({**message, "content": content})
        else:
            out.append(message)
    return out


for line in sys.stdin:
    command = json.loads(line)
    if command["cmd"] == "stop":
        break
    if command["cmd"] == "run" and command["operation"].endswith(".serialize"):
        payload = command["input"]
        if isinstance(payload, dict) and isinstance(payload.get("history"), list):
            command = {**command, "input": {**payload, "history": flatten(payload["history"])}}
    reply = handle(command) or {}
    if command["cmd"] == "start":
        reply["implementation"]["name"] = "flattening"
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
