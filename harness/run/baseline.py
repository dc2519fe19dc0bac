"""Known-failure baselines (``--expect FILE``): listed failures are expected, never hidden.

A baseline is YAML::

    expected_failures:
      - case: bo-user-reasoning-omitted     # a case id, or
        operation: anthropic.serialize      #   (optional: only this operation)
        reason: we still send reasoning upstream; fix due in 2.4
        issue: https://example.org/tracker/123   # optional
      - rule: IHU-002                        # every failing case citing the rule
        reason: ...

Applying it is a pure function over case results (:func:`judge_against`,
:func:`stale_entries`): a listed case that fails or errors becomes
``expected-fail``; a listed case that now passes becomes ``stale`` and fails the run, so a
baseline cannot rot; an unlisted failure fails the run as usual.

Cost (issue 26: 200,000 entries took 74 s and 757 MB): linear. The entries are indexed by case
and by rule (:class:`Entries`), so a result is matched by lookups, not by a scan of the list; a
file in the shape above (the one ``agent-tck baseline`` writes: block style, plain ids, reasons
as JSON-quoted strings) is read by :func:`_read_simple`, a line reader for that subset of YAML
that gives the value YAML gives, and any other file by the YAML loader
(:mod:`agent_tck.harness.common.safe_yaml`). ``benchmarks/bench_baseline.py`` prints the figures.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.common.safe_yaml import YAMLInputError, load
from agent_tck.harness.common.whole_file import read_whole
from agent_tck.harness.run.results import CaseResult

FAILING = {"fail", "errored"}


@dataclass(frozen=True, slots=True)
class Entry:
    reason: str
    case: str | None = None
    rule: str | None = None
    operation: str | None = None
    issue: str | None = None
    index: int = 0

    def label(self) -> str:
        what = f"case {self.case}" if self.case else f"rule {self.rule}"
        return what + (f" [{self.operation}]" if self.operation else "")

    def matches(self, result: CaseResult) -> bool:
        if self.operation and result.operation != self.operation:
            return False
        if self.case is not None:
            return result.case == self.case
        # a rule entry matches a case citing the rule or one with a check charged to it
        return self.rule in result.rules or any(c.rule == self.rule for c in result.checks)


class Entries(tuple[Entry, ...]):
    """A baseline's entries in file order, indexed by case and by rule: the entries that can
    match a result are found by lookups, so matching costs what the hits cost."""

    by_case: dict[str, list[Entry]]
    by_rule: dict[str, list[Entry]]

    def __new__(cls, entries: Iterable[Entry] = ()) -> Entries:
        self = super().__new__(cls, entries)
        self.by_case, self.by_rule = {}, {}
        for entry in self:
            if entry.case is not None:
                self.by_case.setdefault(entry.case, []).append(entry)
            elif entry.rule is not None:
                self.by_rule.setdefault(entry.rule, []).append(entry)
        return self

    def hits(self, result: CaseResult) -> list[Entry]:
        """The entries matching ``result``, in file order."""
        candidates = list(self.by_case.get(result.case, ()))
        for rule in dict.fromkeys(result.rules):
            candidates += self.by_rule.get(rule, ())
        hits = [e for e in candidates if e.matches(result)]
        return sorted(hits, key=lambda e: e.index) if len(hits) > 1 else hits


def _indexed(entries: Sequence[Entry]) -> Entries:
    return entries if isinstance(entries, Entries) else Entries(entries)


# --- the subset of YAML `agent-tck baseline` writes, read line by line ------------------------
# A plain id that YAML 1.1 resolves to a string and nothing else: it starts with a letter (no
# number, date, .inf) and holds a "-" or "." (no true/yes/null/on...).
# (possessive quantifiers throughout: no backtracking, whatever a line holds)
_PLAIN = r"[A-Za-z][A-Za-z0-9_]*+(?:[-.][A-Za-z0-9_]++)++"
# a JSON string YAML's double-quoted style reads alike: no surrogate escapes (YAML keeps a
# pair as two characters), no raw control characters
_QUOTED = r'"(?:[^"\\\x00-\x1f]++|\\["\\/bfnrt]|\\u(?![dD][89abAB])[0-9a-fA-F]{4})*+"'
_TAIL = r"(?:[ ]++#[^\n]*+)?+[ ]*+"  # no tab: YAML refuses one before a comment
_ENTRY_LINE = re.compile(
    rf"(?P<lead>  - |    )(?P<key>case|rule|operation|reason|issue): "
    rf"(?:(?P<plain>{_PLAIN})|(?P<quoted>{_QUOTED})){_TAIL}")
_HEAD_LINE = re.compile(rf"expected_failures:(?P<empty> \[\])?{_TAIL}")
_SKIP_LINE = re.compile(r"[ ]*(?:#[^\n]*)?")
# left to YAML: what its reader refuses (non-printable characters), what it reads as a line
# break (U+0085, U+2028, U+2029, CR), a byte-order mark, tabs
_UNUSUAL = re.compile("[^\x0a\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd"
                      "\U00010000-\U0010ffff]")


def _read_simple(text: str) -> dict[str, Any] | None:
    """The document of a baseline in the block shape :func:`write_baseline` writes (and hand
    edits of it in that shape), equal to what YAML reads; ``None`` for anything else."""
    if _UNUSUAL.search(text):
        return None
    items: list[dict[str, str]] | None = None
    empty = False
    quoted: list[str] = []  # JSON strings, decoded in one call at the end
    slots: list[tuple[dict[str, str], str]] = []
    entry_line, skip_line = _ENTRY_LINE.fullmatch, _SKIP_LINE.fullmatch
    for line in text.split("\n"):
        m = entry_line(line) if items is not None else None
        if m is not None:
            assert items is not None
            lead, key, plain, string = m.groups()
            if empty or (lead == "    " and not items):
                return None
            if lead == "  - ":
                items.append({})
            item = items[-1]
            if key in item:
                return None  # a repeated key: YAML's rule for it is YAML's business
            item[key] = plain
            if string is not None:
                quoted.append(string)
                slots.append((item, key))
            continue
        if skip_line(line):
            continue
        head = _HEAD_LINE.fullmatch(line) if items is None else None
        if head is None:
            return None
        items, empty = [], head.group("empty") is not None
    if items is None:
        return None
    for (item, key), value in zip(slots, json.loads("[" + ",".join(quoted) + "]"), strict=True):
        item[key] = value
    return {"expected_failures": items if items or empty else None}  # as YAML: a bare key


_KEYS = frozenset({"case", "rule", "operation", "reason", "issue"})


def load_baseline(
    path: Path, known_cases: Iterable[str], known_rules: Iterable[str]
) -> Entries:
    try:
        # untrusted: capped in size, no aliases, bounded depth
        text = read_whole(path).decode("utf-8")
        simple = _read_simple(text)
        doc = simple if simple is not None else load(text)
    except OSError as exc:
        raise HarnessError("BASELINE_INVALID", f"cannot read: {exc.strerror or exc}",
                           str(path)) from None
    except UnicodeDecodeError as exc:
        raise HarnessError("BASELINE_INVALID", f"not UTF-8: byte {exc.start} cannot be "
                           "decoded", str(path)) from None
    except YAMLInputError as exc:
        raise HarnessError("BASELINE_INVALID", str(exc), str(path)) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("expected_failures"), list):
        raise HarnessError("BASELINE_INVALID",
                           "expected a mapping with a list under 'expected_failures'", str(path))
    cases, rules = set(known_cases), set(known_rules)
    return Entries(_entry(item, index, path, cases, rules)
                   for index, item in enumerate(doc["expected_failures"]))


def _entry(item: Any, index: int, path: Path, cases: set[str], rules: set[str]) -> Entry:
    """One checked entry; the error names ``file#/expected_failures/N``."""

    def bad(message: str, key: str = "") -> HarnessError:
        return HarnessError("BASELINE_INVALID", message,
                            f"{path}#/expected_failures/{index}" + (f"/{key}" if key else ""))

    if not isinstance(item, dict):
        raise bad("each entry is a mapping")
    if not item.keys() <= _KEYS:
        raise bad(f"unknown keys {sorted(map(str, set(item) - _KEYS))}")
    if ("case" in item) == ("rule" in item):
        raise bad("name exactly one of 'case' or 'rule'")
    for key, value in item.items():
        if not isinstance(value, str):
            raise bad(f"{key} must be a string, not {type(value).__name__} (quote it)", key)
    if not item.get("reason", "").strip():
        raise bad("every entry needs a 'reason'")
    case, rule = item.get("case"), item.get("rule")
    if case is not None and case not in cases:
        raise bad(f"no vector case is named {case!r}")
    if rule is not None and rule not in rules:
        raise bad(f"no rule is named {rule!r}")
    return Entry(reason=item["reason"], case=case, rule=rule, operation=item.get("operation"),
                 issue=item.get("issue"), index=index)


