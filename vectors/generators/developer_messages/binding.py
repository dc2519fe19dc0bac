"""binding.json: binding additions to request headers (DM-001..DM-015)."""

from __future__ import annotations

from .build import (
    ADMIT,
    DEFERRED_SEARCH,
    READ,
    SEARCH_V1,
    SEARCH_V2,
    Log,
    VectorFile,
    add,
    addition,
    admitted,
    err,
    out,
    record,
    removal,
    remove,
)


def build() -> VectorFile:
    f = VectorFile("binding", "Binding additions to request headers: headerSeq, the five "
                   "reference faults, definitions, inline definitions, removals "
                   "(DM-001..DM-015).")
    for section in (_resolution, _header_seq_faults, _non_header_references, _definition_faults,
                    _inline_and_revisions, _separate_revisions, _removals):
        section(f)
    return f


def _resolution(f: VectorFile) -> None:
    """An addition resolves to the one schema of the header its headerSeq names."""
    log = Log().open()
    h = log.header(SEARCH_V1, READ)
    d = log.dev(add("search"), header_seq=h)
    f.case("dm-addition-resolves", ["DM-001"],
           "An addition names the tool only; headerSeq binds it to an earlier request/header with "
           "one complete schema of that name, which it resolves to.",
           {"log": log.json()},
           {ADMIT: out(admitted(record(d, addition("search", SEARCH_V1), header_seq=h),
                                active={"search": (h, SEARCH_V1)}))})

    log = Log().open()
    log.header(SEARCH_V1)
    h2 = log.header(SEARCH_V2, reason="change")
    log.header(SEARCH_V1, READ, reason="change")
    d = log.dev(add("search"), header_seq=h2)
    f.case("dm-addition-resolves-the-header-it-names", ["DM-001", "DM-016", "DM-020"],
           "Three request headers define 'search' (v1, v2, then v1 again); the addition names the "
           "middle one and resolves to its schema, neither the first nor the latest header's.",
           {"log": log.json()},
           {ADMIT: out(admitted(record(d, addition("search", SEARCH_V2), header_seq=h2),
                                active={"search": (h2, SEARCH_V2)}))})

    log = Log().open()
    h = log.header(SEARCH_V1, READ)
    d = log.dev(add("search"), add("read_file"), header_seq=h)
    f.case("dm-one-event-two-additions", ["DM-001", "DM-012"],
           "One event adds two tools the same header defines; both resolve through its one "
           "headerSeq, in content order.",
           {"log": log.json()},
           {ADMIT: out(admitted(
               record(d, addition("search", SEARCH_V1), addition("read_file", READ), header_seq=h),
               active={"read_file": (h, READ), "search": (h, SEARCH_V1)}))})

    # CFP-D003: a log whose seq starts at 2, so a seq is not the event's position in the log
    log = Log(first_seq=2).open()
    h = log.header(SEARCH_V1)
    log.user()
    log.header(SEARCH_V2, reason="change")
    d = log.dev(add("search"), header_seq=h)
    f.case("dm-addition-resolves-by-seq-not-position", ["CFP-D003"],
           "The log's seq starts at 2 and two headers define 'search' (v1 at seq 4, v2 at seq 6, "
           "the event in position 4). headerSeq 4 names the v1 header by its seq; read as a "
           "position it would bind v2. CFP-D003 accepts both readings of the origin: this log "
           "read as written (the addition resolves to v1, DM-001), or rejected as DM_MALFORMED "
           "by a reader that requires seq 0; a reader taking seq for a position does neither.",
           {"log": log.json()},
           {ADMIT: {"alternatives": [
               out(admitted(record(d, addition("search", SEARCH_V1), header_seq=h),
                            active={"search": (h, SEARCH_V1)})),
               err("DM_MALFORMED")]}})


