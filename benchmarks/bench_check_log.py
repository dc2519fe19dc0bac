"""Benchmark for ``agent-tck check-log`` (family chunk-free-persistence). Not a test: it prints.

    python benchmarks/bench_check_log.py [--events 1000000] [--repeat 3] [--dir .bench]

1. Generates a chunk-free session log of at least ``--events`` events by recording one
   realistic turn with the reference recorder (a reasoning + text + tool call step, its tool
   result, a final answer; the model streams in small deltas) and repeating it with fresh
   turn numbers and seq.
2. Throughput: plain ``json.loads`` of every line of that file versus the streaming reader
   (``reference_impl.session_log.reader.check``), with the core vocabulary and with the default one
   ``agent-tck check-log`` uses (extensions included), and with ``--profile dsh-v4``. Each
   ratio is taken within one of ``--repeat`` interleaved rounds and printed as the median and
   the spread over them. Times are CPU time (``time.process_time``), not the wall clock.
   Goals (issue 24): default >= 1.0x of plain parsing, dsh-v4 >= 0.7x.
3. Peak memory: the maximum resident set size of a fresh process running
   ``agent-tck check-log`` on the file, next to one that only parses it. Goal: under 100 MB.
3b. The source runtime's default encoding: the same log as concatenated zstd frames
   (``.jsonl.zstd``). ``agent-tck check-log`` (bounded chunked lines, tail recovery, default and
   ``--profile dsh-v4``) against decompressing and ``json.loads`` of every line; peak memory.
4. Size: the same session logged chunk-free and with one event per stream chunk (the old
   ``assistant/chunk`` format), in bytes and events.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))  # agent_tck, when the checkout is not installed

from agent_tck.reference_impl.session_log import format as sl  # noqa: E402
from agent_tck.reference_impl.session_log import profile_dsh  # noqa: E402
from agent_tck.reference_impl.session_log import reader as log_reader  # noqa: E402
from agent_tck.reference_impl.session_log import recorder as rec  # noqa: E402

ANSWER = ("The README describes agent-tck, a conformance kit for agent runtimes. It runs "
          "language-neutral vectors through an adapter and writes reports. ") * 3
THOUGHT = "The user asks about the README; I should read it before answering. " * 3
RESULT = "# agent-tck\n\nA conformance test kit and reference simulator. " * 4


def _deltas(text: str, size: int = 4) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


def turn_fixture() -> dict[str, Any]:
    """One realistic turn: 11 durable events, ~200 stream chunks."""
    def model(step: int, time: int, chunks: list[dict[str, Any]], kind: str) -> dict[str, Any]:
        return {"model": {"turn": 1, "step": step, "time": time, "messageId": f"msg-{step}",
                          "source": {"kind": "model", "provider": "deepseek",
                                     "model": "deepseek-chat"},
                          "stream": [*chunks,
                                     {"type": "usage", "usage": {"inputTokens": 2400,
                                                                 "outputTokens": 180}},
                                     {"type": "finish", "reason": {"kind": kind}}]}}

    args = '{"path":"README.md"}'
    first = ([{"type": "reasoning-delta", "index": 0, "text": d} for d in _deltas(THOUGHT)]
             + [{"type": "text-delta", "index": 1, "text": d} for d in _deltas("Let me read it.")]
             + [{"type": "tool-call-delta", "index": 2, "id": "call-1", "name": "read_file",
                 "argumentsDelta": d} for d in _deltas(args)])
    second = [{"type": "text-delta", "index": 0, "text": d} for d in _deltas(ANSWER)]
    t = 1760000000000
    return {"kind": rec.FIXTURE_KIND, "fixtureVersion": 1, "sessionFormatVersion": 4,
            "session": {"id": "bench", "createdAt": t, "cwd": "/work"}, "script": [
                {"event": {"type": "turn/start", "time": t + 1, "data": {"turn": 1}}},
                {"event": {"type": "user/message", "time": t + 2, "data": {
                    "id": "u-1", "role": "user", "source": {"kind": "user"},
                    "content": [{"type": "text", "text": "What is in README.md?"}]}}},
                {"event": {"type": "step/start", "time": t + 3, "data": {"turn": 1, "step": 1}}},
                model(1, t + 40, first, "tool-calls"),
                {"event": {"type": "tool/call", "time": t + 41, "data": {
                    "turn": 1, "step": 1, "callId": "call-1", "name": "read_file",
                    "arguments": args}}},
                {"event": {"type": "tool/result", "time": t + 50, "data": {
                    "turn": 1, "step": 1, "message": {
                        "id": "t-1", "role": "tool", "toolCallId": "call-1", "isError": False,
                        "content": [{"type": "text", "text": RESULT}],
                        "source": {"kind": "tool", "callId": "call-1"}}}}},
                {"event": {"type": "step/end", "time": t + 51, "data": {"turn": 1, "step": 1}}},
                {"event": {"type": "step/start", "time": t + 52, "data": {"turn": 1, "step": 2}}},
                model(2, t + 90, second, "stop"),
                {"event": {"type": "step/end", "time": t + 91, "data": {"turn": 1, "step": 2}}},
                {"event": {"type": "turn/end", "time": t + 92,
                           "data": {"turn": 1, "reason": {"kind": "completed"}}}}]}


def chunked_events(fixture: dict[str, Any]) -> list[dict[str, Any]]:
    """The same turn as the old format logged it: one assistant/chunk event per delta, then the
    assembled message (the chunk holes are what the chunk-free format closes)."""
    recording = rec.record(fixture)
    durable = [e.value for e in recording.log.events]
    out: list[dict[str, Any]] = []
    for event in durable:
        if event["type"] == "assistant/message":
            step = event["data"]["step"]
            for delta in [d for d in recording.live if d.step == step]:
                out.append({"type": "assistant/chunk", "time": event["time"],
                            "data": {"turn": 1, "step": step, "chunk": dict(delta.chunk)}})
        out.append({k: v for k, v in event.items() if k != "seq"})
    return out


def _renumber(events: list[dict[str, Any]], turns: int, path: Path, first_seq: int = 1) -> int:
    """Write a header and ``turns`` copies of ``events`` with fresh turn numbers and seq."""
    header = {"type": "session", "version": 4, "id": "bench", "createdAt": 1760000000000,
              "cwd": "/work", "isSeeded": False, "delegationDepth": 0}
    seq = first_seq
    with open(path, "w", encoding="utf-8", buffering=1 << 20) as out:
        out.write(sl.encode(header) + "\n")
        templates = []
        for event in events:
            text = sl.encode({**event, "seq": 0})
            templates.append(text.replace('"turn":1', '"turn":%TURN%').replace(
                '"seq":0', '"seq":%SEQ%'))
        for turn in range(1, turns + 1):
            turn_text = str(turn)
            for template in templates:
                out.write(template.replace("%TURN%", turn_text).replace("%SEQ%", str(seq)))
                out.write("\n")
                seq += 1
    return seq - first_seq


def _zstd(path: Path, out: Path, frame_bytes: int = 4 << 20) -> None:
    """``path`` as concatenated zstd frames of about ``frame_bytes`` each (cut at lines)."""
    import zstandard

    compressor = zstandard.ZstdCompressor(level=3, write_checksum=True)
    with open(path, "rb") as source, open(out, "wb") as sink:
        chunk: list[bytes] = []
        size = 0
        for line in source:
            chunk.append(line)
            size += len(line)
            if size >= frame_bytes:
                sink.write(compressor.compress(b"".join(chunk)))
                chunk, size = [], 0
        if chunk:
            sink.write(compressor.compress(b"".join(chunk)))


def _plain_zstd(path: Path) -> None:
    import io

    import zstandard

    loads = json.loads
    with open(path, "rb") as handle:
        reader = zstandard.ZstdDecompressor().stream_reader(handle, read_across_frames=True)
        for line in io.BufferedReader(reader, 1 << 20):
            loads(line)


def _check_file(path: Path, profile: str = "default") -> dict[str, Any]:
    from agent_tck.harness.commands.check_log import check_file

    return check_file(str(path), profile=profile)


def _best(fn: Any, repeat: int) -> float:
    """The least CPU time (``time.process_time``) of ``repeat`` calls: on a shared machine the
    wall clock also counts the neighbours' work."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def _spread(base: list[float], other: list[float]) -> str:
    """The per-round ratios base/other: median and spread (min-max) over the rounds."""
    ratios = sorted(b / o for b, o in zip(base, other, strict=True))
    return (f"{statistics.median(ratios):.2f} (spread {ratios[0]:.2f}-{ratios[-1]:.2f} over "
            f"{len(ratios)} rounds)")


