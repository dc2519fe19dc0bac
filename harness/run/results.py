"""The records of a results stream, typed, and the one place case results become verdicts.

A run is a header, one :class:`CaseResult` per (case, operation), and a footer (format:
vectors/schema/results.schema.json). These frozen classes are what the evaluate loop yields,
what the audit summarizes and what :mod:`harness.reports.stream` reads back; ``to_json`` gives
the exact line written to ``results.jsonl``. Pure data and pure functions: no file, no clock.

:func:`summarize` turns case results into rule statuses and verdicts (the footer, and the views
of a truncated run); :func:`exit_code` and :func:`partial` finish the footer of a run.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: The results stream format, written in every header (runner, audit) and checked on reading.
#: Format 2 adds each case record's ``checks`` (the check model, vectors/README.md "Checks");
#: files of format 1 (no ``checks``: a case's status counts for each rule it cites) still read.
RESULTS_FORMAT = "agent-tck-results/2"
READABLE_FORMATS = ("agent-tck-results/1", RESULTS_FORMAT)

CHECK_STATUSES = ("pass", "fail", "errored", "not-applicable")

CASE_STATUSES = ("pass", "fail", "errored", "not-applicable", "expected-fail", "stale")
RULE_STATUSES = ("pass", "fail", "errored", "expected-fail", "not-applicable", "untested")
CONFORMANT = "conformant"
RECOMMENDED = "conformant, recommended"
NOT_CONFORMANT = "not conformant"
PARTIAL = "partial"  # a filtered run that would be conformant: it certifies only a part
NOT_DECLARED = "not declared"  # a family the implementation declares no operation of
# A passive audit (agent-tck audit) certifies nothing: it says what it saw (issue 21 E)
NO_VIOLATION = "no violation seen"
VIOLATION = "violation seen"
NOT_EXERCISED = "not exercised"
VERDICTS = (RECOMMENDED, CONFORMANT, NOT_CONFORMANT, PARTIAL, NOT_DECLARED, NO_VIOLATION,
            VIOLATION, NOT_EXERCISED)


#: The filter keys of a header's ``filters`` that make a run partial, with their option names.
FILTER_OPTIONS = (("family", "--family"), ("rule", "--rule"), ("k", "-k"),
                  ("vectors", "--vectors"), ("only_vectors", "--only-vectors"))


def is_filtered(filters: Mapping[str, Any]) -> bool:
    """Whether a run's filters narrow it (harness.run.verdicts: its verdicts say partial)."""
    return any(filters.get(key) for key, _ in FILTER_OPTIONS)


# --- the records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class RuleInfo:
    """One rule as the header lists it."""

    id: str
    family: str
    level: str
    title: str = ""
    decision: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "family": self.family, "level": self.level, "title": self.title,
                "decision": self.decision}


@dataclass(frozen=True)
class Header:
    """The first record: what was run against what, and the rules the run judges."""

    format: str
    tck_version: str
    started: str
    implementation: Mapping[str, Any]
    target: Mapping[str, Any]
    filters: Mapping[str, Any]
    strict: bool
    rules: tuple[RuleInfo, ...]
    families: tuple[str, ...]

    @property
    def filtered(self) -> bool:
        """Any filter (``--family``, ``--rule``, ``-k``, ``--vectors``, ``--only-vectors``):
        the run covers a part of the suite (harness.run.verdicts)."""
        return is_filtered(self.filters)

    def to_json(self) -> dict[str, Any]:
        return {"type": "header", "format": self.format, "tck_version": self.tck_version,
                "started": self.started, "implementation": dict(self.implementation),
                "target": dict(self.target), "filters": dict(self.filters),
                "strict": self.strict, "families": list(self.families),
                "rules": [r.to_json() for r in self.rules]}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Header:
        """A header record as read back (already checked against the schema)."""
        return cls(
            format=raw["format"], tck_version=raw["tck_version"], started=raw["started"],
            implementation=dict(raw["implementation"]), target=dict(raw["target"]),
            filters=dict(raw.get("filters") or {}), strict=bool(raw.get("strict", False)),
            rules=tuple(RuleInfo(r["id"], r["family"], r["level"], r.get("title") or "",
                                 bool(r.get("decision", False))) for r in raw["rules"]),
            families=tuple(raw["families"]),
        )


