"""A module imported on first use instead of at collection.

Every pytest-xdist worker imports every test module when it collects, and the SDKs are the
dearest imports of the suite: ``import anthropic, openai`` is about 4.4 s of CPU on the 2-core
machine, paid again by each worker at its start (2026-12-02); mitmproxy's test helpers are next.
The test files that drive the real SDKs or use those helpers bind them with :func:`lazy`, so only
a worker that runs one of their tests pays.

Not importlib's LazyLoader: collection reads attributes of every value a test module holds
(``__wrapped__``, ``_mock_name``: pytest looks for wrapped fixtures), and any attribute read
executes a LazyLoader module. The stand-in here imports on the first public name only.
"""

from __future__ import annotations

import importlib
from typing import Any


class _OnFirstUse:
    """Stands for the module ``name``; the first public attribute read imports it."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("_"):  # a probe (pytest's, inspect's), never an SDK name we use
            raise AttributeError(attr)
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<module {self._name!r}, imported on first use>"


def lazy(name: str) -> Any:
    """A stand-in for the module ``name`` that imports it when a public name of it is read."""
    return _OnFirstUse(name)