def _header_seq_faults(f: VectorFile) -> None:
    """headerSeq missing, forward, unknown, or naming a record that is no header."""
    log = Log().open()
    log.header(SEARCH_V1)
    log.dev(add("search"))
    f.admit_error("dm-headerseq-missing", ["DM-002"],
                  "A tool addition without headerSeq has no header to bind to.",
                  log, "DM_HEADER_SEQ_MISSING")

    log = Log().open()
    d_seq = log.seq + 1
    log.dev(add("search"), header_seq=d_seq + 1)
    log.header(SEARCH_V1)
    f.admit_error("dm-headerseq-forward", ["DM-003"],
                  "headerSeq names a request/header written after the developer/message.",
                  log, "DM_HEADER_SEQ_FORWARD")

    log = Log().open()
    log.header(SEARCH_V1)
    log.dev(add("search"), header_seq=log.seq + 1)
    # issue 21 C: the event itself is not earlier (forward, DM-003) and is a known event that
    # is no request/header (non-header, DM-005): either code passes
    f.admit_either("dm-headerseq-self", ["DM-003", "DM-D001"],
                   "headerSeq names the developer/message itself: not earlier, so forward "
                   "(rejected, DM-003); it also names a known event that is no request/header, "
                   "so either code is accepted (DM-D001).", log,
                   codes=("DM_HEADER_SEQ_FORWARD", "DM_HEADER_SEQ_NOT_HEADER"),
                   checks={"outcome": "DM-003", "error-code": "DM-D001"})

    log = Log().open()
    log.header(SEARCH_V1)
    log.dev(add("search"), header_seq=log.seq + 50)
    # issue 21 C: a seq past the end is both forward (DM-003) and names no event (DM-004);
    # the order in which a reader runs its checks never matters, so either code passes
    f.admit_either("dm-headerseq-beyond-end", ["DM-003", "DM-D001"],
                   "headerSeq names a seq beyond the end of the log: it is forward (rejected, "
                   "DM-003) and names no event, so either code is accepted (DM-D001).", log,
                   codes=("DM_HEADER_SEQ_FORWARD", "DM_HEADER_SEQ_UNKNOWN"),
                   checks={"outcome": "DM-003", "error-code": "DM-D001"})

    log = Log().open()
    o = log.opaque("x/request-header-draft",
                   header={"tools": [SEARCH_V1]}, note="an extension's record, not a header")
    log.dev(add("search"), header_seq=o)
    f.admit_error("dm-headerseq-unknown-record", ["DM-004", "DM-D001"],
                  "headerSeq names an ignorable record of a type the reader does not know (even "
                  "though it looks like it holds tools): the reader must not interpret it.",
                  log, "DM_HEADER_SEQ_UNKNOWN")

    log = Log()
    log.seq = 0  # this log numbers from 1 (CFP-D003: any origin), so seq 0 names nothing
    log.open()
    log.header(SEARCH_V1)
    log.dev(add("search"), header_seq=0)
    # issue 21 C: only a log numbered from above 0 has an earlier seq naming nothing, and a
    # reader requiring seq 0 (CFP-D003's other reading) rejects that log as DM_MALFORMED
    f.admit_either("dm-headerseq-before-the-first-event", ["DM-004", "DM-D001"],
                   "headerSeq 0 is earlier than the event but names nothing: the log's first "
                   "event is seq 1 (rejected, DM-004). A reader that requires seq 0 (CFP-D003 "
                   "accepts both readings of the origin) rejects the log as DM_MALFORMED first, "
                   "so either code is accepted (DM-D001).",
                   log, codes=("DM_HEADER_SEQ_UNKNOWN", "DM_MALFORMED"),
                   checks={"outcome": "DM-004", "error-code": "DM-D001"})


def _non_header_references(f: VectorFile) -> None:
    """headerSeq naming an earlier known event that is no request/header (DM-005)."""
    log = Log().open()
    log.header(SEARCH_V1)
    u = log.user()
    log.dev(add("search"), header_seq=u)
    f.admit_error("dm-headerseq-names-user-message", ["DM-005"],
                  "headerSeq names a user/message.", log, "DM_HEADER_SEQ_NOT_HEADER")

    log = Log().open()
    log.header(SEARCH_V1)
    r = log.dev(remove("grep"))
    log.dev(add("search"), header_seq=r)
    f.admit_error("dm-headerseq-names-developer-message", ["DM-005"],
                  "headerSeq names an earlier developer/message.", log, "DM_HEADER_SEQ_NOT_HEADER")

    log = Log()
    log.turn()
    s = log.step()
    log.header(SEARCH_V1)
    log.dev(add("search"), header_seq=s)
    f.admit_error("dm-headerseq-names-step-start", ["DM-005"],
                  "headerSeq names the step/start event.", log, "DM_HEADER_SEQ_NOT_HEADER")


