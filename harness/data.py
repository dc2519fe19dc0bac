"""Where the kit's data lives: the repository checkout, or the copy inside an installed wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_REPO = _PACKAGE.parent


def data_dir(name: str) -> Path:
    """``vectors`` or ``features``: the checkout's folder, else the wheel's bundled copy."""
    for candidate in (_REPO / name, _PACKAGE / "_data" / name):
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
