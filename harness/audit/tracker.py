"""Conversations on the wire: a prefix tree of requests, rewrites found by alignment, forks.

No client cooperation is needed: requests are grouped by what they carry (WA-D008), compared
in the wire model's normal form (:mod:`reference_impl.wire.normal_form`, purpose ``track``;
every equivalence is listed once, with its reason, in :mod:`reference_impl.wire.equivalences`,
WA-D009). A request is reduced to a *head* (Messages: ``system`` and ``tools``; Chat
Completions: ``tools``, whose system prompt is ``messages[0]``) and a list of *turns*: its
messages in normal form, consecutive turns the provider combines combined, each reduced to a
fingerprint (an integer; equal turns, equal fingerprints).

**The tree.** Every request's turns, and its complete reply after them, are a path in one
prefix tree (trie) per dialect; each node records the conversations that reached it and when.
A request R walks the tree as far as it matches; the conversation C it belongs with is one of
those at the deepest node reached (the longest match, never the first sender): of the
``CANDIDATES`` most recently active there, the one whose latest request and reply R reproduces
most (after the alignment below), then a continuation before a branch, then one under R's
head, then the most recent. R is held against E = C's latest request L plus its complete reply
(:meth:`ConversationTracker._classify`), j being the first turn where they differ:

==================================================  =============================================
R against E                                         placement (findings)
==================================================  =============================================
R extends E, or equals L while L has no reply       continuation
R equals L, whose complete reply was seen           branch at len(R): a second sample
j = len(L), R[j] an assistant message that is       continuation (WA-D006 at j)
recognizably the reply edited (a shared tool call
id; the same text up to whitespace)
j = len(L), R[j] another assistant message          branch at j: another sample
j = len(L), R[j] an input (the reply dropped)       continuation (WA-D006 at j)
E's turn j dropped: R[j:] continues with E[j+1:]    continuation (WA-D006 at j, naming it)
a turn inserted at j: R[j+1:] continues with E[j:]  continuation (WA-D006 at j, naming it)
turn j edited: R[j+1:] continues with E[j+1:]       continuation (WA-D006 at j)
otherwise                                           branch at j
==================================================  =============================================

The three alignments (one dropped, inserted or edited turn; a sequence diff tolerating one
operation) need at least one later turn of E to come back, so a plain branch is never taken for
a rewrite. A branch is a fork of C (``fork_at`` = j) when R's first j turns hold an assistant
message (a completed turn, SMA-043), else a new conversation. Under another head a
continuation adds WA-D007 and a fork WA-001, naming the first changed head element. When R
matches nothing from its first turn, the conversations whose first or second turn R repeats
are tried, so a rewrite of the very first message (a system prompt carrying a date) is found.

**Forks ordered by evidence.** A fork child often arrives before its parent's next request (it
is spawned during the parent's turn) and repeats the parent's whole prefix plus its reply, so
by time alone it would be taken for the parent's next turn. When R and C's latest request X
both continue the same earlier state S of C and the reply of S called tools, the one whose
first added turn answers those calls (tool results with their ids) is the parent's next turn:
if that is R, X is re-filed as a fork of C at the shared length and R continues C. When the
reply called no tool, or both or neither answer, the two cannot be told apart and the first to
arrive continues C (documented in vectors/wire-audit/README.md).

**Cost and memory.** Linear in the bytes seen: a request usually repeats its conversation's
latest request, and the messages it repeats exactly (``==``, compared in C) take their
fingerprints from that request, so only what is new is normalized; the walk and the alignment
handle integers, one per turn. The tree holds integers only (a node per distinct (prefix,
turn) pair: repeated prefixes cost nothing); the raw messages of the latest request are kept for
the ``keep_recent`` most recently active conversations only (whether they are kept changes the
cost, never a placement); at most ``max_conversations`` conversations stay open: beyond that
the least recently active one is closed (its nodes leave the tree, a later request that would
have continued it starts a new conversation) - so memory is bounded by ``max_conversations``
times the longest conversation, whatever the length of the capture.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_tck.harness.audit.rules import (
    Finding,
    body_pointer,
    dialect_of,
    make_finding,
    sort_findings,
)
from agent_tck.reference_impl.wire.dialects import ANTHROPIC, OPENAI
from agent_tck.reference_impl.wire.normal_form import (
    NotARequest,
    merge_key,
    normal_head,
    normal_message,
)
from agent_tck.reference_impl.wire.reply import assistant_reply

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
        return hash(("d", *sorted([(key, _fp(item)) for key, item in value.items()])))
    if kind is list:
        return hash(("l", *[_fp(item) for item in value]))
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


def _message(dialect: str, message: Any) -> _Msg:
    try:
        normal = normal_message(dialect, message)
    except NotARequest:  # unreadable (WA-D004 reports it): compared as sent, never merged
        blocks = (fingerprint(message),)
        return _Msg("", None, blocks, hash("unreadable"), hash(("t", hash("unreadable"),
                                                                 *blocks)))
    content = normal.get("content")
    blocks = tuple(fingerprint(b) for b in content) if isinstance(content, list) else (
        fingerprint(content),)
    rest = fingerprint({k: v for k, v in normal.items() if k != "content"})
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
    origin: tuple[int, ...]


def _sequences(records: Sequence[_Msg]) -> tuple[_Seq, _Seq]:
    """The messages one by one, and the turns the provider sees once it combines consecutive
    ones (``merge_key``; a combined turn prints like its messages sent as one)."""
    single = _Seq(tuple(r.turn for r in records), tuple(r.role for r in records),
                  tuple(range(len(records))))
    prints: list[int] = []
    roles: list[str] = []
    origin: list[int] = []
    blocks: list[int] = []
    previous: str | None = None
    for i, rec in enumerate(records):
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
# Values the tracker emits


@dataclass(frozen=True)
class Conversation:
    id: str
    dialect: str
    parent: str | None
    fork_at: int | None  # messages inherited from the parent
    requests: tuple[Any, ...]  # exchange references (indexes or ids), in order

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "dialect": self.dialect, "parent": self.parent,
                "fork_at": self.fork_at, "requests": list(self.requests)}


@dataclass(frozen=True)
class Placement:
    """Where one request went, and what its conversation rules found."""

    exchange: Any
    conversation: str
    kind: str  # "new" | "continuation" | "fork"
    findings: tuple[Finding, ...] = ()
    parent: str | None = None
    fork_at: int | None = None
    #: a rewrite found by alignment: ("dropped" | "inserted" | "edited", turn index j)
    rewrite: tuple[str, int] | None = None
    #: where a WA-D006 finding points: the previous request's message there (as sent, when
    #: still kept; the reply in normal form at the reply's place) and this request's, for a
    #: side-by-side view. Display only: not part of a placement's identity (whether the raw
    #: messages were still kept must never change a placement)
    before: Any = field(default=None, compare=False)
    after: Any = field(default=None, compare=False)


@dataclass(frozen=True)
class TrackResult:
    conversations: tuple[Conversation, ...]
    placements: tuple[Placement, ...]

    @property
    def findings(self) -> list[tuple[Any, Finding]]:
        return [(p.exchange, f) for p in self.placements for f in p.findings]


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

    def expected(self) -> tuple[list[int], list[str]]:
        """E: the request's turns plus its complete reply, and their roles."""
        if self.reply is None:
            return list(self.turns), list(self.roles)
        return [*self.turns, self.reply], [*self.roles, "assistant"]


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
    raw: list[Any] | None = None  # ... and as sent (recent)
    nodes: set[int] = field(default_factory=set)  # tree nodes this conversation reached
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