def _definition_faults(f: VectorFile) -> None:
    """The referenced header defines the name ambiguously, not at all, or incompletely."""
    log = Log().open()
    h = log.header(SEARCH_V1, SEARCH_V2)
    log.dev(add("search"), header_seq=h)
    f.admit_error("dm-definition-ambiguous", ["DM-006"],
                  "The referenced header defines 'search' twice, differently.",
                  log, "DM_DEFINITION_AMBIGUOUS")

    log = Log().open()
    h = log.header(SEARCH_V1, READ, SEARCH_V1)
    log.dev(add("search"), header_seq=h)
    f.admit_error("dm-definition-ambiguous-identical", ["DM-006"],
                  "The referenced header holds two identical 'search' schemas: still not exactly "
                  "one.", log, "DM_DEFINITION_AMBIGUOUS")

    log = Log().open()
    h = log.header(READ)
    log.dev(add("search"), header_seq=h)
    f.admit_error("dm-definition-missing", ["DM-007"],
                  "The referenced header does not define the added name.",
                  log, "DM_DEFINITION_MISSING")

    log = Log().open()
    h = log.bare_header(config={"provider": "test", "model": "test"})
    log.dev(add("search"), header_seq=h)
    f.admit_error("dm-definition-missing-no-tools", ["DM-007"],
                  "The referenced header has no tools list at all.", log, "DM_DEFINITION_MISSING")

    log = Log().open()
    log.header(SEARCH_V1)
    h = log.header(READ, reason="change")
    log.dev(add("search"), header_seq=h)
    f.admit_error("dm-definition-missing-though-an-earlier-header-has-it", ["DM-007"],
                  "The referenced header does not define the added name; an earlier header does, "
                  "but only the referenced header counts.", log, "DM_DEFINITION_MISSING")

    incomplete = {
        "no-parameters": {"name": "search", "description": "Search"},
        "no-description": {"name": "search", "parameters": {"type": "object"}},
        "parameters-not-object": {"name": "search", "description": "Search",
                                  "parameters": "query:string"},
    }
    for label, bad in incomplete.items():
        log = Log().open()
        h = log.header(bad, READ)
        log.dev(add("search"), header_seq=h)
        f.admit_error(f"dm-definition-incomplete-{label}", ["DM-008", "DM-D002"],
                      f"The one 'search' schema of the referenced header is incomplete ({label}).",
                      log, "DM_DEFINITION_INCOMPLETE")


def _inline_and_revisions(f: VectorFile) -> None:
    """Inline definitions, header references where none belongs, one revision per event."""
    log = Log().open()
    h = log.header(SEARCH_V1)
    log.dev(add("search", tool=SEARCH_V1), header_seq=h)
    f.admit_error("dm-inline-definition", ["DM-009", "DM-010"],
                  "An addition carries the retired inline definition (`tool`) beside a valid "
                  "binding.", log, "DM_INLINE_DEFINITION")

    for label, value in {"null": None, "string": "search", "false": False, "empty-object": {},
                         "reference": {"type": "tool_reference", "name": "search"}}.items():
        log = Log().open()
        h = log.header(SEARCH_V1)
        log.dev(add("search", tool=value), header_seq=h)
        f.admit_error(f"dm-inline-tool-{label}", ["DM-010"],
                      f"The reserved `tool` field is present with a {label} value: rejected "
                      "whatever its value.", log, "DM_INLINE_DEFINITION")

    log = Log().open()
    h = log.header(SEARCH_V1)
    log.dev(remove("search"), header_seq=h)
    f.admit_error("dm-headerseq-on-removal-only", ["DM-011", "DM-015"],
                  "A removal-only message carries a header reference.",
                  log, "DM_HEADER_SEQ_UNEXPECTED")

    log = Log().open()
    h = log.header(SEARCH_V1)
    log.dev(header_seq=h)
    f.admit_error("dm-headerseq-on-empty-content", ["DM-011"],
                  "An empty developer message carries a header reference.",
                  log, "DM_HEADER_SEQ_UNEXPECTED")

    log = Log().open()
    h1 = log.header(SEARCH_V1)
    h2 = log.header(READ)
    log.dev(add("read_file"), add("search"), header_seq=h2)
    assert h1 < h2
    f.admit_error("dm-one-event-two-revisions", ["DM-012"],
                  "One event adds read_file (defined by the header it names) and search (defined "
                  "only by an earlier header): one event binds to one revision.",
                  log, "DM_DEFINITION_MISSING")

    log = Log().open()
    h1 = log.header(SEARCH_V1)
    h2 = log.header(READ)
    log.dev(add("read_file"), add("search", headerSeq=h1), header_seq=h2)
    f.admit_error("dm-per-block-headerseq-is-no-binding", ["DM-012"],
                  "An addition block carries its own headerSeq naming another revision; it is an "
                  "unrelated field, not a binding, so the event's header must define the name.",
                  log, "DM_DEFINITION_MISSING")


