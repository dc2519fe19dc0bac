"""``agent-tck audit --read --jobs N``: capture files audited in parallel when independent.

Each file is audited on its own (a process per file, N at a time) and also yields its
**opening keys**: a stable hash of the first and of the second message (in the wire model's
normal form) of every request. A request can only continue, fork or rewrite a conversation of
another file if it shares one of these with a request there: a continuation or fork repeats
message 0; the tracker's one-message alignment (a dropped, inserted or edited message) still
leaves message 0 or 1 of one request equal to message 0 or 1 of the other. Files that share a
key are linked, and each linked group (a connected component) is audited again as one stream,
its files in the order given, with a note naming the files: conversations cross them. The
check over-links (two unrelated sessions with the same opening are linked too), which only
costs parallelism; it never under-links, so the result equals the sequential audit's up to
the numbering of exchanges and conversations (a test holds them equal).

The keys use BLAKE2 over canonical JSON, not ``hash()``: Python salts string hashes per
process, so the tracker's own fingerprints cannot be compared across workers.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agent_tck.harness.audit.engine import Auditor, AuditResult, ExchangeResult
from agent_tck.harness.common.errors import HarnessError


@dataclass(frozen=True)
class GroupResult:
    """One stream's audit (a file, or a linked group of files), picklable."""

    files: tuple[str, ...]
    result: AuditResult
    unusable: int
    keys: tuple[frozenset[str], ...]  # per file: its opening keys
    cases: tuple[dict[str, Any], ...] = ()  # --save-vectors cases


def opening_keys(dialect: str, body: Any) -> set[str]:
    from agent_tck.reference_impl.wire.normal_form import normal_message

    messages = body.get("messages") if isinstance(body, dict) else None
    keys = set()
    for message in (messages or [])[:2] if isinstance(messages, list) else []:
        try:
            normal = normal_message(dialect, message)
        except Exception:  # unreadable (WA-D004 reports it): compared as sent
            normal = message
        text = json.dumps(normal, sort_keys=True, ensure_ascii=False, default=str)
        keys.add(hashlib.blake2b(text.encode(), digest_size=12).hexdigest())
    return keys


def audit_stream(paths: Sequence[str], *, max_body: int | None, salt: bytes,
                 save_vectors: bool, on_result: Callable[[ExchangeResult], None]
                 ) -> tuple[AuditResult, int, list[dict[str, Any]]]:
    """Audit ``paths`` as one stream, handing each result to ``on_result`` and keeping none
    (the work of ``audit --read``): (the result without exchanges, unusable files, cases)."""
    group = audit_group(paths, max_body=max_body, salt=salt, save_vectors=save_vectors,
                        keys=False, on_result=on_result)
    return group.result, group.unusable, list(group.cases)


def audit_group(paths: Sequence[str], *, max_body: int | None, salt: bytes,
                save_vectors: bool, keys: bool,
                on_result: Callable[[ExchangeResult], None] | None = None) -> GroupResult:
    """Audit ``paths`` as one stream; with ``on_result``, results go there and are not kept."""
    from agent_tck.harness.audit.capture import to_exchange
    from agent_tck.harness.audit.readers import CaptureNote, read_capture
    from agent_tck.harness.audit.redact import Scrubber

    keep = on_result is None
    auditor = Auditor(keep=keep) if max_body is None else Auditor(max_body=max_body, keep=keep)
    saver = VectorSaver(Scrubber(salt), auditor.max_body) if save_vectors else None
    unusable = 0
    per_file: list[frozenset[str]] = []
    for name in paths:
        path = Path(name)
        found: set[str] = set()
        try:
            for item in read_capture(path):
                if isinstance(item, CaptureNote):
                    auditor.note(f"{item.ref}: {item.message}")
                    continue
                result = auditor.observe(item)
                if on_result is not None:
                    on_result(result)
                if saver is not None:
                    saver.observe(path, item, result)
                if keys and result.dialect is not None:
                    decoded = to_exchange(item, auditor.max_body).exchange or {}
                    found |= opening_keys(result.dialect, decoded.get("request", {}).get("body"))
        except HarnessError as exc:  # this file is not a capture: noted, the others audited
            unusable += 1
            auditor.note(f"{exc.where or path}: not audited: {exc.code}: {exc.message}")
        per_file.append(frozenset(found))
    if saver is not None:
        for note in saver.notes:
            auditor.note(note)
    return GroupResult(tuple(paths), auditor.result(), unusable, tuple(per_file),
                       tuple(saver.cases) if saver is not None else ())


