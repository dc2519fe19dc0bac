"""Where the kit's data lives: beside the packages, in the checkout and in an installed wheel
(which places ``vectors/``, ``features/`` and ``matrix/`` in ``agent_tck/`` beside ``harness/``)."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]  # harness/ (this file is harness/common/data.py)
_REPO = _PACKAGE.parent  # the checkout, or agent_tck/ in site-packages


def data_dir(name: str) -> Path:
    """``vectors`` or ``features``: the folder beside ``harness/``."""
    candidate = _REPO / name
    if candidate.is_dir():
        return candidate
    raise FileNotFoundError(f"agent-tck data folder {name!r} not found beside {_PACKAGE}")


def vectors_dir() -> Path:
    return data_dir("vectors")


def features_dir() -> Path:
    return data_dir("features")


def spec_dir() -> Path | None:
    """The design notes (../shared/spec beside the checkout), when present."""
    for candidate in (_REPO.parent / "shared" / "spec",):
        if candidate.is_dir():
            return candidate
    return None