@dataclass(frozen=True)
class CheckResult:
    """One check of a case, charged to exactly one rule (vectors/README.md "Checks").

    ``check`` names what was held against what: ``outcome`` (accepted or rejected),
    ``error-code``, ``output`` or ``output:<JSON pointer>`` (a named part of it),
    ``order:<JSON pointer>`` (an array's order apart from its content), ``trace:<name>``,
    ``observe:input-after`` / ``observe:repeat`` (BO-008), ``invariant:<name>``.
    ``status`` is one of ``CHECK_STATUSES``.
    """

    check: str
    rule: str
    status: str
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"check": self.check, "rule": self.rule, "status": self.status,
                "message": self.message}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> CheckResult:
        return cls(raw["check"], raw["rule"], raw["status"], raw.get("message") or "")


_WORST = ("fail", "errored", "pass", "not-applicable")


def worst(statuses: Iterable[str]) -> str:
    """A case's displayed status from its checks' statuses: the worst of them (fail, errored,
    pass, not-applicable in that order); not-applicable when there is none."""
    present = set(statuses)
    return next((s for s in _WORST if s in present), "not-applicable")


@dataclass(frozen=True)
class CaseResult:
    """One (case, operation) judged: its status (``CASE_STATUSES``), why, and what was seen.

    ``actual`` is the implementation's answer as an outcome (``{"output": ...}`` or
    ``{"error": {...}}``), ``None`` when it errored or was not asked; ``transcript`` holds the
    protocol lines around an errored call. ``line`` is where a read-back record stood (0 for a
    record not read from a file).
    """

    seq: int
    case: str
    family: str
    operation: str
    rules: tuple[str, ...]
    status: str
    description: str
    input: Any
    expected: Any
    actual: Any
    message: str
    transcript: tuple[str, ...] = ()
    duration_ms: float | None = None
    baseline: Mapping[str, Any] | None = None  # entry (label), reason, issue
    line: int = 0
    checks: tuple[CheckResult, ...] = ()  # empty: format 1, or no call was made

    def charges(self) -> Iterator[tuple[str, str]]:
        """(rule, status) pairs this result counts for: one per check when it has checks (a
        rule's status derives only from its own checks), else the case's status for each rule
        it cites (format 1, or an operation not called). A baseline's expected failure turns
        the failing checks into expected failures."""
        if not self.checks:
            yield from ((rid, self.status) for rid in self.rules)
            return
        expected = self.status == "expected-fail"
        for check in self.checks:
            failing = check.status in {"fail", "errored"}
            yield check.rule, ("expected-fail" if expected and failing else check.status)

    def failed_rules(self) -> tuple[str, ...]:
        """The rules of the checks that failed (with no checks, the cited rules when the case
        failed): the rules a seeded fault is killed on."""
        if not self.checks:
            return self.rules if self.status == "fail" else ()
        return tuple(dict.fromkeys(c.rule for c in self.checks if c.status == "fail"))

    @property
    def baseline_text(self) -> str:
        """The baseline entry in one line: its label, reason and issue, as far as known."""
        entry = self.baseline or {}
        return " ".join(str(entry[k]) for k in ("entry", "reason", "issue") if entry.get(k))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "case", "seq": self.seq, "case": self.case, "family": self.family,
            "operation": self.operation, "rules": list(self.rules), "status": self.status,
            "description": self.description, "input": self.input, "expected": self.expected,
            "actual": self.actual, "message": self.message,
        }
        if self.duration_ms is not None:
            out["duration_ms"] = self.duration_ms
        if self.transcript:
            out["transcript"] = list(self.transcript)
        if self.baseline is not None:  # a bare label stays a bare label
            only_label = set(self.baseline) == {"entry"}
            out["baseline"] = self.baseline["entry"] if only_label else dict(self.baseline)
        if self.checks:
            out["checks"] = [c.to_json() for c in self.checks]
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any], line: int = 0) -> CaseResult:
        """A case record as read back; a bare baseline label becomes ``{"entry": label}``."""
        baseline = raw.get("baseline")
        if baseline is not None:
            baseline = {"entry": baseline} if isinstance(baseline, str) else dict(baseline)
        return cls(
            seq=raw["seq"], case=raw["case"], family=raw["family"], operation=raw["operation"],
            rules=tuple(raw["rules"]), status=raw["status"],
            description=raw.get("description") or "", input=raw["input"],
            expected=raw["expected"], actual=raw.get("actual"), message=raw.get("message") or "",
            transcript=tuple(raw.get("transcript") or ()), duration_ms=raw.get("duration_ms"),
            baseline=baseline, line=line,
            checks=tuple(CheckResult.from_json(c) for c in raw.get("checks") or ()),
        )


