"""``agent-tck mutants``: the mutation score of the suite against seeded reference faults."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from agent_tck.harness.common.options import ListOption


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("mutants", help="seed faults in the reference implementation and "
                                              "report which the suite catches (checkout only)")
    p.add_argument("--family", action=ListOption, metavar="NAME",
                   help="only these families' faults (repeatable, or a comma list)")
    p.add_argument("--jobs", type=_positive_int, default=2)
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=mutants)


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number above 0, not {text!r}")
    return int(text)


def mutants(args: argparse.Namespace) -> int:
    from agent_tck.harness.cli import check_families
    from agent_tck.harness.contract.catalogue import load_catalogue
    from agent_tck.harness.contract.vectors import load_cases
    from agent_tck.harness.mutation.mutants import (
        at_a_tenth,
        find_checkout,
        load_mutants,
        run_mutants,
        score,
    )

    root = find_checkout()
    every = load_mutants(root / "tests" / "mutants")
    family = check_families("--family", args.family, sorted({m.family for m in every}))
    chosen = [m for m in every if not family or m.family in family]

    def progress(done: int, total: int) -> None:
        if at_a_tenth(done, total):
            sys.stderr.write(f"mutation run: {done}/{total} seeded faults run\n")

    outcomes = run_mutants(chosen, jobs=args.jobs, root=root, progress=progress)
    families = {c.family for c in load_cases()} & ({m.family for m in chosen})
    must = [r.id for r in load_catalogue().rules if r.level == "MUST" and r.family in families]
    result = score(outcomes, must)
    if args.format == "json":
        json.dump({**result, "outcomes": [
            {"name": o.mutant.name, "family": o.mutant.family, "rules": list(o.mutant.rules),
             "survives": o.mutant.survives, "killed_on": o.killed_on,
             "failed_cases": list(o.failed_cases), "error": o.error} for o in outcomes]},
                  sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for o in outcomes:
            if o.mutant.survives:  # an accepted variant: must fail nothing
                within = not set(o.failed_rules) - set(o.mutant.fails_only)
                state = ("accepted variant, passes every vector" if not o.failed_cases
                         and not o.error else
                         f"accepted variant, fails only {', '.join(o.mutant.fails_only)}"
                         if within and not o.error else f"ACCEPTED VARIANT FAILED {o.error}"
                         f"{', '.join(o.failed_cases)}")
            else:
                state = ("killed by " + ", ".join(f"{r} ({c})" for r, c in o.killed_on.items())
                         if o.killed else f"SURVIVED {o.error}")
            print(f"  {o.mutant.family:<24} {o.mutant.name:<48} {state}")
        print(f"mutation score: {result['killed']}/"
              f"{result['mutants'] - result['accepted_variants']} killed; accepted variants "
              f"failing a vector: {len(result['accepted_variants_failed'])} of "
              f"{result['accepted_variants']}; MUST rules "
              f"without a killed mutant: {len(result['must_rules_without_a_killed_mutant'])} of "
              f"{result['must_rules']}")
    ok = (not result["survivors"] and not result["must_rules_without_a_killed_mutant"]
          and not result["accepted_variants_failed"])
    return 0 if ok else 1
