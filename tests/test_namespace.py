"""The installed import names: one top-level package, ``agent_tck`` (src/agent_tck/__init__.py).

The wheel is built once per module with the project's own build backend (hatchling, in
process, no network) and read as a zip; the tree is checked with tools/namespace.py, which
rewrites a merged tree to these names.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from hatchling.builders.wheel import WheelBuilder

ROOT = Path(__file__).resolve().parent.parent

_spec = importlib.util.spec_from_file_location("namespace_tool", ROOT / "tools" / "namespace.py")
assert _spec is not None and _spec.loader is not None
namespace = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(namespace)


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, zipfile.ZipFile]:
    out = {}
    for version in ("standard", "editable"):
        folder = tmp_path_factory.mktemp(version)
        (built,) = WheelBuilder(str(ROOT)).build(directory=str(folder), versions=[version])
        out[version] = zipfile.ZipFile(built)
    return out


def _top_level(wheel: zipfile.ZipFile) -> set[str]:
    return {name.split("/")[0] for name in wheel.namelist()}


def _dist_info(wheel: zipfile.ZipFile) -> str:
    (info,) = [t for t in _top_level(wheel) if t.endswith(".dist-info")]
    assert info.startswith("agent_tck-")
    return info


def test_the_wheel_installs_one_import_package_with_the_data_beside_its_subpackages(wheels):
    wheel = wheels["standard"]
    names = set(wheel.namelist())
    assert _top_level(wheel) == {"agent_tck", _dist_info(wheel)}
    assert {"agent_tck/__init__.py", "agent_tck/__main__.py", "agent_tck/harness/__init__.py",
            "agent_tck/harness/cli.py", "agent_tck/reference_impl/__init__.py",
            "agent_tck/harness/reference_adapter.py", "agent_tck/vectors/PROTOCOL.md",
            "agent_tck/matrix/clients.yaml"} <= names
    for folder in ("vectors/rules/", "vectors/schema/", "features/", "matrix/scenarios/"):
        assert any(n.startswith(f"agent_tck/{folder}") for n in names), folder
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    entry_points = wheel.read(f"{_dist_info(wheel)}/entry_points.txt").decode()
    assert "agent-tck = agent_tck.harness.cli:main" in entry_points
    assert "agent_tck = agent_tck.harness.pytest_plugin" in entry_points


def test_the_wheel_carries_the_native_check_and_this_install_uses_it(wheels):
    # hatch_build.py compiles reference_impl/_strict_scan.c; a silent fallback to the Python
    # check would leave the native one untested and the benchmarks measuring the other
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    wheel = wheels["standard"]
    assert f"agent_tck/reference_impl/_strict_scan{suffix}" in wheel.namelist()
    tag = wheel.read(f"{_dist_info(wheel)}/WHEEL").decode()
    assert "Root-Is-Purelib: false" in tag and "py3-none-any" not in tag, tag
    from agent_tck.reference_impl import strict_json
    assert strict_json._vouch.__module__ == "agent_tck.reference_impl._strict_scan"
    assert strict_json.NATIVE


def test_the_version_says_which_strict_check_runs(monkeypatch, capsys):
    from agent_tck.harness import cli
    from agent_tck.reference_impl import strict_json

    for native, words in ((True, "native"), (False, "pure Python")):
        monkeypatch.setattr(strict_json, "NATIVE", native)
        with pytest.raises(SystemExit) as exit_:
            cli.build_parser().parse_args(["--version"])
        assert exit_.value.code == 0
        assert capsys.readouterr().out.strip().endswith(f"(strict JSON reader: {words})")


def test_the_build_hook_goes_on_pure_when_the_compile_fails(tmp_path, capsys):
    # no compiler, or one that fails: the install goes on and strict_json checks in Python
    spec = importlib.util.spec_from_file_location("hatch_build_hook", ROOT / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    (tmp_path / "reference_impl").mkdir()
    (tmp_path / hook.SOURCE).write_text("this is not C\n")
    assert hook.compile_extension(tmp_path) is None
    assert "_strict_scan.c not built (the strict JSON reader checks in Python)" in (
        capsys.readouterr().err)
    assert sorted(p.name for p in (tmp_path / "reference_impl").iterdir()) == ["_strict_scan.c"]


def test_the_editable_wheel_puts_only_the_namespace_folder_on_the_path(wheels):
    wheel = wheels["editable"]
    (pth,) = [n for n in wheel.namelist() if n.endswith(".pth")]
    assert _top_level(wheel) == {pth, _dist_info(wheel)}
    assert wheel.read(pth).decode().split() == [str(ROOT / "src")]
    assert sorted(os.listdir(ROOT / "src")) == ["agent_tck"]


@pytest.mark.slow
def test_the_unpacked_wheel_runs_the_suite_outside_the_checkout(wheels, tmp_path):
    site = tmp_path / "site"
    wheels["standard"].extractall(site)
    env = {**os.environ, "PYTHONPATH": str(site)}  # before the editable install's entry
    probe = subprocess.run(
        [sys.executable, "-c", "import agent_tck.harness.common.data as d,"
         " agent_tck.reference_impl as r;"
         "from agent_tck.harness.mock_provider.server import load_openapi_document as o;"
         "o(); print(d.vectors_dir()); print(r.__file__)"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=True)
    assert probe.stdout.split() == [str(site / "agent_tck" / "vectors"),
                                    str(site / "agent_tck" / "reference_impl" / "__init__.py")]
    adapter = f"{sys.executable} -m agent_tck.harness.reference_adapter"
    for argv in (["run", "--report-dir", "r"], ["smoke", "--impl", adapter]):
        done = subprocess.run([sys.executable, "-m", "agent_tck", *argv], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600, check=False)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert (tmp_path / "r" / "results.jsonl").is_file()


def test_the_tree_uses_the_installed_names(capsys):
    assert namespace.main(["--check"]) == 0, capsys.readouterr()


@pytest.mark.parametrize(("rel", "before", "after"), [
    # absolute everywhere, relative imports inside a package too (robust to moved files)
    ("harness/audit/engine.py", "from harness.errors import HarnessError\n",
     "from agent_tck.harness.common.errors import HarnessError\n"),
    ("harness/cli.py", "from harness import matrix_model as mm\n",
     "from agent_tck.harness.matrix import model as mm\n"),
    # modules grouped into subpackages (MOVES): dotted names, from-imports, file paths
    ("harness/cli.py", "from agent_tck.harness import mutant_anchors\n",
     "from agent_tck.harness.mutation import anchors as mutant_anchors\n"),
    ("harness/cli.py", "from agent_tck.harness.evaluate import judge  # see harness.compare\n",
     "from agent_tck.harness.run.evaluate import judge  # see harness.run.compare\n"),
    ("tests/mutants/x.yaml", "file: harness/compare.py\n", "file: harness/run/compare.py\n"),
    ("README.md", "harness/vectors.py and vectors/README.md\n",
     "harness/contract/vectors.py and vectors/README.md\n"),
    ("harness/vectors.py", "from reference_impl.strict_json import loads\n",
     "from agent_tck.reference_impl.strict_json import loads\n"),
    ("harness/audit/engine.py", "from ..errors import HarnessError\nfrom .capture import Raw\n",
     "from agent_tck.harness.common.errors import HarnessError\n"
     "from agent_tck.harness.audit.capture import Raw\n"),
    ("reference_impl/serialize/__init__.py", "from . import model\n",
     "from agent_tck.reference_impl.serialize import model\n"),
    # outside: absolute; commands, entry points and module paths in strings
    ("tests/test_x.py", "import reference_impl.wire_rules as wr\n",
     "import agent_tck.reference_impl.wire_rules as wr\n"),
    ("tests/test_x.py", 'cmd = [sys.executable, "-m", "harness.cli", "run"]\n',
     'cmd = [sys.executable, "-m", "agent_tck", "run"]\n'),
    ("tests/test_x.py", 'f"{sys.executable} -m reference_impl.adapter"\n',
     'f"{sys.executable} -m agent_tck.reference_impl.adapter"\n'),
    ("harness/cli.py", 'importlib.import_module(f"harness.commands.{name}")\n',
     'importlib.import_module(f"agent_tck.harness.commands.{name}")\n'),
    ("pyproject.toml", 'agent-tck = "harness.cli:main"\n',
     'agent-tck = "agent_tck.harness.cli:main"\n'),
    ("README.md", "run `python -m harness.cli run` or `python -m reference_impl.adapter`\n",
     "run `python -m agent_tck run` or `python -m agent_tck.reference_impl.adapter`\n"),
    # prose of Python files keeps folder names, but a command in it is rewritten
    ("harness/x.py", '"""Runs :func:`reference_impl.ops.run` (python -m harness.audit)."""\n'
     "x = 1  # see harness.audit.engine\n",
     '"""Runs :func:`reference_impl.ops.run` (python -m agent_tck.harness.audit)."""\n'
     "x = 1  # see harness.audit.engine\n"),
    # file paths, words containing the name, file names: untouched
    ("docs/X.md", "harness/cli.py, tests/test_harness.py, deepseek-harness-zDSH, harness.py\n",
     "harness/cli.py, tests/test_harness.py, deepseek-harness-zDSH, harness.py\n"),
])
def test_the_rewrite_and_that_it_is_idempotent(rel, before, after):
    assert namespace.rewrite(before, rel) == after
    assert namespace.rewrite(after, rel) == after


def test_an_import_of_a_module_that_is_not_there_is_named():
    text = "from agent_tck.harness.audit.errors import X\nfrom agent_tck.harness import errors\n"
    assert namespace.unresolved(text, "harness/audit/rules.py") == [
        "harness/audit/rules.py:1: no module agent_tck.harness.audit.errors"]


def test_an_unaliased_import_of_a_submodule_is_named():
    text = "import agent_tck.reference_impl.ops\n\ndef agent_tck(): ...\n"
    assert namespace.unaliased(text, "tests/test_x.py") == [
        "tests/test_x.py:1: import agent_tck.reference_impl.ops (use from ... import ...)"]
    assert namespace.unaliased("import agent_tck\n", "harness/mutants.py") == []
    assert namespace.unaliased("import agent_tck.harness.cli as cli\n", "tests/x.py") == []
