"""A structural diff of a case's expected and actual outcome, for report.html.

:func:`differences` lists every path where the two JSON values part ways (not only the first,
as the case's message does): a member or item that is *missing* from the actual value, one
that is *extra* in it, or a value that *changed*. Lists are aligned item by item with
:class:`difflib.SequenceMatcher`, so one inserted block shows as one extra item, not as every
later item changed. Each difference has a JSON pointer on each side, so both raw columns can
highlight it: :func:`annotated_lines` pretty-prints a value as ``json.dumps(indent=2)`` does,
one line per member or item, each line tagged with the pointer it belongs to.

The diff is of the raw JSON. The comparison the case used may treat some differing forms as
the same (the wire equivalences of vectors/README.md); the case's message says what failed.
Pure functions over plain data.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from agent_tck.reference_impl.json_pointer import escape

MAX_DIFFERENCES = 100
MAX_LINES = 3000
MAX_ALIGNED = 250_000  # list lengths multiplied: above it, lists are compared item by item


@dataclass(frozen=True)
class Difference:
    """One path where expected and actual differ. ``kind``: missing, extra or changed."""

    kind: str
    expected_at: str | None  # pointer into the expected value (None: extra)
    actual_at: str | None  # pointer into the actual value (None: missing)
    expected: Any = None
    actual: Any = None

    @property
    def pointer(self) -> str:
        return (self.actual_at if self.actual_at is not None else self.expected_at) or "/"


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and _canon(a) == _canon(b)


def _walk(expected: Any, actual: Any, e_at: str, a_at: str) -> Iterator[Difference]:
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in [*expected, *(k for k in actual if k not in expected)]:
            e_key, a_key = f"{e_at}/{escape(key)}", f"{a_at}/{escape(key)}"
            if key not in actual:
                yield Difference("missing", e_key, None, expected[key], None)
            elif key not in expected:
                yield Difference("extra", None, a_key, None, actual[key])
            else:
                yield from _walk(expected[key], actual[key], e_key, a_key)
    elif isinstance(expected, list) and isinstance(actual, list):
        yield from _walk_list(expected, actual, e_at, a_at)
    elif not _same(expected, actual):
        yield Difference("changed", e_at, a_at, expected, actual)


def _opcodes(expected: list[Any],
             actual: list[Any]) -> Sequence[tuple[str, int, int, int, int]]:
    if len(expected) * len(actual) > MAX_ALIGNED:  # too long to align: item by item
        return [("replace", 0, len(expected), 0, len(actual))]
    matcher = SequenceMatcher(None, [_canon(x) for x in expected], [_canon(x) for x in actual],
                              autojunk=False)
    return matcher.get_opcodes()


def _walk_list(expected: list[Any], actual: list[Any], e_at: str,
               a_at: str) -> Iterator[Difference]:
    for op, e1, e2, a1, a2 in _opcodes(expected, actual):
        if op == "equal":
            continue
        paired = min(e2 - e1, a2 - a1)  # replaced items: look inside, pair by pair
        for i in range(paired):
            yield from _walk(expected[e1 + i], actual[a1 + i], f"{e_at}/{e1 + i}",
                             f"{a_at}/{a1 + i}")
        for i in range(e1 + paired, e2):
            yield Difference("missing", f"{e_at}/{i}", None, expected[i], None)
        for i in range(a1 + paired, a2):
            yield Difference("extra", None, f"{a_at}/{i}", None, actual[i])


def _comparable(expected: Any, actual: Any) -> Any:
    """``actual`` with the parts no expectation speaks of left out: a rejection's message
    (only its code is expected)."""
    if (isinstance(expected, Mapping) and isinstance(actual, Mapping)
            and isinstance(expected.get("error"), Mapping)
            and isinstance(actual.get("error"), Mapping)):
        wanted = expected["error"]
        return {**actual, "error": {k: v for k, v in actual["error"].items() if k in wanted}}
    return actual


def differences(expected: Any, actual: Any,
                limit: int = MAX_DIFFERENCES) -> tuple[str, list[Difference]]:
    """(prefix, differences) between a case's expected and actual outcome, at most ``limit``.

    An expectation listing accepted alternatives is diffed against the closest one; ``prefix``
    is then its pointer in the expected value (``/alternatives/1``), else ``""``.
    """
    if isinstance(expected, Mapping) and isinstance(expected.get("alternatives"), list):
        best: tuple[str, list[Difference]] | None = None
        for n, alternative in enumerate(expected["alternatives"]):
            found = differences(alternative, actual, limit)[1]
            if best is None or len(found) < len(best[1]):
                best = (f"/alternatives/{n}", found)
        return best or ("", [])
    out: list[Difference] = []
    for diff in _walk(expected, _comparable(expected, actual), "", ""):
        out.append(diff)
        if len(out) >= limit:
            break
    return "", out


# --- pretty-printing with pointers ---------------------------------------------------------------


def annotated_lines(value: Any, limit: int = MAX_LINES) -> tuple[list[tuple[str, str]], bool]:
    """``json.dumps(value, indent=2)`` as (pointer, line) pairs, and whether it was cut at
    ``limit`` lines. A container's closing line carries the container's pointer."""
    lines: list[tuple[str, str]] = []
    for item in _lines(value, "", 0, ""):
        if len(lines) >= limit:
            return lines, True
        lines.append(item)
    return lines, False


def _lines(value: Any, at: str, depth: int, lead: str,
           comma: str = "") -> Iterator[tuple[str, str]]:
    pad = "  " * depth
    if isinstance(value, dict) and value:
        yield at, f"{pad}{lead}{{"
        items = list(value.items())
        for n, (key, item) in enumerate(items):
            yield from _lines(item, f"{at}/{escape(key)}", depth + 1,
                              json.dumps(str(key), ensure_ascii=False) + ": ",
                              "," if n < len(items) - 1 else "")
        yield at, f"{pad}}}{comma}"
    elif isinstance(value, list) and value:
        yield at, f"{pad}{lead}["
        for n, item in enumerate(value):
            yield from _lines(item, f"{at}/{n}", depth + 1, "",
                              "," if n < len(value) - 1 else "")
        yield at, f"{pad}]{comma}"
    else:
        text = json.dumps(value, ensure_ascii=False, default=repr)
        yield at, f"{pad}{lead}{text}{comma}"


def under(pointer: str, marked: frozenset[str]) -> bool:
    """Whether ``pointer`` is one of ``marked`` or inside one of them."""
    if pointer in marked:
        return True
    while pointer:
        pointer = pointer.rsplit("/", 1)[0]
        if pointer in marked:
            return True
    return "" in marked
