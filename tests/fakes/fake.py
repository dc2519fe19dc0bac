"""A misbehaving adapter for testing the runner (like bowtie's fauxmplementations).

Usage: fake.py MODE[:CASE_SUBSTRING] ...  Modes apply to run commands whose case id contains
CASE_SUBSTRING (all cases when omitted). Other commands are answered correctly: ``tck.echo``
returns its input; any other operation goes to the reference implementation.

Modes: crash, hang, garbage, wrong-seq, two-kinds, lie, stderr, split, reject, double, deep,
       badutf8, bigline, floatseq,
       nan, infinity, hugeint, dupkey (replies no strict reader accepts),
       blanks (blank lines forever instead of a reply), stderr-flood (MBs of stderr without a
       newline, then a marker line, then a crash), deaf (never reads stdin after the handshake),
       fork (starts a grandchild that sleeps; writes its pid to the file named by FAKE_PID_FILE),
       mark (touches the file named by FAKE_MARK_FILE when the case arrives, then hangs),
       no-start (exit at once), bad-handshake, old-protocol, slow-start, blanks-start.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from agent_tck.harness.reference_adapter import handle

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
        if "blanks-start" in MODES:
            while True:
                sys.stdout.write("\n" * 1000)
                sys.stdout.flush()
        if "fork" in MODES:
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
            with open(os.environ["FAKE_PID_FILE"], "w") as f:
                f.write(str(child.pid))
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
        if "deaf" in MODES:  # answers the handshake, then never reads stdin again
            time.sleep(3600)
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
    if active("mark", case):
        with open(os.environ["FAKE_MARK_FILE"], "w") as f:
            f.write(case)
        time.sleep(3600)
    if active("blanks", case):
        while True:
            sys.stdout.write("\n" * 1000)
            sys.stdout.flush()
    if active("stderr-flood", case):
        chunk = "x" * 65536
        for _ in range(64):  # 4 MB without a newline
            sys.stderr.write(chunk)
        sys.stderr.write("\nfake: TAIL-MARKER\n")
        sys.stderr.flush()
        raise SystemExit(9)
    if active("nan", case):
        sys.stdout.write(f'{{"seq": {seq}, "output": NaN}}\n')
        sys.stdout.flush()
        continue
    if active("infinity", case):
        sys.stdout.write(f'{{"seq": {seq}, "output": [-Infinity]}}\n')
        sys.stdout.flush()
        continue
    if active("hugeint", case):
        sys.stdout.write(f'{{"seq": {seq}, "output": {"9" * 5000}}}\n')
        sys.stdout.flush()
        continue
    if active("dupkey", case):
        sys.stdout.write(f'{{"seq": {seq}, "output": 1, "output": 2}}\n')
        sys.stdout.flush()
        continue
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
