"""Every module of harness and reference_impl imports on its own, no two import each other, and
reference_impl does no I/O.

An import cycle works or breaks depending on which module a caller happens to import first, and
a cycle hidden inside a function (a lazy import) is still two modules that cannot be understood
apart. So the graph of imports, module-level and function-level alike, must have no cycle; and
each module must import in an interpreter that has imported nothing of ours yet.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAMESPACE = "agent_tck"  # the one import package; tools/namespace.py
PACKAGES = ("harness", "reference_impl")  # its subpackages, folders at the repository root


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    folders = [(ROOT / "src" / NAMESPACE, [NAMESPACE])]
    folders += [(ROOT / package, [NAMESPACE, package]) for package in PACKAGES]
    for folder, prefix in folders:
        for path in sorted(folder.rglob("*.py")):
            parts = [*prefix, *path.relative_to(folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """Our modules ``name`` imports anywhere in its file (``from a import b`` counts a.b when
    that is a module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found |= {base, *(f"{base}.{a.name}" for a in node.names)}
    return {m for m in found if m in MODULES and m != name}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_even_through_function_level_imports():
    graph = {name: _imports(name, path) for name, path in MODULES.items()}
    assert _cycles(graph) == []


def _third_party() -> set[str]:
    """Top-level names of every other package our modules import (stdlib included)."""
    found: set[str] = set()
    for path in MODULES.values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                found.add(node.module.split(".")[0])
    return found - {NAMESPACE}


# One child per module, forked from an interpreter that has imported nothing of ours (other
# packages are imported once before forking, for speed: they cannot take part in our cycles), so
# each import runs exactly as it would for a caller that imports only that module.
_DRIVER = """
import importlib, os, sys, traceback
split = sys.argv.index("--")
for other in sys.argv[1:split]:
    try:
        importlib.import_module(other)
    except Exception:
        pass  # an optional extra that is not installed; the module importing it will say so
assert not [m for m in sys.modules if m.split(".")[0] in ("agent_tck", "harness", "reference_impl")]
failed = []
running = {}  # pid -> (name, read end of its pipe); a few children at a time
queue = sys.argv[split + 1:]
while queue or running:
    while queue and len(running) < (os.cpu_count() or 1):
        name = queue.pop(0)
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            try:
                importlib.import_module(name)
                code = 0
            except BaseException:
                os.write(write, traceback.format_exc().encode()[-4000:])
                code = 1
            os._exit(code)
        os.close(write)
        running[pid] = (name, read)
    pid, status = os.wait()
    name, read = running.pop(pid)
    with os.fdopen(read, "rb") as pipe:
        detail = pipe.read().decode(errors="replace")
    if status != 0:
        failed.append(name + ": " + (detail.strip().splitlines() or ["died"])[-1])
print("\\n".join(failed))
sys.exit(1 if failed else 0)
"""


def test_every_module_imports_alone_in_a_fresh_interpreter():
    names = sorted(MODULES)
    if hasattr(os, "fork"):
        commands = [[sys.executable, "-c", _DRIVER, *sorted(_third_party()), "--", *names]]
    else:  # no fork (Windows): one interpreter per module
        commands = [[sys.executable, "-c", f"import {name}"] for name in names]
    failures = []
    for command in commands:
        proc = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=600,
                              check=False)
        if proc.returncode != 0:
            failures.append(proc.stdout + proc.stderr)
    assert not failures, "\n".join(failures)
    assert {"agent_tck.harness.cli", "agent_tck.reference_impl.serialize.ops"} <= set(names)


def test_the_import_driver_reports_a_module_that_fails():
    proc = subprocess.run([sys.executable, "-c", _DRIVER, "--", "json", "no_such_module_xyz"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    assert proc.returncode == 1
    assert proc.stdout.strip() == (
        "no_such_module_xyz: ModuleNotFoundError: No module named 'no_such_module_xyz'")


# ---- reference_impl is sans-I/O: no file, socket, clock, process, thread or randomness ----------

#: Standard modules whose use is I/O (files, sockets, the console, processes, threads), a clock or
#: randomness. ``importlib``/``pkgutil`` stay allowed: discovering our own modules is how the
#: language loads code (session_log.format finds its ``ext_*`` modules that way), not data I/O.
IO_MODULES = frozenset({
    "asyncio", "concurrent", "ctypes", "datetime", "fcntl", "fileinput", "ftplib", "glob", "gzip",
    "http", "io", "logging", "mmap", "multiprocessing", "os", "pathlib", "random", "secrets",
    "select", "selectors", "shutil", "signal", "smtplib", "socket", "socketserver", "ssl",
    "subprocess", "sys", "tempfile", "threading", "time", "urllib", "uuid", "zipfile",
})
#: Builtins that read or write the console or a file.
IO_BUILTINS = frozenset({"open", "print", "input", "breakpoint"})
#: Our own packages reference_impl may not import (harness is the kit around it).
NOT_BELOW = (f"{NAMESPACE}.harness", "harness")


def io_uses(source: str) -> list[str]:
    """What in ``source`` does I/O: imports of IO_MODULES or of the harness, calls of
    IO_BUILTINS; each as ``line N: what``."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in IO_BUILTINS):
            found.append(f"line {node.lineno}: calls {node.func.id}()")
        for name in names:
            top = name.split(".")[0]
            if top in IO_MODULES or any(name == n or name.startswith(f"{n}.") for n in NOT_BELOW):
                found.append(f"line {node.lineno}: imports {name}")
    return found


def test_the_io_check_finds_io():
    source = ("import os.path\nfrom time import monotonic\n"
              "from agent_tck.harness.common.errors import X\n"
              "def f():\n    import socket\n    print(open('x').read())\n")
    assert io_uses(source) == [
        "line 1: imports os.path", "line 2: imports time",
        "line 3: imports agent_tck.harness.common.errors", "line 5: imports socket",
        "line 6: calls print()", "line 6: calls open()"]
    assert io_uses("import json\nfrom collections.abc import Mapping\n") == []


def test_reference_impl_does_no_io():
    """The design card: reference_impl/ is pure functions and state tables; the adapter, the mock
    provider and the audit's rules live in harness/."""
    offenders = {name: uses for name, path in MODULES.items()
                 if name.split(".")[:2] == [NAMESPACE, "reference_impl"]
                 and (uses := io_uses(path.read_text(encoding="utf-8")))}
    assert offenders == {}
