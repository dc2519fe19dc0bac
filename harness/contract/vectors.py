"""Language-neutral vectors: loading, validation and the case values the runner iterates.

A vector file is ``vectors/<family>/*.json`` (schema ``vectors/schema/vector-file.schema.json``).
Every problem is a :class:`HarnessError` naming the file and the JSON pointer or line. Vector
files from ``--vectors`` are untrusted: read with :func:`reference_impl.strict_json.loads`
(no NaN, duplicate keys, lone surrogates, nesting over 200 levels).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agent_tck.harness import families
from agent_tck.harness.common.data import vectors_dir
from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.common.jsonschema_util import validate
from agent_tck.harness.common.whole_file import read_whole
from agent_tck.harness.run.compare import (
    TRACE_MODE,
    carved_constraint,
    mode_for,
    normal_expected,
    trace_constraints,
)
from agent_tck.harness.run.order import ORDER, parse_order, refusal
from agent_tck.reference_impl.json_pointer import escape
from agent_tck.reference_impl.strict_json import StrictJSONError, loads

_NOT_VECTORS = {"schema", "rules"}


@dataclass(frozen=True)
class Expectation:
    """What one operation must do with a case's input."""

    operation: str
    output: Any = None
    error_code: str | None = None
    compare: str | None = None
    rules: tuple[str, ...] = ()  # narrower than the case's rules, when given
    #: Accepted outcomes, any of which passes (vectors/README.md "Accepted alternatives"):
    #: where the notes admit several readings, each is listed; empty for one outcome.
    alternatives: tuple[Expectation, ...] = ()
    #: Check attribution (vectors/README.md "Checks"): (check name, rule) pairs; a check not
    #: named is charged to every rule of the expectation.
    checks: tuple[tuple[str, str], ...] = ()
    #: The names of the trace constraints of an expected trace (``trace:<name>`` checks;
    #: :func:`harness.run.compare.trace_constraints`), set from the case's scenario on load.
    trace: tuple[str, ...] = ()

    def attributed(self, check: str) -> str | None:
        """The one rule ``check`` is charged to, when the vector names it."""
        return dict(self.checks).get(check)

    @property
    def output_parts(self) -> tuple[str, ...]:
        """The JSON pointers of the named output parts (``output:<pointer>`` checks)."""
        return tuple(name.partition(":")[2] for name, _ in self.checks
                     if name.startswith("output:"))

    @property
    def orders(self) -> tuple[str, ...]:
        """The order checks' names (``order:<pointer>[ids]``; :mod:`harness.run.order`)."""
        return tuple(name for name, _ in self.checks if name.startswith(ORDER))

    @property
    def is_error(self) -> bool:
        return self.error_code is not None

    def to_json(self) -> dict[str, Any]:
        if self.alternatives:
            return {"alternatives": [a.to_json() for a in self.alternatives]}
        if self.error_code is not None:
            return {"error": {"code": self.error_code}}
        return {"output": self.output}


def _expectation(operation: str, spec: Mapping[str, Any]) -> Expectation:
    return Expectation(
        operation=operation,
        output=spec.get("output"),
        error_code=spec["error"]["code"] if "error" in spec else None,
        compare=spec.get("compare"),
        rules=tuple(spec.get("rules", ())),
        alternatives=tuple(_expectation(operation, a) for a in spec.get("alternatives", ())),
        checks=tuple(sorted((spec.get("checks") or {}).items())),
    )