def _separate_revisions(f: VectorFile) -> None:
    """Additions of two revisions in separate events; an addition replaces the active one."""
    log = Log().open()
    h1 = log.header(SEARCH_V1)
    h2 = log.header(READ)
    d1 = log.dev(add("search"), header_seq=h1)
    d2 = log.dev(add("read_file"), header_seq=h2)
    f.case("dm-separate-events-per-revision", ["DM-013"],
           "Additions from two header revisions, each in its own event, each resolved from its own "
           "header.",
           {"log": log.json()},
           {ADMIT: out(admitted(
               record(d1, addition("search", SEARCH_V1), header_seq=h1),
               record(d2, addition("read_file", READ), header_seq=h2),
               active={"read_file": (h2, READ), "search": (h1, SEARCH_V1)}))})

    log = Log().open()
    h1 = log.header(SEARCH_V1)
    d1 = log.dev(add("search"), header_seq=h1)
    h2 = log.header(SEARCH_V2)
    d2 = log.dev(add("search"), header_seq=h2)
    f.case("dm-addition-replaces-active", ["DM-014", "DM-016"],
           "A second addition of 'search' bound to a newer header replaces the active definition; "
           "the first record keeps its own resolution.",
           {"log": log.json()},
           {ADMIT: out(admitted(
               record(d1, addition("search", SEARCH_V1), header_seq=h1),
               record(d2, addition("search", SEARCH_V2), header_seq=h2),
               active={"search": (h2, SEARCH_V2)}))})


def _removals(f: VectorFile) -> None:
    """Removals name only the tool; deferred schemas bind alike; headerSeq must be a seq."""
    log = Log().open()
    h = log.header(SEARCH_V1, READ)
    d1 = log.dev(add("search"), add("read_file"), header_seq=h)
    d2 = log.dev(remove("search"))
    f.case("dm-removal-names-only", ["DM-015", "DM-014"],
           "A removal carries only the name, no header reference, and deactivates it.",
           {"log": log.json()},
           {ADMIT: out(admitted(
               record(d1, addition("search", SEARCH_V1), addition("read_file", READ), header_seq=h),
               record(d2, removal("search")),
               active={"read_file": (h, READ)}))})

    log = Log().open()
    h = log.header(SEARCH_V1)
    d1 = log.dev(remove("search"), add("search"), header_seq=h)
    f.case("dm-removal-then-addition-in-one-event", ["DM-015", "DM-014"],
           "A removal and a re-addition of the same name in one event apply in content order.",
           {"log": log.json()},
           {ADMIT: out(admitted(
               record(d1, removal("search"), addition("search", SEARCH_V1), header_seq=h),
               active={"search": (h, SEARCH_V1)}))})

    log = Log().open()
    d = log.dev(remove("never_added"))
    f.case("dm-removal-without-any-header", ["DM-015"],
           "A removal needs no request/header at all, not even an earlier one in the log.",
           {"log": log.json()},
           {ADMIT: out(admitted(record(d, removal("never_added"))))})

    log = Log().open()
    h = log.header(DEFERRED_SEARCH, READ)
    d = log.dev(add("search"), add("read_file"), header_seq=h)
    f.case("dm-addition-binds-deferred-and-plain-schemas", ["DM-049", "DM-047", "DM-001"],
           "An addition may bind to a deferred schema or a plain one alike; the resolved "
           "definition keeps deferLoading exactly as the header has it.",
           {"log": log.json()},
           {ADMIT: out(admitted(
               record(d, addition("search", DEFERRED_SEARCH), addition("read_file", READ),
                      header_seq=h),
               active={"read_file": (h, READ), "search": (h, DEFERRED_SEARCH)}))})

    # issue 21 C: an ill-typed headerSeq is malformed (DM_MALFORMED) and names no event
    # (DM_HEADER_SEQ_UNKNOWN); a null one also reads as no headerSeq (DM_HEADER_SEQ_MISSING)
    for label, value, other, why in (
            ("string", str(2), "DM_HEADER_SEQ_UNKNOWN", "names no event"),
            ("negative", -1, "DM_HEADER_SEQ_UNKNOWN", "names no event"),
            ("float", 2.5, "DM_HEADER_SEQ_UNKNOWN", "names no event"),
            ("null", None, "DM_HEADER_SEQ_MISSING", "reads as no headerSeq")):
        log = Log().open()
        log.header(SEARCH_V1)
        log.dev(add("search"), header_seq=value)
        f.admit_either(f"dm-headerseq-not-a-seq-{label}", ["DM-D001"],
                       f"headerSeq is not a non-negative integer ({label}): DM_MALFORMED; it "
                       f"also {why}, so {other} is accepted too (DM-D001).", log,
                       codes=("DM_MALFORMED", other))
