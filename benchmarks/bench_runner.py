"""Benchmark: vector cases per second, in process and through the subprocess adapter.

Both go through the runner's one loop (``evaluate.run_cases``, as ``agent-tck run`` does: with a
pipelining adapter the commands are sent ahead) over the same built-in vectors, several rounds
each, interleaved, measured side by side in one run (these machines are shared and noisy); the
ratio is the figure to compare. A third side, the subprocess adapter one command at a time
(``pipeline=1``), shows what pipelining buys. Printed: the median ratio over rounds, with the
lowest and highest round, and best / best (on a loaded box the best round is the one least
disturbed by other work, so best / best is the steadier ratio).

    .venv/bin/python benchmarks/bench_runner.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence

from agent_tck.harness.contract.vectors import Case, load_cases
from agent_tck.harness.run.evaluate import run_cases
from agent_tck.harness.run.results import RESULTS_FORMAT, Header
from agent_tck.harness.run.subprocess_target import SubprocessTarget
from agent_tck.harness.run.targets import InProcessTarget, Target

ADAPTER = f"{sys.executable} -m agent_tck.harness.reference_adapter"


def one_round(make: Callable[[], Target], cases: Sequence[Case], header: Header) -> float:
    """Cases per second of one run; the adapter's start-up (once per run) is not timed."""
    target = make()
    try:
        started = time.perf_counter()
        records = sum(1 for _ in run_cases(target, cases, header)) - 2  # less header, footer
        return records / (time.perf_counter() - started)
    finally:
        target.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    cases = load_cases()
    header = Header(RESULTS_FORMAT, "bench", "", {}, {}, {}, False, (), ())
    targets: dict[str, Callable[[], Target]] = {
        "in-process": InProcessTarget,
        "subprocess": lambda: SubprocessTarget(ADAPTER),
        "one-at-a-time": lambda: SubprocessTarget(ADAPTER, pipeline=1),
    }
    rates: dict[str, list[float]] = {name: [] for name in targets}
    for make in targets.values():  # warm up
        one_round(make, cases, header)
    for _ in range(args.rounds):
        for name, make in targets.items():
            rates[name].append(one_round(make, cases, header))
    pairs = sum(len(c.expect) for c in cases)
    print(f"{pairs} case-operations per round, {args.rounds} rounds, interleaved:")
    for name, values in rates.items():
        print(f"  {name:<14} {statistics.median(values):8.0f} cases/s median "
              f"{max(values):8.0f} best")
    base = rates["in-process"]
    for name in ("subprocess", "one-at-a-time"):
        ratios = [s / b for s, b in zip(rates[name], base, strict=True)]
        print(f"  {name} / in-process: {statistics.median(ratios):.3f} median "
              f"[{min(ratios):.3f}-{max(ratios):.3f}], {max(rates[name]) / max(base):.3f} "
              "best / best")


if __name__ == "__main__":
    main()
