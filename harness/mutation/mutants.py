"""Mutation score: the suite tests itself.

A mutant is a seeded fault in the reference implementation: one exact snippet of one module
replaced by another (``tests/mutants/<family>.yaml``), naming the rules it breaks. Its ``file``
is relative to the checkout (``reference_impl/serialize/anthropic_messages.py``, or
``harness/audit/rules.py`` for the audit's own rules); its ``function`` names the definition
the snippet lies in (``Serializer.serialize``, a module-level ``build``, or a module-level
table such as ``TURN_TABLE``), and the snippet must occur exactly once inside it. So moving code
cannot silently invalidate a fault: a file, definition or snippet that is gone, or a snippet
that occurs twice, is an error naming the fault
(``python -m agent_tck.harness.mutation.anchors`` fills ``function`` and maps old file names).
Each mutant is applied to a fresh copy of the top-level package holding its file and the whole
vector suite is run against it in process. The mutant is *killed* for a rule when a vector citing
that rule fails; every MUST rule of every family
with vectors must have a mutant killed on it, and no mutant may survive.

A mutant marked ``survives: true`` is the opposite: an *accepted variant*, another reasonable
reading of the notes (the source runtime's, or an order no rule governs). It must fail no
vector at all, so the suite is proven not to pin what the notes leave open; ``rules`` names the
rules whose accepted outcomes it exercises.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from agent_tck.harness.common.errors import HarnessError

ROOT = Path(__file__).resolve().parents[2]  # the checkout
#: the top-level packages a fault may target
PACKAGES = ("reference_impl", "harness")
MUTANTS_DIR = ROOT / "tests" / "mutants"


def _is_checkout(folder: Path) -> bool:
    return ((folder / "tests" / "mutants").is_dir() and (folder / "reference_impl").is_dir()
            and (folder / "harness").is_dir())


def find_checkout(start: Path | None = None) -> Path:
    """The agent-tck checkout the seeded faults belong to: the folder (or a parent of it) the
    command runs in, else the one this module was loaded from. An installed wheel holds no
    tests/mutants, so from a checkout the checkout wins over site-packages."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if _is_checkout(folder):
            return folder
    if _is_checkout(ROOT):
        return ROOT
    raise HarnessError("MUTANTS_NOT_FOUND", "the seeded faults live in a checkout of agent-tck "
                       "(tests/mutants/); run this command inside one", str(here))


@dataclass(frozen=True)
class Mutant:
    name: str
    family: str
    rules: tuple[str, ...]
    file: str  # relative to the checkout
    function: str  # qualified name of the definition the snippet lies in
    find: str
    replace: str
    where: str
    survives: bool = False  # an accepted variant: must fail no vector
    #: the one rule the fault breaks (issue 21 D): a fault breaking a MUST is killed on it
    breaks: str = ""
    #: an accepted variant that may fail these SHOULD/MAY rules, and no other (issue 21 C: a
    #: serializer answering malformed input with another code fails BO-D007 only)
    fails_only: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    mutant: Mutant
    killed_on: dict[str, str] = field(default_factory=dict)  # rule -> first failing case
    error: str = ""
    failed_cases: tuple[str, ...] = ()  # every case that failed, whatever its rules
    failed_rules: tuple[str, ...] = ()  # the rules of every failed check, whatever the mutant

    @property
    def killed(self) -> bool:
        return bool(self.killed_on)


