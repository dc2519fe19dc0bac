"""A module imported on first use instead of at collection.

Every pytest-xdist worker imports every test module when it collects, and the SDKs are the
dearest imports of the suite: ``import anthropic, openai`` is about 4.4 s of CPU on the 2-core
machine, paid again by each worker at its start (2026-12-02). The four test files that drive the
real SDKs bind them with :func:`lazy`, so only a worker that runs one of their tests pays.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy(name: str) -> ModuleType:
    """``name``'s module, executed when an attribute of it is first read (importlib's
    LazyLoader); the module itself when something has imported it already."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
