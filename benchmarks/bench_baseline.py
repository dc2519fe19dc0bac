"""Benchmark for known-failure baselines (``agent-tck baseline``, ``run --expect``). Not a test.

    python benchmarks/bench_baseline.py [--sizes 1000 10000 100000] [--repeat 3]

For each size N: a run of N failing case results, its baseline written by ``write_baseline``,
then read by ``load_baseline`` (the line reader of the written shape), next to the YAML loader
alone on the same text (what every baseline cost before issue 26), and applied to the N results
(``judge_against`` per result, then ``stale_entries``). Best of ``--repeat``, in CPU time of
this process (the 2-core box is shared: wall time measures its load); side by side in one
process, so the ratios are the figures to compare. Also the file's bytes per entry and the
entries' memory per entry (tracemalloc). Goal: under 100 ms for 10,000 entries, linear.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))  # agent_tck, when the checkout is not installed

from agent_tck.harness.common.safe_yaml import load  # noqa: E402
from agent_tck.harness.run import baseline as bl  # noqa: E402
from agent_tck.harness.run.results import CaseResult  # noqa: E402

MESSAGE = ("output differs at /messages/1/content/0: expected {'type': 'text', 'text': 'the "
           "answer'}, got {'type': 'thinking', 'thinking': 'the model thinks'}\n") * 20


def best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, value = [], None
    for _ in range(repeat):
        start = time.process_time()  # CPU time: the box is shared, wall time is its load
        value = fn()
        times.append(time.process_time() - start)
    return min(times), value


def results(n: int) -> list[CaseResult]:
    return [CaseResult(seq=i, case=f"bo-case-{i}", family="block-omission",
                       operation="anthropic.serialize", rules=("BO-001",), status="fail",
                       description="", input=None, expected=None, actual=None, message=MESSAGE)
            for i in range(n)]


def one_size(n: int, repeat: int, folder: Path, yaml_too: bool) -> dict[str, Any]:
    run = results(n)
    records = [{"type": "case", "case": r.case, "operation": r.operation, "status": r.status,
                "message": r.message} for r in run]
    t_write, text = best(lambda: bl.write_baseline(records), repeat)
    path = folder / f"baseline-{n}.yaml"
    path.write_text(text, encoding="utf-8")
    cases, rules = [r.case for r in run], ["BO-001"]
    t_load, entries = best(lambda: bl.load_baseline(path, cases, rules), repeat)
    t_yaml = best(lambda: load(text), 1)[0] if yaml_too else None

    def apply() -> int:
        judged = [bl.judge_against(r, entries) for r in run]
        return len(bl.stale_entries(judged, entries))

    t_apply, _ = best(apply, repeat)
    tracemalloc.start()
    kept = bl.load_baseline(path, cases, rules)
    size, _peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(kept) == n
    return {"n": n, "write": t_write, "load": t_load, "yaml": t_yaml, "apply": t_apply,
            "bytes": len(text.encode()) / n, "memory": size / n}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = [one_size(n, args.repeat, Path(tmp), yaml_too=n <= 10_000) for n in args.sizes]
    print(f"{'entries':>8} {'write':>9} {'load':>9} {'YAML only':>10} {'apply':>9} "
          f"{'load+apply':>11} {'B/entry':>8} {'mem/entry':>10}")
    for r in rows:
        yaml_ms = f"{r['yaml'] * 1000:8.1f}ms" if r["yaml"] is not None else f"{'-':>10}"
        print(f"{r['n']:>8,} {r['write'] * 1000:7.1f}ms {r['load'] * 1000:7.1f}ms {yaml_ms} "
              f"{r['apply'] * 1000:7.1f}ms {(r['load'] + r['apply']) * 1000:9.1f}ms "
              f"{r['bytes']:8.0f} {r['memory']:9.0f}B")
    first, last = rows[0], rows[-1]
    grow = last["n"] / first["n"]
    print(f"x{grow:.0f} entries: load x{last['load'] / first['load']:.1f}, apply "
          f"x{last['apply'] / first['apply']:.1f} (linear: near x{grow:.0f})")
    for r in rows:
        if r["yaml"] is not None:
            print(f"{r['n']:,} entries: the YAML loader alone takes {r['yaml'] / r['load']:.0f}x "
                  "the line reader's time")


if __name__ == "__main__":
    main()
