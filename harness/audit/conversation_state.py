"""What the conversation tracker keeps and compares (:mod:`harness.audit.tracker`).

Fingerprints of JSON values and of turns (a message normalized once, :class:`_Msg`), the two
fingerprint sequences of a request (:func:`_sequences`), the state kept per conversation
(:class:`_State`, :class:`_Conv`) and the shape of a request against the conversations it may
continue (:class:`_Shape`). Pure values and functions; the names with an underscore are the
tracker's own (this package only), the placement logic stays in the tracker.
"""

from __future__ import annotations

import marshal
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from agent_tck.reference_impl.wire.dialects import ANTHROPIC, OPENAI
from agent_tck.reference_impl.wire.normal_form import (
    NotARequest,
    merge_key,
    normal_head,
    normal_message,
    same_but_cache_control,
    track_from_compare,
)

# ---------------------------------------------------------------------------------------------
# Fingerprints


def _fp(value: Any) -> int:
    """A structural fingerprint of a JSON value: equal values (key order aside) give equal
    fingerprints; strings are hashed in C, once each, so the cost is linear in the bytes and
    well below serializing. Booleans, numbers, strings and null are told apart by a tag;
    numbers are compared as written (``1`` and ``1.0`` differ, as their text does)."""
    kind = type(value)
    if kind is str:
        return hash(("s", value))
    if kind is dict:  # members in key order: key order does not matter, values stay paired
        return hash(("d", *sorted([  # a string member hashed here, not by a call (the same)
            (key, hash(("s", item)) if type(item) is str else _fp(item))
            for key, item in value.items()])))
    if kind is list:
        return hash(("l", *[hash(("s", item)) if type(item) is str else _fp(item)
                            for item in value]))
    if kind is bool or value is None:
        return hash(("b", value))
    return hash(("n", repr(value)))  # by text: CPython hashes -1 and -2 alike


def fingerprint(value: Any) -> int:
    """The fingerprint of one value already in normal form (a block, a head part)."""
    return _fp(value)


@dataclass(frozen=True)
class _Msg:
    """One message as sent, normalized once: what merging and fingerprinting a turn need."""

    role: str
    merge: str | None  # normal_form.merge_key: combined with a neighbour of the same key
    blocks: tuple[int, ...]
    rest: int  # fingerprint of the members other than content (role included)
    turn: int  # the message's fingerprint: role, other members and blocks
    readable: bool = True  # False: not in normal form, fingerprinted as sent


def _message(dialect: str, message: Any, compare: dict[str, Any] | None = None) -> _Msg:
    """``compare``: the message's compare form when already made (the track form is derived)."""
    try:
        normal = (normal_message(dialect, message) if compare is None
                  else track_from_compare(dialect, compare))
    except NotARequest:  # unreadable (WA-D004 reports it): compared as sent, never merged
        unread = (fingerprint(message),)
        return _Msg("", None, unread, hash("unreadable"), hash(("t", hash("unreadable"),
                                                                 *unread)), readable=False)
    content = normal.get("content")
    blocks = tuple([_fp(b) for b in content]) if isinstance(content, list) else (_fp(content),)
    rest = _fp({k: v for k, v in normal.items() if k != "content"})
    return _Msg(str(normal.get("role")), merge_key(dialect, normal), blocks, rest,
                hash(("t", rest, *blocks)))


def _turn(rec: _Msg) -> int:
    """A message's fingerprint: its role, other members and blocks."""
    return rec.turn


@dataclass(frozen=True)
class _Seq:
    """A request's turns as compared: fingerprints, roles and, for each, the index of its
    first message as sent."""

    prints: tuple[int, ...]
    roles: tuple[str, ...]
    origin: Sequence[int]  # a range when each message is a turn


def _sequences(records: Sequence[_Msg], base: tuple[_Seq, _Seq] | None = None, known: int = 0
               ) -> tuple[_Seq, _Seq]:
    """The messages one by one, and the turns the provider sees once it combines consecutive
    ones (``merge_key``; a combined turn prints like its messages sent as one).

    ``base``: the sequences of earlier records whose first ``known`` are these records' (the
    request this one repeats): their turns that end before ``known`` are taken as they are and
    only the rest is folded again, so the cost is what the request adds."""
    n = len(records)
    prints: list[int] = []
    roles: list[str] = []
    origin: list[int] = []
    first = 0
    if base is not None and known:
        one, two = base
        added = records[known:]
        single = _Seq(one.prints[:known] + tuple([r.turn for r in added]),
                      one.roles[:known] + tuple([r.role for r in added]), range(n))
        keep = bisect_left(two.origin, known) - 1  # the last turn begun before known may grow
        if keep > 0:
            prints, roles, origin = (list(two.prints[:keep]), list(two.roles[:keep]),
                                     list(two.origin[:keep]))
            first = two.origin[keep]
    else:
        single = _Seq(tuple([r.turn for r in records]), tuple([r.role for r in records]),
                      range(n))
    blocks: list[int] = []
    previous = records[first - 1].merge if first else None
    for i in range(first, n):
        rec = records[i]
        if rec.merge is not None and rec.merge == previous:  # EQ merge-turns
            if len(blocks) == 0:
                blocks = list(records[origin[-1]].blocks)
            blocks.extend(rec.blocks)
            prints[-1] = hash(("t", records[origin[-1]].rest, *blocks))
        else:
            blocks = []
            prints.append(rec.turn)
            roles.append(rec.role)
            origin.append(i)
        previous = rec.merge
    return single, _Seq(tuple(prints), tuple(roles), tuple(origin))


