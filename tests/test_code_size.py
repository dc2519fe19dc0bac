"""Size limits of the kit's own code: a module over 600 lines says why at its top, and no
function is over 80 lines unless it is a data table listed below with its reason.

The marker is ``Size:`` followed by the reason, either as a comment line before the module
docstring (``# Size: ...``) or as a line of the module docstring (``Size: ...``). It is read
from the top of the file only, so a reader sees the reason before the code.

Walked: the packages (harness/, reference_impl/, src/), the vector generators, tools/,
benchmarks/, examples/ and tests/. The module limit skips test modules (``tests/test_*.py``): a
test module's length is the number of behaviours it pins; their functions are held to the limit.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WALKED = ("harness", "reference_impl", "src", "vectors/generators", "tools", "benchmarks",
          "examples", "tests")
MODULE_LINES = 600
FUNCTION_LINES = 80
MARKER = "Size:"
MIN_REASON_WORDS = 4

#: ``path::qualified.name`` -> why this function may be longer than FUNCTION_LINES. Only data
#: tables belong here (a function whose body is one literal the rules enumerate); any other long
#: function is split. An entry whose function is gone or short again fails the check.
LONG_FUNCTIONS: dict[str, str] = {}


def python_files(root: Path = ROOT, *, test_modules: bool = True) -> Iterator[Path]:
    for top in WALKED:
        for path in sorted((root / top).rglob("*.py")):
            rel = path.relative_to(root)
            if any(part.startswith(".") or part == "__pycache__" for part in rel.parts):
                continue
            if not test_modules and rel.parts[0] == "tests" and path.name.startswith("test_"):
                continue
            yield path


def stated_size_reason(source: str) -> str | None:
    """The reason after ``Size:`` in the comments above the module docstring or in the module
    docstring itself, or None when the top of the module states none."""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            text = token.string.lstrip("#").strip()
            if text.startswith(MARKER):
                return text[len(MARKER):].strip()
        elif token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.ENCODING):
            break
    docstring = ast.get_docstring(ast.parse(source)) or ""
    for line in docstring.splitlines():
        if line.strip().startswith(MARKER):
            return line.strip()[len(MARKER):].strip()
    return None


def module_problem(source: str, where: str) -> str | None:
    lines = len(source.splitlines())
    if lines <= MODULE_LINES:
        return None
    reason = stated_size_reason(source)
    if reason is None or len(reason.split()) < MIN_REASON_WORDS:
        return (f"{where}: {lines} lines (over {MODULE_LINES}) and no reason at its top: split "
                f"it, or state why with a '# {MARKER} <reason>' line above its docstring")
    return None


def long_functions(source: str) -> Iterator[tuple[str, int]]:
    """(qualified name, lines from ``def`` to its last line) of every function over the limit."""
    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    length = (child.end_lineno or child.lineno) - child.lineno + 1
                    if length > FUNCTION_LINES:
                        yield name, length
                yield from walk(child, f"{name}.")
            else:
                yield from walk(child, prefix)

    yield from walk(ast.parse(source), "")


def function_problems(files: dict[str, str], allowed: dict[str, str]) -> list[str]:
    problems = []
    found = set()
    for where, source in files.items():
        for name, length in long_functions(source):
            key = f"{where}::{name}"
            found.add(key)
            if key not in allowed:
                problems.append(f"{key}: {length} lines (over {FUNCTION_LINES}): split it, or "
                                f"list it in LONG_FUNCTIONS if it is a data table")
    problems += [f"{key}: in LONG_FUNCTIONS but not over {FUNCTION_LINES} lines (or gone): "
                 f"drop the entry" for key in sorted(set(allowed) - found)]
    return problems


def _sources(*, test_modules: bool = True) -> dict[str, str]:
    return {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8")
            for p in python_files(test_modules=test_modules)}


def test_the_walk_sees_the_kits_code():
    seen = set(_sources(test_modules=False))
    assert "harness/cli.py" in seen
    assert "vectors/generators/message_parts/build.py" in seen
    assert "tests/conftest.py" in seen
    assert not any(Path(p).name.startswith("test_") for p in seen)
    assert "tests/test_code_size.py" in set(_sources())


def test_no_module_over_the_limit_without_a_stated_reason():
    problems = [p for where, source in _sources(test_modules=False).items()
                if (p := module_problem(source, where)) is not None]
    assert problems == [], "\n".join(problems)


def test_no_function_over_the_limit_outside_the_data_tables():
    problems = function_problems(_sources(), LONG_FUNCTIONS)
    assert problems == [], "\n".join(problems)


def test_every_allowed_long_function_gives_its_reason():
    for key, reason in LONG_FUNCTIONS.items():
        assert "::" in key and len(reason.split()) >= MIN_REASON_WORDS, key


# The checks themselves, on made-up sources.

BODY = "x = 1\n"


@pytest.mark.parametrize(("top", "flagged"), [
    ("", True),
    ('"""A module."""\n', True),
    ("# Size: too short\n", True),
    ("# Size: one table the note enumerates, kept whole\n", False),
    ('"""A module.\n\nSize: one table the note enumerates, kept whole.\n"""\n', False),
    ("#!/usr/bin/env python\n# Size: one table the note enumerates, kept whole\n", False),
    ('"""A module."""\n# Size: one table the note enumerates, kept whole\n', True),  # below
])
def test_a_long_module_needs_the_marker_at_its_top(top: str, flagged: bool):
    source = top + BODY * (MODULE_LINES + 1)
    assert (module_problem(source, "m.py") is not None) is flagged
    assert module_problem(top + BODY * 3, "m.py") is None


def _function(name: str, body_lines: int, indent: str = "") -> str:
    body = "".join(f"{indent}    x{i} = {i}\n" for i in range(body_lines))
    return f"{indent}def {name}():\n{body}"


def test_a_long_function_is_flagged_unless_allowed_and_a_stale_entry_is_flagged():
    source = (_function("short", FUNCTION_LINES - 1) + _function("long", FUNCTION_LINES)
              + "class C:\n" + _function("method", FUNCTION_LINES, "    "))
    assert [name for name, _ in long_functions(source)] == ["long", "C.method"]
    problems = function_problems({"m.py": source}, {"m.py::long": "a table of the note"})
    assert problems == [f"m.py::C.method: {FUNCTION_LINES + 1} lines (over {FUNCTION_LINES}): "
                        "split it, or list it in LONG_FUNCTIONS if it is a data table"]
    stale = function_problems({"m.py": source}, {"m.py::long": "x", "m.py::C.method": "x",
                                                 "m.py::short": "x"})
    assert stale == [f"m.py::short: in LONG_FUNCTIONS but not over {FUNCTION_LINES} lines "
                     "(or gone): drop the entry"]