def _head(dialect: str, body: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
    try:
        head_n = normal_head(dialect, body)
    except NotARequest:
        head_n = {"tools": [body.get("tools")], **({"system": body.get("system")}
                                                    if dialect == ANTHROPIC else {})}
    parts: dict[str, Any] = {"tools": [fingerprint(t) for t in head_n["tools"]]}
    if "system" in head_n:
        parts["system"] = fingerprint(head_n["system"])
    return hash(("head", dialect, parts.get("system"), *parts["tools"])), parts


def _common_prefix(messages: list[Any], old: list[Any]) -> int:
    n = len(old)
    if n <= len(messages) and messages[:n] == old:  # the usual case, decided in C
        return n
    limit = min(len(messages), n)
    k = 0
    while k < limit and messages[k] == old[k]:
        k += 1
    return k


def _shape(dialect: str, body: Mapping[str, Any], sources: Iterable[_Conv]) -> _Shape:
    """Normalize and fingerprint a request. Messages exactly equal (``==``, in C) to the start
    of a recent conversation's latest request take their normal form from it; only the rest
    are normalized. (``==`` holds ``1`` and ``true`` equal: an agent flipping one for the other
    in an old message goes unseen.)"""
    head, head_parts = _head(dialect, body)
    raw = body.get("messages")
    messages: list[Any] = raw if isinstance(raw, list) else []
    known, source = 0, None
    for conv in sources:
        if conv.raw is None or conv.records is None:
            continue
        k = _common_prefix(messages, conv.raw)
        if k > known:
            known, source = k, conv
        if k:
            break  # the most recently active conversation sharing a start (any would do)
    records = list(source.records[:known]) if source is not None and source.records else []
    records += [_message(dialect, m) for m in messages[known:]]
    single, merged = _sequences(records)
    return _Shape(dialect, head, head_parts, single.prints, single.roles, merged,
                  records, messages, known, source.id if source else None)


def _call_ids(message: Any) -> set[str]:
    if not isinstance(message, Mapping):
        return set()
    content = message.get("content")
    ids = {str(b.get("id")) for b in content if isinstance(b, Mapping)
           and b.get("type") == "tool_use" and b.get("id")} if isinstance(content, list) else set()
    for call in message.get("tool_calls") or ():
        if isinstance(call, Mapping) and call.get("id"):
            ids.add(str(call["id"]))
    return ids


def _answers(shape: _Shape, at: int) -> frozenset[str]:
    """Tool call ids answered by the turn(s) at turn index ``at``: tool_result blocks of a
    Messages user turn, the run of tool messages on Chat Completions."""
    out: set[str] = set()
    for message in shape.raw[at:]:
        if not isinstance(message, Mapping):
            break
        if shape.dialect == OPENAI:
            if message.get("role") != "tool":
                break
            out.add(str(message.get("tool_call_id")))
            continue
        content = message.get("content")
        out |= {str(b.get("tool_use_id")) for b in content or () if isinstance(b, Mapping)
                and b.get("type") == "tool_result"} if isinstance(content, list) else set()
        break
    return frozenset(out)


def _text_of(message: Any) -> str:
    content = message.get("content") if isinstance(message, Mapping) else None
    if isinstance(content, str):
        return content
    parts = [b.get("text") for b in content or () if isinstance(b, Mapping)
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
CANDIDATES = 8

# ---------------------------------------------------------------------------------------------
# The tracker


class ConversationTracker:
    """Places each observed request in a conversation (a state machine fed one exchange at a
    time; its outputs are frozen values). Linear in the bytes seen, bounded in memory."""

    def __init__(self, keep_recent: int = 16, max_conversations: int = 10_000) -> None:
        self.keep_recent = keep_recent  # conversations whose latest raw messages are kept
        self.max_conversations = max_conversations
        self._recent: dict[str, None] = {}  # ids by activity, least recent first
        self._open: dict[str, None] = {}  # open conversations by activity
        self._convs: dict[str, _Conv] = {}
        self._roots = {ANTHROPIC: 0, OPENAI: 1}
        self._child: dict[tuple[int, int], int] = {}  # (node, turn fingerprint) -> node
        self._key: dict[int, tuple[int, int]] = {}  # node -> its (parent, fingerprint)
        self._through: dict[int, dict[str, int]] = {}  # node -> {conversation: last seen}
        #: (dialect, 0 | 1, turn) -> {conversation: last seen}, for a rewritten first turn
        self._first: dict[tuple[str, int, int], dict[str, int]] = {}
        self._seq = 0
        self._next_node = 2  # 0 and 1 are the roots
        self._placements: list[Placement] = []

    # -- public ---------------------------------------------------------------------------

    def observe(self, ref: Any, exchange: Mapping[str, Any]) -> Placement | None:
        """Place one exchange; ``None`` for traffic that is not an auditable LLM request."""
        dialect = dialect_of(exchange)
        request = exchange.get("request")
        body = request.get("body") if isinstance(request, Mapping) else None
        if dialect is None or not isinstance(body, Mapping) or not isinstance(
            body.get("messages"), list
        ):
            return None
        self._seq += 1
        sources = [self._convs[cid] for cid in reversed(self._recent)]
        shape = _shape(dialect, body, sources)
        placement = self._place(ref, shape)
        conv = self._convs[placement.conversation]
        reply = assistant_reply(dialect, exchange.get("response"))
        self._advance(conv, shape, reply, ref, len(self._placements))
        self._placements.append(placement)
        self._bound()
        return placement

    def result(self) -> TrackResult:
        return TrackResult(
            tuple(Conversation(c.id, c.dialect, c.parent, c.fork_at, tuple(c.requests))
                  for c in self._convs.values()),
            tuple(self._placements),
        )

    # -- state ----------------------------------------------------------------------------

    def _advance(self, conv: _Conv, shape: _Shape, reply: Any, ref: Any, index: int) -> None:
        """Record R as ``conv``'s latest request: its state, its path in the tree."""
        reply_turn = reply_message = None
        calls: frozenset[str] = frozenset()
        records = shape.records
        merged = shape.merged.prints
        if reply is not None:
            rec = _message(shape.dialect, reply)
            joins = rec.merge is not None and bool(records) and records[-1].merge == rec.merge
            records = [*records, rec]
            merged = _sequences(records)[1].prints if joins else (*merged, rec.turn)
            reply_turn = _turn(rec)
            try:
                reply_message = normal_message(shape.dialect, reply)
            except NotARequest:
                reply_message = None
            calls = frozenset(_call_ids(reply))
        at = len(conv.state.expected()[0]) if conv.requests else len(shape.turns)
        conv.previous = conv.state if conv.requests else None
        conv.answers = _answers(shape, at)
        conv.state = _State(shape.turns, shape.roles, reply_turn, reply_message, calls,
                            merged, len(shape.merged.prints), tuple(records))
        conv.requests.append(ref)
        conv.active = self._seq
        conv.placement = index
        conv.head, conv.head_parts = shape.head, shape.head_parts
        conv.records, conv.raw = shape.records, shape.raw
        tail = [reply_turn] if reply_turn else []
        self._index(conv, shape.dialect, [*shape.turns, *tail], "single")
        if shape.merged.prints != shape.turns:  # the path as the provider combines turns
            self._index(conv, shape.dialect, [*shape.merged.prints, *tail], "merged")
        self._recent.pop(conv.id, None)
        self._recent[conv.id] = None
        while len(self._recent) > self.keep_recent:
            oldest = self._convs[next(iter(self._recent))]
            del self._recent[oldest.id]
            oldest.records = oldest.raw = None
        self._open.pop(conv.id, None)
        self._open[conv.id] = None

    def _index(self, conv: _Conv, dialect: str, turns: Sequence[int], which: str) -> None:
        """Put a path in the tree under ``conv``. The part it shares with the conversation's
        previous path of the same kind is there already: only the rest is walked."""
        node = self._roots[dialect]
        old_nodes, old_turns = conv.paths.get(which, ((), ()))
        k = len(old_turns)
        if tuple(turns[:k]) != old_turns:  # equal: the usual case, decided in C
            k = 0
            for a, b in zip(turns, old_turns, strict=False):
                if a != b:
                    break
                k += 1
        nodes = list(old_nodes[:k])
        if k:
            node = nodes[-1]
        for i, turn in enumerate(turns[k:], k):
            nxt = self._child.get((node, turn))
            if nxt is None:
                nxt = self._next_node
                self._next_node += 1
                self._child[(node, turn)] = nxt
                self._key[nxt] = (node, turn)
            node = nxt
            nodes.append(node)
            self._through.setdefault(node, {})[conv.id] = self._seq
            conv.nodes.add(node)
            if i < 2:
                self._first.setdefault((dialect, i, turn), {})[conv.id] = self._seq
        conv.paths[which] = (tuple(nodes), tuple(turns))

    def _bound(self) -> None:
        """Close the least recently active conversations beyond ``max_conversations``."""
        while len(self._open) > self.max_conversations:
            conv = self._convs[next(iter(self._open))]
            del self._open[conv.id]
            conv.closed = True
            for node in conv.nodes:
                through = self._through.get(node)
                if through is not None:
                    through.pop(conv.id, None)
                    if not through:
                        del self._through[node]
                        self._child.pop(self._key.pop(node), None)
            conv.nodes = set()
            for seen in self._first.values():
                seen.pop(conv.id, None)

    # -- placement ------------------------------------------------------------------------

    def _walk(self, dialect: str, prints: Sequence[int]) -> int:
        """The deepest node a sequence of turns reaches (the root when none)."""
        node = self._roots[dialect]
        for turn in prints:
            nxt = self._child.get((node, turn))
            if nxt is None:
                break
            node = nxt
        return node

    def _best(self, shape: _Shape, seen: Mapping[str, int], *, branch: bool) -> _Conv | None:
        """Among the ``CANDIDATES`` most recently active conversations of ``seen`` (id ->
        last seen), the one R agrees with most: the most of E that R reproduces (its longest
        alignment), then a continuation before a branch, then R's head, then recency. With
        ``branch`` false only continuations qualify."""
        best, best_key = None, None
        def active(cid: str) -> int:
            return self._convs[cid].active

        for cid in heapq.nlargest(CANDIDATES, seen, key=active):
            conv = self._convs[cid]
            if conv.closed:
                continue
            kind, _, _, score = self._classify(conv, shape)
            if kind != "continuation" and not branch:
                continue
            key = (score, kind == "continuation", conv.head == shape.head, conv.active)
            if best_key is None or key > best_key:
                best, best_key = conv, key
        return best

    def _new(self, shape: _Shape, parent: str | None = None, fork_at: int | None = None) -> _Conv:
        cid = f"c{len(self._convs) + 1}"
        conv = _Conv(cid, shape.dialect, shape.head, shape.head_parts, parent, fork_at)
        self._convs[cid] = conv
        return conv

    def _place(self, ref: Any, shape: _Shape) -> Placement:
        seen: dict[str, int] = {}
        for prints in (shape.turns, shape.merged.prints):  # message by message, combined
            node = self._walk(shape.dialect, prints)
            if node not in self._roots.values():
                for cid, when in self._through.get(node, {}).items():
                    seen[cid] = max(when, seen.get(cid, 0))
        conv = self._best(shape, seen, branch=True) if seen else None
        if conv is None:
            return self._place_unmatched(ref, shape)
        return self._place_with(ref, shape, conv, seen)

    def _place_unmatched(self, ref: Any, shape: _Shape) -> Placement:
        """R matches nothing from its first turn: its first turn edited, dropped or another
        inserted before it (the conversations repeating R's first two turns are tried)."""
        t = shape.turns
        keys = [(shape.dialect, 1, t[1]) if len(t) > 1 else None,  # turn 0 edited
                (shape.dialect, 1, t[0]) if t else None,  # turn 0 dropped
                (shape.dialect, 0, t[1]) if len(t) > 1 else None]  # a turn inserted first
        seen: dict[str, int] = {}
        for key in keys:
            seen.update(self._first.get(key, {}) if key else {})
        conv = self._best(shape, seen, branch=False)
        if conv is not None:
            return self._place_with(ref, shape, conv, {})
        return Placement(ref, self._new(shape).id, "new")

    def _place_with(self, ref: Any, shape: _Shape, conv: _Conv, seen: Mapping[str, int]
                    ) -> Placement:
        """Place R with ``conv`` (``seen``: the conversations at R's deepest nodes)."""
        kind, j, rewrite, _ = self._classify(conv, shape)
        head_at = (None if conv.head == shape.head
                   else self._head_pointer(conv.head_parts, shape.head_parts))
        if kind == "continuation":
            findings = []
            if head_at is not None:
                findings.append(make_finding(
                    "head-stable", head_at,
                    "system or tools changed within a conversation (prompt-cache prefix broken)",
                    "conversation-head"))
            if j is not None:
                findings.append(self._prefix_finding(conv, shape, j, rewrite))
            before = after = None
            if j is not None:
                old = conv.raw
                before = (old[j] if old is not None and j < len(old)
                          else conv.state.reply_message if j == len(conv.state.turns) else None)
                after = shape.raw[j] if j < len(shape.raw) else None
            return Placement(ref, conv.id, "continuation", tuple(sort_findings(findings)),
                             rewrite=(rewrite, j) if rewrite and j is not None else None,
                             before=before, after=after)
        assert j is not None
        if "assistant" not in shape.roles[:j]:
            return Placement(ref, self._new(shape).id, "new")
        while conv.parent is not None and conv.parent in seen:
            conv = self._convs[conv.parent]  # the shared part is inherited: a sibling fork
        head_at = (None if conv.head == shape.head
                   else self._head_pointer(conv.head_parts, shape.head_parts))
        if head_at is None and self._reorder(conv, shape, j):
            return Placement(ref, conv.id, "continuation")
        findings: tuple[Finding, ...] = ()
        if head_at is not None:
            findings = (make_finding(
                "fork-head", head_at,
                f"a request inheriting {j} messages of conversation {conv.id} with another "
                "system or tools: a fork child's head must match its parent's",
                "conversation-head"),)
        child = self._new(shape, conv.id, j)
        return Placement(ref, child.id, "fork", findings, conv.id, j)

    def _classify(self, conv: _Conv, shape: _Shape
                  ) -> tuple[str, int | None, str | None, int]:
        """Hold R against E (module docstring), message by message and turn by turn once the
        provider combines consecutive turns (a split or joined turn is no difference; a dropped
        reply that fuses two user turns is seen message by message), keeping the reading that
        reproduces more of E: ``("continuation", j, rewrite)`` with j the first differing
        message as sent (None: none) and rewrite "dropped" | "inserted" | "edited" |
        "reply-edited" | "reply-dropped", or ``("branch", j, None)``; last, how many of E's
        turns R reproduces (the evidence that ranks candidate conversations)."""
        state = conv.state
        single = _Seq(shape.turns, shape.roles, tuple(range(len(shape.turns))))
        one = self._hold(shape, single, state.expected()[0], len(state.turns), state,
                         single=True)
        if one[0] == "continuation" and one[1] is None:
            return one
        two = self._hold(shape, shape.merged, list(state.merged), state.merged_last, state,
                         single=False)
        return max(one, two, key=lambda c: (c[3], c[0] == "continuation"))

    def _hold(self, shape: _Shape, seq: _Seq, expected: list[int], last: int, state: _State,
              *, single: bool) -> tuple[str, int | None, str | None, int]:
        """One reading: R's sequence against E's; j mapped back to a message as sent, and the
        evidence: how many of R's messages as sent agree with E under that reading."""
        turns, n = seq.prints, len(seq.prints)
        size = len(expected)
        whole = len(shape.turns)

        def at(i: int) -> int:
            return seq.origin[i] if i < n else len(shape.turns)

        j = next((i for i in range(min(n, size)) if turns[i] != expected[i]), None)
        if j is None:
            if n >= size or (n >= last and state.reply is None):
                return "continuation", None, None, whole
            return "branch", at(n), None, at(n)  # a prefix of L, or L again after its reply
        if j == last:  # where the reply belongs
            if seq.roles[j] == "assistant":
                echo = self._normal_turn(shape, at(j))
                if _same_reply(echo, state.reply_message):
                    return "continuation", at(j), "reply-edited", whole
                return "branch", at(j), None, at(j)  # another sample of the model
            if turns[j + 1:j + 2] == (expected[j],):
                return "continuation", at(j), "inserted", whole - 1
            return "continuation", at(j), "reply-dropped", at(j)

        def follows(r_from: int, e_from: int) -> bool:
            """R from ``r_from`` goes on with all of E from ``e_from`` (at least one turn);
            message by message, the rest is also compared as the provider combines it (a
            dropped message can fuse two turns, a split turn can follow a rewrite)."""
            want = expected[e_from:]
            if not want:
                return False
            if list(turns[r_from:r_from + len(want)]) == want:
                return True
            if not single or state.records is None:
                return False
            got = _sequences(shape.records[r_from:])[1].prints
            wanted = _sequences(state.records[e_from:])[1].prints
            return got[:len(wanted)] == wanted

        if follows(j, j + 1):
            return "continuation", at(j), "dropped", whole
        if follows(j + 1, j):
            return "continuation", at(j), "inserted", whole - 1
        if follows(j + 1, j + 1):
            return "continuation", at(j), "edited", whole - 1
        return "branch", at(j), None, at(j)

    @staticmethod
    def _normal_turn(shape: _Shape, j: int) -> Any:
        try:
            return normal_message(shape.dialect, shape.raw[j])
        except NotARequest:
            return None

    def _reorder(self, conv: _Conv, shape: _Shape, j: int) -> bool:
        """Forks ordered by evidence (module docstring): is R, rather than C's latest request
        X, the parent's next turn? If so, X becomes a fork of C and C goes back to the state
        before X, for R to continue."""
        before = conv.previous
        if before is None or not before.reply_calls or len(conv.requests) < 2:
            return False
        expected, _ = before.expected()
        if j != len(expected) or shape.turns[:j] != tuple(expected):
            return False
        if not (before.reply_calls <= _answers(shape, j)) or before.reply_calls <= conv.answers:
            return False
        x_ref = conv.requests.pop()
        child = _Conv(f"c{len(self._convs) + 1}", conv.dialect, conv.head, conv.head_parts,
                      conv.id, j, [x_ref], conv.state, None, conv.answers, conv.placement)
        self._convs[child.id] = child
        node = self._roots[conv.dialect]
        for depth, turn in enumerate(child.state.expected()[0], 1):  # X's path moves over
            node = self._child.get((node, turn), -1)
            through = self._through.get(node)
            if through is None:
                break
            through[child.id] = through[conv.id] if depth <= j else through.pop(conv.id, 0)
            child.nodes.add(node)
        self._open[child.id] = None
        old = self._placements[conv.placement]
        self._placements[conv.placement] = Placement(old.exchange, child.id, "fork", (),
                                                     conv.id, j)
        conv.state, conv.previous = before, None
        child.paths, conv.paths = conv.paths, {}
        return True

    def _prefix_finding(self, conv: _Conv, shape: _Shape, j: int, rewrite: str | None
                        ) -> Finding:
        """WA-D006: R begins with L's messages plus L's reply; name the first difference."""
        _, roles = conv.state.expected()
        role = roles[j] if j < len(roles) else "last"
        at = j
        what = {
            "reply-edited": "the previous request's assistant reply was changed",
            "reply-dropped": "the previous request's assistant reply is not repeated here",
            "dropped": f"the previous request's {role} message {j} was dropped here",
            "inserted": f"a {shape.roles[j]} message was inserted here",
            "edited": f"differs from the previous request's {role} message {j}",
        }.get(rewrite or "", "differs from the previous request of this conversation")
        return make_finding("prefix-stable", body_pointer("messages", at),
                            f"message {at}: {what} (prompt-cache prefix broken)",
                            "conversation-prefix")

    @staticmethod
    def _head_pointer(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
        if old.get("system") != new.get("system"):
            return body_pointer("system")
        old_t, new_t = old["tools"], new["tools"]
        for i, (a, b) in enumerate(zip(old_t, new_t, strict=False)):
            if a != b:
                return body_pointer("tools", i)
        return body_pointer("tools", min(len(old_t), len(new_t)))


def track(exchanges: Iterable[Mapping[str, Any]]) -> TrackResult:
    """Place every exchange (referenced by its index in the input) in a conversation."""
    tracker = ConversationTracker()
    for i, exchange in enumerate(exchanges):
        tracker.observe(i, exchange)
    return tracker.result()