@dataclass(frozen=True)
class Verdict:
    """A family's (or ``overall``) conformance verdict and the MUST rules keeping it from
    conformant."""

    verdict: str
    failing: tuple[str, ...] = ()
    covers: tuple[str, ...] = ()  # overall: the families it is over (the declared ones)
    filter: str = ""  # partial: the filters that made it so, as options
    requests: int | None = None  # an audit's verdict: the requests its rules were checked on

    @property
    def text(self) -> str:
        """The verdict in words with what it covers: ``partial (--family x -k y)``; an audit's
        says on how many requests."""
        if self.requests is not None and self.verdict in (NO_VIOLATION, VIOLATION):
            return f"{self.verdict} in {self.requests} request{'s' if self.requests != 1 else ''}"
        if self.verdict == PARTIAL and self.filter:
            return f"{PARTIAL} ({self.filter})"
        return self.verdict

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"verdict": self.verdict, "failing": list(self.failing)}
        if self.covers:
            out["covers"] = list(self.covers)
        if self.filter:
            out["filter"] = self.filter
        if self.requests is not None:
            out["requests"] = self.requests
        return out

    @classmethod
    def from_mapping(cls, value: Mapping[str, Any]) -> Verdict:
        return cls(value["verdict"], tuple(value.get("failing") or ()),
                   tuple(value.get("covers") or ()), value.get("filter") or "",
                   value.get("requests"))


@dataclass(frozen=True)
class Footer:
    """The last record: counts, rule statuses, verdicts and the exit code. A stream without
    it is a truncated run."""

    finished: str
    counts: Mapping[str, int]
    rules: Mapping[str, str]
    verdicts: Mapping[str, Verdict]
    exit_code: int
    stale_baseline: tuple[str, ...] = ()  # labels of baseline entries whose cases pass now

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "footer", "finished": self.finished, "counts": dict(self.counts),
            "rules": dict(self.rules),
            "verdicts": {k: v.to_json() for k, v in self.verdicts.items()},
            "exit_code": self.exit_code,
        }
        if self.stale_baseline:
            out["stale_baseline"] = list(self.stale_baseline)
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any], rules: Sequence[RuleInfo]) -> Footer:
        """A footer record as read back; a verdict in its bare form (a string) gets its failing
        MUST rules named from ``rules`` (the header's) and the footer's statuses."""
        statuses = dict(raw["rules"])
        verdicts: dict[str, Verdict] = {}
        for family, value in raw["verdicts"].items():
            if isinstance(value, str):
                failing = tuple(r.id for r in rules
                                if r.level == "MUST" and (family in ("overall", r.family))
                                and statuses.get(r.id, "untested") != "pass")
                verdicts[family] = Verdict(value, failing if value == NOT_CONFORMANT else ())
            else:
                verdicts[family] = Verdict.from_mapping(value)
        return cls(raw["finished"], dict(raw["counts"]), statuses, verdicts, raw["exit_code"],
                   tuple(raw.get("stale_baseline") or ()))


Record = Header | CaseResult | Footer


# --- summarize: case results -> rule statuses, verdicts, counts ----------------------------------


def _get(record: Any, key: str, default: Any = None) -> Any:
    if isinstance(record, Mapping):
        return record.get(key, default)
    return getattr(record, key, default)


def _charges(record: Any) -> Iterable[tuple[str, str]]:
    """(rule, status) pairs of a typed case result or its JSON (:meth:`CaseResult.charges`)."""
    if isinstance(record, CaseResult):
        return record.charges()
    checks = tuple(CheckResult.from_json(c) for c in record.get("checks") or ())
    return CaseResult(0, "", "", "", tuple(record.get("rules") or ()), record["status"], "",
                      None, None, None, "", checks=checks).charges()


def rule_status(level: str, statuses: Sequence[str]) -> str:
    """The status of one rule from the statuses of the cases citing it.

    Precedence: fail, errored, expected-fail, pass (a stale baseline entry passes), then
    all-not-applicable. A MUST rule that no declared operation covers is *untested*, not
    "not applicable" (nothing observed it, so nothing may claim it); so is any rule no case cites.
    """
    present = set(statuses)
    for status in ("fail", "errored", "expected-fail"):
        if status in present:
            return status
    if present & {"pass", "stale"}:
        return "pass"
    if present and present <= {"not-applicable"}:
        return "untested" if level == "MUST" else "not-applicable"
    return "untested"


