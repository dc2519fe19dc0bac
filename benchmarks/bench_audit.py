"""Benchmarks of the proxy audit (issue 7 acceptance). Not a test: it prints figures.

    .venv/bin/python benchmarks/bench_audit.py [--quick] [--only a|b|c]

(a) throughput of the pure rules (wire.check plus conversation tracking) in MB/s of request
    JSON, beside plain ``json.loads`` of the same bodies, the two timed in alternate rounds
    (goal, issue 24: at least parse speed); the ratio's median and spread over the rounds;
(b) a 500-turn conversation against a 50-turn one: the last request alone (its time ratio
    should be near its byte ratio, ~10, not ~100) and the whole capture (time per byte flat);
    both sizes in each round, CPU time, the ratios' median and spread over the rounds;
(c) mitmdump with the audit addon beside plain mitmdump on ~200 KB requests: p50 latency and
    requests per second, as ratios per round with their spread over rounds (goal: at least
    0.95, issue 24), and how many requests the audit reported (all of them: none dropped);
(d) the offline command, ``agent-tck audit --read``, in a subprocess: 3,000 one-message requests
    of a JSONL capture (goal: under 5 s and 150 MB) and a 100,000-entry HAR (goal: one pass,
    peak memory under 500 MB); wall time and peak resident memory of the process.

Timings are medians of several repeats; the machine's noise shows in their spread.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))  # agent_tck, when the checkout is not installed

from agent_tck.harness.audit.engine import RECENT_AUDITS  # noqa: E402
from agent_tck.harness.audit.rules import TOOLS_READ, audit_exchange  # noqa: E402
from agent_tck.harness.audit.tracker import ConversationTracker  # noqa: E402
from agent_tck.harness.commands.audit import find_mitmdump, mitmdump_command  # noqa: E402

WORDS = [
    "the", "of", "and", "a", "to", "in", "is", "you", "that", "it", "was", "for", "on", "are",
    "as", "with", "they", "at", "be", "this", "have", "from", "or", "one", "had", "by", "word",
    "but", "not", "what", "all", "were", "we", "when", "your", "can", "said", "there", "use",
    "an", "each", "which", "she", "do", "how", "their", "if", "will", "up", "other", "about",
    "out", "many", "then", "them", "these", "so",
]
RNG = random.Random(7)


def prose(n: int) -> str:
    return " ".join(RNG.choice(WORDS) for _ in range(n))


SYSTEM = prose(400)
TOOLS = [{"name": name, "description": prose(40), "input_schema": {
    "type": "object", "properties": {"arg": {"type": "string", "description": prose(8)}},
    "required": ["arg"]}} for name in ("bash", "read_file", "edit_file", "grep", "send_message")]
TOOLS[-1]["input_schema"] = {"type": "object", "required": ["agent_id", "message"], "properties": {
    "agent_id": {"type": "string"}, "message": {"type": "string"}}}


def agent_conversation(turns: int, result_words: int = 300,
                       context_words: int = 120) -> list[bytes]:
    """The request bodies of one coding-agent conversation (Messages), each turn a tool call
    and its result, with a cache_control breakpoint moved forward every turn. The first user
    message holds ``context_words`` words (a task with pasted context)."""
    messages: list[dict[str, Any]] = []
    bodies = []
    for t in range(turns):
        if t == 0:
            messages.append({"role": "user", "content": [{"type": "text",
                                                          "text": prose(context_words)}]})
        else:
            messages.append({"role": "user", "content": [{
                "type": "tool_result", "tool_use_id": f"toolu_{t - 1:04d}",
                "content": [{"type": "text", "text": prose(result_words)}]}]})
        for m in messages:  # the breakpoint sits on the last message only
            if isinstance(m["content"], list):
                for b in m["content"]:
                    b.pop("cache_control", None)
        messages[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
        bodies.append(json.dumps({"model": "claude-bench", "max_tokens": 4096,
                                  "system": SYSTEM, "tools": TOOLS, "stream": True,
                                  "messages": messages}).encode())
        messages.append({"role": "assistant", "content": [
            {"type": "thinking", "thinking": prose(60), "signature": "sig"},
            {"type": "text", "text": prose(40)},
            {"type": "tool_use", "id": f"toolu_{t:04d}", "name": "bash",
             "input": {"arg": prose(12)}}]})
    return bodies


def exchange(body: Any, url: str = "http://127.0.0.1/v1/messages") -> dict[str, Any]:
    return {"method": "POST", "url": url, "request": {"body": body}, "response": None}


class PureAudit:
    """The pure part of what harness.audit.engine.Auditor does per request: the wire rules
    (carrying findings over from recent requests) and conversation tracking."""

    def __init__(self) -> None:
        self.tracker = ConversationTracker()
        self.recent: list[Any] = []

    def observe(self, ref: int, x: dict[str, Any]) -> None:
        normals: dict[int, dict[str, Any]] = {}  # as the Auditor: normalized once, shared
        audit = audit_exchange(x, previous=reversed(self.recent), normals=normals)
        self.recent = [*self.recent[-(RECENT_AUDITS - 1):], audit]
        self.tracker.observe(ref, x, audit.compared, normals, audit.dialect,
                             tools=audit.read.get(TOOLS_READ))


def median_time(fn: Callable[[], Any], repeats: int) -> tuple[float, float]:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times), (max(times) - min(times))


# --- (a) ----------------------------------------------------------------------------------------


def _spread(values: list[float]) -> str:
    """A median with its spread over the rounds: ``median [min-max]``."""
    return f"{statistics.median(values):.2f} [{min(values):.2f}-{max(values):.2f}]"


def bench_throughput(quick: bool) -> dict[str, float]:
    bodies: list[bytes] = []
    for turns in ((40, 60) if quick else (60, 120, 80)):
        bodies += agent_conversation(turns)
    total = sum(len(b) for b in bodies)
    parsed = [json.loads(b) for b in bodies]

    def parse() -> None:
        for b in bodies:
            json.loads(b)

    def audit() -> None:
        pure = PureAudit()
        for i, body in enumerate(parsed):
            pure.observe(i, exchange(body))

    rounds = 3 if quick else 9
    parses: list[float] = []
    audits: list[float] = []
    cpu: dict[str, list[float]] = {"parse": [], "audit": []}
    for _ in range(rounds):  # side by side, round by round: both see the same machine noise
        for name, fn, times in (("parse", parse, parses), ("audit", audit, audits)):
            started_cpu = time.process_time()
            times.append(median_time(fn, 1)[0])
            cpu[name].append(time.process_time() - started_cpu)
    ratios = [p / a for p, a in zip(parses, audits, strict=True)]
    cpu_ratios = [p / a for p, a in zip(cpu["parse"], cpu["audit"], strict=True)]
    t_parse, t_audit = statistics.median(parses), statistics.median(audits)
    mb = total / 1e6
    print(f"(a) throughput over {len(bodies)} requests, {mb:.1f} MB of request JSON, "
          f"{rounds} rounds")
    print(f"    json.loads        {mb / t_parse:8.0f} MB/s  (median {t_parse * 1000:.0f} ms, "
          f"{min(parses) * 1000:.0f}-{max(parses) * 1000:.0f} ms)")
    print(f"    rules + tracking  {mb / t_audit:8.0f} MB/s  (median {t_audit * 1000:.0f} ms, "
          f"{min(audits) * 1000:.0f}-{max(audits) * 1000:.0f} ms)")
    print(f"    audit speed / parse speed = {_spread(ratios)} over the rounds, "
          f"{min(parses) / min(audits):.2f} best against best  (goal >= 1.0)")
    print(f"    in CPU time (steadier on a loaded machine): {_spread(cpu_ratios)}, "
          f"{min(cpu['parse']) / min(cpu['audit']):.2f} best against best")
    return {"parse_mb_s": mb / t_parse, "audit_mb_s": mb / t_audit,
            "ratio": statistics.median(ratios), "ratio_min": min(ratios),
            "ratio_max": max(ratios), "ratio_best": min(parses) / min(audits),
            "cpu_ratio": statistics.median(cpu_ratios),
            "cpu_ratio_best": min(cpu["parse"]) / min(cpu["audit"])}


# --- (b) ----------------------------------------------------------------------------------------


def _last_request(parsed: list[Any]) -> float:
    """CPU seconds to audit a conversation's last request, on a tracker that saw the others."""
    pure = PureAudit()
    for i, body in enumerate(parsed[:-1]):
        pure.observe(i, exchange(body))
    x = exchange(parsed[-1])
    started = time.process_time()
    pure.observe(len(parsed) - 1, x)
    return time.process_time() - started


