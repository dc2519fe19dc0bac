r"""Rewrite the repository to the installed import names ``agent_tck.harness`` and
``agent_tck.reference_impl`` (src/agent_tck/__init__.py says why). Idempotent: run it after
any merge; ``--check`` changes nothing and exits 1 naming every file it would change.

    python tools/namespace.py           # rewrite, then sort the touched imports (ruff, rule I)
    python tools/namespace.py --check   # tests/test_namespace.py runs this

What it rewrites, in every file git knows (tracked or new, not ignored):

1. ``harness.x`` and ``reference_impl.x`` used as module paths (imports, ``python -m ...``,
   entry points, strings naming modules, ``:mod:`` references in docs and docstrings) become
   ``agent_tck.harness.x`` / ``agent_tck.reference_impl.x``; so do the bare statements
   ``from harness import x``, ``import reference_impl``. File paths (``harness/cli.py``) and
   names that merely contain the word (``test_harness.py``) are left alone.
2. Inside ``harness/`` and ``reference_impl/``, a relative import becomes absolute
   (``from .errors import X`` in harness/cli.py -> ``from agent_tck.harness.errors import X``):
   a relative import is silently wrong once git carries its file into another folder in a
   merge, an absolute one keeps naming its module; and a module loaded by file path
   (``mitmdump -s harness/audit/addon.py``) has no parent package to be relative to.
3. Without ``--check``, ``ruff check --select I --fix`` on the rewritten Python files (a
   longer import is re-wrapped, a former relative import re-sorted).

It does not rewrite, but names (exit 1), an unaliased ``import agent_tck.x.y`` (see
:func:`unaliased`) and an import of a module of ours that does not exist (:func:`unresolved`).
Docstrings and comments of Python files keep naming modules by folder
(``harness.audit.engine``): a script cannot re-wrap prose to the line limit.

Not found by any pattern, so checked by a person after a merge: code that spells a package
name without a dot (``"reference_impl"``, ``startswith("harness.")``, a ``PACKAGES`` tuple) or
walks a package by path; ``git grep -nE '"(harness|reference_impl)\.?"' -- '*.py'`` lists it.
The mutants worker names modules ``agent_tck.<package>...`` (``harness.mutants.module_name``);
module discovery uses ``__package__`` or a package's ``__name__``. Then ``ruff check .`` (a
rewritten code line is 10 characters longer) and the tests.
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import sys
import textwrap
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAMESPACE = "agent_tck"
PACKAGES = ("harness", "reference_impl")
#: never rewritten: this script, its test (examples of old names), the namespace package
SKIP = ("tools/namespace.py", "tests/test_namespace.py", "src/agent_tck/")
TEXT_SUFFIXES = frozenset({".py", ".md", ".toml", ".yaml", ".yml", ".json", ".txt", ".cfg",
                           ".ini", ".feature", ".html", ".js", ".sh", ""})

_ALT = "|".join(PACKAGES)
# a dotted module path starting with one of our packages, not already inside a longer dotted
# name (agent_tck.harness), a file path (a/harness.x) or a word (test_harness.x), and not a
# file name (harness.py)
_DOTTED = re.compile(rf"(?<![\w./\\-])({_ALT})\.(?=[A-Za-z_{{])(?!(?:py|md|yaml|json|toml)\b)")
# ``from harness import x``, ``import reference_impl`` (the package itself, no dot after it)
_BARE = re.compile(rf"^(\s*(?:from|import)\s+)({_ALT})(?=\s|$|,)", re.MULTILINE)
# the CLI as a module: ``python -m harness.cli`` and ``"-m", "harness.cli"`` -> ``-m agent_tck``
# (src/agent_tck/__main__.py); ``harness.cli:main`` and ``harness.cli.x`` are module paths
_CLI = re.compile(r"""(-m["']?,?\s*["']?)harness\.cli\b(?![.:\w])""")
# ``-m <module>`` is a command even where the prose is left alone (docstrings, comments)
_RUN = re.compile(rf"(?<=-m )({_ALT})\.(?=[A-Za-z_])")
_RELATIVE = re.compile(r"^\s*from\s+\.", re.MULTILINE)
_IMPORT = re.compile(rf"^\s*import\s+{NAMESPACE}\.", re.MULTILINE)


#: Modules of harness/ grouped into subpackages by what they do (issue 25): the old dotted name
#: (after ``harness.``) -> the new one. Applied to module paths (code and prose alike), to
#: ``from agent_tck.harness import x`` and to file paths (``harness/evaluate.py``, the
#: ``file:`` of a seeded fault); :func:`move_files` carries a file still at its old place (a
#: branch merged after the move) to the new one. harness/ itself keeps only the entry points:
#: cli (the command), pytest_plugin (the pytest11 plugin), reference_adapter (``python -m``).
MOVES = {
    # the run pipeline: select, call, judge, record
    "runner": "run.runner", "conformance_run": "run.conformance_run",
    "evaluate": "run.evaluate", "checks": "run.checks", "invariants": "run.invariants",
    "verdicts": "run.verdicts", "compare": "run.compare",
    "results": "run.results", "outcome": "run.outcome", "baseline": "run.baseline",
    "targets": "run.targets", "subprocess_target": "run.subprocess_target",
    "protocol": "run.protocol",
    # the contract as the kit reads it: the rule catalogue, the vectors, what cites what
    "catalogue": "contract.catalogue", "vectors": "contract.vectors",
    "coverage": "contract.coverage", "operations_doc": "contract.operations_doc",
    # the conformance matrix of real clients
    "matrix_model": "matrix.model", "matrix_run": "matrix.run",
    # the mutation score
    "mutants": "mutation.mutants", "mutant_anchors": "mutation.anchors",
    # what every shell uses: data folders, errors, schema validation, safe YAML, the console
    "data": "common.data", "errors": "common.errors", "jsonschema_util": "common.jsonschema_util",
    "safe_yaml": "common.safe_yaml", "console": "common.console", "options": "common.options",
    "whole_file": "common.whole_file",
}
#: what a new subpackage's __init__.py says
PACKAGE_DOCS = {
    "run": "The run pipeline: select cases, call the implementation (in process or through the "
           "adapter protocol), judge each result and record it in the results stream.",
    "contract": "The contract as the kit reads it: the rule catalogue, the vector files and the "
                "links between rules and what cites them.",
    "matrix": "The conformance matrix of real client libraries: its model (pure) and its run "
              "(drivers, mock provider, audit proxy).",
    "mutation": "The mutation score: seeded faults applied to copies of the reference "
                "implementation, and the anchors that keep them pinned to their code.",
    "common": "What every shell of the kit uses: where the data lives, the harness's errors, "
              "JSON Schema validation, safe YAML, the one console output path and the command "
              "conventions.",
}
_MOVED = "|".join(sorted(MOVES, key=len, reverse=True))
# ``harness.evaluate`` / ``agent_tck.harness.evaluate`` as a module path, not a longer name
_MOVED_DOTTED = re.compile(rf"(?<![\w/-])((?:{NAMESPACE}\.)?harness)\.({_MOVED})(?![\w])")
_MOVED_FROM = re.compile(rf"^(\s*from\s+(?:{NAMESPACE}\.)?harness)\s+import\s+({_MOVED})"
                         rf"(\s+as\s+\w+)?(?=[ \t]*(?:#.*)?$)", re.MULTILINE)
_MOVED_PATH = re.compile(rf"(?<![\w.-])harness/({_MOVED})\.py\b")


def rewrite_moves(text: str) -> str:
    """Step 0: the names and paths of modules moved into subpackages (:data:`MOVES`)."""
    if "harness" not in text:
        return text

    def from_import(m: re.Match[str]) -> str:
        package, _, leaf = MOVES[m.group(2)].rpartition(".")
        alias = m.group(3) or ("" if leaf == m.group(2) else f" as {m.group(2)}")
        return f"{m.group(1)}.{package} import {leaf}{alias}"

    text = _MOVED_FROM.sub(from_import, text)
    text = _MOVED_DOTTED.sub(lambda m: f"{m.group(1)}.{MOVES[m.group(2)]}", text)
    return _MOVED_PATH.sub(lambda m: f"harness/{MOVES[m.group(1)].replace('.', '/')}.py", text)


def package_doc(name: str) -> str:
    """A new subpackage's ``__init__.py``: its docstring, wrapped to the line limit."""
    body = textwrap.fill(f'"""{PACKAGE_DOCS[name]}"""', width=100)
    return body + "\n"


def move_files(check: bool) -> list[str]:
    """Carry every module of :data:`MOVES` still at its old place to its new one (``git mv``,
    so history follows), creating the subpackage with its docstring. Returns what it moved (or,
    with ``check``, would move)."""
    moved = []
    for old, new in MOVES.items():
        source = ROOT / "harness" / f"{old}.py"
        if not source.is_file():
            continue
        target = ROOT / "harness" / f"{new.replace('.', '/')}.py"
        moved.append(f"harness/{old}.py -> {target.relative_to(ROOT).as_posix()}")
        if check:
            continue
        init = target.parent / "__init__.py"
        if not init.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            init.write_text(package_doc(target.parent.name), encoding="utf-8")
            subprocess.run(["git", "add", str(init)], cwd=ROOT, check=True)
        if target.exists():
            raise SystemExit(f"{target} exists and harness/{old}.py too: merge them by hand")
        subprocess.run(["git", "mv", str(source), str(target)], cwd=ROOT, check=True)
    return moved


def _files() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=ROOT, capture_output=True, check=True).stdout.decode()
    paths = []
    for name in sorted(set(filter(None, out.split("\0")))):
        path = ROOT / name
        if (path.suffix in TEXT_SUFFIXES and path.is_file() and not name.startswith(SKIP)):
            paths.append(path)
    return paths


def _prose_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the comments and docstrings (a string that is a whole statement) of
    Python source ``text`` (tokens only: an AST walk of every file is several times slower)."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    spans = []
    statement_start = True
    pending = None  # a string token that began a statement, until we see what follows it
    skip = {tokenize.NL, tokenize.INDENT, tokenize.DEDENT}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            span = (starts[token.start[0] - 1] + token.start[1],
                    starts[token.end[0] - 1] + token.end[1])
            if token.type == tokenize.COMMENT:
                spans.append(span)
                continue
            if token.type in skip:
                continue
            if pending is not None:
                if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                    spans.append(pending)
                pending = None
            if token.type == tokenize.STRING and statement_start:
                pending = span
            statement_start = token.type == tokenize.NEWLINE or (
                token.type == tokenize.OP and token.string == ";")
    except (SyntaxError, tokenize.TokenError):
        return [(0, len(text))]  # not Python we can read: leave its prose and code alone
    return sorted(spans)


def rewrite_names(text: str, python: bool) -> str:
    """Step 1: module paths of our packages get the namespace in front. In Python, comments
    and docstrings keep naming modules by their folder (``harness.audit.engine``), except for
    ``-m`` commands: prose is not re-wrapped by a script, and the folder is what a reader opens."""
    def names(part: str) -> str:
        part = _CLI.sub(rf"\g<1>{NAMESPACE}", part)
        part = _DOTTED.sub(rf"{NAMESPACE}.\1.", part)
        return _BARE.sub(rf"\g<1>{NAMESPACE}.\2", part)

    if not python:
        return names(text)
    if not (_DOTTED.search(text) or _BARE.search(text) or _CLI.search(text)):
        return text
    out, at = [], 0
    for start, end in _prose_spans(text):
        out.append(names(text[at:start]))
        out.append(_RUN.sub(rf"{NAMESPACE}.\1.", _CLI.sub(rf"\g<1>{NAMESPACE}", text[start:end])))
        at = end
    out.append(names(text[at:]))
    return "".join(out)


def _package_of(rel: str) -> list[str] | None:
    """``harness/audit/engine.py`` -> [agent_tck, harness, audit]; None outside our packages."""
    parts = rel.split("/")
    if parts[0] not in PACKAGES or not rel.endswith(".py"):
        return None
    return [NAMESPACE, *parts[:-1]]


def absolutize(text: str, rel: str) -> str:
    """Step 2: inside a package, a relative import becomes absolute. A relative import is
    silently wrong after its file moves to another folder (git follows the move and keeps the
    dots); an absolute one still names its module, or fails to resolve (:func:`unresolved`)."""
    package = _package_of(rel)
    if package is None or not _RELATIVE.search(text):
        return text
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    lines = text.splitlines(keepends=True)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            anchor = package[: len(package) - node.level + 1]
            target = ".".join([*anchor, *([node.module] if node.module else [])])
            line = lines[node.lineno - 1]
            head = re.compile(rf"from\s+\.{{{node.level}}}{re.escape(node.module or '')}(?=\s)")
            lines[node.lineno - 1] = (line[:node.col_offset]
                                      + head.sub(f"from {target}", line[node.col_offset:],
                                                 count=1))
    return "".join(lines)


def rewrite(text: str, rel: str) -> str:
    # moves last: a relative import made absolute may name a moved module
    return rewrite_moves(absolutize(rewrite_names(text, rel.endswith(".py")), rel))


def _exists(module: str) -> bool:
    parts = module.split(".")
    if parts[0] != NAMESPACE:
        return True
    base = ROOT if parts[1:2] and parts[1] in PACKAGES else ROOT / "src" / NAMESPACE
    path = base.joinpath(*parts[1:])
    # a compiled module (hatch_build.py builds it) is there by its stub
    return (path.with_suffix(".py").is_file() or path.with_suffix(".pyi").is_file()
            or (path / "__init__.py").is_file())


def unresolved(text: str, rel: str) -> list[str]:
    """Imports naming a module of ours that does not exist (a file moved under them)."""
    if not rel.endswith(".py") or f"{NAMESPACE}." not in text:
        return []
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        out += [f"{rel}:{node.lineno}: no module {n}" for n in names if not _exists(n)]
    return out


def unaliased(text: str, rel: str) -> list[str]:
    """``import agent_tck.x.y`` binds the name ``agent_tck``, which a module may also use for
    something else (tests name their CLI helper so): write ``from agent_tck.x import y``. Left
    to a person, because the uses of the dotted name change too."""
    if not rel.endswith(".py") or not _IMPORT.search(text):
        return []
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    return [f"{rel}:{node.lineno}: import {a.name} (use from ... import ...)"
            for node in ast.walk(tree) if isinstance(node, ast.Import)
            for a in node.names if a.name.startswith(f"{NAMESPACE}.") and not a.asname]


def main(argv: list[str]) -> int:
    check = "--check" in argv
    changed: list[Path] = []
    problems: list[str] = []
    for line in move_files(check):
        print(line)
        if check:
            problems.append(f"not yet moved: {line}")
    for path in _files():
        rel = path.relative_to(ROOT).as_posix()
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = rewrite(text, rel)
        problems += unaliased(new, rel) + unresolved(new, rel)
        if new != text:
            changed.append(path)
            if not check:
                path.write_text(new, encoding="utf-8")
    for path in changed:
        print(path.relative_to(ROOT).as_posix())
    for problem in problems:
        print(problem, file=sys.stderr)
    if check:
        if changed:
            print(f"{len(changed)} file(s) still use the old import names: "
                  "run python tools/namespace.py", file=sys.stderr)
        return 1 if changed or problems else 0
    python = [str(p) for p in changed if p.suffix == ".py"]
    if python:
        subprocess.run([sys.executable, "-m", "ruff", "check", "--quiet", "--select", "I",
                        "--fix", *python], cwd=ROOT, check=False)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