# ---------------------------------------------------------------------------------------------
# The tracker's state


@dataclass(frozen=True)
class _State:
    """A conversation after one request: that request's turns and its complete reply."""

    turns: tuple[int, ...]
    roles: tuple[str, ...]
    reply: int | None = None
    reply_message: Any = None  # the reply in normal form (to recognize an edited echo)
    reply_calls: frozenset[str] = frozenset()  # tool call ids the reply made
    merged: tuple[int, ...] = ()  # E once the provider combines consecutive turns
    merged_last: int = 0  # how many of those are the request's (the rest: the reply)
    records: tuple[_Msg, ...] | None = None  # E's messages, normalized (to align a rewrite)

    def expected(self) -> tuple[tuple[int, ...], tuple[str, ...]]:
        """E: the request's turns plus its complete reply, and their roles."""
        return self._expected

    @cached_property
    def _expected(self) -> tuple[tuple[int, ...], tuple[str, ...]]:
        if self.reply is None:  # made once per state: requests are held against it again
            return self.turns, self.roles
        return (*self.turns, self.reply), (*self.roles, "assistant")


@dataclass
class _Conv:
    id: str
    dialect: str
    head: int
    head_parts: dict[str, Any]  # "system": fingerprint, "tools": [fingerprints]
    parent: str | None
    fork_at: int | None
    requests: list[Any] = field(default_factory=list)
    state: _State = field(default_factory=lambda: _State((), ()))
    previous: _State | None = None  # the state before the latest request
    answers: frozenset[str] = frozenset()  # tool results the latest request added first
    placement: int = -1  # index of the latest request's placement
    records: list[_Msg] | None = None  # the latest request's messages, normalized (recent)
    seqs: tuple[_Seq, _Seq] | None = None  # ... their sequences (_sequences; recent)
    raw: list[Any] | None = None  # ... and as sent (recent)
    nodes: set[int] = field(default_factory=set)  # tree nodes this conversation reached
    #: the tracker's first-turn index keys it is listed under (to leave them when closed)
    firsts: set[tuple[str, int, int]] = field(default_factory=set)
    #: its latest paths ("single", "merged"): (nodes, turns), to extend rather than re-walk
    paths: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = field(default_factory=dict)
    active: int = 0  # when it last received a request (recency)
    closed: bool = False


@dataclass(frozen=True)
class _Shape:
    dialect: str
    head: int
    head_parts: dict[str, Any]
    turns: tuple[int, ...]
    roles: tuple[str, ...]
    merged: _Seq  # the turns once the provider combines consecutive ones
    records: list[_Msg]
    raw: list[Any]
    known: int = 0  # messages repeating ``source``'s latest request exactly
    source: str | None = None


#: heads fingerprinted lately, by their marshal serialization: equal bytes are the same values
#: with the same types (``true`` is not ``1``, ``1`` is not ``1.0``), so an agent sending the
#: same system prompt and tools again is not walked again; bounded
_HEAD_CACHE = 32


def _head(dialect: str, body: Mapping[str, Any], cache: dict[bytes, Any] | None = None,
          tools: bytes | None = None) -> tuple[int, dict[str, Any]]:
    """The head's fingerprint and its parts' (``system``, ``tools``: a list). Not to modify.
    ``tools``: ``marshal.dumps(body.get("tools"))``, when already made (the key is then the
    bytes of the pair dialect, system followed by them: a marshal value ends where its bytes
    say, so the two forms of key never meet and each names one head)."""
    if cache is None:
        return _fingerprint_head(dialect, body)
    try:
        key = (marshal.dumps((dialect, body.get("system"))) + tools if tools is not None
               else marshal.dumps((dialect, body.get("system"), body.get("tools"))))
    except ValueError:  # not JSON values: fingerprinted every time
        return _fingerprint_head(dialect, body)
    found: tuple[int, dict[str, Any]] | None = cache.pop(key, None)
    if found is None:
        found = _fingerprint_head(dialect, body)
    cache[key] = found  # the most recent last
    while len(cache) > _HEAD_CACHE:
        del cache[next(iter(cache))]
    return found