def bench_scaling(quick: bool) -> dict[str, float]:
    short, long = (50, 500)
    convs = {t: agent_conversation(t, result_words=40) for t in (short, long)}
    parsed = {t: [json.loads(b) for b in bodies] for t, bodies in convs.items()}

    def whole(turns: int) -> PureAudit:
        pure = PureAudit()
        for i, body in enumerate(parsed[turns]):
            pure.observe(i, exchange(body))
        return pure

    rounds = 3 if quick else 7
    lasts: dict[int, list[float]] = {short: [], long: []}
    wholes: dict[int, list[float]] = {short: [], long: []}
    for _ in range(rounds):  # both sizes in every round, side by side (CPU time)
        for turns in (short, long):
            lasts[turns].append(_last_request(parsed[turns]))
            started = time.process_time()
            whole(turns)
            wholes[turns].append(time.process_time() - started)
    size = {t: (len(convs[t][-1]), sum(len(b) for b in convs[t])) for t in (short, long)}
    last_pairs = [a / b for a, b in zip(lasts[long], lasts[short], strict=True)]
    whole_pairs = [a / b for a, b in zip(wholes[long], wholes[short], strict=True)]
    lt, wt = statistics.median(last_pairs), statistics.median(whole_pairs)
    lb, wb = size[long][0] / size[short][0], size[long][1] / size[short][1]
    ms = {t: statistics.median(lasts[t]) * 1000 for t in (short, long)}
    print(f"(b) a {long}-turn conversation against a {short}-turn one, {rounds} rounds, CPU time")
    print(f"    last request: {ms[short]:.2f} ms for {size[short][0] / 1e3:.0f} KB vs "
          f"{ms[long]:.2f} ms for {size[long][0] / 1e3:.0f} KB: time x{_spread(last_pairs)} "
          f"for bytes x{lb:.1f}  (linear: near {lb:.0f}, quadratic: near {lb * lb:.0f})")
    per_mb = [statistics.median(wholes[t]) / size[t][1] * 1e9 for t in (short, long)]
    print(f"    whole capture: time x{_spread(whole_pairs)} for bytes x{wb:.1f}  (time per MB "
          f"{per_mb[0]:.1f} vs {per_mb[1]:.1f} ms)")
    return {"last_time_ratio": lt, "last_bytes_ratio": lb, "whole_time_ratio": wt,
            "whole_bytes_ratio": wb, "last_time_ratio_min": min(last_pairs),
            "last_time_ratio_max": max(last_pairs), "whole_time_ratio_min": min(whole_pairs),
            "whole_time_ratio_max": max(whole_pairs)}