def judge_against(result: CaseResult, entries: Sequence[Entry]) -> CaseResult:
    """``result`` as the baseline sees it: a listed failure is ``expected-fail``, a listed case
    that passes is ``stale``; anything else unchanged."""
    hits = _indexed(entries).hits(result)
    if not hits or result.status == "expected-fail":
        return result
    entry = hits[0]
    note = f"baseline: {entry.reason}" + (f" ({entry.issue})" if entry.issue else "")
    if result.status in FAILING:
        return replace(result, status="expected-fail", message=f"{result.message} [{note}]",
                       baseline={"entry": entry.label()})
    if result.status == "pass" and entry.case is not None:
        return replace(result, status="stale", baseline={"entry": entry.label()},
                       message=f"listed in the baseline as failing but passes now: remove "
                               f"{entry.label()} from the baseline [{note}]")
    return result


def stale_entries(results: Iterable[CaseResult], entries: Sequence[Entry]) -> list[Entry]:
    """Entries that matched some result but no result still failing (after
    :func:`judge_against`): what they excuse passes now, so they must go."""
    index = _indexed(entries)
    matched: set[int] = set()
    still_failing: set[int] = set()
    for result in results:
        hits = {e.index for e in index.hits(result)}
        matched |= hits
        if result.status in FAILING or result.status == "expected-fail":
            still_failing |= hits
    return [e for e in entries if e.index in matched and e.index not in still_failing]


def _hint(message: str, width: int = 120) -> str:
    """A starting reason: the message's first line, at most ``width`` characters (a diff of a
    whole output is no reason, and made each entry kilobytes long)."""
    first = "".join(ch if ch.isprintable() else "?" for ch in message.strip().split("\n", 1)[0])
    return first if len(first) <= width and first == message.strip() else (
        first[:width - 1].rstrip() + "…")


def write_baseline(records: Iterable[dict[str, Any]]) -> str:
    """A starting baseline listing every failing or errored case of a run."""
    lines = [
        "# agent-tck known-failure baseline. Give each entry a real reason; an entry whose",
        "# case passes again is reported as stale and fails the run until you remove it.",
        "expected_failures:",
    ]
    seen = set()
    for record in records:
        if record.get("type") == "case" and record["status"] in FAILING:
            key = (record["case"], record["operation"])
            if key in seen:
                continue
            seen.add(key)
            lines += [
                f"  - case: {record['case']}",
                f"    operation: {record['operation']}",
                "    reason: "
                + json.dumps(_hint(record["message"] or record["status"]), ensure_ascii=False)
                + "  # say why",
            ]
    if len(lines) == 3:
        lines[-1] = "expected_failures: []"
    return "\n".join(lines) + "\n"
