"""Benchmark: vector cases per second, in process and through the subprocess adapter.

Both are measured side by side in one run (these machines are shared and noisy), over the
same built-in vectors, several rounds each, interleaved; the ratio is the figure to compare.
The best round of each side is printed beside the median: on a loaded box the best round is the
one least disturbed by other work, so best / best is the steadier ratio.

    .venv/bin/python benchmarks/bench_runner.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from agent_tck.harness.contract.vectors import load_cases
from agent_tck.harness.run.evaluate import judge
from agent_tck.harness.run.subprocess_target import SubprocessTarget
from agent_tck.harness.run.targets import InProcessTarget


def one_round(target, pairs) -> float:
    started = time.perf_counter()
    for case, expectation in pairs:
        judge(target, case, expectation)  # the runner's one loop (BO-008 observed twice)
    return len(pairs) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    pairs = [(c, e) for c in load_cases() for e in c.expect]
    inproc = InProcessTarget()
    sub = SubprocessTarget(f"{sys.executable} -m agent_tck.harness.reference_adapter")
    rates: dict[str, list[float]] = {"in-process": [], "subprocess": []}
    try:
        one_round(inproc, pairs), one_round(sub, pairs)  # warm up
        for _ in range(args.rounds):
            rates["in-process"].append(one_round(inproc, pairs))
            rates["subprocess"].append(one_round(sub, pairs))
    finally:
        sub.close()
    print(f"{len(pairs)} case-operations per round, {args.rounds} rounds, median and best of each:")
    med = {k: statistics.median(v) for k, v in rates.items()}
    best = {k: max(v) for k, v in rates.items()}
    for name in rates:
        print(f"  {name:<11} {med[name]:10.0f} cases/s median {best[name]:10.0f} cases/s best")
    print(f"  subprocess / in-process: {med['subprocess'] / med['in-process']:.3f} median, "
          f"{best['subprocess'] / best['in-process']:.3f} best")


if __name__ == "__main__":
    main()