def _fingerprint_head(dialect: str, body: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
    try:
        head_n = normal_head(dialect, body)
    except NotARequest:
        head_n = {"tools": [body.get("tools")], **({"system": body.get("system")}
                                                    if dialect == ANTHROPIC else {})}
    parts: dict[str, Any] = {"tools": [fingerprint(t) for t in head_n["tools"]]}
    if "system" in head_n:
        parts["system"] = fingerprint(head_n["system"])
    return hash(("head", dialect, parts.get("system"), *parts["tools"])), parts


def common_prefix(messages: list[Any], old: list[Any]) -> int:
    """How many messages of ``messages`` equal (``==``) those at the start of ``old``: the
    one comparison of a request's history with an earlier request's (the wire rules make it,
    the tracker reuses it)."""
    last = len(old) - 1
    if 0 <= last < len(messages) and messages[last] != old[last] and (
            messages[:last] == old[:last]):  # only the last changed (a moved cache mark): in C
        return last
    n = len(old)
    if n <= len(messages) and messages[:n] == old:  # the usual case, decided in C
        return n
    limit = min(len(messages), n)
    k = 0
    while k < limit and messages[k] == old[k]:
        k += 1
    return k


def _shape(dialect: str, body: Mapping[str, Any], sources: Iterable[_Conv],
           compared: Sequence[tuple[Any, int, int]] = (),
           heads: dict[bytes, Any] | None = None,
           *, normals: Mapping[int, dict[str, Any]] | None = None,
           tools: bytes | None = None) -> _Shape:
    """Normalize and fingerprint a request. Messages exactly equal (``==``, in C) to the start
    of a recent conversation's latest request take their normal form from it; only the rest
    are normalized. (``==`` holds ``1`` and ``true`` equal: an agent flipping one for the other
    in an old message goes unseen.) ``compared``: (earlier messages, common prefix, prefix
    equal but for cache marks) already computed for this very list (by the wire rules),
    reused for the same earlier list.
    ``normals``: this request's messages the wire rules normalized (index -> compare form);
    ``tools``: the marshal bytes of the body's tools, when made (:func:`_head`)."""
    head, head_parts = _head(dialect, body, heads, tools)
    raw = body.get("messages")
    messages: list[Any] = raw if isinstance(raw, list) else []
    known, source, marks = 0, None, None
    for conv in sources:
        if conv.raw is None or conv.records is None:
            continue
        hit = next(((n, m) for old, n, m in compared if old is conv.raw), None)
        k, m = (common_prefix(messages, conv.raw), None) if hit is None else hit
        if k > known:
            known, source, marks = k, conv, m
        if k:
            break  # the most recently active conversation sharing a start (any would do)
    if source is not None and source.raw is not None and source.records and dialect == ANTHROPIC:
        # a message that only lost (or gained) its prompt-cache breakpoint keeps its normal form
        old, recs = source.raw, source.records
        limit = min(len(messages), len(old))
        if marks is not None:  # the wire rules found how far that goes (the same test)
            while known < min(limit, marks) and recs[known].readable:
                known += 1
        else:
            while known < limit and recs[known].readable and same_but_cache_control(
                    messages[known], old[known]):
                known += 1
    records = list(source.records[:known]) if source is not None and source.records else []
    made = normals or {}
    records += [_message(dialect, messages[i], made.get(i)) for i in range(known, len(messages))]
    single, merged = _sequences(records, source.seqs if source is not None else None, known)
    return _Shape(dialect, head, head_parts, single.prints, single.roles, merged,
                  records, messages, known, source.id if source else None)


def _call_ids(message: Any) -> set[str]:
    if not (type(message) is dict or isinstance(message, Mapping)):
        return set()
    content = message.get("content")
    ids = {str(b.get("id")) for b in content if (type(b) is dict or isinstance(b, Mapping))
           and b.get("type") == "tool_use" and b.get("id")} if isinstance(content, list) else set()
    for call in message.get("tool_calls") or ():
        if (type(call) is dict or isinstance(call, Mapping)) and call.get("id"):
            ids.add(str(call["id"]))
    return ids


def _answers(shape: _Shape, at: int) -> frozenset[str]:
    """Tool call ids answered by the turn(s) at turn index ``at``: tool_result blocks of a
    Messages user turn, the run of tool messages on Chat Completions."""
    out: set[str] = set()
    for message in shape.raw[at:]:
        if not (type(message) is dict or isinstance(message, Mapping)):
            break
        if shape.dialect == OPENAI:
            if message.get("role") != "tool":
                break
            out.add(str(message.get("tool_call_id")))
            continue
        content = message.get("content")
        out |= {str(b.get("tool_use_id")) for b in content or ()
                if (type(b) is dict or isinstance(b, Mapping))
                and b.get("type") == "tool_result"} if isinstance(content, list) else set()
        break
    return frozenset(out)


def _text_of(message: Any) -> str:
    content = message.get("content") if isinstance(message, Mapping) else None
    if isinstance(content, str):
        return content
    parts = [str(b.get("text")) for b in content or () if isinstance(b, Mapping)
             and isinstance(b.get("text"), str)] if isinstance(content, list) else []
    return "".join(parts)


def _same_reply(echo: Any, reply: Any) -> bool:
    """Is ``echo`` the reply, edited? (Tool call ids are unique per response, so a shared one
    says so; so does the same text up to whitespace.)"""
    if reply is None:
        return False
    if _call_ids(echo) & _call_ids(reply):
        return True
    a, b = " ".join(_text_of(echo).split()), " ".join(_text_of(reply).split())
    return bool(a) and a == b


#: conversations held against a request at one node (the most recently active): bounds the
#: cost of a node that many conversations share (a common opening)
