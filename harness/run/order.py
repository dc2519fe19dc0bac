"""Order checks, ``order:<JSON pointer>`` (vectors/README.md "Order checks"): the order of an
array's elements apart from their content.

A JSON pointer cannot isolate an order: the named part is the whole array, so every difference
inside it would be charged to the order's rule. An order check compares only the sequence of
the elements' identities (each element's ``id`` member, or ``part`` for a list of projected
items: the first of :data:`IDENTITY_KEYS` every element has, as a distinct string), either of
the whole array (``order:/turns/0/parts``, every element in the expected order) or of a subset
(``order:/turns/0/parts[a1,r1]``: these elements in this relative order). An element missing
on one side, an extra one or one without an identity is not an order difference: it is the
content's. Once an array has an order check, its content is compared with the order folded
(:func:`fold_orders`: the actual elements put in the expected order by identity), so the
``output`` check (or the enclosing named part) holds content only and stays charged to the
content's rule. Pure functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_tck.reference_impl.json_pointer import ABSENT, at_pointer, pointer_tokens

ORDER = "order:"
#: The members that identify an array's elements, tried in this order.
IDENTITY_KEYS = ("id", "part")


class Unseen(str):
    """An order check's result when there was no order to see (no array there, or fewer than
    two of the checked identities on both sides): *not applicable*, never a pass for an order
    nobody observed, and never a failure of the order's rule for what is the content's."""


@dataclass(frozen=True)
class OrderCheck:
    """One ``order:`` check: the array at ``pointer``, all its elements or only ``ids``."""

    name: str
    pointer: str
    ids: tuple[str, ...] | None = None


def parse_order(name: str) -> OrderCheck:
    """``order:<pointer>`` or ``order:<pointer>[id,id,...]``; ValueError says what is wrong."""
    body = name[len(ORDER):]
    ids: tuple[str, ...] | None = None
    if body.endswith("]") and "[" in body:
        body, _, listed = body[:-1].rpartition("[")
        ids = tuple(listed.split(","))
        if len(ids) < 2 or "" in ids or len(set(ids)) != len(ids):
            raise ValueError(f"the identities in [{listed}] must be two or more distinct, "
                             "non-empty and separated by commas")
    if not body.startswith("/"):
        raise ValueError(f"{body!r} is not a JSON pointer to an array (it starts with /)")
    return OrderCheck(name, body, ids)


def identity_key(array: Any) -> str | None:
    """The member that identifies every element of ``array`` (distinct strings), or None."""
    if not isinstance(array, list) or not all(isinstance(e, dict) for e in array):
        return None
    for key in IDENTITY_KEYS:
        ids = [e.get(key) for e in array]
        if all(isinstance(i, str) for i in ids) and len(set(ids)) == len(ids):
            return key
    return None


def refusal(check: OrderCheck, expected: Any) -> str | None:
    """Why ``check`` cannot be held against ``expected`` (the expected output in its normal
    form), or None when it can."""
    array = at_pointer(expected, check.pointer)
    if not isinstance(array, list):
        what = "nothing" if array is ABSENT else type(array).__name__
        return f"{check.pointer} names {what} in the expected output, not an array"
    key = identity_key(array)
    if key is None:
        return (f"the elements at {check.pointer} have no identity: every element needs a "
                f"distinct string member {' or '.join(IDENTITY_KEYS)}")
    if check.ids is None:
        return None
    known = [e[key] for e in array]
    unknown = [i for i in check.ids if i not in known]
    if unknown:
        return f"{', '.join(unknown)} not among the elements at {check.pointer} ({key}s {known})"
    if sorted(check.ids, key=known.index) != list(check.ids):
        return (f"[{','.join(check.ids)}] is not the expected output's own order at "
                f"{check.pointer}")
    return None


def _difference(check: OrderCheck, expected: Any, actual: Any) -> str | None:
    want_all = at_pointer(expected, check.pointer)
    got_all = at_pointer(actual, check.pointer)
    if not isinstance(got_all, list):
        return Unseen(f"order {check.pointer}: no array there to order (the content's)")
    key = identity_key(want_all) or IDENTITY_KEYS[0]
    want = [e[key] for e in want_all]
    if check.ids is not None:
        want = [i for i in want if i in check.ids]
    seen = list(dict.fromkeys(str(e[key]) for e in got_all
                              if isinstance(e, dict) and isinstance(e.get(key), str)))
    got = [i for i in seen if i in want]
    want = [i for i in want if i in got]
    if len(got) < 2:
        return Unseen(f"order {check.pointer}: fewer than two of its elements are there with "
                      "their identity, so no order to see (what is missing is the content's)")
    if want == got:
        return None
    return f"order {check.pointer}: expected {', '.join(want)}; got {', '.join(got)}"


def _put(value: Any, tokens: list[str], new: Any) -> Any:
    """A copy of ``value`` with the member at ``tokens`` (present) replaced by ``new``."""
    if not tokens:
        return new
    head, rest = tokens[0], tokens[1:]
    if isinstance(value, dict):
        return {**value, head: _put(value[head], rest, new)}
    copy = list(value)
    copy[int(head)] = _put(copy[int(head)], rest, new)
    return copy


def _folded(expected: Any, actual: Any, pointer: str) -> Any:
    """``actual`` with the array at ``pointer`` in the expected order by identity (elements
    of no expected identity last, in their own order)."""
    want, got = at_pointer(expected, pointer), at_pointer(actual, pointer)
    if not isinstance(got, list) or not isinstance(want, list):
        return actual
    key = identity_key(want) or IDENTITY_KEYS[0]
    rank = {e[key]: i for i, e in enumerate(want)}

    def place(element: Any) -> int:
        ident = element.get(key) if isinstance(element, dict) else None
        return rank.get(ident, len(rank)) if isinstance(ident, str) else len(rank)

    return _put(actual, pointer_tokens(pointer), sorted(got, key=place))


def fold_orders(expected: Any, actual: Any,
                checks: tuple[OrderCheck, ...]) -> tuple[Any, dict[str, str | None]]:
    """Each order check held (check name -> difference or None), and ``actual`` with the
    order of every checked array folded, for the content to compare without it. An outer
    array is folded before the order of one inside it is read, so ``/turns/0/parts`` means
    the expected first turn's parts."""
    out: dict[str, str | None] = {}
    pointers = sorted({c.pointer for c in checks}, key=lambda p: len(pointer_tokens(p)))
    for pointer in pointers:
        for check in checks:
            if check.pointer == pointer:
                out[check.name] = _difference(check, expected, actual)
        actual = _folded(expected, actual, pointer)
    return actual, out
