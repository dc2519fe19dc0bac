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
Each mutant's module is imported with the fault applied, in memory (no copy of the tree; every
other module comes from the checkout), and the vectors citing its rules are run against it in
process (:func:`run_mutants`). The mutant is *killed* for a rule when a vector citing that rule
fails; every MUST rule of every family with vectors must have a mutant killed on it, and no
mutant may survive.

A mutant marked ``survives: true`` is the opposite: an *accepted variant*, another reasonable
reading of the notes (the source runtime's, or an order no rule governs). It must fail no
vector at all, so the suite is proven not to pin what the notes leave open; ``rules`` names the
rules whose accepted outcomes it exercises.
"""

from __future__ import annotations

import ast
import functools
import gc
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import queue
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import types
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.common.safe_yaml import load_own

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
        doc = load_own(path.read_text(encoding="utf-8")) or {}
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


def mutated_source(mutant: Mutant, root: Path) -> str:
    """The text of ``mutant.file`` in the checkout at ``root`` with the fault applied: its
    snippet, found once inside its function, replaced (so a refactor that moves the code makes
    the mutant fail loudly, never pass)."""
    target = root / mutant.file
    if not target.is_file():
        raise HarnessError("MUTANT_INVALID", f"fault {mutant.name!r}: no file {mutant.file}",
                           mutant.where)
    text = target.read_text(encoding="utf-8")
    at = locate(mutant, text)
    return text[:at] + mutant.replace + text[at + len(mutant.find):]


def apply(mutant: Mutant, root: Path) -> None:
    """Apply ``mutant`` to the copy of the checkout at ``root``, in place (for a test's copy:
    the runner writes no file, its workers import the mutated text)."""
    (root / mutant.file).write_text(mutated_source(mutant, root), encoding="utf-8")


def module_name(file: str) -> str:
    """The import name of a checkout file: ``reference_impl/serialize/ops.py`` is
    ``agent_tck.reference_impl.serialize.ops`` (an ``__init__.py``: its package)."""
    parts = list(Path(file).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["agent_tck", *parts])


def _job(index: int, mutant: Mutant, root: Path) -> dict[str, Any]:
    """What a worker is sent for one fault: the module to replace and its mutated text."""
    if Path(mutant.file).parts[0] not in PACKAGES:
        raise HarnessError("MUTANT_INVALID", f"file {mutant.file!r} is not inside "
                           f"{' or '.join(PACKAGES)}/", mutant.where)
    return {"index": index, "module": module_name(mutant.file),
            "path": str(root / mutant.file), "source": mutated_source(mutant, root),
            "rules": list(mutant.rules), "survives": mutant.survives}


Progress = Callable[[int, int], None]


def at_a_tenth(done: int, total: int) -> bool:
    """Whether ``done`` of ``total`` crosses a tenth (or is the last): when to say how far."""
    return done == total or done * 10 // total != (done - 1) * 10 // total


def run_mutants(mutants: Sequence[Mutant], *, jobs: int = 2, root: Path = ROOT,
                progress: Progress | None = None) -> list[Outcome]:
    """Run each mutant through the vectors and say which rules caught it.

    ``jobs`` worker processes (``python -m agent_tck.harness.mutation.mutants --worker``, working
    folder ``root``) each import the kit and load the vectors once, then take faults one at a time
    from a shared queue: per fault, a forked child imports the kit afresh with the one mutated
    module served from memory (every other module from the checkout, its bytecode cached) and runs
    the cases, so no fault can leak into the next, and one that hangs is stopped after
    :data:`FAULT_TIMEOUT` seconds (an ``error`` outcome). ``progress(done, total)`` is called
    after each fault."""
    pending: queue.Queue[dict[str, Any]] = queue.Queue()
    for index, mutant in enumerate(mutants):
        pending.put(_job(index, mutant, root))  # every fault applies, or nothing runs
    results: dict[int, dict[str, Any]] = {}
    lock = threading.Lock()

    def drive() -> None:
        for result in _Worker(root).serve(pending):
            with lock:
                results[result["index"]] = result
                if progress is not None:
                    progress(len(results), len(mutants))

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for done in [pool.submit(drive) for _ in range(min(jobs, len(mutants)))]:
            done.result()
    return [_outcome(mutant, results[index]) for index, mutant in enumerate(mutants)]


def _outcome(mutant: Mutant, result: dict[str, Any]) -> Outcome:
    killed: dict[str, str] = {}
    for case_id, rules in result.get("failed", []):
        for rid in rules:
            if rid in mutant.rules:
                killed.setdefault(rid, case_id)
    failed = tuple(dict.fromkeys(case_id for case_id, _ in result.get("failed", [])))
    failed_rules = tuple(dict.fromkeys(rid for _, rules in result.get("failed", [])
                                       for rid in rules))
    return Outcome(mutant, killed, result.get("error", ""), failed, failed_rules)


class _Worker:
    """One worker process, fed one fault per line on stdin, answering one line each."""

    def __init__(self, root: Path) -> None:
        # closed in serve(), when the worker has stopped
        self.stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "agent_tck.harness.mutation.mutants", "--worker", str(root)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, text=True,
            encoding="utf-8", cwd=root)

    def serve(self, pending: queue.Queue[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            while True:
                try:
                    job = pending.get_nowait()
                except queue.Empty:
                    return
                self.proc.stdin.write(json.dumps(job) + "\n")
                self.proc.stdin.flush()
                line = self.proc.stdout.readline()
                if not line:
                    raise HarnessError("MUTANTS_FAILED", f"worker failed:\n{self._stderr()}")
                yield json.loads(line)
        finally:
            self.proc.stdin.close()
            self.proc.wait()
            self.stderr.close()

    def _stderr(self) -> str:
        self.proc.wait()
        self.stderr.seek(0)
        return self.stderr.read()[-3000:]


# ---- the worker: one process, one fault at a time ------------------------------------------------

#: seconds one fault's run may take before it is stopped (the whole vector suite takes well under
#: one): a fault that loops forever becomes an error outcome, never a hung run
FAULT_TIMEOUT = 120.0


class _Finder(importlib.abc.MetaPathFinder):
    """Imports the kit's own modules from compiled code kept in memory (each file is compiled
    once per worker, whatever the interpreter's bytecode cache), and one module, when named,
    from its mutated text."""

    def __init__(self, codes: dict[str, types.CodeType]) -> None:
        self.codes = codes
        self.mutated: tuple[str, str] = ("", "")  # (module name, its mutated text)

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if not _ours(fullname):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return spec
        origin = str(spec.origin)
        if fullname == self.mutated[0]:
            code = compile(self.mutated[1], origin, "exec", dont_inherit=True)
        elif origin in self.codes:
            code = self.codes[origin]
        else:
            code = self.codes[origin] = spec.loader.get_code(fullname)  # type: ignore[assignment]
        spec.loader = _CodeLoader(fullname, origin, code)
        return spec


class _CodeLoader(importlib.machinery.SourceFileLoader):
    def __init__(self, fullname: str, path: str, code: types.CodeType) -> None:
        super().__init__(fullname, path)
        self.code = code

    def get_code(self, fullname: str) -> types.CodeType:
        return self.code


def _ours(module: str) -> bool:
    return ".".join(module.split(".")[:2]) in {f"agent_tck.{p}" for p in PACKAGES}


_IMPORT_BY_NAME = {"import_module", "__import__"}


class _Dependents:
    """Which of the kit's modules must be imported afresh when one changes: the module, every
    module importing it (at the top or inside a function, directly or through others), and
    every module that imports by name at run time (``importlib.import_module``: family
    discovery), with their importers. The others keep the objects they hold, which cannot
    reach the changed module's (read from the import statements of the checkout's files)."""

    def __init__(self, root: Path) -> None:
        self.files = {module_name(str(path.relative_to(root))): path for package in PACKAGES
                      for path in sorted((root / package).rglob("*.py"))}
        self.importers: dict[str, set[str]] = {name: set() for name in self.files}
        for name, path in self.files.items():
            for imported in self._imports(name, path):
                self.importers[imported].add(name)

    def _imports(self, name: str, path: Path) -> set[str]:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        named: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                named |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from the module's package
                    package = name.split(".")[:len(name.split(".")) - node.level
                                               + (path.name == "__init__.py")]
                    base = ".".join([*package, *([node.module] if node.module else [])])
                named |= {base, *(f"{base}.{alias.name}" for alias in node.names)}
            elif ((isinstance(node, ast.Attribute) and node.attr in _IMPORT_BY_NAME)
                  or (isinstance(node, ast.Name) and node.id in _IMPORT_BY_NAME)):
                return set(self.files)  # may import any of them
        return named & set(self.files)

    def of(self, module: str) -> set[str]:
        found, todo = {module}, [module]
        while todo:
            for importer in self.importers.get(todo.pop(), ()):
                if importer not in found:
                    found.add(importer)
                    todo.append(importer)
        return found


def reach(cases: Sequence[Any]) -> list[tuple[Any, frozenset[str]]]:
    """Each case with the rules its checks can be charged to: those it cites, BO-008 where its
    operation is observed, the rules of its operations' invariants (harness.run.runner)."""
    from agent_tck.harness.run.runner import charged_elsewhere

    return [(case, frozenset({r for exp in case.expect for r in case.rules_for(exp)}
                             | charged_elsewhere([case]))) for case in cases]


