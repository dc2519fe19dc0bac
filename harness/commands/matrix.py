"""``agent-tck matrix``: real LLM clients x scenarios through the audit proxy (docs/MATRIX.md).

Installs the pinned clients that are missing (into ~/.cache/agent-tck/clients, outside the
checkout), then for every client, API and scenario starts the mock provider with the
scenario's script and ``agent-tck audit --listen`` in front of it, runs the client's driver
against the proxy, and writes ``matrix.json``, ``matrix.md`` and ``matrix.html`` into
``--report-dir``: one row per rule, one column per client and API. Exit 0 when the matrix was
written (whatever its cells say), 2 on a usage or scenario error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.common.options import ListOption, pick_all

MATRIX_DIR = Path(__file__).resolve().parent.parent.parent / "matrix"  # as harness.matrix.run
DEFAULT_REPORT_DIR = Path("reports") / "matrix"


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "matrix", help="run real LLM clients through scripted scenarios and the audit proxy",
        description="The conformance matrix: each client's driver performs each scenario "
                    "against the mock provider behind the audit proxy; one row per rule, one "
                    "column per client and API.")
    p.add_argument("--clients", action=ListOption, nargs="+", metavar="NAME",
                   help="only these clients (ids, or package names that name one client; "
                        "repeatable, or a comma list)")
    p.add_argument("--scenarios", action=ListOption, nargs="+", metavar="ID",
                   help="only these scenarios (repeatable, or a comma list)")
    p.add_argument("--client", action=ListOption, metavar="NAME@VERSION",
                   help="run this version instead of the pinned one (repeatable, or a comma "
                        "list)")
    p.add_argument("--jobs", type=int, default=2, metavar="N", help="cells run at once")
    p.add_argument("--timeout", type=float, default=90.0, metavar="SECONDS",
                   help="how long one driver run may take before it is killed")
    p.add_argument("--save-vectors", action="store_true",
                   help="write a wire-audit regression vector for every request with findings "
                        "(reports/matrix/vectors/), linked from its cells")
    p.add_argument("--offline", action="store_true",
                   help="install nothing: a client not installed is a could-not-run column")
    p.add_argument("--registry", type=Path, default=MATRIX_DIR / "clients.yaml",
                   metavar="FILE", help="the client registry")
    p.add_argument("--scenario-dir", type=Path, default=MATRIX_DIR / "scenarios",
                   metavar="DIR", help="where the scenarios are")
    p.add_argument("--report-dir", type=Path, default=DEFAULT_REPORT_DIR, metavar="DIR",
                   help=f"where the matrix goes (default {DEFAULT_REPORT_DIR})")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from agent_tck.harness.matrix import model as mm
    from agent_tck.harness.matrix import run as mr

    if args.jobs < 1:
        raise HarnessError("USAGE", "--jobs must be at least 1")
    try:
        clients, agents = mr.load_registry(args.registry)
        clients = mm.override_versions(clients, args.client)
        scenarios = mr.load_scenarios(args.scenario_dir)
        # a package name two clients share (openai: Python and Node) is refused, not both run
        only_clients = pick_all("--clients", args.clients,
                                {c.id: (c.package,) for c in clients}, what="client")
        only_scenarios = pick_all("--scenarios", args.scenarios,
                                  {s.id: () for s in scenarios}, what="scenario")
        cells = mm.plan(clients, scenarios, only_clients, only_scenarios)
    except mm.MatrixInputError as exc:
        raise HarnessError("MATRIX_INPUT", str(exc)) from None
    except OSError as exc:
        raise HarnessError("MATRIX_INPUT", f"{exc.filename}: {exc.strerror}") from None
    if args.clients:
        agents = []
    settings = mr.Settings(out=args.report_dir.resolve(), timeout=args.timeout,
                           save_vectors=args.save_vectors)

    def progress(message: str) -> None:
        sys.stderr.write(f"agent-tck matrix: {message}\n")
        sys.stderr.flush()

    doc = mr.run_matrix(cells, agents, settings, jobs=args.jobs, offline=args.offline,
                        progress=progress)
    counts = ", ".join(f"{n} {s}" for s, n in doc["counts"].items())
    sys.stdout.write(f"matrix: {len(doc['rules'])} rules x {len(doc['columns'])} columns "
                     f"({counts}); {settings.out / 'matrix.md'}\n")
    return 0
