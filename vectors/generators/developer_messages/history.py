"""history.json: historical identity of a resolved addition (DM-016..DM-025)."""

from __future__ import annotations

from .build import (
    ADMIT,
    FORK,
    GREP,
    READ,
    REMAP,
    SEARCH_V1,
    SEARCH_V2,
    SEARCH_V3,
    T0,
    Log,
    VectorFile,
    add,
    addition,
    admitted,
    err,
    out,
    record,
)


def build() -> VectorFile:
    f = VectorFile("history", "Historical identity: replacement, restart, fork, surface "
                   "replacement, registry and latest-header independence, compaction, "
                   "sourceEventSeqs, migrations (DM-016..DM-025).")
    for section in (_later_headers, _registry, _fork, _replacement_and_compaction,
                    _source_event_seqs, _unexposed_registry, _migrations):
        section(f)
    return f


def _later_headers(f: VectorFile) -> None:
    """A later header or a restart leaves earlier resolutions as they were."""
    log = Log().open()
    h1 = log.header(SEARCH_V1)
    d1 = log.dev(add("search"), header_seq=h1)
    log.header(SEARCH_V2, reason="change")
    log.user("next")
    f.case("dm-latest-header-not-consulted", ["DM-016", "DM-020"],
           "A later request/header redefines 'search'; the earlier addition still resolves to the "
           "header it references, and stays the active definition.",
           {"log": log.json()},
           {ADMIT: out(admitted(record(d1, addition("search", SEARCH_V1), header_seq=h1),
                                active={"search": (h1, SEARCH_V1)}))})

    log = Log().open()
    h1 = log.header(SEARCH_V1)
    d1 = log.dev(add("search"), header_seq=h1)
    log.end_step()
    log.end_turn()
    log.turn(2)
    log.step(2, 1)
    h2 = log.header(SEARCH_V2, READ, reason="restart", restartedAt=T0 + 99_000)
    d2 = log.dev(add("read_file"), header_seq=h2, turn=2)
    f.case("dm-restart-keeps-history", ["DM-017", "DM-020"],
           "After a restart the resumed process writes a header with a new 'search' schema (and "
           "its registry now holds a third one); additions recorded before the restart resolve as "
           "before.",
           {"log": log.json(), "registry": [SEARCH_V3, READ]},
           {ADMIT: out(admitted(
               record(d1, addition("search", SEARCH_V1), header_seq=h1),
               record(d2, addition("read_file", READ), header_seq=h2, turn=2),
               active={"read_file": (h2, READ), "search": (h1, SEARCH_V1)}))})


def _registry(f: VectorFile) -> None:
    """The current registry is never consulted."""
    log = Log().open()
    h1 = log.header(SEARCH_V1, READ)
    d1 = log.dev(add("search"), header_seq=h1)
    payload_plain = {"log": log.json()}
    payload_registry = {"log": log.json(), "registry": [SEARCH_V3, GREP]}
    payload_empty = {"log": log.json(), "registry": []}
    expected = admitted(record(d1, addition("search", SEARCH_V1), header_seq=h1),
                        active={"search": (h1, SEARCH_V1)})
    f.case("dm-registry-not-consulted", ["DM-020"],
           "The current registry holds another 'search' schema; admission ignores it.",
           payload_registry, {ADMIT: out(expected)})
    f.case("dm-registry-without-the-tool", ["DM-020"],
           "The current registry no longer holds 'search' at all; the historical addition is "
           "still admitted and resolved.", payload_empty, {ADMIT: out(expected)})
    f.case("dm-no-registry-given", ["DM-020", "DM-001"],
           "The same log with no registry input gives the same result.",
           payload_plain, {ADMIT: out(expected)})


def _fork(f: VectorFile) -> None:
    """A fork inherits the prefix with each record's own resolution."""
    parent = Log().open()
    h1 = parent.header(SEARCH_V1)
    d1 = parent.dev(add("search"), header_seq=h1)
    h2 = parent.header(SEARCH_V2, reason="change")
    d2 = parent.dev(add("search"), header_seq=h2)
    parent.end_step()
    parent.end_turn()
    f.case("dm-fork-keeps-inherited-resolution", ["DM-018", "DM-021"],
           "A fork at the first addition inherits the prefix with its header; the child resolves "
           "'search' to v1 although the parent later rebound it to v2.",
           {"log": parent.json(), "at": d1},
           {FORK: out(admitted(record(d1, addition("search", SEARCH_V1), header_seq=h1),
                               active={"search": (h1, SEARCH_V1)}))})
    f.case("dm-fork-after-a-newer-header", ["DM-018", "DM-020"],
           "A fork right after the parent wrote a newer header (but before any addition bound to "
           "it): the child's active 'search' is still v1.",
           {"log": parent.json(), "at": h2},
           {FORK: out(admitted(record(d1, addition("search", SEARCH_V1), header_seq=h1),
                               active={"search": (h1, SEARCH_V1)}))})
    f.case("dm-fork-at-the-end", ["DM-018", "DM-021"],
           "A fork at the parent's last event inherits every record with its own resolution.",
           {"log": parent.json(), "at": parent.seq},
           {FORK: out(admitted(record(d1, addition("search", SEARCH_V1), header_seq=h1),
                               record(d2, addition("search", SEARCH_V2), header_seq=h2),
                               active={"search": (h2, SEARCH_V2)}))})


