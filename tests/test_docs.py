"""Docs that are generated or that others copy: vectors/OPERATIONS.md, the CI example and the
adapter sample of vectors/PROTOCOL.md."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

from agent_tck.harness.contract.operations_doc import main, render

ROOT = Path(__file__).resolve().parent.parent


def test_operations_md_is_current():
    text = (ROOT / "vectors" / "OPERATIONS.md").read_text(encoding="utf-8")
    assert text == render(), "run python -m agent_tck.harness.contract.operations_doc"
    assert main(["--check"]) == 0


def test_operations_md_lists_every_declared_operation():
    from agent_tck.harness.families import operations

    text = (ROOT / "vectors" / "OPERATIONS.md").read_text(encoding="utf-8")
    assert set(re.findall(r"^## `([^`]+)`$", text, re.M)) == set(operations())
    for link in re.findall(r"\]\(([a-z-]+/README\.md)#", text):
        assert (ROOT / "vectors" / link).is_file(), link


def test_the_ci_example_installs_from_what_the_repository_keeps():
    """No package index or repository address is assumed: a committed wheel (named as this
    version's wheel is) or a checkout folder."""
    workflow = yaml.safe_load((ROOT / "examples" / "ci" / "agent-tck.yml").read_text())
    job = workflow["jobs"]["conformance"]
    install = next(s["run"] for s in job["steps"] if s.get("name") == "Install agent-tck")
    assert install == 'pip install "./$AGENT_TCK"'
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert Path(job["env"]["AGENT_TCK"]).name == f"agent_tck-{version}-py3-none-any.whl"
    assert "://" not in (ROOT / "examples" / "ci" / "agent-tck.yml").read_text().split(
        "steps:")[1].replace("https://img.shields.io", "")


def test_the_protocol_sample_adapter_defines_what_it_uses(tmp_path):
    """The Python sample of PROTOCOL.md compiles and names nothing it does not define."""
    text = (ROOT / "vectors" / "PROTOCOL.md").read_text(encoding="utf-8")
    code = re.search(r"## Minimal adapter.*?```python\n(.*?)```", text, re.S)[1]
    compile(code, "PROTOCOL.md", "exec")
    import builtins
    import symtable

    table = symtable.symtable(code, "PROTOCOL.md", "exec")
    defined = set(dir(builtins)) | {s.get_name() for s in table.get_symbols()
                                    if s.is_assigned() or s.is_imported()}
    used: set[str] = set()

    def walk(t: symtable.SymbolTable) -> None:
        used.update(s.get_name() for s in t.get_symbols() if s.is_global() or (
            t.get_type() == "module" and s.is_referenced()))
        for child in t.get_children():
            walk(child)

    walk(table)
    assert used - defined == set()