def load_mutants(folder: Path = MUTANTS_DIR) -> list[Mutant]:
    if not folder.is_dir():
        raise HarnessError("MUTANTS_NOT_FOUND", "the seeded faults live in a checkout of "
                           "agent-tck (tests/mutants/); run this command from one", str(folder))
    mutants: list[Mutant] = []
    names: set[str] = set()
    for path in sorted(folder.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for index, item in enumerate(doc.get("mutants", [])):
            where = f"{path}#/mutants/{index}"
            missing = {"name", "rules", "file", "function", "find", "replace"} - set(item)
            if missing:
                hint = (" (python -m agent_tck.harness.mutation.anchors fills it in)"
                        if missing == {"function"} else "")
                raise HarnessError("MUTANT_INVALID", f"fault {item.get('name')!r}: missing "
                                   f"{sorted(missing)}{hint}", where)
            if item["name"] in names:
                raise HarnessError("MUTANT_INVALID", f"duplicate name {item['name']!r}", where)
            names.add(item["name"])
            if not isinstance(item.get("survives", False), bool):
                raise HarnessError("MUTANT_INVALID", "survives must be true or false", where)
            _check_breaks(item, where)
            mutants.append(Mutant(item["name"], doc["family"], tuple(item["rules"]),
                                  item["file"], item["function"], item["find"],
                                  item["replace"], where, item.get("survives", False),
                                  item.get("breaks", ""), tuple(item.get("fails_only", ()))))
    return mutants


def _check_breaks(item: dict[str, Any], where: str) -> None:
    """``breaks``: the one rule a fault breaks, among its rules (an accepted variant breaks
    none); ``fails_only``: only on an accepted variant, the rules it may fail."""
    breaks, survives = item.get("breaks"), item.get("survives", False)
    if survives and breaks:
        raise HarnessError("MUTANT_INVALID", "an accepted variant (survives: true) breaks no "
                           "rule; drop breaks", where)
    if not survives and breaks not in item["rules"]:
        raise HarnessError("MUTANT_INVALID", f"fault {item['name']!r}: breaks must name the one "
                           f"rule it breaks, among its rules {item['rules']}", where)
    if item.get("fails_only") and not survives:
        raise HarnessError("MUTANT_INVALID", "fails_only is for accepted variants", where)


# ---- where a fault applies: a definition, then the snippet inside it -----------------------------


def definitions(source: str) -> list[tuple[str, int, int]]:
    """Every definition of a module as ``(qualified name, start, end)`` character offsets, outer
    before inner: functions, methods and classes (``Outer.method``, ``outer.inner``: nesting
    joined by dots) and module-level names bound by an assignment (a table such as
    ``TURN_TABLE``). A definition spans its decorators and its last line."""
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    found: list[tuple[str, int, int]] = []

    def span(node: ast.stmt) -> tuple[int, int]:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
        return starts[first - 1], starts[min(node.end_lineno or node.lineno, len(starts) - 1)]

    def visit(body: list[ast.stmt], prefix: str, module_level: bool) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                found.append((prefix + node.name, *span(node)))
                visit(node.body, f"{prefix}{node.name}.", False)
            elif module_level and isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        found.append((target.id, *span(node)))
            elif isinstance(node, ast.If | ast.Try | ast.With):  # e.g. `if TYPE_CHECKING:`
                for part in ("body", "orelse", "finalbody"):
                    visit(getattr(node, part, []), prefix, module_level)

    visit(ast.parse(source).body, "", True)
    return found


def locate(mutant: Mutant, text: str) -> int:
    """The offset of ``mutant.find`` in ``text``, found inside ``mutant.function`` only; an
    error naming the fault when the definition is missing or the snippet is not there exactly
    once."""
    where = f"fault {mutant.name!r} ({mutant.file})"
    try:
        spans = [(a, b) for name, a, b in definitions(text) if name == mutant.function]
    except SyntaxError as exc:
        raise HarnessError("MUTANT_INVALID", f"{where}: the file does not parse: {exc}",
                           mutant.where) from None
    if not spans:
        raise HarnessError("MUTANT_INVALID", f"{where}: no function {mutant.function!r} in "
                           f"{mutant.file}", mutant.where)
    hits = sorted({i for a, b in spans for i in _occurrences(text, mutant.find, a, b)})
    if len(hits) != 1:
        state = "is not" if not hits else f"occurs {len(hits)} times"
        raise HarnessError("MUTANT_INVALID", f"{where}: the find snippet {state} in function "
                           f"{mutant.function!r}; it must occur there exactly once",
                           mutant.where)
    return hits[0]


def _occurrences(text: str, snippet: str, start: int, end: int) -> list[int]:
    out: list[int] = []
    at = text.find(snippet, start, end)
    while at >= 0 and snippet:
        out.append(at)
        at = text.find(snippet, at + 1, end)
    return out


def apply(mutant: Mutant, root: Path) -> None:
    """Apply ``mutant`` to the copy of the checkout at ``root``: its snippet, found once inside
    its function, is replaced (so a refactor that moves the code makes the mutant fail loudly,
    never pass)."""
    target = root / mutant.file
    if not target.is_file():
        raise HarnessError("MUTANT_INVALID", f"fault {mutant.name!r}: no file {mutant.file}",
                           mutant.where)
    text = target.read_text(encoding="utf-8")
    at = locate(mutant, text)
    target.write_text(text[:at] + mutant.replace + text[at + len(mutant.find):],
                      encoding="utf-8")


def _worker(paths: Sequence[str]) -> dict[str, Any]:
    """In a fresh process: run every vector against each mutated copy; report failures."""
    import agent_tck
    from agent_tck.harness.contract.catalogue import load_catalogue
    from agent_tck.harness.contract.vectors import load_cases
    from agent_tck.harness.run.evaluate import failures
    from agent_tck.harness.run.targets import InProcessTarget

    cases = load_cases(known_rules=load_catalogue().by_id)
    results: dict[str, Any] = {}
    ours = {f"{agent_tck.__name__}.{p}" for p in PACKAGES}
    for copy in paths:
        # the copy holds only the mutated top-level package; the other resolves to the checkout
        for name in [m for m in sys.modules if ".".join(m.split(".")[:2]) in ours]:
            del sys.modules[name]
        agent_tck.__path__.insert(0, copy)  # agent_tck.<package> is now the mutated copy
        try:
            from agent_tck.harness.families import operations

            # as `run` does, with protocol 1.1 observations; only a failed case kills (an
            # errored one is the implementation crashing, not a rule catching the fault)
            # killed on the rules of the checks that failed (issue 21: checks carry rules)
            failed = [[case.id, list(judgment.failed_rules)] for case, _exp, judgment in
                      failures(InProcessTarget(operations()), cases, observable=True)
                      if judgment.status == "fail"]
            results[copy] = {"failed": failed}
        except Exception as exc:  # a mutant that breaks the import is reported, not killed
            results[copy] = {"error": f"{type(exc).__name__}: {exc}"}
        finally:
            agent_tck.__path__.remove(copy)
    return results


def run_mutants(mutants: Sequence[Mutant], *, jobs: int = 2,
                root: Path = ROOT) -> list[Outcome]:
    """Apply each mutant to a copy of the top-level package of ``root`` that holds its file;
    the workers run with ``root`` as their working folder, so ``python -m`` imports that
    checkout's harness and, for the package a mutant does not touch, the checkout's own."""
    with tempfile.TemporaryDirectory(prefix="agent-tck-mutants-") as tmp:
        copies: dict[str, Mutant] = {}
        for index, mutant in enumerate(mutants):
            copy = Path(tmp) / f"m{index:04d}"
            package = Path(mutant.file).parts[0]
            if package not in PACKAGES:
                raise HarnessError("MUTANT_INVALID", f"file {mutant.file!r} is not inside "
                                   f"{' or '.join(PACKAGES)}/", mutant.where)
            shutil.copytree(root / package, copy / package,
                            ignore=shutil.ignore_patterns("__pycache__"))
            apply(mutant, copy)
            copies[str(copy)] = mutant
        batches = [list(copies)[i::jobs] for i in range(jobs)]

        def run_batch(batch: list[str]) -> dict[str, Any]:
            if not batch:
                return {}
            env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
            proc = subprocess.run(
                [sys.executable, "-m", "agent_tck.harness.mutation.mutants", "--worker", *batch],
                capture_output=True, text=True, env=env, cwd=root, timeout=900, check=False,
            )
            if proc.returncode != 0:
                raise HarnessError("MUTANTS_FAILED", f"worker failed:\n{proc.stderr[-3000:]}")
            return json.loads(proc.stdout)

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            merged: dict[str, Any] = {}
            for part in pool.map(run_batch, batches):
                merged.update(part)
    outcomes = []
    for copy, mutant in copies.items():
        result = merged[copy]
        killed: dict[str, str] = {}
        for case_id, rules in result.get("failed", []):
            for rid in rules:
                if rid in mutant.rules:
                    killed.setdefault(rid, case_id)
        failed = tuple(dict.fromkeys(case_id for case_id, _ in result.get("failed", [])))
        failed_rules = tuple(dict.fromkeys(rid for _, rules in result.get("failed", [])
                                           for rid in rules))
        outcomes.append(Outcome(mutant, killed, result.get("error", ""), failed, failed_rules))
    return outcomes


def score(outcomes: Iterable[Outcome], must_rules: Iterable[str]) -> dict[str, Any]:
    outcomes = list(outcomes)
    killed_rules = {rid for o in outcomes for rid in o.killed_on}
    must = sorted(set(must_rules))
    return {
        "mutants": len(outcomes),
        "killed": sum(o.killed for o in outcomes if not o.mutant.survives),
        "survivors": [o.mutant.name for o in outcomes if not o.killed and not o.mutant.survives],
        # accepted variants (survives: true) that some vector fails: the suite pins what the
        # notes leave open
        "accepted_variants": sum(o.mutant.survives for o in outcomes),
        "accepted_variants_failed": {o.mutant.name: list(o.failed_cases) for o in outcomes
                                     if o.mutant.survives and (o.error or set(
                                         o.failed_rules) - set(o.mutant.fails_only))},
        "must_rules": len(must),
        "must_rules_without_a_killed_mutant": [r for r in must if r not in killed_rules],
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--worker"]:
        json.dump(_worker(args[1:]), sys.stdout)
        return 0
    raise SystemExit("usage: agent-tck mutants")


if __name__ == "__main__":
    raise SystemExit(main())