def _replacement_and_compaction(f: VectorFile) -> None:
    """Surface replacements and compaction keep the headers bound to."""
    log = Log().open()
    h1 = log.header(SEARCH_V1)
    d1 = log.dev(add("search"), header_seq=h1)
    log.header(SEARCH_V2, reason="change")
    d2 = log.dev(add("search"), header_seq=h1,
                 envelope={"surfaceOp": {"op": "replace", "startSeq": d1, "endSeq": d1},
                           "sourceEventSeqs": [d1]})
    f.case("dm-surface-replacement-keeps-its-header", ["DM-019", "DM-016"],
           "A developer/message replacing an earlier surface node (surfaceOp citing it) keeps the "
           "header it selected, although a newer header redefines the tool.",
           {"log": log.json()},
           {ADMIT: out(admitted(record(d1, addition("search", SEARCH_V1), header_seq=h1),
                                record(d2, addition("search", SEARCH_V1), header_seq=h1),
                                active={"search": (h1, SEARCH_V1)}))})

    log = Log().open()
    h1 = log.header(SEARCH_V1, READ)
    u = log.user("first question")
    log.assistant("first answer")
    log.event("compaction/summary", {
        "turn": 1, "step": 1, "shadowedRange": {"start": h1, "end": log.seq},
        "summary": [{"type": "text", "text": "The user asked a question and got an answer."}],
    })
    d = log.dev(add("read_file"), header_seq=h1)
    assert u > h1
    f.case("dm-compaction-keeps-headers", ["DM-022"],
           "A compaction summary covers the range holding the request/header; a later addition "
           "bound to that header is admitted and resolved from it.",
           {"log": log.json()},
           {ADMIT: out(admitted(record(d, addition("read_file", READ), header_seq=h1),
                                active={"read_file": (h1, READ)}))})


def _source_event_seqs(f: VectorFile) -> None:
    """sourceEventSeqs is derivation metadata, never a binding."""
    log = Log().open()
    h = log.header(SEARCH_V1)
    log.dev(add("search"), envelope={"sourceEventSeqs": [h]})
    f.admit_error("dm-sourceeventseqs-is-not-a-binding", ["DM-023", "DM-002"],
                  "The envelope's sourceEventSeqs names the header, but headerSeq is missing.",
                  log, "DM_HEADER_SEQ_MISSING")

    log = Log().open()
    h = log.header(SEARCH_V1)
    u = log.user()
    d = log.dev(add("search"), header_seq=h, envelope={"sourceEventSeqs": [u, 1]})
    f.case("dm-sourceeventseqs-stays-independent", ["DM-023"],
           "sourceEventSeqs names a user message and the turn start; it is derivation metadata, "
           "not validated as a header reference.",
           {"log": log.json()},
           {ADMIT: out(admitted(record(d, addition("search", SEARCH_V1), header_seq=h),
                                active={"search": (h, SEARCH_V1)}))})


def _unexposed_registry(f: VectorFile) -> None:
    """Registry changes no request exposed need no developer record."""
    log = Log().open()
    log.header(SEARCH_V1)
    log.user()
    log.assistant()
    log.end_step()
    log.step(1, 2)
    log.header(SEARCH_V1, reason="change")
    f.case("dm-unexposed-registry-changes-need-no-record", ["DM-024"],
           "The registry holds tools no request exposed (read_file, grep) and a newer search "
           "definition; both request headers expose the same search: no developer record is "
           "required for any of it.",
           {"log": log.json(), "registry": [SEARCH_V3, READ, GREP]},
           {ADMIT: out(admitted())})

    log = Log().open()
    log.header(SEARCH_V1)
    log.user()
    f.case("dm-unexposed-registry-single-header", ["DM-024"],
           "One request header exposes search; the registry meanwhile gained read_file and grep "
           "and changed search (never exposed): the log needs no developer record and is "
           "admitted.",
           {"log": log.json(), "registry": [SEARCH_V3, READ, GREP]},
           {ADMIT: out(admitted())})


def _migrations(f: VectorFile) -> None:
    """A migration remaps headerSeq with its header and cannot drop a referenced one."""
    log = Log().open()
    log.opaque()
    h = log.header(SEARCH_V1, READ)
    log.opaque()
    log.opaque("x/metrics")
    d1 = log.dev(add("search"), header_seq=h)
    log.opaque()
    d2 = log.dev(add("read_file"), header_seq=h)
    dropped = [2, 4, 5, 7]  # the four opaque records
    assert [line["seq"] for line in log.lines[1:] if line["type"].startswith("x/")] == dropped
    assert (h, d1, d2) == (3, 6, 8)
    # by hand: seq 0, 1, 3, 6, 8 become 0..4; headerSeq 3 becomes 2; nothing else changes
    new_seq = {0: 0, 1: 1, 3: 2, 6: 3, 8: 4}
    migrated = [log.json()[0]]
    for line in log.json()[1:]:
        if line["seq"] in dropped:
            continue
        line["seq"] = new_seq[line["seq"]]
        if line["type"] == "developer/message":
            line["data"]["headerSeq"] = 2
        migrated.append(line)
    f.case("dm-migration-remaps-headerseq", ["DM-025"],
           "A migration drops four obsolete ignorable records; seq is renumbered contiguously from "
           "the first event and each headerSeq follows its request/header from seq 3 to seq 2.",
           {"log": log.json(), "drop": dropped},
           {REMAP: out({"log": migrated})})

    log = Log().open()
    h = log.header(SEARCH_V1)
    log.dev(add("search"), header_seq=h)
    f.case("dm-migration-cannot-drop-a-referenced-header", ["DM-025"],
           "A migration that would drop the request/header an addition references is refused.",
           {"log": log.json(), "drop": [h]},
           {REMAP: err("DM_REFERENCED_HEADER_DROPPED")})