def _run_fault(job: dict[str, Any], cases: Sequence[tuple[Any, frozenset[str]]],
               finder: _Finder, dependents: _Dependents) -> dict[str, Any]:
    """Import the kit afresh with the job's module mutated and run the cases that bear on it:
    every case for an accepted variant (it must fail none; the whole kit is imported afresh),
    else the cases whose checks can be charged to a rule the fault names (:func:`reach`; no
    other case can kill it or move one of its citations; only the modules depending on the
    mutated one are imported afresh)."""
    # without fork the previous fault ran in this process: everything is imported afresh
    whole = job["survives"] or not hasattr(os, "fork")
    fresh = _ours if whole else dependents.of(job["module"]).__contains__
    _forget([m for m in sys.modules if fresh(m)])
    finder.mutated = (job["module"], job["source"])
    try:
        rules = set(job["rules"])
        chosen = [case for case, reached in cases if job["survives"] or rules & reached]
        return {"failed": _failed(chosen)}
    except Exception as exc:  # a mutant that breaks the import is reported, not killed
        return {"error": f"{type(exc).__name__}: {exc}"}
    finally:
        finder.mutated = ("", "")


def _forget(names: Sequence[str]) -> None:
    """Drop modules so the next import runs them afresh, and their names from the packages that
    stay (``from package import module`` takes a package's attribute before importing)."""
    for name in names:
        module = sys.modules.pop(name)
        parent, _, child = name.rpartition(".")
        if parent not in names and getattr(sys.modules.get(parent), child, None) is module:
            delattr(sys.modules[parent], child)


