"""Attributions keep every cited rule tested (issue 21, the coverage regression of 1d86dd5): a
case that charges its checks to its MUST alone leaves the SHOULD it also cites without a check,
and the rule reads *untested*. A SHOULD whose evidence is a part of an output the MUST also
governs gets that part as a check of its own, nested in the MUST's (vectors/README.md
"Checks"), so a difference there fails both and a MUST violation never only the SHOULD."""

from __future__ import annotations

import copy
from typing import Any

from agent_tck.harness.contract.catalogue import load_catalogue
from agent_tck.harness.contract.vectors import Case, load_cases
from agent_tck.harness.run.checks import OBSERVATION_RULE, check_names
from agent_tck.harness.run.evaluate import judge
from agent_tck.harness.run.outcome import Output, Rejected
from agent_tck.harness.run.targets import InProcessTarget


def _charged() -> set[str]:
    """Every rule some check of some case is charged to."""
    out = {OBSERVATION_RULE}
    for case in load_cases():
        for exp in case.expect:
            for name in check_names(exp):
                named = exp.attributed(name)
                out.update((named,) if named else case.rules_for(exp))
    return out


def test_every_rule_a_case_cites_has_a_check_charged_to_it():
    """A rule cited by a vector but charged no check is untested in every run."""
    cited = {rule for case in load_cases() for rule in case.rules}
    assert sorted(cited - _charged()) == []


def test_every_rule_cited_in_vectors_is_in_the_catalogue_at_a_level():
    level = {r.id: r.level for r in load_catalogue().rules}
    assert {rule for case in load_cases() for rule in case.rules} <= set(level)


def _case(case_id: str) -> Case:
    return next(c for c in load_cases() if c.id == case_id)


class _Edited(InProcessTarget):
    """The reference, with its output edited by ``edit``."""

    def __init__(self, edit: Any) -> None:
        super().__init__()
        self._edit = edit

    def call(self, operation, payload, case=None, observe=False):  # type: ignore[override]
        result = super().call(operation, payload, case, observe)
        value = copy.deepcopy(result.value)  # type: ignore[union-attr]
        self._edit(value)
        return type(result)(value)  # type: ignore[call-arg]


def _failed_on(target: InProcessTarget, case_id: str, operation: str) -> set[str]:
    """The rules whose checks fail when ``target`` answers ``case_id``'s ``operation``."""
    case = _case(case_id)
    exp = next(e for e in case.expect if e.operation == operation)
    judgment, _ = judge(target, case, exp)
    return set(judgment.failed_rules)


def _failed(case_id: str, operation: str, edit: Any) -> set[str]:
    """The rules whose checks fail when the reference's output for ``case_id`` is edited."""
    return _failed_on(_Edited(edit), case_id, operation)


def test_a_part_nested_in_the_musts_output_fails_the_should_and_the_must():
    """A tool log in the answer is MP-D019's (MUST) and MP-051's (SHOULD) both."""
    def leak(value: Any) -> None:
        value["turns"][0]["segments"].append({"part": "log", "text": "retrying socket"})

    assert _failed("mp-answer-no-raw-tool-logs", "message-parts.answer", leak) == {
        "MP-D019", "MP-051"}


def test_a_branch_keeping_another_mode_fails_mp092_and_the_decision():
    def other_mode(value: Any) -> None:
        value["turns"][1]["mode"] = "default"

    assert _failed("mp-branch-keeps-user-context-mode-artifacts", "message-parts.branches",
                   other_mode) == {"MP-D018", "MP-092"}


def test_usage_dropped_on_read_fails_the_may_only():
    """CFP-007: usage may be retained and no comparison depends on it."""
    def drop_usage(value: Any) -> None:
        for event in value["events"]:
            event.get("data", {}).pop("usage", None)

    assert _failed("cfp-read-full-session", "session.read", drop_usage) == {"CFP-007"}


def _reordered(order: list[str]) -> Any:
    def edit(value: Any) -> None:
        parts = {p["id"]: p for p in value["turns"][0]["parts"]}
        value["turns"][0]["parts"] = [parts[i] for i in order]
    return edit


def test_reasoning_moved_after_the_last_text_fails_the_arrival_order_only():
    """MP-031 (MUST) forbids hoisting the reasoning to the top; a1, a2, r1 keeps it after the
    text it followed, so only MP-030's arrival order (SHOULD) fails."""
    case, op = "mp-order-reasoning-not-hoisted", "message-parts.parts"
    assert _failed(case, op, _reordered(["u1", "a1", "a2", "r1"])) == {"MP-030"}
    assert _failed(case, op, _reordered(["u1", "r1", "a1", "a2"])) == {"MP-030", "MP-031"}


def test_tools_moved_to_the_front_fail_the_arrival_order_only():
    case, op = "mp-order-tools-not-pushed-to-end", "message-parts.parts"
    assert _failed(case, op, _reordered(["u1", "c1", "res1", "a1", "a2"])) == {"MP-030"}
    assert _failed(case, op, _reordered(["u1", "a1", "a2", "c1", "res1"])) == {"MP-030", "MP-032"}


class _Answering(InProcessTarget):
    """An implementation that answers every call with ``result``."""

    def __init__(self, result: Any) -> None:
        super().__init__()
        self._result = result

    def call(self, operation, payload, case=None, observe=False):  # type: ignore[override]
        return self._result


def _failed_with(case_id: str, operation: str, result: Any) -> set[str]:
    return _failed_on(_Answering(result), case_id, operation)


def test_a_reader_refusing_or_dropping_an_embedded_stream_fails_the_readers_must():
    """data.stream is the writer's option (CFP-D002, MAY; the source runtime writes it); the
    reader keeps a member it does not interpret (CFP-D005, MUST)."""
    refused = Rejected("INVALID_EVENT", "data.stream not allowed")
    case = "cfp-read-embedded-stream-record"
    assert _failed_with(case, "session.check-log", refused) == {"CFP-D005"}
    assert _failed_with(case, "session.read", refused) == {"CFP-D005"}

    def strip(value: Any) -> None:
        value["events"][3]["data"].pop("stream")

    assert _failed(case, "session.read", strip) == {"CFP-D005", "CFP-D002"}


def test_a_session_log_accepted_as_a_fixture_fails_the_must_in_both_operations():
    case = "cfp-fixture-session-log-is-not-a-fixture"
    for operation in ("session.record", "session.record-load"):
        assert _failed_with(case, operation, Output({"events": []})) == {"CFP-D010"}


def test_a_fork_under_another_head_not_recognised_fails_the_grouping_must():
    def joined(value: Any) -> None:
        value["conversations"] = [{"id": "c1", "parent": None, "fork_at": None,
                                   "requests": [0, 1, 2, 3]}]

    def silent(value: Any) -> None:
        value["findings"] = []

    for case in ("wa-conv-fork-other-system", "wa-conv-fork-other-tools"):
        assert _failed(case, "wire.conversation", joined) == {"WA-D008"}
        assert _failed(case, "wire.conversation", silent) == {"WA-001"}
