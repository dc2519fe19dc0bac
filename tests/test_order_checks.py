"""Order checks, ``order:<JSON pointer>`` (review of h1, F1): a JSON pointer cannot isolate an
order, so an array's order is a check of its own (the sequence of its elements' identities,
all of them or a listed subset), charged to the rule the vector names, and the array's content
is compared with the order folded, charged as ``output`` is. An allowed reorder fails only
MP-030 (arrival order, SHOULD); hoisting reasoning fails MP-031 (MUST); a part on the wrong
surface fails the content's MUST, whatever the order."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.contract.vectors import Case, load_cases, load_file
from agent_tck.harness.run.checks import check_names
from agent_tck.harness.run.evaluate import Judgment, judge
from agent_tck.harness.run.order import fold_orders, parse_order
from agent_tck.harness.run.targets import InProcessTarget
from agent_tck.reference_impl.message_parts.ops import OPERATIONS

HOISTED = "mp-order-reasoning-not-hoisted"
TOOLS = "mp-order-tools-not-pushed-to-end"
RUNNING = "mp-order-running-turn-interleaves"
PARTS, PROJECT = "message-parts.parts", "message-parts.project"
CASES = {c.id: c for c in load_cases() if c.family == "message-parts"}


def _judge(case_id: str, operation: str, edit: Any) -> Judgment:
    """The reference's output for the case with its first turn edited by ``edit``."""
    def edited(payload: Any) -> Any:
        value = copy.deepcopy(OPERATIONS[operation](payload))
        edit(value["turns"][0])
        return value

    case = CASES[case_id]
    exp = next(e for e in case.expect if e.operation == operation)
    judgment, _ = judge(InProcessTarget({operation: edited}), case, exp)
    return judgment


def _failed(case_id: str, operation: str, edit: Any) -> set[str]:
    return set(_judge(case_id, operation, edit).failed_rules)


def _order(*ids: str, key: str = "parts", member: str = "id") -> Any:
    def edit(turn: dict[str, Any]) -> None:
        by_id = {p[member]: p for p in turn[key]}
        turn[key] = [by_id[i] for i in ids]
    return edit


def _set(pid: str, key: str = "parts", member: str = "id", **changes: Any) -> Any:
    def edit(turn: dict[str, Any]) -> None:
        next(p for p in turn[key] if p[member] == pid).update(changes)
    return edit


def test_the_order_checks_are_checks_of_their_own_and_the_reference_passes_them():
    exp = next(e for e in CASES[HOISTED].expect if e.operation == PARTS)
    assert check_names(exp)[-2:] == ("order:/turns/0/parts", "order:/turns/0/parts[a1,r1]")
    for case_id, op in ((HOISTED, PARTS), (HOISTED, PROJECT), (TOOLS, PARTS), (RUNNING, PARTS)):
        judgment = _judge(case_id, op, lambda turn: None)
        assert not judgment.failed_rules, judgment


# ---- (1) an allowed reorder fails only MP-030 ----------------------------------------------------


@pytest.mark.parametrize(("case_id", "op", "edit"), [
    (HOISTED, PARTS, _order("u1", "a1", "a2", "r1")),      # reasoning still after a1
    (HOISTED, PROJECT, _order("u1", "a1", "a2", "r1", key="items", member="part")),
    (TOOLS, PARTS, _order("u1", "c1", "res1", "a1", "a2")),  # tools moved up, not to the end
    (TOOLS, PARTS, _order("u1", "a1", "res1", "c1", "a2")),
    (RUNNING, PARTS, _order("u1", "c1", "r1", "a1")),
])
def test_an_allowed_reorder_fails_the_arrival_order_only(case_id, op, edit):
    judgment = _judge(case_id, op, edit)
    assert set(judgment.failed_rules) == {"MP-030"}
    failing = {c.check for c in judgment.checks if c.status == "fail"}
    assert failing == {f"order:/turns/0/{'items' if op == PROJECT else 'parts'}"}


# ---- (2) hoisting reasoning fails MP-031, pushing tools to the end MP-032 -----------------------