def _plain(path: Path) -> None:
    loads = json.loads
    with open(path, "rb", buffering=1 << 20) as handle:
        for line in handle:
            loads(line)


def _check(path: Path, vocabulary: sl.Vocabulary) -> log_reader.LogCheckSummary:
    with open(path, "rb", buffering=1 << 20) as handle:
        return log_reader.check(handle, vocabulary)


_CHILD_PLAIN = """
import json, resource, sys
with open(sys.argv[1], 'rb', buffering=1 << 20) as h:
    for line in h:
        json.loads(line)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""
_CHILD_CHECK = """
import resource, sys
from agent_tck.harness.cli import main
code = main(['check-log', sys.argv[1]])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
sys.exit(code)
"""


def _peak_rss_mb(code: str, path: Path) -> float:
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                          text=True, cwd=ROOT, check=False, timeout=3600,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    if done.returncode != 0:
        raise SystemExit(f"child failed ({done.returncode}): {done.stdout}{done.stderr}")
    return int(done.stdout.strip().splitlines()[-1]) / 1024  # ru_maxrss is in KiB on Linux


def _zstd_section(args: argparse.Namespace, log_path: Path, size: int, events: int) -> None:
    """3b: the same log as concatenated zstd frames, through the CLI path."""
    zst_path = args.dir / "chunk-free.jsonl.zstd"
    _zstd(log_path, zst_path)
    zsize = zst_path.stat().st_size
    print(f"zstd frames: {zsize / 1e6:,.1f} MB ({size / zsize:.1f}x smaller)  [{zst_path}]")
    cli: dict[str, list[float]] = {"plain": [], "unzip": [], "cli": [], "zstd": [], "dsh": []}
    for _ in range(args.repeat):
        cli["plain"].append(_best(lambda: _plain(log_path), 1))
        cli["unzip"].append(_best(lambda: _plain_zstd(zst_path), 1))
        cli["cli"].append(_best(lambda: _check_file(log_path), 1))
        cli["zstd"].append(_best(lambda: _check_file(zst_path), 1))
        cli["dsh"].append(_best(lambda: _check_file(zst_path, "dsh-v4"), 1))
    verdicts = {p: _check_file(zst_path, p) for p in ("default", "dsh-v4")}
    assert verdicts["default"]["valid"] and verdicts["default"]["events"] == events
    unzip = min(cli["unzip"])
    print(f"zstd: decompress + json.loads:  {unzip:6.2f} s  {events / unzip:>12,.0f} events/s")
    print(f"check-log (plain file, CLI path):{min(cli['cli']):6.2f} s  ratio to plain parsing "
          f"{_spread(cli['plain'], cli['cli'])}")
    print(f"check-log (zstd, default):      {min(cli['zstd']):6.2f} s  ratio to decompress + "
          f"parse {_spread(cli['unzip'], cli['zstd'])}")
    print(f"check-log (zstd, --profile dsh-v4): {min(cli['dsh']):6.2f} s  ratio to decompress "
          f"+ parse {_spread(cli['unzip'], cli['dsh'])}  (valid: {verdicts['dsh-v4']['valid']}"
          f"{'' if verdicts['dsh-v4']['valid'] else ', ' + verdicts['dsh-v4']['error']['code']})")
    rss_zstd = _peak_rss_mb(_CHILD_CHECK, zst_path)
    print(f"peak RSS: agent-tck check-log on the zstd file {rss_zstd:.1f} MB (goal < 100 MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=ROOT / ".bench")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)

    fixture = turn_fixture()
    durable = [e.value for e in rec.record(fixture).log.events]
    turns = -(-args.events // len(durable))
    log_path = args.dir / "chunk-free.jsonl"
    events = _renumber(durable, turns, log_path, first_seq=0)
    size = log_path.stat().st_size
    print(f"log: {events:,} events ({turns:,} turns), {size / 1e6:,.1f} MB  [{log_path}]")

    # interleaved rounds: each ratio is taken within one round (a busy machine slows both sides
    # alike); printed as the median and the spread over the rounds, beside the best times
    times: dict[str, list[float]] = {"plain": [], "core": [], "full": [], "dsh": []}
    strict = profile_dsh.vocabulary(sl.default_vocabulary())
    for _ in range(args.repeat):
        times["plain"].append(_best(lambda: _plain(log_path), 1))
        times["core"].append(_best(lambda: _check(log_path, sl.VOCABULARY), 1))
        times["full"].append(_best(lambda: _check(log_path, sl.default_vocabulary()), 1))
        times["dsh"].append(_best(lambda: _check(log_path, strict), 1))
    summary = _check(log_path, sl.default_vocabulary())
    assert summary.events == events, "the generated log must be valid"
    plain = min(times["plain"])
    print(f"plain json.loads per line:      {plain:6.2f} s  {events / plain:>12,.0f} events/s"
          f"  {size / plain / 1e6:6.1f} MB/s")
    for key, what, goal in (("core", "check, core vocabulary:        ", ""),
                            ("full", "check-log, default vocabulary: ", " (goal >= 1.0)"),
                            ("dsh", "check-log, --profile dsh-v4:   ", " (goal >= 0.7)")):
        best = min(times[key])
        print(f"{what} {best:6.2f} s  {events / best:>12,.0f} events/s  ratio to plain "
              f"parsing {_spread(times['plain'], times[key])}{goal}")

    rss_plain = _peak_rss_mb(_CHILD_PLAIN, log_path)
    rss_check = _peak_rss_mb(_CHILD_CHECK, log_path)
    print(f"peak RSS: plain parse {rss_plain:.1f} MB, agent-tck check-log {rss_check:.1f} MB"
          " (goal < 100 MB)")

    _zstd_section(args, log_path, size, events)

    chunked = chunked_events(fixture)
    chunked_path = args.dir / "chunked.jsonl"
    sample_turns = min(turns, 10_000)
    chunk_events = _renumber(chunked, sample_turns, chunked_path)
    free_path = args.dir / "chunk-free-sample.jsonl"
    free_events = _renumber(durable, sample_turns, free_path)
    chunked_size, free_size = chunked_path.stat().st_size, free_path.stat().st_size
    print(f"same {sample_turns:,}-turn session: chunk-free {free_events:,} events, "
          f"{free_size / 1e6:.1f} MB; one event per chunk {chunk_events:,} events, "
          f"{chunked_size / 1e6:.1f} MB ({chunked_size / free_size:.1f}x the bytes, "
          f"{chunk_events / free_events:.1f}x the events)")


if __name__ == "__main__":
    main()
