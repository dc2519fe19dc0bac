"""The audit's results, byte for byte, against results recorded from the tree before a speed
change (issue 24: verdicts are the product, a faster audit must leave every one identical).

The corpus: every wire-audit vector (each case's exchanges, as one capture), every serializer
and resume reference output sent as a growing conversation (request k holds its first k
messages, the prompt-cache mark moved to the last one, as agents do), the conversations of
benchmarks/bench_audit.py (a) and (b), and damaged copies of all of them: an earlier message
edited, a tool id turned into a number, ``true`` for ``1``, keys reordered, a mark dropped, a
message removed, an empty text, a block type changed, a system message inserted. Each
capture runs as the audit engine runs it (:func:`audit_exchange` with the recent audits, then
the conversation tracker), and every request's findings, checked rules, errors and placement
are serialized canonically; the recording holds a SHA-256 per capture.

Record again only for an intended change of verdicts (say so in the commit):
``.venv/bin/python tests/test_audit_recorded.py --record``.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
RECORDED = Path(__file__).resolve().parent / "fixtures" / "audit_recorded.json"
MESSAGES_URL = "https://api.anthropic.com/v1/messages"
CHAT_URL = "https://api.openai.com/v1/chat/completions"


def _exchange(body: Any, url: str) -> dict[str, Any]:
    return {"method": "POST", "url": url, "request": {"body": body}, "response": None}


def _vector_captures() -> Iterator[tuple[str, list[Any]]]:
    for path in sorted((ROOT / "vectors" / "wire-audit").glob("*.json")):
        alone = []
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            given = case["input"]
            if isinstance(given, dict) and isinstance(given.get("exchanges"), list):
                yield f"vector:{case['id']}", given["exchanges"]
            else:
                alone.append(given)
                yield f"vector:{case['id']}", [given]
        if alone:  # a file's single exchanges as one capture: carried over between them
            yield f"vector:{path.stem}", alone


def _marked(messages: list[Any]) -> list[Any]:
    """A copy with the prompt-cache mark on the last block of the last message only."""
    out = copy.deepcopy(messages)
    for m in out:
        if isinstance(m, dict) and isinstance(m.get("content"), list):
            for b in m["content"]:
                if isinstance(b, dict):
                    b.pop("cache_control", None)
    last = out[-1] if out else None
    if isinstance(last, dict) and isinstance(last.get("content"), list) and last["content"] and (
            isinstance(last["content"][-1], dict)):
        last["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return out


def _growing(body: dict[str, Any], url: str) -> list[Any]:
    messages = body.get("messages")
    if not isinstance(messages, list):
        return [_exchange(body, url)]
    marks = url == MESSAGES_URL
    return [_exchange({**body, "messages": _marked(messages[:k]) if marks else messages[:k]},
                      url) for k in range(1, len(messages) + 1)]


def _serializer_captures() -> Iterator[tuple[str, list[Any]]]:
    from agent_tck.harness.contract.catalogue import load_catalogue
    from agent_tck.harness.contract.vectors import load_cases
    from agent_tck.reference_impl.errors import TckError
    from agent_tck.reference_impl.serialize.ops import OPERATIONS as SERIALIZE_OPS
    from agent_tck.reference_impl.session_log.ops import OPERATIONS as SESSION_OPS

    operations = {**SERIALIZE_OPS, **SESSION_OPS}
    for case in load_cases(known_rules=load_catalogue().by_id):
        for n, expectation in enumerate(case.expect):
            op = expectation.operation
            if op not in operations or not (op.endswith(".serialize") or ".resume" in op):
                continue
            try:
                output = operations[op](copy.deepcopy(case.input))
            except TckError:
                continue
            if not isinstance(output, dict):
                continue
            url = CHAT_URL if "openai" in op or "chat" in op else MESSAGES_URL
            yield f"serializer:{case.id}:{n}:{op}", _growing(output, url)


def _bench_captures() -> Iterator[tuple[str, list[Any]]]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_audit
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    yield "bench:a", [_exchange(json.loads(b), MESSAGES_URL)
                      for b in bench_audit.agent_conversation(24)]
    yield "bench:b", [_exchange(json.loads(b), MESSAGES_URL)
                      for b in bench_audit.agent_conversation(30, result_words=40)]


def _damage(exchanges: list[Any], seed: int) -> list[Any]:
    """A copy with one damage to one request's messages (chosen by ``seed``)."""
    rng = random.Random(seed)
    out = copy.deepcopy(exchanges)
    bodies = [x["request"]["body"] for x in out if isinstance(x, dict)
              and isinstance(x.get("request"), dict)
              and isinstance(x["request"].get("body"), dict)
              and isinstance(x["request"]["body"].get("messages"), list)
              and x["request"]["body"]["messages"]]
    if not bodies:
        return out
    messages = rng.choice(bodies)["messages"]
    i = rng.randrange(len(messages))
    msg = messages[i]
    kind = seed % 9
    blocks = [b for b in (msg.get("content") if isinstance(msg, dict) and isinstance(
        msg.get("content"), list) else []) if isinstance(b, dict)]
    if kind == 0 and isinstance(msg, dict):
        msg["content"] = "EDITED"
    elif kind == 1 and blocks:
        block = rng.choice(blocks)
        for key in ("id", "tool_use_id"):
            if key in block:
                block[key] = 7
        block.setdefault("tool_use_id", 1)
    elif kind == 2 and isinstance(msg, dict):
        msg["extra"] = 1 if rng.random() < 0.5 else True
    elif kind == 3 and isinstance(msg, dict):
        messages[i] = dict(reversed(list(msg.items())))
        for b in blocks:
            items = list(b.items())
            b.clear()
            b.update(reversed(items))
    elif kind == 4 and blocks:
        for b in blocks:
            if "cache_control" in b:
                b.pop("cache_control")
            else:
                b["cache_control"] = {"type": "ephemeral"}
    elif kind == 5:
        del messages[i]
    elif kind == 6 and blocks:
        rng.choice(blocks).update({"type": "text", "text": ""})
    elif kind == 7 and blocks:
        rng.choice(blocks)["type"] = rng.choice(["thinking", "tool_use", "compaction", "novel"])
    else:
        messages.insert(i, {"role": "system", "content": rng.choice(["", "note", []])})
    return out


