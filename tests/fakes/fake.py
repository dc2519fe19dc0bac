"""A misbehaving adapter for testing the runner (like bowtie's fauxmplementations).

Usage: fake.py MODE[:CASE_SUBSTRING] ...  Modes apply to run commands whose case id contains
CASE_SUBSTRING (all cases when omitted). Other commands are answered correctly: ``tck.echo``
returns its input; any other operation goes to the reference implementation.

Modes: crash, hang, garbage, wrong-seq, two-kinds, lie, stderr, split, reject, double, deep,
       badutf8, bigline, floatseq,
       no-start (exit at once), bad-handshake, old-protocol, slow-start.
"""

from __future__ import annotations

import json
import sys
import time

from reference_impl.adapter import handle

MODES: dict[str, str] = {}
for arg in sys.argv[1:]:
    mode, _, match = arg.partition(":")
    MODES[mode] = match


def active(mode: str, case: str) -> bool:
    return mode in MODES and MODES[mode] in case


def reply(obj: object) -> None:
    text = json.dumps(obj) + "\n"
    if "split" in MODES:  # a reply in several writes is still one line: valid
        for i in range(0, len(text), 7):
            sys.stdout.write(text[i : i + 7])
            sys.stdout.flush()
            time.sleep(0.001)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()


if "no-start" in MODES:
    sys.stderr.write("fake: refusing to start\n")
    raise SystemExit(3)

for line in sys.stdin:
    command = json.loads(line)
    if "stderr" in MODES:
        sys.stderr.write("fake: some noise on stderr\n")
        sys.stderr.flush()
    if command["cmd"] == "start":
        if "slow-start" in MODES:
            time.sleep(60)
        if "bad-handshake" in MODES:
            sys.stdout.write("hello, I am not JSON\n")
            sys.stdout.flush()
            continue
        started = handle(command) or {}
        started["implementation"]["name"] = "fake"
        started["operations"] = [*started["operations"], "tck.echo"]
        if "old-protocol" in MODES:
            started["protocol"] = 0
        reply(started)
        continue
    if command["cmd"] == "stop":
        break
    seq, case = command["seq"], command.get("case", "")
    if active("crash", case):
        sys.stderr.write("fake: crashing now\n")
        sys.stderr.flush()
        raise SystemExit(7)
    if active("hang", case):
        time.sleep(3600)
    if active("garbage", case):
        sys.stdout.write("Traceback (most recent call last): oops\n")
        sys.stdout.flush()
        continue
    if active("wrong-seq", case):
        reply({"seq": seq + 100, "output": command["input"]})
        continue
    if active("two-kinds", case):
        reply({"seq": seq, "output": 1, "error": {"code": "X"}})
        continue
    if active("double", case):  # two replies to one command
        reply({"seq": seq, "output": command["input"]})
        reply({"seq": seq, "output": command["input"]})
        continue
    if active("deep", case):
        sys.stdout.write(f'{{"seq": {seq}, "output": {"[" * 5000}{"]" * 5000}}}\n')
        sys.stdout.flush()
        continue
    if active("badutf8", case):
        sys.stdout.buffer.write(b'{"seq": %d, "output": "\xff\xfe"}\n' % seq)
        sys.stdout.flush()
        continue
    if active("bigline", case):
        sys.stdout.write(f'{{"seq": {seq}, "output": "{"x" * (17 * 1024 * 1024)}"}}\n')
        sys.stdout.flush()
        continue
    if active("floatseq", case):
        reply({"seq": float(seq), "output": command["input"]})
        continue
    if active("lie", case):
        reply({"seq": seq, "output": {"lie": True}})
        continue
    if active("reject", case):
        reply({"seq": seq, "error": {"code": "UNSUPPORTED_CONTENT", "message": "fake"}})
        continue
    if command["operation"] == "tck.echo":
        reply({"seq": seq, "output": command["input"]})
        continue
    reply(handle(command))