def _check_attribution(exp: Expectation, case_rules: Sequence[str], where: str) -> None:
    """Each attributed check exists for this expectation and names one of its rules."""
    allowed = set(exp.rules or case_rules)
    kinds = exp.alternatives or (exp,)
    has_error = any(k.is_error for k in kinds)
    has_output = any(not k.is_error for k in kinds)
    for name, rule in exp.checks:
        at = f"{where}/checks/{escape(name)}"
        if rule not in allowed:
            raise HarnessError("VECTOR_INVALID", f"check {name!r} is charged to {rule}, which "
                               f"is not among the expectation's rules {sorted(allowed)}", at)
        if (name == "error-code" and not has_error) or (
                name.startswith("output") and not has_output):
            raise HarnessError("VECTOR_INVALID", f"check {name!r} does not exist for this "
                               "expectation (error-code needs an error, output an output)", at)
        if name.startswith(("output:", ORDER)) and (exp.alternatives or exp.trace):
            raise HarnessError("VECTOR_INVALID", "named output parts and orders are for a "
                               "single expected output, not alternatives (a trace's parts are "
                               "its trace:<name> constraints)", at)
        if name.startswith(ORDER):
            _check_order(exp, name, at)
        if name.startswith("trace:") and name[len("trace:"):] not in exp.trace:
            known = ", ".join(f"trace:{t}" for t in exp.trace) or "none: it expects no trace"
            raise HarnessError("VECTOR_INVALID", f"check {name!r} names no trace constraint of "
                               f"this expectation (its constraints: {known})", at)


def _check_order(exp: Expectation, name: str, at: str) -> None:
    """An ``order:`` check names an array of the expected output whose elements have an
    identity, and (a subset) identities among them in the expected output's own order."""
    if exp.is_error:
        raise HarnessError("VECTOR_INVALID", f"check {name!r} does not exist for this "
                           "expectation (an order needs an output)", at)
    try:
        check = parse_order(name)
    except ValueError as exc:
        raise HarnessError("VECTOR_INVALID", f"check {name!r}: {exc}", at) from None
    mode = mode_for(exp.operation, exp.compare)
    try:
        expected = normal_expected(exp.output, mode)
    except Exception as exc:  # an expected output the mode cannot read has no arrays to order
        raise HarnessError("VECTOR_INVALID", f"check {name!r}: the expected output has no "
                           f"{mode} normal form ({type(exc).__name__}: {exc})", at) from None
    why = refusal(check, expected)
    if why:
        raise HarnessError("VECTOR_INVALID", f"check {name!r}: {why}", at)
    whole = f"{ORDER}{check.pointer}"
    if check.ids is not None and whole not in exp.orders:
        # the fold puts every element of the array in the expected order, so without the whole
        # array's order check the order of the unlisted elements would be checked by nothing
        raise HarnessError("VECTOR_INVALID", f"check {name!r}: a subset's order needs the "
                           f"whole array's order check beside it ({whole!r})", at)


def _with_trace(exp: Expectation, scenario: Any) -> Expectation:
    """``exp`` with the names of its trace constraints, when it expects one trace: those of
    its scenario, and each event kind its attribution carves out of an action."""
    if exp.is_error or exp.alternatives or mode_for(exp.operation, exp.compare) != TRACE_MODE:
        return exp
    names = trace_constraints(exp.output, scenario)
    carved = tuple(name[len("trace:"):] for name, _ in exp.checks if name.startswith("trace:")
                   and carved_constraint(name[len("trace:"):], names))
    return replace(exp, trace=(*names, *carved))


@dataclass(frozen=True)
class Case:
    id: str
    family: str
    rules: tuple[str, ...]
    description: str
    input: Any
    expect: tuple[Expectation, ...]
    file: str

    def where(self) -> str:
        return f"{self.file} (case {self.id})"

    def rules_for(self, expectation: Expectation) -> tuple[str, ...]:
        """The rules a result of ``expectation`` counts for: its own, else the case's."""
        return expectation.rules or self.rules


#: Digests of the vector texts this process has validated against the schema. A process reads
#: the vectors more than once (the test suite's modules each load them, the mutation run per
#: family), and the schema check is most of a load; the same bytes need it once. Parsed anew
#: every time: each load hands out values of its own.
_SCHEMA_VALID: set[bytes] = set()


