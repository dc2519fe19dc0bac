"""Benchmark: the strict JSON reader against plain ``json.loads``. Not a test: it prints.

    .venv/bin/python benchmarks/bench_strict_json.py [--rounds 11] [--baseline PATH]

Four kinds of text the kit reads from untrusted hands: adapter replies (one compact line per
vector case, as str as the runner reads them, and as the bytes the pipe gives), session-log lines
(the check-log benchmark's recorded turn), provider request bodies (a 50-turn Messages
conversation with tool calls, as the audit reads them) and the vector files themselves
(pretty-printed, read once per run, as bytes like the vector loader; also as str, the form
measured before). Each is parsed by ``json.loads`` (the yardstick, on the same str or bytes), by
the native parsers the fast path could stand on (orjson, msgspec, jiter: raw, no strictness;
jiter also with its own duplicate-key and NaN refusals), by msgspec's decode followed by its
encode (the floor of any duplicate-key check that re-encodes the value), by
``strict_json.loads`` (the native fast path), by another copy of the reader when ``--baseline``
names one (e.g. main's ``reference_impl/strict_json.py``, side by side in the same rounds) and
by its stdlib path alone (what every input paid before the fast path). Rounds are interleaved,
the parsers' order reversed every other round, and each ratio is taken within its round (the
machine is shared and noisy): the median is printed with the spread (lowest and highest round).
Goal: ``strict_json.loads`` at least 1.5x of ``json.loads``.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))  # agent_tck, when the checkout is not installed
sys.path.insert(0, str(ROOT / "benchmarks"))

from agent_tck.reference_impl import strict_json  # noqa: E402


def _replies() -> list[str]:
    out: list[str] = []
    for path in sorted((ROOT / "vectors").glob("*/*.json")):
        for seq, case in enumerate(json.loads(path.read_text(encoding="utf-8")).get("cases", [])):
            out.append(json.dumps({"seq": seq, "output": case.get("input")}, ensure_ascii=False,
                                  separators=(",", ":")))
    return out * 3


def _log_lines() -> list[bytes]:
    from bench_check_log import turn_fixture

    from agent_tck.reference_impl.session_log import format as sl
    from agent_tck.reference_impl.session_log import recorder as rec

    events = [e.value for e in rec.record(turn_fixture()).log.events]
    return [(sl.encode(e) + "\n").encode("utf-8") for e in events] * 300


def _bodies(turns: int = 50) -> list[bytes]:
    messages: list[dict[str, Any]] = []
    for turn in range(turns):
        messages.append({"role": "user", "content": [
            {"type": "text", "text": f"Step {turn}: read the file and tell me what it says."}]})
        messages.append({"role": "assistant", "content": [
            {"type": "text", "text": "Let me read it. " * 5},
            {"type": "tool_use", "id": f"toolu_{turn:04d}", "name": "read_file",
             "input": {"path": f"docs/part-{turn}.md", "range": [1, 200]}}]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{turn:04d}",
             "content": [{"type": "text",
                          "text": "# Part\n\nSome text, a list:\n- a\n- b\n" * 8}]}]})
    body = {"model": "claude-sonnet-4-5", "max_tokens": 4096, "stream": True,
            "system": [{"type": "text", "text": "You are a careful agent."}],
            "tools": [{"name": "read_file", "description": "Read a file",
                       "input_schema": {"type": "object",
                                        "properties": {"path": {"type": "string"}}}}],
            "messages": messages}
    return [json.dumps(body).encode("utf-8")] * 60


def _vector_files() -> list[bytes]:
    """As harness/contract/vectors.py hands them in: the file's bytes (read_whole)."""
    return [p.read_bytes() for p in sorted((ROOT / "vectors").glob("*/*.json"))] * 2


def _baseline(path: str | None) -> dict[str, Callable[[Any], Any]]:
    """Another copy of the reader (a file), measured beside this tree's, in the same rounds."""
    if path is None:
        return {}
    spec = importlib.util.spec_from_file_location("strict_json_baseline", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return {"strict (baseline)": module.loads}


def _parsers(baseline: str | None) -> dict[str, Callable[[Any], Any]]:
    import msgspec

    decode, encode = msgspec.json.decode, msgspec.json.encode

    try:  # not a dependency: measured beside msgspec when installed (pip install orjson)
        import orjson
    except ImportError:
        orjson = None
    return {
        "json.loads": json.loads,
        **({"orjson (raw)": orjson.loads} if orjson is not None else {}),
        "msgspec (raw)": msgspec.json.decode,
        **_jiter(),
        "decode + re-encode": lambda data: encode(decode(data)),
        "strict": strict_json.loads,
        **_baseline(baseline),
        "strict, stdlib path": lambda data: strict_json._slow(data, strict_json.MAX_DEPTH, False),
    }


def _jiter() -> dict[str, Callable[[Any], Any]]:
    """jiter (pydantic's parser; installed with the anthropic and openai SDKs, not a dependency
    of the reader): raw, and with its own strictness (duplicate keys and NaN refused natively, in
    the same pass; it still turns 1e400 into infinity and nests 201 empty arrays)."""
    try:
        import jiter
    except ImportError:
        return {}

    def raw(data: str | bytes) -> Any:
        return jiter.from_json(data.encode("utf-8") if isinstance(data, str) else data)

    def strictish(data: str | bytes) -> Any:
        return jiter.from_json(data.encode("utf-8") if isinstance(data, str) else data,
                               allow_inf_nan=False, catch_duplicate_keys=True, cache_mode="keys")

    return {"jiter (raw)": raw, "jiter (dup keys, NaN)": strictish}


def _time(fn: Callable[[Any], Any], corpus: list[Any]) -> float:
    gc.collect()  # garbage left by the parser timed before is not charged to this one
    started = time.process_time()  # CPU time: less of the other tenants' load than wall time
    for item in corpus:
        fn(item)
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--baseline", help="another strict_json.py to measure side by side")
    args = parser.parse_args()
    replies = _replies()
    corpora = {"adapter replies": replies,
               "adapter replies as bytes": [line.encode("utf-8") for line in replies],
               "session-log lines": _log_lines(),
               "request bodies": _bodies(), "vector files": _vector_files(),
               "vector files as str": [data.decode("utf-8") for data in _vector_files()]}
    parsers = _parsers(args.baseline)
    for name, corpus in corpora.items():
        for item in corpus:  # the contract: the same value as json.loads
            assert strict_json.loads(item) == json.loads(item), name
        size = sum(len(item) for item in corpus)
        ratios: dict[str, list[float]] = {p: [] for p in parsers}
        for round_ in range(args.rounds):
            base = _time(json.loads, corpus)
            order = list(parsers.items())  # no parser always timed right after another
            for pname, fn in order[::-1] if round_ % 2 else order:
                ratios[pname].append(base / _time(fn, corpus))
        print(f"{name}: {len(corpus)} texts, {size / 1e6:.2f} MB; speed relative to json.loads, "
              f"median [lowest-highest] over {args.rounds} rounds")
        for pname, values in ratios.items():
            if pname == "json.loads":
                continue
            print(f"  {pname:<22} {statistics.median(values):5.2f}x "
                  f"[{min(values):.2f}-{max(values):.2f}]")


if __name__ == "__main__":
    main()
