"""Family descriptors: what the kit knows about each rule family, in one value per family.

Each module in this package defines ``FAMILY = Family(...)``; modules are discovered, so a new
family adds one small module here and edits no shared table. Everything that used to be a hidden
family list derives from the descriptors: the catalogue's families and report order
(:mod:`harness.contract.catalogue`), the comparison an operation uses by default
(:mod:`harness.run.compare`),
the audit's prefix table (:mod:`harness.audit.report`) and the wire checks read for citations.

A family from outside this package (a plug-in, or the toy family of the tests) is declared by
naming its descriptor module in the environment variable ``AGENT_TCK_FAMILIES``
(comma-separated importable module names, each defining ``FAMILY``). Its ``catalogue`` and
``vectors`` paths are then read beside the built-in ones, and its ``operations`` modules join
the in-process reference implementation.

A catalogue or vector file naming a family that has no descriptor is an error
(``CATALOGUE_INVALID`` / ``VECTOR_INVALID``), never a family that silently drops out of a run.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from agent_tck.harness.common.errors import HarnessError

#: Names descriptor modules from outside this package (comma-separated module names).
ENV = "AGENT_TCK_FAMILIES"

_NAME = re.compile(r"^[a-z][a-z0-9-]*$")
_PREFIX = re.compile(r"^[A-Z]{2,4}$")


@dataclass(frozen=True)
class Family:
    """One rule family.

    ``name`` is the ``family`` of its catalogue file and vector files; ``prefix`` starts its
    rule IDs (``<PREFIX>-NNN``, ``<PREFIX>-DNNN``); ``order`` places it in reports (ascending).
    ``operations`` are modules defining ``OPERATIONS`` (the reference implementation of the
    family's operations); ``compare`` maps an operation to the comparison mode its vectors use
    when they do not say (``harness.run.compare``); ``wire_checks`` are modules defining
    ``WIRE_CHECKS`` (check name -> rule IDs) for the checks ``agent-tck audit`` runs on captured
    traffic. ``catalogue`` and ``vectors`` default to ``vectors/rules/<name>.yaml`` and
    ``vectors/<name>/`` of the kit; a plug-in family names its own.
    """

    name: str
    prefix: str
    order: int
    operations: tuple[str, ...] = ()
    compare: Mapping[str, str] = field(default_factory=dict)
    wire_checks: tuple[str, ...] = ()
    catalogue: Path | None = None
    vectors: Path | None = None
    description: str = ""


def _from_module(module_name: str, where: str) -> Family:
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise HarnessError("FAMILY_INVALID", f"cannot import family descriptor module "
                           f"{module_name!r}: {exc}", where) from exc
    family = getattr(module, "FAMILY", None)
    if not isinstance(family, Family):
        raise HarnessError("FAMILY_INVALID", f"module {module_name!r} defines no FAMILY = "
                           "Family(...) (agent_tck.harness.families.Family)", where)
    if not _NAME.match(family.name) or not _PREFIX.match(family.prefix):
        raise HarnessError("FAMILY_INVALID", f"family {family.name!r} (prefix {family.prefix!r}):"
                           " a name is a lower-case slug, a prefix 2-4 capital letters", where)
    for what, path in (("catalogue", family.catalogue), ("vectors", family.vectors)):
        if path is not None and not path.exists():
            raise HarnessError("FAMILY_INVALID", f"family {family.name!r} names its {what} "
                               f"{path}, which does not exist", where)
    return family


@cache
def _discover(plugins: str) -> tuple[Family, ...]:
    found: list[Family] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        found.append(_from_module(f"{__name__}.{info.name}", f"harness/families/{info.name}.py"))
    for name in (n.strip() for n in plugins.split(",")):
        if name:
            found.append(_from_module(name, f"{ENV}={plugins}"))
    for attr in ("name", "prefix", "order"):
        seen: dict[object, str] = {}
        for family in found:
            value = getattr(family, attr)
            if value in seen:
                raise HarnessError("FAMILY_INVALID", f"families {seen[value]!r} and "
                                   f"{family.name!r} share the {attr} {value!r}")
            seen[value] = family.name
    return tuple(sorted(found, key=lambda f: f.order))


def families() -> tuple[Family, ...]:
    """Every declared family, in report order."""
    return _discover(os.environ.get(ENV, ""))


def family_names() -> tuple[str, ...]:
    return tuple(f.name for f in families())


def get(name: str) -> Family | None:
    return next((f for f in families() if f.name == name), None)


def undeclared(name: str) -> str:
    """The message for a family with no descriptor: what is wrong and how to fix it."""
    return (f"family {name!r} has no descriptor; declared: {', '.join(family_names())}. Add "
            f"harness/families/<module>.py defining FAMILY = Family(name={name!r}, ...) or name "
            f"your descriptor module in {ENV} (CONTRIBUTING.md)")


def prefix_table() -> dict[str, str]:
    """Rule-ID prefix -> family name."""
    return {f.prefix: f.name for f in families()}


def default_modes() -> dict[str, str]:
    """Operation -> the comparison mode its vectors use when they do not say."""
    modes: dict[str, str] = {}
    for family in families():
        for operation, mode in family.compare.items():
            if modes.setdefault(operation, mode) != mode:
                raise HarnessError("FAMILY_INVALID", f"operation {operation!r} is compared as "
                                   f"{modes[operation]!r} and as {mode!r} ({family.name})")
    return modes


def _modules_attr(attr: str, modules: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for module_name in modules:
        out.update(getattr(importlib.import_module(module_name), attr, {}))
    return out


Operation = Callable[[Any], Any]


@cache
def _operations(plugins: str) -> dict[str, Operation]:
    found: dict[str, Operation] = {}
    for family in _discover(plugins):
        for name, fn in _modules_attr("OPERATIONS", family.operations).items():
            if found.setdefault(name, fn) is not fn:
                raise HarnessError("FAMILY_INVALID", f"operation {name!r} of family "
                                   f"{family.name!r} is already defined elsewhere")
    return dict(sorted(found.items()))


def operations() -> dict[str, Operation]:
    """The in-process reference implementation: operation name -> pure function, gathered from
    the ``operations`` modules of every descriptor (``reference_impl/<family>/ops.py`` for the
    built-in families). Each module defines ``OPERATIONS: dict[str, Callable]``; a function takes
    a vector case's ``input`` (plain JSON) and returns its output (plain JSON) or raises
    :class:`reference_impl.errors.TckError`. One name defined by two different functions is an
    error."""
    return dict(_operations(os.environ.get(ENV, "")))


def run_operation(name: str, payload: Any) -> Any:
    """Run one operation in process; raises KeyError for an unknown name, TckError for a
    rejection."""
    return _operations(os.environ.get(ENV, ""))[name](payload)


def wire_checks() -> dict[str, tuple[str, ...]]:
    """Check name -> rule IDs, over the ``wire_checks`` modules of every descriptor."""
    out: dict[str, tuple[str, ...]] = {}
    for family in families():
        out.update(_modules_attr("WIRE_CHECKS", family.wire_checks))
    return out


def catalogue_files() -> list[Path]:
    """Catalogue files of families that name their own (plug-ins)."""
    return [f.catalogue for f in families() if f.catalogue is not None]


def vector_folders() -> list[Path]:
    """Vector folders of families that name their own (plug-ins)."""
    return [f.vectors for f in families() if f.vectors is not None]