def _parse(path: Path) -> tuple[Any, bytes]:
    """The parsed file and the digest of its bytes."""
    try:
        data = read_whole(path)  # capped: docs/RELIABILITY.md
    except OSError as exc:
        raise HarnessError("VECTOR_INVALID", f"cannot read: {exc.strerror or exc}",
                           str(path)) from None
    try:
        return loads(data), hashlib.blake2b(data, digest_size=16).digest()
    except StrictJSONError as exc:
        where = f"{path}:{exc.line}:{exc.column}" if exc.line is not None else str(path)
        reason = exc.reason if exc.reason.startswith("not ") else f"not valid JSON: {exc.reason}"
        raise HarnessError("VECTOR_INVALID", reason, where) from None


def load_file(path: Path) -> list[Case]:
    doc, digest = _parse(path)
    if digest not in _SCHEMA_VALID:
        validate(doc, "vector-file.schema.json", code="VECTOR_INVALID", where=str(path))
        _SCHEMA_VALID.add(digest)
    if families.get(doc["family"]) is None:  # its cases would count for no rule of the run
        raise HarnessError("VECTOR_INVALID", families.undeclared(doc["family"]),
                           f"{path}#/family")
    cases = []
    for case in doc["cases"]:
        expect = tuple(_with_trace(_expectation(op, spec), case["input"])
                       for op, spec in sorted(case["expect"].items()))
        for exp in expect:
            where = f"{path}#/cases/{doc['cases'].index(case)}/expect/{exp.operation}"
            extra = sorted(set(exp.rules) - set(case["rules"]))
            if extra:
                raise HarnessError(
                    "VECTOR_INVALID",
                    f"expectation rules {extra} are not among the case's rules",
                    f"{where}/rules",
                )
            _check_attribution(exp, case["rules"], where)
        cases.append(
            Case(
                id=case["id"],
                family=doc["family"],
                rules=tuple(case["rules"]),
                description=case["description"],
                input=case["input"],
                expect=expect,
                file=str(path),
            )
        )
    return cases


def vector_files(extra: Iterable[Path] = (), *, builtin: bool = True) -> list[Path]:
    files: list[Path] = []
    if builtin:
        root = vectors_dir()
        for family_dir in sorted(p for p in root.iterdir() if p.is_dir()):
            if family_dir.name not in _NOT_VECTORS:
                files.extend(sorted(family_dir.glob("*.json")))
        for folder in families.vector_folders():  # plug-in families name their own folder
            files.extend(sorted(folder.rglob("*.json")))
    for folder in extra:
        if not folder.exists():
            raise HarnessError("VECTORS_NOT_FOUND", "no such file or folder", str(folder))
        # a folder that happens to be named sub.json is not a vector file
        found = [folder] if folder.is_file() else sorted(
            p for p in folder.rglob("*.json") if p.is_file())
        if not found:
            raise HarnessError("VECTORS_NOT_FOUND", "no *.json vector files in this folder",
                               str(folder))
        files.extend(found)
    return files


def load_cases(
    extra: Iterable[Path] = (),
    *,
    builtin: bool = True,
    known_rules: Mapping[str, Any] | None = None,
) -> list[Case]:
    """All cases, in file order. Duplicate ids and (when given) unknown rule IDs are errors."""
    cases: list[Case] = []
    seen: dict[str, str] = {}
    for path in vector_files(extra, builtin=builtin):
        for index, case in enumerate(load_file(path)):
            if case.id in seen:
                raise HarnessError(
                    "VECTOR_INVALID",
                    f"case id {case.id!r} is already used in {seen[case.id]}",
                    f"{path}#/cases/{index}/id",
                )
            seen[case.id] = str(path)
            if known_rules is not None:
                for r, rid in enumerate(case.rules):
                    if rid not in known_rules:
                        raise HarnessError(
                            "VECTOR_INVALID",
                            f"cites rule {rid}, which is not in the catalogue",
                            f"{path}#/cases/{index}/rules/{r}",
                        )
            cases.append(case)
    return cases