@pytest.mark.parametrize("ids", [("u1", "r1", "a1", "a2"), ("r1", "u1", "a1", "a2")])
def test_hoisting_the_reasoning_fails_mp031_and_the_arrival_order(ids):
    assert _failed(HOISTED, PARTS, _order(*ids)) == {"MP-030", "MP-031"}
    assert _failed(HOISTED, PROJECT, _order(*ids, key="items", member="part")) == {
        "MP-030", "MP-031"}


def test_pushing_a_tool_to_the_end_fails_mp032_and_the_arrival_order():
    judgment = _judge(TOOLS, PARTS, _order("u1", "a1", "c1", "a2", "res1"))
    assert set(judgment.failed_rules) == {"MP-030", "MP-032"}
    assert {c.check for c in judgment.checks if c.status == "fail"} == {
        "order:/turns/0/parts", "order:/turns/0/parts[res1,a2]"}
    assert _failed(TOOLS, PARTS, _order("u1", "a1", "a2", "c1", "res1")) == {"MP-030", "MP-032"}


# ---- (3) a content difference inside the list fails the MUST, in any order -----------------------


@pytest.mark.parametrize(("case_id", "op", "edit", "must"), [
    (HOISTED, PARTS, _set("r1", surface="Conversation", behaviour="render_as_final_answer"),
     "MP-031"),
    (HOISTED, PARTS, _set("a2", text="It is 41."), "MP-031"),
    (HOISTED, PARTS, lambda turn: turn["parts"].pop(2), "MP-031"),  # r1 dropped
    (HOISTED, PROJECT, _set("r1", key="items", member="part", display="shown"), "MP-031"),
    (TOOLS, PARTS, _set("res1", output='{"sky": "cl'), "MP-032"),
    (TOOLS, PARTS, _set("c1", surface="Conversation"), "MP-032"),
    (RUNNING, PARTS, _set("a1", surface="Process"), "MP-105"),
])
def test_a_content_difference_inside_an_ordered_list_fails_the_must(case_id, op, edit, must):
    assert _failed(case_id, op, edit) == {must}


def test_a_content_difference_and_a_reorder_fail_each_its_own_rule():
    def both(turn: dict[str, Any]) -> None:
        _order("u1", "a1", "a2", "r1")(turn)
        _set("r1", surface="Conversation")(turn)

    judgment = _judge(HOISTED, PARTS, both)
    assert set(judgment.failed_rules) == {"MP-030", "MP-031"}
    failing = {(c.check, c.rule) for c in judgment.checks if c.status == "fail"}
    assert failing == {("order:/turns/0/parts", "MP-030"), ("output", "MP-031")}
    # the content is compared at the expected element's place, whatever the actual order
    message = next(c.message for c in judgment.checks if c.check == "output")
    assert message.startswith("/turns/0/parts/2/surface")


def test_folding_ignores_what_is_missing_or_extra_and_reports_it_as_content():
    expected = {"list": [{"id": "a"}, {"id": "b"}, {"id": "c"}]}
    actual = {"list": [{"id": "c"}, {"x": 1}, {"id": "a"}, {"id": "z"}]}
    folded, held = fold_orders(expected, actual, (parse_order("order:/list"),
                                                  parse_order("order:/list[a,c]")))
    assert held == {"order:/list": "order /list: expected a, c; got c, a",
                    "order:/list[a,c]": "order /list: expected a, c; got c, a"}
    assert folded == {"list": [{"id": "a"}, {"id": "c"}, {"x": 1}, {"id": "z"}]}
    assert actual["list"][0] == {"id": "c"}  # pure


# ---- (4) bad attributions are refused with the file and the pointer -----------------------------


def _vector(tmp_path: Path, checks: dict[str, str], spec: Any = None) -> Path:
    case: Case = CASES[HOISTED]
    exp = next(e for e in case.expect if e.operation == PARTS)
    path = tmp_path / "v.json"
    path.write_text(json.dumps({"family": "message-parts", "cases": [{
        "id": "x", "rules": list(case.rules), "description": "", "input": case.input,
        "expect": {PARTS: {**(spec or {"output": exp.output}), "checks": checks}}}]}),
        encoding="utf-8")
    return path


