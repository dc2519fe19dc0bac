"""The check-log differential corpus: every session log the tests and vectors read, plus seeded
mutations of each, and the verdict of the streaming reader on each under both profiles.

A verdict is what ``agent-tck check-log`` reports (``reader.check(recover=True)``: the summary
and its warnings, or the first finding: code, line, seq, message) and what ``reader.read`` says
(``recover=False``), for the default vocabulary and ``--profile dsh-v4``; an exception that is not
a finding is recorded by type and message. :func:`digests` gives one short digest per log;
``tests/data/check_log_verdicts.json`` holds the digests recorded from the code before a speed
change (``python tests/check_log_corpus.py --record``), and tests/test_check_log_differential.py
compares against them. The mutations are seeded (``random.Random``), so the corpus is the same on
every run. The per-type pass of issue 24 was proven on 60 mutants a log (13,969 logs, 23 s of
CPU); the suite keeps 20 (4,809 logs, digests recorded from 9fd29d4, the tree before that pass),
which still reach every layer (the second test).
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

ROOT = Path(__file__).resolve().parent.parent
RECORDED = Path(__file__).resolve().parent / "data" / "check_log_verdicts.json"
MUTANTS_PER_LOG = 20
SEED = 24
DIGITS = 8

#: block types the layers look at (DM-043 tool changes, CFP-D011 wrapper, dsh-v4 tool calls)
_BLOCK_TYPES: tuple[Any, ...] = ("tool-addition", "tool-removal", "tool-result", "tool-call",
                                 "text", "", 5, None, ["x"], {"k": 1})
_ROLES: tuple[Any, ...] = ("developer", "user", "assistant", "tool", "system", None, 3)
_CONTAINERS = ("content", "summary", "rawOutput", "inserted", "messages", "stream", "tools")


def _encode(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _vector_logs() -> Iterator[tuple[str, list[Any]]]:
    from agent_tck.reference_impl.session_log import recorder as rec

    for path in sorted((ROOT / "vectors").glob("*/*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        cases = document.get("cases", []) if isinstance(document, dict) else document
        for index, case in enumerate(cases):
            given = case.get("input") if isinstance(case, dict) else None
            name = f"{path.parent.name}/{path.name}#{index}"
            if isinstance(given, dict) and isinstance(given.get("log"), str):
                yield name, [json.loads(r) if _is_json(r) else r
                             for r in given["log"].split("\n") if r]
            elif isinstance(given, dict) and isinstance(given.get("log"), list):
                yield name, list(given["log"])
            elif isinstance(given, dict) and given.get("kind") == rec.FIXTURE_KIND:
                try:
                    recording = rec.record(given)
                except Exception:  # a fixture the recorder refuses: no log
                    continue
                yield name, [dict(recording.log.header.value),
                             *(dict(e.value) for e in recording.log.events)]


def _is_json(row: str) -> bool:
    try:
        json.loads(row)
    except ValueError:
        return False
    return True


def _writer_logs() -> Iterator[tuple[str, list[Any]]]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import dsh_v4_logs as logs

    for name in ("one_turn", "seeded_child", "every_type"):
        w = getattr(logs, name)()
        yield f"dsh_v4_logs.{name}", [w.header, *w.events]
    w = logs.one_turn()
    logs.one_turn(w, turn=2)
    yield "dsh_v4_logs.two_turns", [w.header, *w.events]
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_check_log as bench

    from agent_tck.reference_impl.session_log import recorder as rec

    recording = rec.record(bench.turn_fixture())
    yield "bench.turn", [dict(recording.log.header.value),
                         *(dict(e.value) for e in recording.log.events)]


def base_logs() -> list[tuple[str, list[Any]]]:
    return [*_vector_logs(), *_writer_logs()]


def _containers(value: Any, depth: int = 0) -> Iterator[list[Any]]:
    """Lists under an event (content arrays, message lists, streams, tools), a few levels deep."""
    if depth > 5:
        return
    if isinstance(value, dict):
        for key, sub in value.items():
            if key in _CONTAINERS and isinstance(sub, list):
                yield sub
            yield from _containers(sub, depth + 1)
    elif isinstance(value, list):
        for sub in value:
            yield from _containers(sub, depth + 1)


def _dicts(value: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
    if depth > 6:
        return
    if isinstance(value, dict):
        yield value
        for sub in value.values():
            yield from _dicts(sub, depth + 1)
    elif isinstance(value, list):
        for sub in value:
            yield from _dicts(sub, depth + 1)


def _mutate_event(rng: random.Random, event: Any) -> None:
    if not isinstance(event, dict):
        return
    choice = rng.randrange(12)
    lists = list(_containers(event))
    dicts = list(_dicts(event))
    if choice <= 3 and lists:  # a block's type, a block replaced, a block inserted
        target = rng.choice(lists)
        block_type = rng.choice(_BLOCK_TYPES)
        if target and choice <= 1 and isinstance(target[rng.randrange(len(target))], dict):
            item = rng.choice([t for t in target if isinstance(t, dict)])
            where = item.get("chunk") if isinstance(item.get("chunk"), dict) else item
            key = rng.choice(["type", "blockType", "type"]) if where is not item else "type"
            where[key] = block_type
            if rng.random() < 0.3 and isinstance(where.get("block"), dict):
                where["block"]["type"] = block_type
        elif choice == 2:
            new: Any = rng.choice([{"type": block_type, "toolName": "read_file"}, 3, "x", [],
                                   {"chunk": {"type": "block-start", "blockType": block_type}},
                                   {"chunk": {"type": "block-end", "block": {"type": block_type}}},
                                   {"role": "developer", "content": []}, {"text": "no type"}])
            target.insert(rng.randrange(len(target) + 1), new)
        elif target:
            del target[rng.randrange(len(target))]
    elif choice == 4 and dicts:  # a role
        item = rng.choice(dicts)
        item["role"] = rng.choice(_ROLES)
    elif choice == 5 and dicts:  # a key removed
        item = rng.choice(dicts)
        if item:
            del item[rng.choice(sorted(item))]
    elif choice == 6:  # envelope: surfaceOp, ignorable, an extra key, sourceEventSeqs
        key, value = rng.choice([("surfaceOp", "append"), ("surfaceOp", None),
                                 ("surfaceOp", {"op": "replace", "startSeq": 1, "endSeq": 2}),
                                 ("ignorable", True), ("ignorable", False), ("extra", 1),
                                 ("sourceEventSeqs", [0]), ("sourceEventSeqs", [[0, 2]])])
        event[key] = value
    elif choice == 7 and isinstance(event.get("data"), dict):  # turn / step numbering
        data = event["data"]
        key = rng.choice(["turn", "step"])
        data[key] = rng.choice([0, 1, 2, 3, -1, 1.0, "1", None, 2**60])
    elif choice == 8 and dicts:  # ids and sources
        item = rng.choice(dicts)
        key, value = rng.choice([("id", ""), ("id", None), ("source", {"kind": "plugin"}),
                                 ("source", "x"), ("toolCallId", "other"), ("callId", "other"),
                                 ("deferLoading", False), ("system", "retired"),
                                 ("headerSeq", 1), ("isError", "no"), ("stream", [])])
        item[key] = value
    elif choice == 9:
        event["type"] = rng.choice(["tool/call", "assistant/attempt", "compaction/summary",
                                    "agent/inbox/spliced", "developer/message", "x/unknown",
                                    "session/end-seed", "user/message"])
    elif choice == 10:
        event["seq"] = rng.choice([0, 1, -1, 1.5, None, "2"]) if rng.random() < 0.3 else \
            (event.get("seq") if type(event.get("seq")) is int else 0) + rng.choice([-1, 1])
    elif dicts:  # a value replaced by another type
        item = rng.choice(dicts)
        if item:
            item[rng.choice(sorted(item))] = rng.choice([[], {}, 0, "", None, True])


def mutants(rows: list[Any], rng: random.Random) -> Iterator[list[Any]]:
    for _ in range(MUTANTS_PER_LOG):
        out = copy.deepcopy(rows)
        for _fault in range(rng.choice((1, 1, 1, 2, 3))):
            if len(out) < 2:
                break
            at = rng.randrange(1, len(out))
            action = rng.randrange(10)
            if action == 0:
                del out[at]
            elif action == 1:
                out.insert(at, copy.deepcopy(out[at]))
            elif action == 2 and at + 1 < len(out):
                out[at], out[at + 1] = out[at + 1], out[at]
            else:
                _mutate_event(rng, out[at])
        yield out


def corpus() -> Iterator[tuple[str, bytes]]:
    """(name, log bytes) of every base log and its seeded mutants (and a torn last line)."""
    rng = random.Random(SEED)
    for name, rows in base_logs():
        yield name, _text(rows)
        for number, mutant in enumerate(mutants(rows, rng)):
            text = _text(mutant)
            if number % 10 == 9:
                text = text[:-rng.randrange(1, 12)]  # a torn final line
            yield f"{name}~{number}", text


def _text(rows: list[Any]) -> bytes:
    return "".join((r if isinstance(r, str) else _encode(r)) + "\n" for r in rows).encode()


def verdict(text: bytes) -> str:
    """Every finding of check(recover=True) and read() under both profiles, as one string."""
    from agent_tck.reference_impl.session_log import format as sl
    from agent_tck.reference_impl.session_log import profile_dsh
    from agent_tck.reference_impl.session_log import reader as log_reader

    out: list[Any] = []
    lines = sl.split_lines(text)
    default = sl.default_vocabulary()
    for vocabulary in (default, profile_dsh.vocabulary(default)):
        for recover in (True, False):
            try:
                if recover:
                    summary = log_reader.check(lines, vocabulary, recover=True)
                    out.append([summary.to_json(), summary.warnings(), summary.lines])
                else:
                    log = log_reader.read(lines, vocabulary)
                    out.append(["read", len(log.events), log.final_newline])
            except sl.LogRejected as exc:
                out.append([exc.error.to_json(), exc.decoded])
            except Exception as exc:  # a crash is a verdict too (INTERNAL_ERROR)
                out.append([type(exc).__name__, str(exc)])
    return json.dumps(out, sort_keys=True, ensure_ascii=False)


def digests() -> tuple[list[str], list[str]]:
    """(names, digests) in corpus order: 8 hex digits of the sha256 of each log's verdict."""
    names: list[str] = []
    found: list[str] = []
    for name, text in corpus():
        names.append(name)
        found.append(hashlib.sha256(verdict(text).encode()).hexdigest()[:DIGITS])
    return names, found


def record() -> None:
    _names, found = digests()
    RECORDED.parent.mkdir(exist_ok=True)
    lines = ["".join(found[i:i + 96]) for i in range(0, len(found), 96)]
    RECORDED.write_text(json.dumps({"logs": len(found), "digits": DIGITS, "digests": lines},
                                   indent=0) + "\n", encoding="utf-8")
    print(f"{len(found)} logs recorded in {RECORDED}")


def recorded() -> list[str]:
    document = json.loads(RECORDED.read_text(encoding="utf-8"))
    joined = "".join(document["digests"])
    digits = document["digits"]
    return [joined[i:i + digits] for i in range(0, len(joined), digits)]


if __name__ == "__main__":  # pragma: no cover
    if sys.argv[1:] == ["--record"]:
        record()
    else:
        print(len(digests()))
