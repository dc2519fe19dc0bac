"""reading.json: reading and writing developer records (DM-026..DM-035)."""

from __future__ import annotations

import copy

from .build import (
    ADMIT,
    APPEND,
    READ,
    ROUNDTRIP,
    SEARCH_V1,
    T0,
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
    f = VectorFile("reading", "Reading and writing: unknown fields preserved, required fields, "
                   "extra fields that cannot weaken checks, open steps, ignorable markers, "
                   "writers (DM-026..DM-035).")
    for section in (_roundtrip, _append, _required_fields, _extra_fields, _open_steps,
                    _ignorable_and_ordinary):
        section(f)
    return f


def _fresh() -> tuple[Log, int]:
    """An open turn and step with one request/header defining search v1, and its seq."""
    log = Log().open()
    return log, log.header(SEARCH_V1)


def _roundtrip(f: VectorFile) -> None:
    """Unknown fields survive read and re-write; developer records stay developer records."""
    # v4's header and envelope are closed key sets (format.ts, the v3-to-v4 README): the fields
    # there that the developer reader does not interpret are v4's own optional ones.
    log = Log(cwd="/work", agentPreset="reviewer")
    log.turn()
    log.step()
    h = log.header({**SEARCH_V1, "annotations": {"readOnly": True}, "x-origin": "mcp"},
                   READ, reason="initial", headerMetadata=[1, 2])
    d = log.dev(
        add("search", note="kept on the block", rank=1),
        remove("grep", why="retired"),
        header_seq=h,
        message_extra={"createdAt": T0, "x-ui": {"collapsed": True}},
        envelope={"surfaceOp": "append", "sourceEventSeqs": [h]},
        x_data_field="kept on data", producer={"name": "tools", "version": 3},
    )
    log.opaque("x/future-record", payload={"nested": [1, {"deep": None}]})
    log.user("after", userExtra=True)
    full = log.json()
    expected = admitted(
        record(d, addition("search", {**SEARCH_V1, "annotations": {"readOnly": True},
                                      "x-origin": "mcp"}), removal("grep"), header_seq=h),
        active={"search": (h, {**SEARCH_V1, "annotations": {"readOnly": True},
                               "x-origin": "mcp"})})
    f.case("dm-roundtrip-keeps-unrelated-fields", ["DM-026", "DM-035"],
           "Fields the developer reader does not interpret (the header's agentPreset, the "
           "envelope's sourceEventSeqs, unknown fields on data, message, blocks and tool "
           "schemas) and an opaque record survive read and re-write exactly; the developer "
           "record stays a developer record.",
           {"log": full},
           {ROUNDTRIP: out({"log": full}), ADMIT: out(expected)})

    log = Log().open()
    log.header(SEARCH_V1)
    log.user()
    h = log.header(SEARCH_V1, READ, reason="change")
    log.dev(add("read_file"), header_seq=h)
    log.dev(remove("search"))
    f.case("dm-adoption-keeps-developer-records", ["DM-052"],
           "An installed session holding an addition and a removal is adopted (read and written "
           "back): both stay developer/message records with the developer role; neither becomes "
           "a released-V3 user record.",
           {"log": log.json()},
           {ROUNDTRIP: out({"log": log.json()})})


def _append(f: VectorFile) -> None:
    """The writer appends a valid developer/message and refuses malformed ones."""
    log = Log().open()
    h = log.header(SEARCH_V1)
    prefix = log.json()
    event = {"type": "developer/message", "time": T0 + 50_000,
             "data": {"turn": 1, "step": 1, "headerSeq": h, "x-extra": {"kept": [1, 2]},
                      "message": {"id": "d-new", "role": "developer",
                                  "source": {"kind": "tool-registry"},
                                  "content": [add("search", note="kept")]}},
             "x-envelope": "kept"}
    f.case("dm-append-writes-with-fields-intact", ["DM-033", "DM-026"],
           "The writer appends a valid developer/message: it assigns the next seq and keeps every "
           "other field as given.",
           {"log": prefix, "event": event},
           {APPEND: out({"event": {**copy.deepcopy(event), "seq": h + 1}})})

    bad_events = {
        "missing-turn": (lambda e: e["data"].pop("turn"), "DM_MALFORMED"),
        "unbound-addition": (lambda e: e["data"].pop("headerSeq"), "DM_HEADER_SEQ_MISSING"),
        "inline-definition": (lambda e: e["data"]["message"]["content"][0].update(tool=SEARCH_V1),
                              "DM_INLINE_DEFINITION"),
        # text only and unbound: a user-role message holding a tool change would fit
        # DM_TOOL_CHANGE_NOT_DEVELOPER as well (issue 21 C)
        "not-developer-role": (lambda e: (e["data"].pop("headerSeq"), e["data"]["message"].update(
            role="user", content=[{"type": "text", "text": "x"}])),
                               "DM_ROLE_MISMATCH"),
    }
    for label, (mutate, code) in bad_events.items():
        bad = copy.deepcopy(event)
        mutate(bad)
        f.case(f"dm-append-refuses-{label}", ["DM-033"],
               f"The writer refuses to append a malformed developer/message ({label}).",
               {"log": prefix, "event": bad}, {APPEND: err(code)})


def _required_fields(f: VectorFile) -> None:
    """A required developer field missing or ill-typed."""
    for label, mutate in {
        "turn": lambda d: d.pop("turn"),
        "step": lambda d: d.pop("step"),
        # issue 21 C: without its message or content array the event has no additions to
        # tell, so a headerSeq beside them would fit DM_HEADER_SEQ_UNEXPECTED as well: none
        "message": lambda d: (d.pop("headerSeq"), d.pop("message")),
        "content": lambda d: (d.pop("headerSeq"), d["message"].pop("content")),
        "content-not-array": lambda d: (d.pop("headerSeq"), d["message"].update(
            content={"type": "text", "text": "x"})),
        "turn-not-integer": lambda d: d.update(turn="1"),
        "toolname": lambda d: d["message"]["content"][0].pop("toolName"),
        "removal-toolname": lambda d: d["message"]["content"].append({"type": "tool-removal"}),
        "removal-toolname-empty": lambda d: d["message"]["content"].append(
            {"type": "tool-removal", "toolName": ""}),
    }.items():
        log, h = _fresh()
        log.dev(add("search"), header_seq=h)
        mutate(log.lines[-1]["data"])
        f.admit_error(f"dm-required-{label}", ["DM-027"],
                      f"A required developer field is missing or ill-typed ({label}).",
                      log, "DM_MALFORMED")
    # issue 21 C: an addition's toolName that is present but empty or not a string is
    # malformed (DM-027) and names a tool the bound header does not define (DM-007) alike
    for label, name in (("toolname-empty", ""), ("toolname-not-string", ["search"])):
        log, h = _fresh()
        log.dev(add("search"), header_seq=h)
        log.lines[-1]["data"]["message"]["content"][0]["toolName"] = name
        f.admit_either(f"dm-required-{label}", ["DM-027", "DM-D001"],
                       f"A required developer field is ill-typed ({label}): DM_MALFORMED; the "
                       "bound header has no schema of that name either, so "
                       "DM_DEFINITION_MISSING is accepted too (DM-D001).", log,
                       codes=("DM_MALFORMED", "DM_DEFINITION_MISSING"),
                       checks={"outcome": "DM-027", "error-code": "DM-D001"})


def _extra_fields(f: VectorFile) -> None:
    """Extra fields never stand in for a required field, a role or an open step."""
    log, h = _fresh()
    log.dev(add("search"), header_seq=h, turnNumber=1, coordinates={"turn": 1, "step": 1})
    log.lines[-1]["data"].pop("turn")
    f.admit_error("dm-extra-fields-do-not-supply-turn", ["DM-028", "DM-027"],
                  "turn is missing; extra fields (turnNumber, coordinates) do not stand in for it.",
                  log, "DM_MALFORMED")

    log, h = _fresh()
    log.dev({"type": "tool-addition", "name": "search", "tool_name": "search"}, header_seq=h)
    f.admit_error("dm-extra-fields-do-not-supply-toolname", ["DM-028", "DM-027"],
                  "An addition has no toolName; name / tool_name aliases do not stand in for it.",
                  log, "DM_MALFORMED")

    log, h = _fresh()
    log.dev({"type": "text", "text": "x"},
            message_extra={"developer": True, "trueRole": "developer"})
    log.lines[-1]["data"]["message"]["role"] = "user"  # text only: no tool change in it
    f.admit_error("dm-extra-fields-do-not-make-a-developer", ["DM-029", "DM-036"],
                  "The developer/message's message has role user; extra fields claiming a "
                  "developer role do not change that.", log, "DM_ROLE_MISMATCH")

    log = Log().open()
    log.user("hi", isDeveloper=False, displayRole="user")
    log.lines[-1]["data"]["role"] = "developer"
    f.admit_error("dm-extra-fields-do-not-excuse-a-developer-role", ["DM-029", "DM-037"],
                  "A user/message slot holds a developer-role message; extra fields claiming it "
                  "is a user message do not excuse it.", log, "DM_ROLE_CONFINED")

    log = Log().open()
    h = log.header(SEARCH_V1)
    log.end_step()
    log.dev(add("search"), header_seq=h, stepOpen=True, envelope={"openStep": {"turn": 1,
                                                                               "step": 1}})
    f.admit_error("dm-extra-fields-do-not-open-a-step", ["DM-030", "DM-031"],
                  "The step has ended; extra fields claiming it is open do not admit the event.",
                  log, "DM_STEP_NOT_OPEN")


def _open_steps(f: VectorFile) -> None:
    """A developer/message is admitted only inside an open step."""
    log = Log().open()
    h = log.header(SEARCH_V1)
    d = log.dev(add("search"), header_seq=h)
    log.end_step()
    log.step(1, 2)
    d2 = log.dev(remove("search"), step=2)
    f.case("dm-open-step-admits", ["DM-031"],
           "Developer messages inside open steps (step 1, then step 2 of the same turn) are "
           "admitted with their coordinates.",
           {"log": log.json()},
           {ADMIT: out(admitted(record(d, addition("search", SEARCH_V1), header_seq=h),
                                record(d2, removal("search"), step=2)))})

    log = Log().open()
    h = log.header(SEARCH_V1)
    log.dev(add("search"), header_seq=h, step=2)
    f.admit_error("dm-step-not-started", ["DM-031"],
                  "The developer/message names step 2, which has not started.",
                  log, "DM_STEP_NOT_OPEN")

    log = Log().open()
    h = log.header(SEARCH_V1)
    log.end_step()
    log.dev(add("search"), header_seq=h)
    f.admit_error("dm-step-ended", ["DM-031"],
                  "The developer/message names step 1 after its step/end.", log, "DM_STEP_NOT_OPEN")

    log = Log().open()
    h = log.header(SEARCH_V1)
    log.end_turn()
    log.turn(2)
    log.dev(add("search"), header_seq=h, turn=1)
    f.admit_error("dm-turn-ended", ["DM-031"],
                  "The developer/message names turn 1 step 1 after turn 1 ended.",
                  log, "DM_STEP_NOT_OPEN")

    log = Log()
    h = log.header(SEARCH_V1)
    log.dev(add("search"), header_seq=h)
    f.admit_error("dm-no-step-at-all", ["DM-031"],
                  "A developer/message before any turn or step.", log, "DM_STEP_NOT_OPEN")


def _ignorable_and_ordinary(f: VectorFile) -> None:
    """The ignorable marker never hides a known type; other slots are not ours."""
    log, h = _fresh()
    log.dev(add("search"), header_seq=h, envelope={"ignorable": True})
    log.lines[-1]["data"].pop("step")
    f.admit_error("dm-ignorable-malformed-developer", ["DM-032", "DM-027"],
                  "A developer/message marked ignorable lacks its step: the marker does not make "
                  "the reader skip a type it knows.", log, "DM_MALFORMED")

    log, h = _fresh()
    log.dev(add("search"), envelope={"ignorable": True})
    f.admit_error("dm-ignorable-unbound-developer", ["DM-032", "DM-002"],
                  "A developer/message marked ignorable has an addition without headerSeq.",
                  log, "DM_HEADER_SEQ_MISSING")

    log = Log().open()
    h = log.header(SEARCH_V1)
    log.event("user/message", {"role": "user", "content": "not an array", "source": {}})
    log.event("assistant/attempt", {"turn": 1, "step": 1,
                                    "message": {"role": "assistant", "content": [{"text": 1}]}})
    d = log.dev(add("search"), header_seq=h)
    f.case("dm-ordinary-malformations-left-to-decoder", ["DM-034"],
           "Ordinary message slots with malformations unrelated to developer rules (content not "
           "an array, a block without type) are not developer admission's to reject.",
           {"log": log.json()},
           {ADMIT: out(admitted(record(d, addition("search", SEARCH_V1), header_seq=h),
                                active={"search": (h, SEARCH_V1)}))})
