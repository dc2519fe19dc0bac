"""The code is type-checked, and every import is one a static reader can follow.

``src/agent_tck/`` holds symlinks to the top-level folders (src/agent_tck/__init__.py), so
``agent_tck.harness.run.evaluate`` is a file at that path for mypy and for an editor alike. mypy
runs with the committed configuration (``[tool.mypy]`` in pyproject.toml: strict on the rule
logic and the harness core, default strictness elsewhere), as a newcomer would run it at the
repository root; any error fails the suite.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import jedi
import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_mypy_with_the_committed_configuration_finds_no_error() -> None:
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True,
                          text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "Success: no issues found" in done.stdout


#: what ``mypy --strict`` turns on, as per-module flags (mypy has no per-module ``strict``)
STRICT_FLAGS = ("disallow_any_generics", "disallow_subclassing_any", "disallow_untyped_calls",
                "disallow_untyped_defs", "disallow_incomplete_defs", "check_untyped_defs",
                "disallow_untyped_decorators", "warn_unused_ignores", "warn_return_any",
                "no_implicit_reexport", "strict_equality", "extra_checks")
#: the part that is strict: the rule logic and the harness core (issue 25)
STRICT_MODULES = ("agent_tck.reference_impl.*", "agent_tck.harness.run.results",
                  "agent_tck.harness.run.evaluate", "agent_tck.harness.run.compare",
                  "agent_tck.harness.run.protocol", "agent_tck.harness.run.targets",
                  "agent_tck.harness.audit.rules", "agent_tck.harness.audit.tracker")


def test_the_strict_part_is_strict() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    (strict,) = [o for o in config["overrides"] if o.get("disallow_untyped_defs")]
    assert {flag: strict.get(flag) for flag in STRICT_FLAGS} == dict.fromkeys(STRICT_FLAGS, True)
    modules = set(strict["module"])
    assert set(STRICT_MODULES) <= modules
    for module in modules - {"agent_tck.reference_impl.*"}:  # each names a module that exists
        path = ROOT / "src" / Path(*module.split("."))
        assert path.with_suffix(".py").is_file() or (path / "__init__.py").is_file(), module


@pytest.mark.parametrize(("source", "name", "file"), [
    ("from agent_tck.harness.run.evaluate import judge\n", "judge", "harness/run/evaluate.py"),
    ("from agent_tck.reference_impl.wire import normal_form\n", "normal_form",
     "reference_impl/wire/normal_form.py"),
])
def test_go_to_definition_resolves_to_the_file_in_the_checkout(source: str, name: str,
                                                                file: str) -> None:
    project = jedi.Project(ROOT, sys_path=[str(ROOT / "src")], smart_sys_path=False)
    script = jedi.Script(source, path=ROOT / "probe.py", project=project)
    line = source.splitlines()[0]
    (found,) = script.goto(1, line.rindex(name) + 1, follow_imports=True)
    assert found.module_path is not None
    assert Path(found.module_path).resolve() == (ROOT / file).resolve()
    assert found.module_path.resolve().relative_to(ROOT).as_posix() == file
