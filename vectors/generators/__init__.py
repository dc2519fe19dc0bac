"""Vector generators: the vector files whose cases a program writes, one generator per family.

The convention (vectors/README.md, "Generated vector files"):

* A generator is a module or package here named after its family with underscores
  (``developer_messages`` writes ``vectors/developer-messages/``). It defines ``FAMILY`` and
  ``documents() -> {file name: exact text}``, and may define ``HAND_WRITTEN``, the files of its
  folder it does not write. It imports nothing of the kit (``harness``, ``reference_impl``):
  a program builds the inputs, every expectation is still written by hand.
* The generated files stay checked in; run ``python -m vectors.generators`` from the checkout
  after editing a generator, and ``tests/test_generators.py`` fails while a file differs from
  what its generator writes, byte for byte.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

VECTORS = Path(__file__).resolve().parent.parent


def generators() -> dict[str, ModuleType]:
    """Family name -> its generator, every module and package of this folder."""
    found: dict[str, ModuleType] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        family = module.FAMILY
        if family != info.name.replace("_", "-"):
            raise ValueError(f"{module.__name__} writes {family!r}: name it after that family")
        found[family] = module
    return found


def outputs(families: Iterable[str] = ()) -> dict[str, str]:
    """``<family>/<file>`` -> exact text, for the named families (all when none is named)."""
    chosen = generators()
    wanted = set(families)
    unknown = sorted(wanted - set(chosen))
    if unknown:
        raise ValueError(f"no generator for {', '.join(unknown)} (have: {', '.join(chosen)})")
    out: dict[str, str] = {}
    for family, module in chosen.items():
        if wanted and family not in wanted:
            continue
        for name, text in module.documents().items():
            out[f"{family}/{name}"] = text
    return out


def unclaimed(root: Path = VECTORS) -> list[str]:
    """Vector files in a generated family's folder that its generator neither writes nor lists
    in ``HAND_WRITTEN``: an edit there would be neither regenerated nor noticed."""
    claimed = set(outputs())
    found = []
    for family, module in generators().items():
        hand = set(getattr(module, "HAND_WRITTEN", ()))
        for path in sorted((root / family).glob("*.json")):
            rel = f"{family}/{path.name}"
            if rel not in claimed and path.name not in hand:
                found.append(rel)
    return found


def stale(root: Path = VECTORS, families: Iterable[str] = ()) -> list[str]:
    """The generated files under ``root`` that are missing or differ from what is written."""
    return [rel for rel, text in outputs(families).items()
            if not (root / rel).is_file() or (root / rel).read_bytes() != text.encode("utf-8")]


def write(root: Path = VECTORS, families: Iterable[str] = ()) -> list[str]:
    """Write every generated file under ``root``; returns the files it wrote."""
    written = []
    for rel, text in outputs(families).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))  # bytes: no newline translation on any OS
        written.append(rel)
    return written
