"""Conversations on the wire: grouping requests by content, prefix stability, fork recognition.

No client cooperation is needed: requests are grouped by what they carry. Each request is
reduced to a *head* (Anthropic: ``system`` and ``tools``; Chat Completions: ``tools``, whose
system prompt is ``messages[0]``) and a list of message fingerprints, both taken from a semantic
normal form (:func:`normal_message`, :func:`normal_head`):

* ``cache_control`` is ignored everywhere (agents move breakpoints forward every turn);
* a string content equals the same text as a single text block (``""`` equals ``[]``);
* null members, empty lists and, on Chat Completions, an empty ``content`` are absent;
* reasoning is ignored: thinking / redacted_thinking blocks of assistant messages and
  ``reasoning_content`` / ``reasoning`` members (WA-D009: providers define what happens to
  prior-turn reasoning, and agents drop or keep it as those providers advise);
* assistant blocks keep only what the model sees again (type, text, id, name, input...),
  so an SDK echoing a reply with extra response-only fields is not a change.

Each message is reduced to a structural fingerprint (strings hashed in C, once each: far
cheaper than serializing), the fingerprints are chained (``c_i = H(c_{i-1}, m_i)``, ``c_0``
the head's), and every prefix is indexed once, so finding the deepest known prefix of a request
costs one lookup per message: tracking is linear in the bytes seen, with no re-comparison of
old requests. Better still, a request usually repeats its conversation's latest request: the
messages it repeats exactly (compared in C) take their fingerprints, roles and chains from
that request, so only what is new is normalized. The raw messages of the latest request of the
``keep_recent`` most recently active conversations are kept for that (bounded memory);
whether they are kept changes the cost, never a placement (a property test holds both equal).

Placement of a request R (WA-D008; vectors/wire-audit/README.md has the full table): find
the conversation C holding R's longest known prefix under the same head (by messages alone
when no conversation shares the head), hold R against E = C's latest request L plus its
complete reply, and classify the first difference j (:meth:`ConversationTracker._classify`):

==============================================  ================================================
R against E                                     placement (findings)
==============================================  ================================================
no difference, R at least as long as L          continuation
model output at j recognizably E's reply        continuation (WA-D006 at j)
edited, or later model outputs unchanged
another model output at j                       branch: another sample
the reply dropped (j = len(L))                  continuation (WA-D006 at j)
an input changed at j, R aligned with E after   continuation (WA-D006 at j)
otherwise                                       branch
==============================================  ================================================

A branch that inherits a completed turn is a fork (SMA-043), else a new conversation. Under
another head a continuation adds WA-D007 and a fork WA-001, naming the first changed head
element. *Aligned*: R is at least as long as L and at least one and half of E's positions
after j hold the same message in R.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reference_impl.wire_rules import (
    Finding,
    body_pointer,
    dialect_of,
    make_finding,
    sort_findings,
)
from reference_impl.wire_sse import ANTHROPIC, OPENAI, assistant_reply

# ---------------------------------------------------------------------------------------------
# The semantic normal form

_REASONING_BLOCKS = frozenset({"thinking", "redacted_thinking"})
_REASONING_FIELDS = frozenset({"reasoning_content", "reasoning"})
#: what the model sees again of an assistant block; other members are response metadata
_ASSISTANT_KEEP = {
    "text": ("type", "text"),
    "tool_use": ("type", "id", "name", "input"),
}


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, list) and not value)


def _clean(block: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in block.items() if k != "cache_control" and not _empty(v)}


def _anthropic_content(content: Any, *, assistant: bool) -> Any:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if not isinstance(content, list):
        return content
    out = []
    for block in content:
        if not isinstance(block, Mapping):
            out.append(block)
            continue
        btype = block.get("type")
        if assistant and btype in _REASONING_BLOCKS:
            continue
        if assistant and btype in _ASSISTANT_KEEP:
            out.append({k: block[k] for k in _ASSISTANT_KEEP[btype] if k in block})
            continue
        clean = _clean(block)
        if btype == "tool_result":
            clean["content"] = _anthropic_content(block.get("content") or [], assistant=False)
            if not clean["content"]:
                del clean["content"]
            if clean.get("is_error") is False:
                del clean["is_error"]
        out.append(clean)
    return out


def _openai_content(content: Any) -> Any:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else None
    if isinstance(content, list):
        parts = [_clean(p) if isinstance(p, Mapping) else p for p in content]
        return parts or None
    return content


def _openai_tool_call(call: Any) -> Any:
    if not isinstance(call, Mapping):
        return call
    out = {k: v for k, v in call.items() if k != "index" and not _empty(v)}
    out.setdefault("type", "function")
    if isinstance(out.get("function"), Mapping):
        out["function"] = {k: v for k, v in out["function"].items() if not _empty(v)}
    return out


def normal_message(dialect: str, message: Any) -> Any:
    """The semantic normal form of one message (see the module docstring)."""
    if not isinstance(message, Mapping):
        return message
    role = message.get("role")
    if dialect == ANTHROPIC:
        out = {k: v for k, v in message.items() if k != "content" and not _empty(v)}
        out["content"] = _anthropic_content(message.get("content"),
                                            assistant=role == "assistant")
        return out
    out = {
        k: v for k, v in message.items()
        if k not in _REASONING_FIELDS and k != "cache_control" and not _empty(v)
    }
    content = _openai_content(message.get("content"))
    if content is None:
        out.pop("content", None)
    else:
        out["content"] = content
    if isinstance(out.get("tool_calls"), list):
        out["tool_calls"] = [_openai_tool_call(c) for c in out["tool_calls"]]
    return out


def normal_head(dialect: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """``{"system": [...], "tools": [...]}`` (Anthropic) or ``{"tools": [...]}`` (OpenAI)."""
    tools = body.get("tools")
    tools_n = [_clean(t) if isinstance(t, Mapping) else t for t in tools] if isinstance(
        tools, list) else []
    if dialect == OPENAI:
        return {"tools": tools_n}
    return {"system": _anthropic_content(body.get("system"), assistant=False) or [],
            "tools": tools_n}


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
    return hash(("n", repr(value)))  # by text: CPython hashes -1 and -2 (and n, n + 2**61 - 1)
    # alike


def fingerprint(value: Any) -> int:
    """The fingerprint of one value already in normal form (a message, a head part)."""
    return _fp(value)


def _chain(previous: int, item: int) -> int:
    return hash((previous, item))


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


@dataclass(frozen=True)
class TrackResult:
    conversations: tuple[Conversation, ...]
    placements: tuple[Placement, ...]

    @property
    def findings(self) -> list[tuple[Any, Finding]]:
        return [(p.exchange, f) for p in self.placements for f in p.findings]


# ---------------------------------------------------------------------------------------------
# The tracker


@dataclass
class _Conv:
    id: str
    dialect: str
    head: int
    head_parts: dict[str, Any]  # "system": fingerprint, "tools": [fingerprints]
    parent: str | None
    fork_at: int | None
    requests: list[Any] = field(default_factory=list)
    last: list[int] = field(default_factory=list)  # message fingerprints of the latest request
    roles: list[str] = field(default_factory=list)  # their roles
    reply: int | None = None  # fingerprint of the latest request's complete reply
    reply_message: Any = None  # that reply in normal form (to recognize an edited echo)
    raw: list[Any] | None = None  # the latest request's messages as sent (recent ones only)
    chain: list[int] = field(default_factory=list)  # its prefix chains, to extend
    mchain: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class _Shape:
    dialect: str
    head: int
    head_parts: dict[str, Any]
    messages: tuple[int, ...]  # fingerprints of the messages in normal form
    roles: tuple[str, ...]
    raw: list[Any]  # the messages as sent (kept while placing, and for recent conversations)
    chain: tuple[int, ...]  # c_0 .. c_n
    mchain: tuple[int, ...]  # d_0 .. d_n (messages only)
    known: int = 0  # the first ``known`` messages repeat ``source``'s latest request exactly
    source: str | None = None


def _head(dialect: str, body: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
    head_n = normal_head(dialect, body)
    head_parts: dict[str, Any] = {"tools": [fingerprint(t) for t in head_n["tools"]]}
    if "system" in head_n:
        head_parts["system"] = fingerprint(head_n["system"])
    return hash(("head", dialect, head_parts.get("system"), *head_parts["tools"])), head_parts


def _common_prefix(messages: list[Any], old: list[Any]) -> int:
    n = len(old)
    if n <= len(messages) and messages[:n] == old:  # the usual case, decided in C
        return n
    limit = min(len(messages), n)
    k = 0
    while k < limit and messages[k] == old[k]:
        k += 1
    return k


def _shape(dialect: str, body: Mapping[str, Any], head: int, head_parts: dict[str, Any],
           sources: Iterable[_Conv] = ()) -> _Shape:
    """Fingerprint a request's messages and chain them. A request normally repeats the
    latest request of its conversation verbatim: messages exactly equal (Python's ``==``,
    compared in C) to the start of a recent conversation's latest request (``sources``, same
    head) take their fingerprints, roles and chains from it; only the rest are normalized and
    fingerprinted. (``==`` holds ``1`` and ``true`` equal: an agent flipping one for the other
    in an old message goes unseen.)"""
    raw = body.get("messages")
    messages: list[Any] = raw if isinstance(raw, list) else []
    known, source = 0, None
    for conv in sources:
        old = conv.raw
        assert old is not None
        k = _common_prefix(messages, old)
        if k > known:
            known, source = k, conv
        if k:
            break  # the most recently active conversation sharing a start (any would do)
    if source is not None:
        prints = source.last[:known]
        roles = source.roles[:known]
        chain, mchain = source.chain[:known + 1], source.mchain[:known + 1]
    else:
        prints, roles = [], []
        chain, mchain = [head], [hash(("messages", dialect))]
    for m in messages[known:]:
        d = fingerprint(normal_message(dialect, m))
        prints.append(d)
        roles.append(str(m.get("role")) if isinstance(m, dict) else "")
        chain.append(_chain(chain[-1], d))
        mchain.append(_chain(mchain[-1], d))
    return _Shape(dialect, head, head_parts, tuple(prints), tuple(roles), messages,
                  tuple(chain), tuple(mchain), known, source.id if source else None)


def _deepest(chain: Sequence[int], index: Mapping[int, str], start: int = 0) -> int:
    """The largest i with chain[i] indexed (prefix-closed, so a forward scan from ``start``,
    known to be indexed), else -1."""
    k = start - 1
    for i in range(start, len(chain)):
        if chain[i] not in index:
            break
        k = i
    return k


class ConversationTracker:
    """Places each observed request in a conversation (a state machine fed one exchange at a
    time; its outputs are frozen values). Linear in the bytes seen."""

    def __init__(self, keep_recent: int = 16) -> None:
        self.keep_recent = keep_recent  # conversations whose latest raw messages are kept
        self._recent: dict[str, None] = {}  # their ids, least recent first
        self._convs: dict[str, _Conv] = {}
        self._chain: dict[int, str] = {}  # c_i -> first conversation that sent that prefix
        self._mchain: dict[int, str] = {}  # d_i -> first conversation (messages only)
        self._pos: dict[tuple[int, int, int], str] = {}  # (head, i, m_i) -> latest conv
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
        head, head_parts = _head(dialect, body)
        sources = [c for c in (self._convs[cid] for cid in reversed(self._recent))
                   if c.head == head and c.raw is not None]
        shape = _shape(dialect, body, head, head_parts, sources)
        placement = self._place(ref, shape)
        conv = self._convs[placement.conversation]
        added_from = len(conv.last) if conv.requests else 0
        conv.requests.append(ref)
        conv.last, conv.roles = list(shape.messages), list(shape.roles)
        conv.chain, conv.mchain = list(shape.chain), list(shape.mchain)
        conv.head, conv.head_parts = shape.head, shape.head_parts
        reply = assistant_reply(dialect, exchange.get("response"))
        conv.reply_message = normal_message(dialect, reply) if reply is not None else None
        conv.reply = fingerprint(conv.reply_message) if reply is not None else None
        self._remember(conv, shape.raw)
        self._register(conv, shape, added_from)
        self._placements.append(placement)
        return placement

    def _remember(self, conv: _Conv, raw: list[Any]) -> None:
        """Keep the raw messages of the most recent conversations (bounded memory)."""
        conv.raw = raw
        self._recent.pop(conv.id, None)
        self._recent[conv.id] = None
        while len(self._recent) > self.keep_recent:
            oldest = next(iter(self._recent))
            del self._recent[oldest]
            self._convs[oldest].raw = None

    def result(self) -> TrackResult:
        return TrackResult(
            tuple(Conversation(c.id, c.dialect, c.parent, c.fork_at, tuple(c.requests))
                  for c in self._convs.values()),
            tuple(self._placements),
        )

    # -- placement ------------------------------------------------------------------------

    def _new(self, shape: _Shape, parent: str | None = None, fork_at: int | None = None) -> _Conv:
        cid = f"c{len(self._convs) + 1}"
        conv = _Conv(cid, shape.dialect, shape.head, shape.head_parts, parent, fork_at)
        self._convs[cid] = conv
        return conv

    def _register(self, conv: _Conv, shape: _Shape, added_from: int) -> None:
        """Index the request's prefixes (first sender wins; the ``known`` ones are indexed
        already) and the positions of the messages it added to its conversation (most recent
        sender wins), and of its reply."""
        first = shape.known + 1 if shape.source else 0
        for c in shape.chain[first:]:
            self._chain.setdefault(c, conv.id)
        for d in shape.mchain[first:]:
            self._mchain.setdefault(d, conv.id)
        for i in range(added_from, len(shape.messages)):
            self._pos[(shape.head, i, shape.messages[i])] = conv.id
        if conv.reply is not None:
            self._pos[(shape.head, len(shape.messages), conv.reply)] = conv.id

    @staticmethod
    def _expected(conv: _Conv) -> tuple[list[int], list[str]]:
        """E: the latest request's messages plus its complete reply, and their roles."""
        if conv.reply is None:
            return conv.last, conv.roles
        return [*conv.last, conv.reply], [*conv.roles, "assistant"]

    def _classify(self, conv: _Conv, shape: _Shape) -> tuple[str, int | None]:
        """Hold R against E: ``("continuation", j)`` (j: the first differing message, or
        None) or ``("branch", j)`` (R goes its own way after j shared messages).

        A difference at a model output (an assistant message where E has one) is another
        sample, a branch, unless it is recognizably the same reply edited (it shares a tool
        call id with the reply, or its text differs only in whitespace) or later model
        outputs of E come back unchanged. A difference at an input (user, tool, system) is an
        edit when R dropped the reply (it has all of L, then no reply) or when R is aligned
        with E after it (at least as long as L; at least one and at least half of E's later
        positions the same).
        """
        expected, roles = self._expected(conv)
        n = len(shape.messages)
        equal = shape.known if shape.source == conv.id else 0  # equal by construction
        j = next((i for i in range(equal, min(n, len(expected)))
                  if shape.messages[i] != expected[i]), None)
        if j is None:
            return ("continuation", None) if n >= len(conv.last) else ("branch", n)
        later = range(j + 1, min(n, len(expected)))
        if shape.roles[j] == "assistant" and roles[j] == "assistant":
            if j == len(conv.last) and _same_reply(normal_message(shape.dialect, shape.raw[j]),
                                                   conv.reply_message):
                return "continuation", j
            if any(roles[i] == "assistant" and shape.messages[i] == expected[i] for i in later):
                return "continuation", j
            return "branch", j
        if j == len(conv.last):
            return "continuation", j  # all of L, then not the reply: the reply was dropped
        same = sum(1 for i in later if shape.messages[i] == expected[i])
        positions = len(expected) - j - 1
        if n >= len(conv.last) and same >= 1 and 2 * same >= positions:
            return "continuation", j
        return "branch", j

    def _prefix_finding(self, conv: _Conv, shape: _Shape, j: int) -> Finding:
        """WA-D006: R begins with L's messages plus L's reply; name the first difference."""
        if j == len(conv.last):
            what = ("the previous request's assistant reply is not repeated here"
                    if shape.roles[j] != "assistant"
                    else "the previous request's assistant reply was changed")
        else:
            what = "differs from the previous request of this conversation"
        return make_finding("prefix-stable", body_pointer("messages", j),
                            f"message {j} {what} (prompt-cache prefix broken)",
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

    def _place(self, ref: Any, shape: _Shape) -> Placement:
        # messages shared under the same head, or -1
        k = _deepest(shape.chain, self._chain, shape.known if shape.source else 0)
        if k >= 0:
            return self._place_same_head(ref, shape, k)
        return self._place_other_head(ref, shape)

    def _candidate_for_head(self, shape: _Shape) -> _Conv | None:
        for j in range(1, len(shape.messages)):
            cid = self._pos.get((shape.head, j, shape.messages[j]))
            if cid is not None:
                return self._convs[cid]
        return None

    def _branch(self, ref: Any, shape: _Shape, conv: _Conv, j: int,
                findings: tuple[Finding, ...] = ()) -> Placement:
        """A fork of ``conv`` when R inherits a completed turn (SMA-043: a fork child's first
        request holds the parent's completed turns), else a new conversation."""
        if "assistant" in shape.roles[:j]:
            child = self._new(shape, conv.id, j)
            return Placement(ref, child.id, "fork", findings, conv.id, j)
        return Placement(ref, self._new(shape).id, "new")

    def _place_same_head(self, ref: Any, shape: _Shape, k: int) -> Placement:
        if k >= 1:
            conv: _Conv | None = self._convs[self._chain[shape.chain[k]]]
        else:
            conv = self._candidate_for_head(shape)
        if conv is None:
            return Placement(ref, self._new(shape).id, "new")
        kind, j = self._classify(conv, shape)
        if kind == "continuation":
            found = () if j is None else (self._prefix_finding(conv, shape, j),)
            return Placement(ref, conv.id, "continuation", found)
        assert j is not None
        return self._branch(ref, shape, conv, j)

    def _place_other_head(self, ref: Any, shape: _Shape) -> Placement:
        k = _deepest(shape.mchain, self._mchain)
        if k < 1:
            return Placement(ref, self._new(shape).id, "new")
        conv = self._convs[self._mchain[shape.mchain[k]]]
        head_at = self._head_pointer(conv.head_parts, shape.head_parts)
        kind, j = self._classify(conv, shape)
        if kind == "continuation":
            findings = [make_finding(
                "head-stable", head_at,
                "system or tools changed within a conversation (prompt-cache prefix broken)",
                "conversation-head",
            )]
            if j is not None:
                findings.append(self._prefix_finding(conv, shape, j))
            return Placement(ref, conv.id, "continuation", tuple(sort_findings(findings)))
        assert j is not None
        finding = make_finding(
            "fork-head", head_at,
            f"a request inheriting {j} messages of conversation {conv.id} with another "
            "system or tools: a fork child's head must match its parent's",
            "conversation-head",
        )
        return self._branch(ref, shape, conv, j, (finding,))


def _text_of(message: Any) -> str:
    content = message.get("content") if isinstance(message, Mapping) else None
    if isinstance(content, str):
        return content
    parts = [b.get("text") for b in content or () if isinstance(b, Mapping)
             and isinstance(b.get("text"), str)] if isinstance(content, list) else []
    return "".join(parts)


def _call_ids(message: Any) -> set[str]:
    if not isinstance(message, Mapping):
        return set()
    ids = {str(b.get("id")) for b in message.get("content") or () if isinstance(b, Mapping)
           and b.get("type") == "tool_use" and b.get("id")} if isinstance(
        message.get("content"), list) else set()
    for call in message.get("tool_calls") or ():
        if isinstance(call, Mapping) and call.get("id"):
            ids.add(str(call["id"]))
    return ids


def _same_reply(echo: Any, reply: Any) -> bool:
    """Is ``echo`` the reply, edited? (Tool call ids are unique per response, so a shared one
    says so; so does the same text up to whitespace.)"""
    if reply is None:
        return False
    if _call_ids(echo) & _call_ids(reply):
        return True
    a, b = " ".join(_text_of(echo).split()), " ".join(_text_of(reply).split())
    return bool(a) and a == b


def track(exchanges: Iterable[Mapping[str, Any]]) -> TrackResult:
    """Place every exchange (referenced by its index in the input) in a conversation."""
    tracker = ConversationTracker()
    for i, exchange in enumerate(exchanges):
        tracker.observe(i, exchange)
    return tracker.result()
