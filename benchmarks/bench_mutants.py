"""Benchmark: the CPU one seeded fault costs the mutation run, by how much of the kit it
re-imports and how many cases it runs.

Three ways, measured side by side in one process (the machine is shared and noisy), over the same
sample of faults, interleaved, each fault in a forked child as ``harness.mutation.mutants`` runs it:

* ``dependents``: what the runner does: only the mutated module and the modules depending on
  it are imported afresh, and only the cases citing the fault's rules run;
* ``whole kit``: the whole kit imported afresh, the same cases (the accepted-variant path);
* ``every case``: the whole kit imported afresh and every case run (the runner before issue 23
  did this, plus copying the package and compiling it from source for each fault).

CPU seconds (the children's user + system time) per fault are the figures; their ratios are
what to compare, since the wall clock follows the machine's load.

    .venv/bin/python benchmarks/bench_mutants.py [--every 7] [--rounds 2]
"""

from __future__ import annotations

import argparse
import resource
import sys
from collections.abc import Callable
from typing import Any

from agent_tck.harness.mutation import mutants as m


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class _Everything:
    """A dependents table that names every module of the kit (the whole kit afresh)."""

    def of(self, module: str) -> set[str]:
        return {name for name in sys.modules if m._ours(name)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--every", type=int, default=7, help="take every Nth fault")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    finder = m._Finder({})
    sys.meta_path.insert(0, finder)
    m._forget([name for name in sys.modules if m._ours(name)])
    from agent_tck.harness.contract.catalogue import load_catalogue
    from agent_tck.harness.contract.vectors import load_cases

    cases = load_cases(known_rules=load_catalogue().by_id)
    m._failed(cases)
    dependents = m._Dependents(m.ROOT)
    faults = [f for f in m.load_mutants()[::args.every] if not f.survives]
    jobs = [m._job(i, f, m.ROOT) for i, f in enumerate(faults)]

    def dependents_way(job: dict[str, Any]) -> dict[str, Any]:
        return m._run_fault(job, cases, finder, dependents)

    def whole_kit(job: dict[str, Any]) -> dict[str, Any]:
        return m._run_fault(job, cases, finder, _Everything())  # type: ignore[arg-type]

    def every_case(job: dict[str, Any]) -> dict[str, Any]:
        return m._run_fault({**job, "survives": True}, cases, finder, dependents)

    ways: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
        "dependents": dependents_way, "whole kit": whole_kit, "every case": every_case}
    spent = dict.fromkeys(ways, 0.0)
    for _ in range(args.rounds):
        for job in jobs:
            for name, way in ways.items():
                before = children_cpu()
                result = m._isolated(lambda way=way, job=job: way(job), m.FAULT_TIMEOUT)
                spent[name] += children_cpu() - before
                assert "error" not in result, result
    per = {name: total / (len(jobs) * args.rounds) for name, total in spent.items()}
    print(f"{len(jobs)} faults x {args.rounds} rounds; CPU per fault:")
    for name, seconds in per.items():
        print(f"  {name:<11} {seconds * 1000:7.1f} ms  ({seconds / per['dependents']:.1f}x)")
    total = len(m.load_mutants())
    print(f"all {total} faults at the first figure: {per['dependents'] * total:.0f} CPU s "
          f"(on 2 cores about {per['dependents'] * total / 2:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
