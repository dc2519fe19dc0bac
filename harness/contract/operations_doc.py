"""``vectors/OPERATIONS.md``: every operation on one page, generated.

``python -m agent_tck.harness.contract.operations_doc`` writes it (``--check``: exit 1 when the file
differs from what would be written; ``tests/test_operations_doc.py`` requires it current).
Everything on the page comes from the family descriptors (which family declares an operation,
its comparison mode), the vectors (the input and output fields each operation is given and
answers, the error codes it must return, how many cases) and the family READMEs (the section
that documents the operation and the schemas it links): nothing is written by hand, so nothing
drifts from the contract.
"""

from __future__ import annotations

import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tck.harness.common.data import vectors_dir

#: the JSON type names the page uses
_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer",
          float: "number", type(None): "null"}
_HEADING = re.compile(r"^(#{2,4}) (.+?)\s*$")
_SCHEMA = re.compile(r"schema/([a-z0-9-]+\.schema\.json)")


@dataclass
class _Operation:
    name: str
    family: str  # the descriptor that declares it
    compare: str
    cases: int = 0
    families: set[str] = field(default_factory=set)  # whose vectors use it
    inputs: list[Any] = field(default_factory=list)
    outputs: list[Any] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)


def _json_type(value: Any) -> str:
    """A value's JSON type; an array with the types of its items (``array of object``)."""
    name = _TYPES.get(type(value), type(value).__name__)
    if isinstance(value, list) and value:
        return f"{name} of {' or '.join(sorted({_TYPES.get(type(v), '?') for v in value}))}"
    return name


def _fields(values: Sequence[Any]) -> str:
    """What a list of JSON values have in common: their types and, for objects, each member
    with its types and whether every object has it."""
    if not values:
        return "none in the vectors"
    objects = [v for v in values if isinstance(v, dict)]
    others = sorted({_json_type(v) for v in values if not isinstance(v, dict)})
    types: dict[str, set[str]] = defaultdict(set)
    seen: Counter[str] = Counter()
    for value in objects:
        for key, member in value.items():
            types[key].add(_json_type(member))
            seen[key] += 1
    parts = [f"`{key}` ({' or '.join(sorted(types[key]))}"
             f"{'' if seen[key] == len(objects) else ', optional'})" for key in sorted(types)]
    described = ([("an object: " + ", ".join(parts)) if parts else "an empty object"]
                 if objects else [])
    return "; or ".join([*described, *others])


def _slug(heading: str) -> str:
    """The anchor a Markdown renderer (GitHub's) gives a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _sections(readme: Path) -> list[tuple[str, str]]:
    """``(heading, text under it)`` of each section of a README, in order."""
    out: list[tuple[str, list[str]]] = []
    for line in readme.read_text(encoding="utf-8").splitlines():
        found = _HEADING.match(line)
        if found:
            out.append((found[2], []))
        elif out:
            out[-1][1].append(line)
    return [(heading, "\n".join(lines)) for heading, lines in out]


def _reference(op: str, family: str, root: Path) -> tuple[str, list[str]]:
    """The README section documenting ``op`` (a heading naming it, else one whose text does,
    else the family's operations section) as a link, and the schemas linked there (else the
    README's)."""
    readme = root / family / "README.md"
    if not readme.is_file():
        return "", []
    sections = _sections(readme)
    chosen = (next((s for s in sections if f"`{op}`" in s[0] or op in s[0]), None)
              or next((s for s in sections if f"`{op}`" in s[1]), None)
              or next((s for s in sections if "operation" in s[0].lower()), None))
    whole = readme.read_text(encoding="utf-8")
    schemas = _SCHEMA.findall(chosen[1] if chosen else "") or _SCHEMA.findall(whole)
    if chosen is None:
        return f"[{family}/README.md]({family}/README.md)", list(dict.fromkeys(schemas))
    heading = chosen[0].replace("`", "")
    return (f"[{family}/README.md, {heading}]({family}/README.md#{_slug(chosen[0])})",
            list(dict.fromkeys(schemas)))


def collect(cases: Iterable[Any]) -> list[_Operation]:
    """Every operation a descriptor declares, in report order, with what its vectors show."""
    from agent_tck.harness.families import _modules_attr, families

    ops: dict[str, _Operation] = {}
    for family in families():
        for name in _modules_attr("OPERATIONS", family.operations):
            ops.setdefault(name, _Operation(name, family.name,
                                            family.compare.get(name, "json")))
    for case in cases:
        for expectation in case.expect:
            op = ops.get(expectation.operation)
            if op is None:
                continue
            op.cases += 1
            op.families.add(case.family)
            op.inputs.append(case.input)
            for one in expectation.alternatives or (expectation,):
                if one.error_code is not None:
                    op.errors[one.error_code] += 1
                else:
                    op.outputs.append(one.output)
    return list(ops.values())


def render(root: Path | None = None) -> str:
    from agent_tck.harness.contract.catalogue import load_catalogue
    from agent_tck.harness.contract.vectors import load_cases

    root = root or vectors_dir()
    ops = collect(load_cases(known_rules=load_catalogue().by_id))
    lines = ["# Every operation, on one page", "",
             "Generated by `python -m agent_tck.harness.contract.operations_doc` from the family "
             "descriptors, the vectors and the family READMEs; do not edit (a test keeps it "
             "current). Declare the operations you implement in your `started` reply "
             "([PROTOCOL.md](PROTOCOL.md)); the others are *not applicable*, never failed. "
             "Fields are what the vectors send and expect (optional: not in every case); the "
             "linked README section is the reference, and comparison modes are defined in "
             "[README.md](README.md).", "",
             "| operation | family | cases | errors it must return |", "|---|---|---|---|"]
    for op in ops:
        codes = ", ".join(f"`{c}`" for c in sorted(op.errors)) or "none"
        lines.append(f"| [`{op.name}`](#{_slug(op.name)}) | {op.family} | {op.cases} | "
                     f"{codes} |")
    for op in ops:
        reference, schemas = _reference(op.name, op.family, root)
        users = sorted(op.families - {op.family})
        lines += ["", f"## `{op.name}`", "",
                  f"- family: {op.family}"
                  + (f" (its vectors also in {', '.join(users)})" if users else ""),
                  f"- reference: {reference or 'no README section'}",
                  f"- input: {_fields(op.inputs)}",
                  f"- output: {_fields(op.outputs)}; compared as `{op.compare}`",
                  "- errors: " + (", ".join(f"`{code}` ({n} case{'s' * (n != 1)})"
                                            for code, n in sorted(op.errors.items()))
                                  or "none expected by the vectors"),
                  f"- cases: {op.cases}"]
        if schemas:
            lines.append("- schemas: " + ", ".join(f"[`{s}`](schema/{s})" for s in schemas))
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    target = vectors_dir() / "OPERATIONS.md"
    text = render()
    if args == ["--check"]:
        current = target.read_text(encoding="utf-8") if target.is_file() else ""
        if current != text:
            sys.stderr.write(f"{target} is out of date: run python -m "
                             "agent_tck.harness.contract.operations_doc\n")
            return 1
        return 0
    if args:
        sys.stderr.write("usage: python -m agent_tck.harness.contract.operations_doc [--check]\n")
        return 2
    target.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