@pytest.mark.parametrize(("name", "spec", "why"), [
    ("order:/turns/0", None, "not an array"),
    ("order:/turns/0/nothing", None, "names nothing"),
    ("order:/turns/0/parts[a1]", None, "two or more"),
    ("order:/turns/0/parts[a1,a1]", None, "two or more"),
    ("order:/turns/0/parts[a1,zz]", None, "zz not among the elements"),
    ("order:/turns/0/parts[r1,a1]", None, "not the expected output's own order"),
    ("order:/turns/0/parts", {"output": {"turns": [{"parts": [{"id": "a"}, {"kind": "x"}]}]}},
     "have no identity"),
    ("order:/turns/0/parts", {"output": {"turns": [{"parts": [{"id": "a"}, {"id": "a"}]}]}},
     "have no identity"),
    ("order:/turns/0/parts", {"error": {"code": "INVALID_PARTS"}}, "does not exist"),
    ("order:/turns/0/parts", {"alternatives": [{"output": {}}, {"output": {"turns": []}}]},
     "single expected output"),
])
def test_a_bad_order_attribution_is_refused_with_file_and_pointer(tmp_path, name, spec, why):
    path = _vector(tmp_path, {name: "MP-030"}, spec)
    with pytest.raises(HarnessError) as caught:
        load_file(path)
    assert caught.value.code == "VECTOR_INVALID"
    token = name.replace("~", "~0").replace("/", "~1")
    assert caught.value.where == f"{path}#/cases/0/expect/{PARTS}/checks/{token}"
    assert why in str(caught.value)


def test_an_order_check_the_schema_does_not_know_is_refused(tmp_path):
    with pytest.raises(HarnessError) as caught:
        load_file(_vector(tmp_path, {"order:turns": "MP-030"}))
    assert caught.value.code == "VECTOR_INVALID"
    assert str(tmp_path / "v.json") in str(caught.value.where)


# ---- review of the merged tree: no order seen is not a pass; a subset needs the whole ---------


def test_a_subset_order_check_alone_is_refused(tmp_path):
    # the fold puts every element in the expected order: alone, a subset would leave the order
    # of the unlisted elements checked by nothing
    path = _vector(tmp_path, {"order:/turns/0/parts[a1,r1]": "MP-031"})
    with pytest.raises(HarnessError) as caught:
        load_file(path)
    assert "needs the whole array's order check beside it" in str(caught.value)


def test_a_pointer_token_of_non_ascii_digits_is_refused_not_raised(tmp_path):
    with pytest.raises(HarnessError) as caught:
        load_file(_vector(tmp_path, {"order:/turns/\u00b2": "MP-030"}))
    assert caught.value.code == "VECTOR_INVALID" and "names nothing" in str(caught.value)


def _statuses(judgment: Judgment) -> dict[str, str]:
    return {c.check: c.status for c in judgment.checks}


@pytest.mark.parametrize("edit", [
    lambda turn: turn.update(parts=[]),
    lambda turn: turn.update(parts=[1, 2, 3]),
    lambda turn: turn.update(parts={"not": "an array"}),
    lambda turn: turn.update(parts=[{k: v for k, v in p.items() if k != "id"}
                                    for p in turn["parts"]][::-1]),
], ids=["empty", "not-objects", "not-an-array", "reversed-without-ids"])
def test_an_order_with_nothing_to_see_is_not_applicable_and_the_content_fails(edit):
    judgment = _judge(HOISTED, PARTS, edit)
    statuses = _statuses(judgment)
    assert statuses["order:/turns/0/parts"] == "not-applicable"
    assert statuses["order:/turns/0/parts[a1,r1]"] == "not-applicable"
    assert "MP-031" in judgment.failed_rules  # the content's MUST
    assert "MP-030" not in judgment.failed_rules


def test_a_reversed_array_keeping_two_ids_still_fails_the_order():
    def edit(turn: dict[str, Any]) -> None:
        parts = turn["parts"][::-1]
        turn["parts"] = [p if i < 2 else {k: v for k, v in p.items() if k != "id"}
                         for i, p in enumerate(parts)]
    assert "MP-030" in _judge(RUNNING, PARTS, edit).failed_rules