def captures() -> Iterator[tuple[str, list[Any]]]:
    base = [*_vector_captures(), *_serializer_captures(), *_bench_captures()]
    yield from base
    for n, (name, exchanges) in enumerate(base):
        for k in range(3 if name.startswith("bench") else 1):
            seed = n * 3 + k
            yield f"damaged:{name}:{seed}", _damage(exchanges, seed)


def results(exchanges: list[Any], *, share: bool = True) -> str:
    """Every request's audit as the engine runs it, serialized canonically (``share``: the
    tracker takes the tools' bytes from the wire rules, as the engine does)."""
    from agent_tck.harness.audit.engine import RECENT_AUDITS
    from agent_tck.harness.audit.rules import TOOLS_READ, audit_exchange
    from agent_tck.harness.audit.tracker import ConversationTracker

    tracker = ConversationTracker()
    recent: list[Any] = []
    lines = []
    for i, x in enumerate(exchanges):
        normals: dict[int, dict[str, Any]] = {}
        if not isinstance(x, dict):  # a vector's malformed input: what audit_exchange raises
            try:
                audit_exchange(x)
            except Exception as exc:  # the raise is the recorded result
                lines.append(f"raised {type(exc).__name__}")
            continue
        audit = audit_exchange(x, previous=reversed(recent), normals=normals)
        if audit.messages is not None and not audit.errors:
            recent = [*recent[-(RECENT_AUDITS - 1):], audit]
        placed = tracker.observe(i, x, audit.compared, normals, audit.dialect,
                                 tools=audit.read.get(TOOLS_READ) if share else None)
        lines.append(json.dumps({
            "findings": [f.to_json() for f in audit.findings], "checked": audit.checked,
            "errors": [e.to_json() for e in audit.errors],
            "placement": None if placed is None else [
                placed.conversation, placed.kind, placed.parent, placed.fork_at,
                placed.rewrite, [f.to_json() for f in placed.findings]],
        }, sort_keys=True, default=repr))
    conversations = [c.to_json() for c in tracker.result().conversations]
    return "\n".join([*lines, json.dumps(conversations, sort_keys=True)])


def digest(exchanges: list[Any]) -> str:
    return hashlib.sha256(results(exchanges).encode()).hexdigest()


def _recorded() -> dict[str, str]:
    return dict(json.loads(RECORDED.read_text(encoding="utf-8")))


CAPTURES = list(captures())


def test_the_corpus_covers_every_source() -> None:
    kinds = {name.split(":")[0] for name, _ in CAPTURES}
    assert kinds == {"vector", "serializer", "bench", "damaged"}
    assert set(_recorded()) == {name for name, _ in CAPTURES}


@pytest.mark.parametrize(("name", "exchanges"), CAPTURES, ids=[n for n, _ in CAPTURES])
def test_results_equal_the_recorded_ones(name: str, exchanges: list[Any]) -> None:
    assert digest(exchanges) == _recorded()[name], results(exchanges)[:2000]


def test_the_tracker_keys_a_head_alike_with_the_rules_tools_bytes_or_its_own() -> None:
    for name, exchanges in CAPTURES:
        if name.startswith(("bench", "vector:tools", "damaged:bench")):
            assert results(exchanges) == results(exchanges, share=False), name


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    RECORDED.write_text(json.dumps({name: digest(x) for name, x in CAPTURES}, indent=0,
                                   sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(CAPTURES)} captures recorded in {RECORDED}")
