"""The kit's own YAML files read on libyaml give exactly what the pure-Python loader gives."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from agent_tck.harness.common import safe_yaml

ROOT = Path(__file__).resolve().parent.parent
OWN = sorted(p for folder in ("vectors", "tests", "matrix", "examples", "features")
             for p in (ROOT / folder).rglob("*.y*ml") if p.suffix in (".yaml", ".yml"))


def test_the_own_files_are_many() -> None:
    # the catalogue, the seeded faults, the one-defect fixtures, scenarios, the matrix
    assert len(OWN) > 30
    assert any(p.parent.name == "rules" for p in OWN) and any(p.parent.name == "mutants"
                                                              for p in OWN)


@pytest.mark.parametrize("path", OWN, ids=lambda p: str(p.relative_to(ROOT)))
def test_libyaml_reads_each_own_file_as_the_pure_python_loader_does(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert safe_yaml.load_own(text) == yaml.load(text, Loader=yaml.SafeLoader)


def test_libyaml_is_used_where_pyyaml_has_it() -> None:
    if not yaml.__with_libyaml__:
        pytest.skip("this PyYAML was built without libyaml: the pure-Python loader is used")
    assert safe_yaml._OWN_LOADER is yaml.CSafeLoader