# --- (c) ----------------------------------------------------------------------------------------


REPLY = json.dumps({"id": "msg_bench", "type": "message", "role": "assistant",
                    "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                    "usage": {"input_tokens": 1, "output_tokens": 1}}).encode()


class _Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length", "0"))
        self.rfile.read(length)
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(REPLY)))
        self.end_headers()
        self.wfile.write(REPLY)

    def log_message(self, *args: Any) -> None:
        return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(port)


def _proxy(upstream: str, addon: bool, tmp: Path, report_dir: Path) -> Iterator[int]:
    port = _free_port()
    cmd = mitmdump_command(mitmdump=find_mitmdump(None), mode="reverse", upstream=upstream,
                           host="127.0.0.1", port=port, confdir=tmp / f"conf{addon}",
                           report_dir=report_dir, name="bench", max_body=None)
    if not addon:
        cmd = cmd[:cmd.index("-s")]  # the same proxy, without the addon and its options
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait(port)
        yield port
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(300)
        except subprocess.TimeoutExpired:
            proc.kill()


def _one_proxy_run(upstream: str, addon: bool, tmp: Path, report_dir: Path,
                   bodies: list[bytes]) -> tuple[float, float]:
    """(p50 latency in seconds, requests per second) of one proxy over ``bodies``."""
    import httpx2 as httpx

    gen = _proxy(upstream, addon, tmp, report_dir)
    port = next(gen)
    latencies = []
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
        for body in bodies[:5]:  # warm up
            client.post("/v1/messages", content=body)
        started = time.perf_counter()
        for body in bodies:
            t0 = time.perf_counter()
            r = client.post("/v1/messages", content=body,
                            headers={"content-type": "application/json"})
            latencies.append(time.perf_counter() - t0)
            assert r.status_code == 200, r.status_code
        total = time.perf_counter() - started
    for _ in gen:  # the stop: the audit process drains and writes the reports
        pass
    return statistics.median(latencies), len(bodies) / total


