"""The generated vector files are exactly what their generators write (vectors/generators/).

* every generator, run into an empty temporary folder, writes byte for byte the checked-in files;
* every vector file of a generated family is claimed by its generator (written, or listed as
  hand-written), so no edit to a generated file goes unnoticed or gets lost on regeneration;
* ``--check`` names a stale file and an unclaimed one and exits 1;
* generators import nothing of the kit: the expectations they write are never computed by the
  reference implementation.

Nothing here depends on timing; the generators are pure and take well under a second.
"""

from __future__ import annotations

import ast
import importlib
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "vectors"
if str(ROOT) not in sys.path:  # vectors/ is data of the wheel, imported from the checkout only
    sys.path.insert(0, str(ROOT))

generators = importlib.import_module("vectors.generators")
cli = importlib.import_module("vectors.generators.__main__")


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_there_are_generators_and_they_are_named_after_their_family():
    found = generators.generators()
    assert {"developer-messages", "message-parts"} <= set(found)
    for family in found:
        assert (VECTORS / family).is_dir(), family


def test_regenerating_into_an_empty_folder_writes_the_checked_in_files(tmp_path, capsys):
    assert cli.main(["--root", str(tmp_path)]) == 0
    written = _files(tmp_path)
    assert sorted(written) == sorted(generators.outputs())
    for rel, content in written.items():
        assert content == (VECTORS / rel).read_bytes(), f"{rel} is stale: regenerate it"
    assert f"wrote {len(written)} files" in capsys.readouterr().out


def test_every_file_of_a_generated_family_is_claimed_by_its_generator():
    assert generators.unclaimed() == []
    for family, module in generators.generators().items():
        written = set(module.documents())
        hand = set(getattr(module, "HAND_WRITTEN", ()))
        assert not written & hand, (family, written & hand)


def test_check_passes_on_the_checkout_and_names_what_differs(tmp_path, capsys):
    assert cli.main(["--check"]) == 0
    for family in generators.generators():
        shutil.copytree(VECTORS / family, tmp_path / family)
    stale = tmp_path / "developer-messages" / "roles.json"
    stale.write_bytes(stale.read_bytes().replace(b"DM-036", b"DM-037", 1))
    (tmp_path / "developer-messages" / "extra.json").write_text("{}\n", encoding="utf-8")
    capsys.readouterr()
    assert cli.main(["--check", "--root", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "developer-messages/roles.json: differs" in err
    assert "developer-messages/extra.json: no generator writes it" in err


def test_an_unknown_family_is_an_error_not_an_empty_run(capsys):
    assert cli.main(["--check", "no-such-family"]) == 2
    assert "no generator for no-such-family" in capsys.readouterr().err


def _sources() -> list[Path]:
    """Every generator module, and the source a generator loads from elsewhere (``SOURCE``)."""
    paths = sorted((VECTORS / "generators").rglob("*.py"))
    paths += [m.SOURCE for m in generators.generators().values() if hasattr(m, "SOURCE")]
    return paths


@pytest.mark.parametrize("path", _sources(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_generators_import_nothing_of_the_kit(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        for name in names:
            assert name.split(".")[0] not in {"harness", "reference_impl", "agent_tck"}, name
