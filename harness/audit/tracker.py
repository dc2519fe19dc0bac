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

from agent_tck.harness.audit.checks import dialect_of
from agent_tck.harness.audit.conversation_state import (
    _answers,
    _call_ids,
    _Conv,
    _message,
    _same_reply,
    _Seq,
    _sequences,
    _Shape,
    _shape,
    _State,
    _turn,
)
from agent_tck.harness.audit.findings import Finding, body_pointer, make_finding, sort_findings
from agent_tck.reference_impl.wire.dialects import ANTHROPIC, OPENAI
from agent_tck.reference_impl.wire.normal_form import NotARequest, normal_message
from agent_tck.reference_impl.wire.reply import assistant_reply

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


CANDIDATES = 8

#: how R reads against a conversation's E (ConversationTracker._classify): kind, j, rewrite,
#: evidence
_Reading = tuple[str, int | None, str | None, int]

# Where R's first added turn sits relative to len(E), by the WA-D006 reading of R against E: a
# dropped message (or the dropped reply) pulls it one message earlier, an inserted one pushes it
# one later. The forks-by-evidence check reads the tool results there.
_SHIFT = {"dropped": -1, "reply-dropped": -1, "inserted": 1}

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
        self._heads: dict[bytes, Any] = {}  # recent heads' fingerprints (conversation_state)
        #: nodes removed from the tree so far, and the latest path put in it per kind ("single",
        #: "merged"): (removed then, root, nodes, turns). While no node is removed, a path's
        #: nodes are still where its turns lead, so a walk extending it starts at its end
        self._removed = 0
        self._last_paths: dict[str, tuple[int, int, tuple[int, ...], tuple[int, ...]]] = {}

    # -- public ---------------------------------------------------------------------------

    def observe(self, ref: Any, exchange: Mapping[str, Any],
                compared: Sequence[tuple[Any, int, int]] = (),
                normals: Mapping[int, dict[str, Any]] | None = None,
                dialect: str | None = None, *, tools: bytes | None = None
                ) -> Placement | None:
        """Place one exchange; ``None`` for traffic that is not an auditable LLM request.
        ``compared``: the comparisons of this request's messages with earlier requests'
        already made (``ExchangeAudit.compared``), so the history is compared once;
        ``normals``: its messages the wire rules normalized (``audit_exchange``'s memo);
        ``dialect``: the exchange's (``dialect_of``), when the caller has it; ``tools``: the
        marshal bytes of its ``tools`` when the wire rules made them (``ExchangeAudit.read``),
        not made again for the head."""
        dialect = dialect_of(exchange) if dialect is None else dialect
        request = exchange.get("request")
        body = request.get("body") if (  # a dict: no ABC check
            type(request) is dict or isinstance(request, Mapping)) else None
        if dialect is None or not (type(body) is dict or isinstance(body, Mapping)) or (
                not isinstance(body.get("messages"), list)):
            return None
        self._seq += 1
        sources = [self._convs[cid] for cid in reversed(self._recent)]
        shape = _shape(dialect, body, sources, compared, self._heads, normals=normals,
                       tools=tools)
        placement = self._place(ref, shape)
        conv = self._convs[placement.conversation]
        reply = assistant_reply(dialect, exchange.get("response"))
        rewrite = placement.rewrite[0] if placement.rewrite else None
        self._advance(conv, shape, reply, ref, len(self._placements), rewrite=rewrite)
        self._placements.append(placement)
        self._bound()
        return placement

    @property
    def open_conversations(self) -> int:
        """How many conversations are open (at most ``max_conversations``)."""
        return len(self._open)

    def result(self) -> TrackResult:
        return TrackResult(
            tuple(Conversation(c.id, c.dialect, c.parent, c.fork_at, tuple(c.requests))
                  for c in self._convs.values()),
            tuple(self._placements),
        )

    # -- state ----------------------------------------------------------------------------

    def _advance(self, conv: _Conv, shape: _Shape, reply: Any, ref: Any, index: int, *,
                 rewrite: str | None = None) -> None:
        """Record R as ``conv``'s latest request: its state, its path in the tree.
        ``rewrite`` (the placement's WA-D006 reading) moves where R's first added turn sits: one
        message earlier when R dropped one of E's, one later when R inserted one."""
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
        at += _SHIFT.get(rewrite or "", 0)
        conv.previous = conv.state if conv.requests else None
        conv.answers = _answers(shape, at)
        conv.state = _State(shape.turns, shape.roles, reply_turn, reply_message, calls,
                            merged, len(shape.merged.prints), tuple(records))
        conv.requests.append(ref)
        conv.active = self._seq
        conv.placement = index
        conv.head, conv.head_parts = shape.head, shape.head_parts
        conv.records, conv.raw = shape.records, shape.raw
        conv.seqs = (_Seq(shape.turns, shape.roles, ()), shape.merged)
        tail = [reply_turn] if reply_turn else []
        self._index(conv, shape.dialect, [*shape.turns, *tail], "single")
        if shape.merged.prints != shape.turns:  # the path as the provider combines turns
            self._index(conv, shape.dialect, [*shape.merged.prints, *tail], "merged")
        self._recent.pop(conv.id, None)
        self._recent[conv.id] = None
        while len(self._recent) > self.keep_recent:
            oldest = self._convs[next(iter(self._recent))]
            del self._recent[oldest.id]
            oldest.records = oldest.raw = oldest.seqs = None
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
                conv.firsts.add((dialect, i, turn))
        conv.paths[which] = (tuple(nodes), tuple(turns))
        self._last_paths[which] = (self._removed, self._roots[dialect], *conv.paths[which])

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
                        self._removed += 1
                        self._child.pop(self._key.pop(node), None)
            conv.nodes = set()
            for key in conv.firsts:  # its own keys only: closing costs what it indexed
                seen = self._first.get(key)
                if seen is not None:
                    seen.pop(conv.id, None)
                    if not seen:
                        del self._first[key]
            conv.firsts = set()
            # nothing is compared with a closed conversation again: keep only what the
            # result lists (id, parent, requests), so closed ones cost a few bytes each
            conv.state, conv.previous, conv.paths = _State((), ()), None, {}
            conv.records = conv.raw = conv.seqs = None
            conv.head_parts = {}

    # -- placement ------------------------------------------------------------------------

    def _walk(self, dialect: str, prints: tuple[int, ...], which: str = "single") -> int:
        """The deepest node a sequence of turns reaches (the root when none). A sequence
        extending the latest path of its kind (the usual request: its conversation's latest
        one plus the reply) starts at that path's end."""
        node = self._roots[dialect]
        last = self._last_paths.get(which)
        if last is not None and last[0] == self._removed and last[1] == node:
            nodes, turns = last[2], last[3]
            if nodes and len(turns) <= len(prints) and prints[:len(turns)] == turns:
                node, prints = nodes[-1], prints[len(turns):]
        for turn in prints:
            nxt = self._child.get((node, turn))
            if nxt is None:
                break
            node = nxt
        return node

    def _best(self, shape: _Shape, seen: Mapping[str, int], *, branch: bool
              ) -> tuple[_Conv, _Reading] | None:
        """Among the ``CANDIDATES`` most recently active conversations of ``seen`` (id ->
        last seen), the one R agrees with most: the most of E that R reproduces (its longest
        alignment), then a continuation before a branch, then R's head, then recency. With
        ``branch`` false only continuations qualify. With it, how R reads against it
        (:meth:`_classify`, not made again)."""
        best: tuple[_Conv, _Reading] | None = None
        best_key = None
        def active(cid: str) -> int:
            return self._convs[cid].active

        for cid in heapq.nlargest(CANDIDATES, seen, key=active):
            conv = self._convs[cid]
            if conv.closed:
                continue
            reading = self._classify(conv, shape)
            kind, _, _, score = reading
            if kind != "continuation" and not branch:
                continue
            key = (score, kind == "continuation", conv.head == shape.head, conv.active)
            if best_key is None or key > best_key:
                best, best_key = (conv, reading), key
        return best

    def _new(self, shape: _Shape, parent: str | None = None, fork_at: int | None = None) -> _Conv:
        cid = f"c{len(self._convs) + 1}"
        conv = _Conv(cid, shape.dialect, shape.head, shape.head_parts, parent, fork_at)
        self._convs[cid] = conv
        return conv

    def _place(self, ref: Any, shape: _Shape) -> Placement:
        seen: dict[str, int] = {}
        walks = [("single", shape.turns)]  # message by message
        if shape.merged.prints != shape.turns:  # and as the provider combines turns
            walks.append(("merged", shape.merged.prints))
        for which, prints in walks:
            node = self._walk(shape.dialect, prints, which)
            if node not in self._roots.values():
                for cid, when in self._through.get(node, {}).items():
                    seen[cid] = max(when, seen.get(cid, 0))
        found = self._best(shape, seen, branch=True) if seen else None
        if found is None:
            return self._place_unmatched(ref, shape)
        return self._place_with(ref, shape, found[0], seen, found[1])

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
        found = self._best(shape, seen, branch=False)
        if found is not None:
            return self._place_with(ref, shape, found[0], {}, found[1])
        return Placement(ref, self._new(shape).id, "new")

    def _place_with(self, ref: Any, shape: _Shape, conv: _Conv, seen: Mapping[str, int],
                    reading: _Reading) -> Placement:
        """Place R with ``conv`` (``seen``: the conversations at R's deepest nodes), R read
        against it as ``reading`` (:meth:`_classify`)."""
        kind, j, rewrite, _ = reading
        head_at = (None if conv.head == shape.head
                   else self._head_pointer(conv.head_parts, shape.head_parts))
        if kind == "continuation":
            found: list[Finding] = []
            if head_at is not None:
                found.append(make_finding(
                    "head-stable", head_at,
                    "system or tools changed within a conversation (prompt-cache prefix broken)",
                    "conversation-head"))
            if j is not None:
                found.append(self._prefix_finding(conv, shape, j, rewrite))
            before = after = None
            if j is not None:
                old = conv.raw
                before = (old[j] if old is not None and j < len(old)
                          else conv.state.reply_message if j == len(conv.state.turns) else None)
                after = shape.raw[j] if j < len(shape.raw) else None
            return Placement(ref, conv.id, "continuation", tuple(sort_findings(found)),
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

    def _classify(self, conv: _Conv, shape: _Shape) -> _Reading:
        """Hold R against E (module docstring), message by message and turn by turn once the
        provider combines consecutive turns (a split or joined turn is no difference; a dropped
        reply that fuses two user turns is seen message by message), keeping the reading that
        reproduces more of E: ``("continuation", j, rewrite)`` with j the first differing
        message as sent (None: none) and rewrite "dropped" | "inserted" | "edited" |
        "reply-edited" | "reply-dropped", or ``("branch", j, None)``; last, how many of E's
        turns R reproduces (the evidence that ranks candidate conversations)."""
        state = conv.state
        single = _Seq(shape.turns, shape.roles, range(len(shape.turns)))
        one = self._hold(shape, single, state.expected()[0], len(state.turns), state,
                         single=True)
        if one[0] == "continuation" and one[1] is None:
            return one
        two = self._hold(shape, shape.merged, state.merged, state.merged_last, state,
                         single=False)
        return max(one, two, key=lambda c: (c[3], c[0] == "continuation"))

    def _hold(self, shape: _Shape, seq: _Seq, expected: tuple[int, ...], last: int,
              state: _State,
              *, single: bool) -> tuple[str, int | None, str | None, int]:
        """One reading: R's sequence against E's; j mapped back to a message as sent, and the
        evidence: how many of R's messages as sent agree with E under that reading."""
        turns, n = seq.prints, len(seq.prints)
        size = len(expected)
        whole = len(shape.turns)

        def at(i: int) -> int:
            return seq.origin[i] if i < n else len(shape.turns)

        m = min(n, size)
        j = (None if turns[:m] == expected[:m]  # the usual case, decided in C
             else next(i for i in range(m) if turns[i] != expected[i]))
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
            if turns[r_from:r_from + len(want)] == want:
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
        if j != len(expected) or shape.turns[:j] != expected:
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