def _audited(report_dir: Path) -> tuple[int, str]:
    """(requests the audit reported, its notes) after an addon run."""
    doc = json.loads((report_dir / "audit.json").read_text(encoding="utf-8"))
    return int(doc["counts"]["exchanges"]), "; ".join(doc.get("notes", [])) or "no notes"


def _spread_rounds(values: list[float]) -> str:
    """(c)'s wording (the name ``_spread`` is (a)'s and (b)'s, which it used to shadow)."""
    return (f"median {statistics.median(values):.2f}, spread {min(values):.2f}-"
            f"{max(values):.2f} over {len(values)} rounds")


def bench_proxy(quick: bool) -> dict[str, float]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Upstream)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    upstream = f"http://127.0.0.1:{server.server_address[1]}"
    n = 60 if quick else 200
    rounds = 2 if quick else 3
    # requests of ~200 KB: ten conversations, interleaved, each opening with ~190 KB of
    # context and growing by a short tool round per turn
    conversations = [agent_conversation(n // 10, result_words=20, context_words=44_000)
                     for _ in range(10)]
    bodies = [conv[t] for t in range(n // 10) for conv in conversations]
    sizes = [len(b) for b in bodies]
    p50s: dict[bool, list[float]] = {False: [], True: []}
    rates: dict[bool, list[float]] = {False: [], True: []}
    lat_ratios, rate_ratios, audited = [], [], []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for k in range(rounds):  # each round both proxies, in alternating order (noise)
            for addon in ((False, True) if k % 2 == 0 else (True, False)):
                report_dir = tmp / f"reports{k}"
                p50, rate = _one_proxy_run(upstream, addon, tmp, report_dir, bodies)
                p50s[addon].append(p50)
                rates[addon].append(rate)
                if addon:
                    audited.append(_audited(report_dir))
            lat_ratios.append(p50s[False][-1] / p50s[True][-1])
            rate_ratios.append(rates[True][-1] / rates[False][-1])
    server.shutdown()
    print(f"(c) mitmdump reverse proxy, {len(bodies)} requests of {min(sizes) / 1e3:.0f}-"
          f"{max(sizes) / 1e3:.0f} KB (10 conversations), sequential, keep-alive; the addon's "
          "audit runs in its own process")
    for k in range(rounds):
        print(f"    round {k + 1}: plain p50 {p50s[False][k] * 1000:6.2f} ms, "
              f"{rates[False][k]:5.1f} req/s; addon p50 {p50s[True][k] * 1000:6.2f} ms, "
              f"{rates[True][k]:5.1f} req/s; audited {audited[k][0]} of {len(bodies) + 5} "
              f"({audited[k][1]})")
    print(f"    latency ratio (plain/addon):    {_spread_rounds(lat_ratios)}  (goal >= 0.95)")
    print(f"    throughput ratio (addon/plain): {_spread_rounds(rate_ratios)}  (goal >= 0.95)")
    return {"p50_plain_ms": statistics.median(p50s[False]) * 1000,
            "p50_addon_ms": statistics.median(p50s[True]) * 1000,
            "rps_plain": statistics.median(rates[False]),
            "rps_addon": statistics.median(rates[True]),
            "latency_ratio": statistics.median(lat_ratios),
            "latency_ratio_min": min(lat_ratios), "latency_ratio_max": max(lat_ratios),
            "throughput_ratio": statistics.median(rate_ratios),
            "throughput_ratio_min": min(rate_ratios), "throughput_ratio_max": max(rate_ratios),
            "audited_min": min(a for a, _ in audited)}


# --- (d) ----------------------------------------------------------------------------------------


def _one_message(i: int) -> tuple[dict[str, Any], dict[str, Any]]:
    body = {"model": "claude-bench", "max_tokens": 100,
            "messages": [{"role": "user", "content": f"hello number {i} " + "word " * 20}]}
    reply = {"id": f"msg_{i}", "type": "message", "role": "assistant", "model": "claude-bench",
             "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn",
             "usage": {"input_tokens": 3, "output_tokens": 1}}
    return body, reply


def write_jsonl(path: Path, n: int) -> None:
    with path.open("w") as out:
        for i in range(n):
            body, reply = _one_message(i)
            out.write(json.dumps({"method": "POST", "url": "https://api.anthropic.com/v1/messages",
                                  "request": {"body": body},
                                  "response": {"status": 200, "body": reply}}) + "\n")


def write_har(path: Path, n: int) -> None:
    """A HAR 1.2 file of ``n`` one-message exchanges, written entry by entry."""
    header = [{"name": "content-type", "value": "application/json"}]
    with path.open("w") as out:
        out.write('{"log": {"version": "1.2", "creator": {"name": "bench", "version": "1"}, '
                  '"entries": [\n')
        for i in range(n):
            body, reply = _one_message(i)
            entry = {"startedDateTime": "2026-07-01T12:00:00Z", "time": 1, "request": {
                "method": "POST", "url": "https://api.anthropic.com/v1/messages",
                "httpVersion": "HTTP/1.1", "headers": header, "queryString": [],
                "cookies": [], "headersSize": -1, "bodySize": -1,
                "postData": {"mimeType": "application/json", "text": json.dumps(body)}},
                "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                             "headers": header, "cookies": [], "redirectURL": "",
                             "content": {"size": 0, "mimeType": "application/json",
                                         "text": json.dumps(reply)},
                             "headersSize": -1, "bodySize": -1},
                "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}
            out.write(("" if i == 0 else ",\n") + json.dumps(entry))
        out.write("\n]}}\n")


def _audit_process(capture: Path, report_dir: Path) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak resident MB) of ``agent-tck audit --read capture``
    (CPU time is the steadier figure on a loaded machine)."""
    import os

    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "agent_tck", "audit", "--read", str(capture),
                             "--report-dir", str(report_dir)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"agent-tck audit exited {proc.returncode} on {capture}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def bench_offline(quick: bool) -> dict[str, float]:
    n_har = 10_000 if quick else 100_000
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        jsonl, har = tmp / "c3000.jsonl", tmp / f"h{n_har}.har"
        write_jsonl(jsonl, 3000)
        write_har(har, n_har)
        j_wall, j_cpu, j_mem = _audit_process(jsonl, tmp / "r1")
        h_wall, h_cpu, h_mem = _audit_process(har, tmp / "r2")
        h_size = har.stat().st_size / 1e6
    print("(d) agent-tck audit --read, one process each")
    print(f"    3,000 one-message requests (JSONL): {j_wall:6.1f} s wall, {j_cpu:6.1f} s CPU, "
          f"peak {j_mem:6.1f} MB  (goal < 5 s, < 150 MB)")
    print(f"    {n_har:,}-entry HAR ({h_size:.0f} MB): {h_wall:6.1f} s wall, {h_cpu:6.1f} s CPU, "
          f"peak {h_mem:6.1f} MB  (goal < 500 MB)")
    return {"jsonl_s": j_wall, "jsonl_cpu_s": j_cpu, "jsonl_mb": j_mem, "har_entries": n_har,
            "har_s": h_wall, "har_cpu_s": h_cpu, "har_mb": h_mem}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer requests and repeats")
    parser.add_argument("--only", choices=("a", "b", "c", "d"), action="append")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = parser.parse_args()
    chosen = args.only or ["a", "b", "c", "d"]
    figures: dict[str, Any] = {}
    if "a" in chosen:
        figures["a"] = bench_throughput(args.quick)
    if "b" in chosen:
        figures["b"] = bench_scaling(args.quick)
    if "c" in chosen:
        figures["c"] = bench_proxy(args.quick)
    if "d" in chosen:
        figures["d"] = bench_offline(args.quick)
    if args.json:
        print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