def _failed(cases: Sequence[Any]) -> list[list[Any]]:
    """``[case id, its rules]`` of each case that fails against the kit as imported now."""
    from agent_tck.harness.families import operations
    from agent_tck.harness.run.evaluate import failures
    from agent_tck.harness.run.targets import InProcessTarget

    # as `run` does, with protocol 1.1 observations; only a failed case kills (an errored one
    # is the implementation crashing, not a rule catching the fault), and it kills on the rules
    # of the checks that failed (issue 21: checks, not cases, carry rules)
    return [[case.id, list(judgment.failed_rules)] for case, _exp, judgment in
            failures(InProcessTarget(operations()), cases, observable=True)
            if judgment.status == "fail"]


def _isolated(work: Callable[[], dict[str, Any]], timeout: float) -> dict[str, Any]:
    """``work()`` in a forked child (where the platform forks), its answer read from a pipe;
    a child that hangs past ``timeout`` seconds is killed, one that dies is an error."""
    if not hasattr(os, "fork"):
        return work()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer on the pipe, then leave without running any cleanup
        os.close(read_end)
        try:
            answer = json.dumps(work())
        except BaseException as exc:
            answer = json.dumps({"error": f"{type(exc).__name__}: {exc}"})
        with os.fdopen(write_end, "w", encoding="utf-8") as out:
            out.write(answer)
        os._exit(0)
    os.close(write_end)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    with os.fdopen(read_end, "rb") as pipe:
        while ready := select.select([pipe], [], [], max(0.0, deadline - time.monotonic()))[0]:
            chunk = os.read(ready[0].fileno(), 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return {"error": f"the run did not finish within {timeout:g} s"}
    _, status = os.waitpid(pid, 0)
    if not chunks:
        return {"error": f"the run died (wait status {status})"}
    result: dict[str, Any] = json.loads(b"".join(chunks))
    return result


def _serve(root: str) -> None:
    """The worker loop: stdin carries one fault per line, the answer goes out on stdout, one
    line each. Anything the kit or a fault prints goes to stderr, never into the answers."""
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    import agent_tck

    if not any(Path(p).resolve() == Path(root).resolve() for p in agent_tck.__path__[:1]):
        agent_tck.__path__.insert(0, root)  # this checkout's modules, not another install's
    finder = _Finder({})
    sys.meta_path.insert(0, finder)
    _forget([m for m in sys.modules if _ours(m)])
    from agent_tck.harness.contract.catalogue import load_catalogue
    from agent_tck.harness.contract.vectors import load_cases

    cases = load_cases(known_rules=load_catalogue().by_id)
    _failed(cases)  # once unmutated: the modules every run imports are compiled and loaded here
    reached = reach(cases)
    dependents = _Dependents(Path(root))
    gc.freeze()  # the forked children share these pages instead of copying them
    for line in sys.stdin:
        job: dict[str, Any] = json.loads(line)
        result = _isolated(functools.partial(_run_fault, job, reached, finder, dependents),
                           FAULT_TIMEOUT)
        answers.write(json.dumps({"index": job["index"], **result}) + "\n")
        answers.flush()


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
    if args[:1] == ["--worker"] and len(args) == 2:
        _serve(args[1])
        return 0
    raise SystemExit("usage: agent-tck mutants")


if __name__ == "__main__":
    raise SystemExit(main())