def _verdict(levels_status: Iterable[tuple[str, str, str]]) -> tuple[str, list[str]]:
    """(verdict, MUST rules not passing) over (id, level, status) triples."""
    failing, should_short = [], False
    for rid, level, status in levels_status:
        if status == "pass":
            continue
        if level == "MUST":
            failing.append(rid)
        elif level == "SHOULD":
            should_short = True
    if failing:
        return NOT_CONFORMANT, failing
    return (CONFORMANT if should_short else RECOMMENDED), []


@dataclass(frozen=True)
class RunSummary:
    """What :func:`summarize` returns. Unpacks as ``rule_status, verdicts, counts``.

    ``verdicts`` maps each family (and ``overall``) to ``{"verdict": ..., "failing": [...]}``,
    ``failing`` naming the MUST rules that keep it from conformant; ``verdict_text`` has the bare
    strings.
    """

    rule_status: dict[str, str]
    verdicts: dict[str, dict[str, Any]]
    counts: dict[str, int]

    def __iter__(self) -> Iterator[Any]:
        return iter((self.rule_status, self.verdicts, self.counts))

    @property
    def verdict_text(self) -> dict[str, str]:
        return {family: v["verdict"] for family, v in self.verdicts.items()}

    def footer(self, *, finished: str, exit_code: int,
               stale_baseline: Sequence[str] = ()) -> Footer:
        return Footer(finished, self.counts, self.rule_status,
                      {k: Verdict.from_mapping(v) for k, v in self.verdicts.items()},
                      exit_code, tuple(stale_baseline))


def summarize(rules: Iterable[Any], case_records: Iterable[Any]) -> RunSummary:
    """Rule statuses, verdicts and case counts for ``rules`` (the header's list: id, family,
    level) given the ``case_records`` (dicts or :class:`CaseResult`).

    Verdict per family and overall: every MUST rule passes => "conformant";
    and every SHOULD rule too => "conformant, recommended"; any MUST rule failing, errored,
    expected to fail (a baseline does not make a failure conformant) or untested => "not
    conformant", naming them. MAY rules never change a verdict. A run with no rule at all
    certifies nothing: its overall verdict is "not conformant".
    """
    rules = list(rules)
    counts = dict.fromkeys(CASE_STATUSES, 0)
    by_rule: dict[str, list[str]] = {}
    for record in case_records:
        status = _get(record, "status")
        counts[status] = counts.get(status, 0) + 1
        for rid, charged in _charges(record):
            by_rule.setdefault(rid, []).append(charged)

    statuses: dict[str, str] = {}
    families: dict[str, list[tuple[str, str, str]]] = {}
    for rule in rules:
        rid, level = _get(rule, "id"), _get(rule, "level")
        status = rule_status(level, by_rule.get(rid, ()))
        statuses[rid] = status
        families.setdefault(_get(rule, "family"), []).append((rid, level, status))

    verdicts: dict[str, dict[str, Any]] = {}
    for family, triples in families.items():
        verdict, failing = _verdict(triples)
        verdicts[family] = {"verdict": verdict, "failing": failing}
    every = [t for triples in families.values() for t in triples]
    verdict, failing = _verdict(every)
    verdicts["overall"] = {"verdict": verdict if every else NOT_CONFORMANT, "failing": failing}
    return RunSummary(statuses, verdicts, counts)


def exit_code(rules: Iterable[Any], records: Iterable[Any], *, strict: bool = False,
              stale: int = 0) -> int:
    """0 when no applicable MUST rule fails or errors (nor a SHOULD one under --strict) and no
    baseline entry is stale; else 1. Expected failures (baseline) do not fail the run.
    ``rules`` and ``records`` are typed records or their JSON."""
    levels = {"MUST", "SHOULD"} if strict else {"MUST"}
    gating = {_get(r, "id") for r in rules if _get(r, "level") in levels}
    for record in records:
        status = _get(record, "status")
        if status == "stale":
            return 1
        if status in {"fail", "errored"} and any(
                rid in gating and charged in {"fail", "errored"}
                for rid, charged in _charges(record)):
            return 1
    return 1 if stale else 0


__all__ = ["CASE_STATUSES", "CHECK_STATUSES", "CONFORMANT", "FILTER_OPTIONS", "NOT_CONFORMANT",
           "NOT_DECLARED", "NOT_EXERCISED", "NO_VIOLATION", "PARTIAL", "READABLE_FORMATS",
           "RECOMMENDED", "RESULTS_FORMAT", "RULE_STATUSES", "VERDICTS", "VIOLATION", "CaseResult",
           "CheckResult", "Footer", "Header", "Record", "RuleInfo", "RunSummary", "Verdict",
           "exit_code", "is_filtered", "rule_status", "summarize", "worst"]