def linked(keys: Sequence[frozenset[str]]) -> list[list[int]]:
    """The connected components of files that share an opening key, each in file order,
    ordered by their first file."""
    parent = list(range(len(keys)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    for i, ks in enumerate(keys):
        for k in ks:
            if k in owner:
                parent[root(i)] = root(owner[k])
            else:
                owner[k] = i
    groups: dict[int, list[int]] = {}
    for i in range(len(keys)):
        groups.setdefault(root(i), []).append(i)
    return sorted(groups.values())


def merge(results: Sequence[AuditResult]) -> AuditResult:
    """Several streams' audits as one: exchanges renumbered after each other, conversations
    renamed c1, c2... in order (no id of one stream collides with another's)."""
    exchanges: list[Any] = []
    conversations: list[Any] = []
    notes: list[Any] = []
    ignored = 0
    for result in results:
        offset = len(exchanges)
        names: dict[Any, Any] = {c.id: f"c{len(conversations) + k + 1}"
                 for k, c in enumerate(result.conversations)}
        for x in result.exchanges:
            exchanges.append(replace(x, index=x.index + offset,
                                     conversation=names.get(x.conversation, x.conversation),
                                     parent=names.get(x.parent, x.parent)))
        for c in result.conversations:
            conversations.append(replace(
                c, id=names[c.id], parent=names.get(c.parent, c.parent),
                requests=tuple(r + offset if isinstance(r, int) else r for r in c.requests)))
        notes.extend(result.notes)
        ignored += result.ignored
    return AuditResult(tuple(exchanges), tuple(conversations), ignored, tuple(notes))


def audit_parallel(paths: Sequence[str], *, jobs: int, max_body: int | None, salt: bytes,
                   save_vectors: bool) -> tuple[AuditResult, int, list[dict[str, Any]]]:
    """Every file audited alone in ``jobs`` processes; linked files audited again together.
    (the merged result, unusable files, --save-vectors cases)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    kw: dict[str, Any] = {"max_body": max_body, "salt": salt, "save_vectors": save_vectors}
    # spawn, not fork: forking a process that runs threads (a test runner, the proxy) can
    # deadlock the child
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        alone = list(pool.map(_one, [([p], kw) for p in paths]))
        groups = linked([g.keys[0] for g in alone])
        joint = {tuple(g): pool.submit(audit_group, [paths[i] for i in g], keys=False, **kw)
                 for g in groups if len(g) > 1}
        streams = []
        for g in groups:
            if len(g) == 1:
                streams.append(alone[g[0]])
                continue
            done = joint[tuple(g)].result()
            names = ", ".join(Path(paths[i]).name for i in g)
            note = (f"conversations may cross files {names} (a request of one shares an "
                    "opening message with a request of another): audited together, in order")
            streams.append(replace(done, result=replace(
                done.result, notes=(note, *done.result.notes))))
    merged = merge([s.result for s in streams])
    return (merged, sum(s.unusable for s in streams),
            [c for s in streams for c in s.cases])


def _one(job: tuple[list[str], dict[str, Any]]) -> GroupResult:
    paths, kw = job
    return audit_group(paths, keys=True, **kw)


class VectorSaver:
    """``--save-vectors``: a case per (request, serializer rule) found (the pure work is
    :mod:`harness.audit.regression`); a finding no case can be built for is a note."""

    def __init__(self, scrub: Any, max_body: int) -> None:
        self.scrub, self.max_body = scrub, max_body
        self.cases: list[dict[str, Any]] = []
        self.notes: list[str] = []

    def observe(self, path: Path, raw: Any, result: Any) -> None:
        from agent_tck.harness.audit import regression
        from agent_tck.harness.audit.capture import to_exchange

        rules = sorted({f.rule for f in result.findings if regression.is_serializer_rule(f.rule)})
        if not rules or result.dialect is None:
            return
        body = (to_exchange(raw, self.max_body).exchange or {}).get("request", {}).get("body")
        stem = "".join(c if c.isalnum() else "-" for c in path.stem.lower()).strip("-") or "x"
        for rule in rules:
            case_id = f"audit.{stem}.{result.index}.{rule.lower()}"
            try:
                self.cases.append(regression.build_case(
                    body, result.dialect, rule, case_id=case_id,
                    where=f"request #{result.index} of {path.name}",
                    scrub=self.scrub.value))
            except regression.NotReconstructible as exc:
                self.notes.append(f"#{result.index}: no regression vector for {rule}: {exc}")
            except Exception as exc:  # a bug here must not end the audit: a note, no traceback
                self.notes.append(f"#{result.index}: no regression vector for {rule}: "
                                  f"{type(exc).__name__}: {exc}")



def write_vectors(folder: Path, cases: list[dict[str, Any]], source: str) -> Path | None:
    """One file per rule family: DIR/<family>/audit-regression.json (None: nothing saved)."""
    from agent_tck.harness.audit.regression import vector_files

    if not cases:
        return None
    for family, doc in vector_files(cases, source).items():
        (folder / family).mkdir(parents=True, exist_ok=True)
        (folder / family / "audit-regression.json").write_text(
            json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    return folder
