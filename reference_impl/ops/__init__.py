"""The operation registry: protocol operation name -> pure function.

Each module in this package defines ``OPERATIONS: dict[str, Callable[[dict], object]]``.
A function takes a vector case's ``input`` (plain JSON) and returns its output (plain JSON)
or raises :class:`reference_impl.errors.TckError`. Modules are discovered, so a family adds
its operations by adding a module here and touches nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from typing import Any

Operation = Callable[[Any], Any]


def _discover() -> dict[str, Operation]:
    found: dict[str, Operation] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for name, fn in getattr(module, "OPERATIONS", {}).items():
            if name in found:
                raise RuntimeError(f"operation {name!r} is defined twice (in {info.name})")
            found[name] = fn
    return dict(sorted(found.items()))


OPERATIONS: dict[str, Operation] = _discover()


def run_operation(name: str, payload: Any) -> Any:
    """Run one operation; raises KeyError for an unknown name, TckError for a rejection."""
    return OPERATIONS[name](payload)
