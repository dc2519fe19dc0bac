"""Hypothesis properties of developer admission.

* read then write preserves every unknown field, at every level of the log;
* admission is independent of the current registry;
* a fork at any point resolves the inherited records exactly as the parent did;
* a migration dropping opaque records keeps every resolution (headerSeq remapped).
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tck.harness.families import run_operation
from agent_tck.reference_impl.developer_messages import admission as dm

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
T0 = 1767225600000
NAMES = ("search", "read_file", "grep", "edit")

json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=6))
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=8,
)
# unknown members: never a name this family (or the envelope) interprets
extra_key = st.text(alphabet="abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=8).map(
    lambda k: f"x-{k}")
extras = st.dictionaries(extra_key, json_value, max_size=2)


def schema(name: str, version: int, deferred: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "description": f"{name} v{version}",
                           "parameters": {"type": "object", "properties": {}}}
    if deferred:
        out["deferLoading"] = True
    return out


@st.composite
def sessions(draw: st.DrawFn) -> dict[str, Any]:
    """A valid log: headers defining each name once, developer messages bound to earlier
    headers, opaque records and user messages in between, unknown members everywhere."""
    lines: list[dict[str, Any]] = [{"type": "session", "version": 4, "id": "s",
                                    "createdAt": T0, **draw(extras)}]
    seq = draw(st.integers(0, 3))
    headers: dict[int, list[str]] = {}
    opaque: list[int] = []

    def emit(etype: str, data: dict[str, Any], **envelope: Any) -> int:
        nonlocal seq
        seq += 1
        lines.append({"type": etype, "seq": seq, "time": T0 + seq, "data": data,
                      **envelope, **draw(extras)})
        return seq

    emit("turn/start", {"turn": 1})
    emit("step/start", {"turn": 1, "step": 1})
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["header", "developer", "opaque", "user"]))
        if kind == "header" or not headers:
            names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3, unique=True))
            version = draw(st.integers(1, 9))
            tools = [{**schema(n, version, draw(st.booleans())), **draw(extras)} for n in names]
            at = emit("request/header", {"reason": "change", "header": {"tools": tools},
                                         **draw(extras)})
            headers[at] = names
        elif kind == "developer":
            ref = draw(st.sampled_from(sorted(headers)))
            added = draw(st.lists(st.sampled_from(headers[ref]), max_size=2, unique=True))
            removed = draw(st.lists(st.sampled_from(NAMES), max_size=1))
            blocks = [{"type": "tool-addition", "toolName": n, **draw(extras)} for n in added]
            blocks += [{"type": "tool-removal", "toolName": n, **draw(extras)} for n in removed]
            data: dict[str, Any] = {
                "turn": 1, "step": 1,
                "message": {"role": "developer", "content": draw(st.permutations(blocks)),
                            **draw(extras)},
                **draw(extras),
            }
            if added:
                data["headerSeq"] = ref
            emit("developer/message", data)
        elif kind == "opaque":
            opaque.append(emit("x/record", {"payload": draw(json_value)}, ignorable=True))
        else:
            emit("user/message", {"role": "user", "content": [{"type": "text", "text": "q"}],
                                  **draw(extras)})
    return {"log": lines, "opaque": opaque}


@SETTINGS
@given(sessions())
def test_read_then_write_preserves_every_unknown_field(session):
    log = session["log"]
    before = copy.deepcopy(log)
    written = run_operation("developer-messages.roundtrip", {"log": log})["log"]
    assert written == before
    assert log == before  # and the input is untouched


@SETTINGS
@given(sessions(), st.lists(st.builds(schema, st.sampled_from(NAMES), st.integers(10, 20),
                                      st.booleans()), max_size=4))
def test_admission_is_independent_of_the_current_registry(session, registry):
    plain = run_operation("developer-messages.admit", {"log": session["log"]})
    with_registry = run_operation("developer-messages.admit",
                                  {"log": session["log"], "registry": registry})
    assert with_registry == plain
    # and every addition resolves to the schema its own header holds for the name
    by_seq = {line["seq"]: line for line in session["log"][1:]}
    for record in plain["developerMessages"]:
        for change in record["changes"]:
            if change["kind"] == "addition":
                tools = by_seq[record["headerSeq"]]["data"]["header"]["tools"]
                assert [t for t in tools if t["name"] == change["toolName"]] == [
                    change["definition"]]


@SETTINGS
@given(sessions(), st.data())
def test_a_fork_resolves_inherited_records_as_the_parent_did(session, data):
    log = session["log"]
    at = data.draw(st.sampled_from([line["seq"] for line in log[1:]]))
    parent = run_operation("developer-messages.admit", {"log": log})
    child = run_operation("developer-messages.fork", {"log": log, "at": at})
    inherited = [r for r in parent["developerMessages"] if r["seq"] <= at]
    assert child["developerMessages"] == inherited
    prefix = run_operation("developer-messages.admit",
                           {"log": [line for line in log if line.get("seq", -1) <= at]})
    assert child == prefix


@SETTINGS
@given(sessions())
def test_dropping_opaque_records_keeps_every_resolution(session):
    log, dropped = session["log"], session["opaque"]
    migrated = run_operation("developer-messages.remap", {"log": log, "drop": dropped})["log"]
    seqs = [line["seq"] for line in migrated[1:]]
    assert seqs == list(range(log[1]["seq"], log[1]["seq"] + len(seqs)))
    before = run_operation("developer-messages.admit", {"log": log})
    after = run_operation("developer-messages.admit", {"log": migrated})

    def definitions(admission: dict[str, Any]) -> list[list[Any]]:
        return [[(c["kind"], c["toolName"], c.get("definition")) for c in r["changes"]]
                for r in admission["developerMessages"]]

    assert definitions(after) == definitions(before)


@SETTINGS
@given(sessions(), st.sampled_from(NAMES))
def test_an_unbound_addition_is_rejected_wherever_it_comes(session, name):
    log = session["log"]
    last = log[-1]["seq"]
    event = {"type": "developer/message", "seq": last + 1, "time": T0,
             "data": {"turn": 1, "step": 1,
                      "message": {"role": "developer",
                                  "content": [{"type": "tool-addition", "toolName": name}]}}}
    try:
        dm.admit([*log, event])
    except dm.DeveloperMessageError as err:
        assert (err.code, err.seq, err.rule) == ("DM_HEADER_SEQ_MISSING", last + 1, "DM-002")
    else:
        raise AssertionError("an addition without headerSeq was admitted")
