"""message-parts: its cases are spelled out in ``tests/message_parts_cases.py``, which its
tests import too; this module puts that generator under the common convention where it stands.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

FAMILY = "message-parts"
SOURCE = Path(__file__).resolve().parents[2] / "tests" / "message_parts_cases.py"


def _source() -> ModuleType:
    loaded = sys.modules.get("message_parts_cases")
    if loaded is not None and Path(loaded.__file__ or "").resolve() == SOURCE:
        return loaded
    spec = importlib.util.spec_from_file_location("message_parts_cases", SOURCE)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {SOURCE}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["message_parts_cases"] = module
    spec.loader.exec_module(module)
    return module


def documents() -> dict[str, str]:
    source = _source()
    return {name: source.render(doc) for name, doc in source.documents().items()}
