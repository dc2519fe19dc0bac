"""The check model (issue 21 A-C): a case's expectation is a set of checks, each charged to the
one rule it bears on; a rule's status derives only from its own checks."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.contract.catalogue import load_catalogue
from agent_tck.harness.contract.vectors import Case, load_cases, load_file
from agent_tck.harness.run import invariants
from agent_tck.harness.run.checks import check_names
from agent_tck.harness.run.evaluate import judge
from agent_tck.harness.run.invariants import Invariant
from agent_tck.harness.run.results import CaseResult, CheckResult, exit_code, summarize
from agent_tck.harness.run.targets import InProcessTarget
from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.serialize.ops import OPERATIONS

UNATTRIBUTED = Path(__file__).resolve().parent / "vectors-unattributed-levels.txt"


def _case(case_id: str) -> Case:
    return next(c for c in load_cases() if c.id == case_id)


def _expectation(case: Case, operation: str) -> Any:
    return next(e for e in case.expect if e.operation == operation)


# ---- the lint: a case whose rules differ in level attributes its checks ----------------------


def unattributed_mixed_levels() -> set[str]:
    """``case [operation]`` where some check would be charged to rules of different levels."""
    level = {r.id: r.level for r in load_catalogue().rules}
    out = set()
    for case in load_cases():
        for exp in case.expect:
            for name in check_names(exp):
                named = exp.attributed(name)
                rules = (named,) if named else case.rules_for(exp)
                if len({level[r] for r in rules}) > 1:
                    out.add(f"{case.id} [{exp.operation}]")
    return out


def test_a_case_whose_rules_differ_in_level_attributes_its_checks():
    """A check charged to a MUST and a SHOULD at once turns a SHOULD difference into a MUST
    failure (issue 21). The list of cases still to attribute only shrinks: attribute a case
    (its expectation's ``checks``) and take it off the list."""
    listed = {line.strip() for line in UNATTRIBUTED.read_text(encoding="utf-8").splitlines()
              if line.strip() and not line.startswith("#")}
    found = unattributed_mixed_levels()
    assert sorted(found - listed) == [], "attribute these cases' checks (vectors/README.md)"
    assert sorted(listed - found) == [], f"attributed now: remove them from {UNATTRIBUTED.name}"


@pytest.mark.parametrize("case_id", [
    "bo-durable-record-on-rejection", "bo-durable-call-text-result", "cfp-resume-simple",
    "cfp-resume-tool-round-trip", "cfp-resume-keeps-signed-reasoning-with-its-tool-call",
    "cfp-resume-skips-failed-attempt", "mp-reconcile-final-differs-replaces",
    "mp-title-complete-reasoning-summary", "mp-title-hidden-reasoning-detail-text"])
def test_the_cases_the_issue_names_are_attributed(case_id):
    assert not {x for x in unattributed_mixed_levels() if x.startswith(f"{case_id} [")}


# ---- acceptance: the source runtime's serializer on the malformed role ---------------------------


def _lenient(operation: str):
    """A serializer following the source runtime: it does not validate roles, so the malformed
    "robot" message is answered otherwise (here: dropped), and its input is never changed."""
    real = OPERATIONS[operation]

    def serialize(payload: Any) -> Any:
        kept = [m for m in payload["history"] if m.get("role") != "robot"]
        return real({**payload, "history": kept})
    return serialize


def _another_code(operation: str):
    real = OPERATIONS[operation]

    def serialize(payload: Any) -> Any:
        if any(m.get("role") == "robot" for m in payload["history"]):
            raise TckError("UNSUPPORTED_CONTENT", "unknown role")
        return real(payload)
    return serialize


@pytest.mark.parametrize("variant", [_lenient, _another_code])
@pytest.mark.parametrize("operation", ["anthropic.serialize", "openai.serialize"])
def test_another_answer_to_a_malformed_role_fails_bo_d007_only_never_bo008(variant, operation):
    case = _case("bo-durable-record-on-rejection")
    target = InProcessTarget({operation: variant(operation)})
    judgment, called = judge(target, case, _expectation(case, operation))
    assert called and judgment.status == "fail"
    assert judgment.failed_rules == ("BO-D007",)
    observed = [c for c in judgment.checks if c.check.startswith("observe:")]
    assert {(c.rule, c.status) for c in observed} == {("BO-008", "pass")}
    assert "BO-D007" in judgment.message


def test_an_input_mutated_on_any_serializer_case_fails_bo008():
    """Every case of a history-taking operation is observed, not only those citing BO-008."""
    real = OPERATIONS["anthropic.serialize"]

    def splicing(payload: Any) -> Any:
        out = real(copy.deepcopy(payload))
        payload["history"].append({"role": "user", "content": []})  # changes the record
        return out

    case = next(c for c in load_cases() if c.family == "block-omission"
                and "BO-008" not in c.rules
                and any(e.operation == "anthropic.serialize" and not e.is_error
                        and not e.alternatives for e in c.expect))
    judgment, _ = judge(InProcessTarget({"anthropic.serialize": splicing}), case,
                        _expectation(case, "anthropic.serialize"))
    failing = {(c.check, c.rule) for c in judgment.checks if c.status == "fail"}
    assert failing == {("observe:input-after", "BO-008")}
    assert "BO-008" not in case.rules


def test_without_observe_a_check_charged_to_bo008_is_untested_and_the_rest_is_judged():
    class Plain(InProcessTarget):
        @property
        def observe(self) -> frozenset[str]:
            return frozenset()

    case = _case("bo-durable-record-on-rejection")
    judgment, _ = judge(Plain(), case, _expectation(case, "anthropic.serialize"))
    assert judgment.status == "pass"
    assert {(c.rule, c.status) for c in judgment.checks} == {
        ("BO-D007", "pass"), ("BO-008", "not-applicable")}
    assert all('"observe"' in c.message for c in judgment.checks if c.rule == "BO-008")


# ---- C: rejected and with which code are separate checks ----------------------------------------


def test_rejected_with_another_code_fails_only_the_error_code_check():
    case = _case("bo-durable-record-on-rejection")
    target = InProcessTarget({"openai.serialize": _another_code("openai.serialize")})
    judgment, _ = judge(target, case, _expectation(case, "openai.serialize"))
    by_check = {c.check: c.status for c in judgment.checks}
    assert by_check["outcome"] == "pass" and by_check["error-code"] == "fail"


@pytest.mark.parametrize(("case_id", "codes"), [
    ("dm-headerseq-beyond-end", {"DM_HEADER_SEQ_FORWARD", "DM_HEADER_SEQ_UNKNOWN"}),
    ("cfp-reject-version-not-integer", {"INVALID_FIELD", "UNSUPPORTED_VERSION"}),
])
def test_an_input_fitting_two_codes_accepts_both(case_id, codes):
    case = _case(case_id)
    for exp in case.expect:
        assert {a.error_code for a in exp.alternatives} == codes, exp.operation


# ---- named output parts ----------------------------------------------------------------------


def test_a_named_output_part_fails_its_own_rule_only():
    case = _case("mp-reconcile-final-matches-stream")
    exp = _expectation(case, "message-parts.parts")
    real = InProcessTarget()

    class WrongMark(InProcessTarget):
        def call(self, operation, payload, case=None, observe=False):  # type: ignore[override]
            result = real.call(operation, payload, case, observe)
            value = copy.deepcopy(result.value)  # type: ignore[union-attr]
            value["turns"][0]["parts"][1]["final"] = "replaced"
            return type(result)(value)  # type: ignore[call-arg]

    judgment, _ = judge(WrongMark(), case, exp)
    assert judgment.failed_rules == ("MP-087",)
    assert {c.check: c.status for c in judgment.checks}["output"] == "pass"


def test_an_attribution_naming_a_rule_the_case_does_not_cite_is_an_error(tmp_path):
    path = tmp_path / "v.json"
    path.write_text('{"family": "block-omission", "cases": [{"id": "x", "rules": ["BO-001"], '
                    '"description": "", "input": {}, "expect": {"anthropic.serialize": '
                    '{"output": {}, "checks": {"output": "BO-002"}}}}]}')
    with pytest.raises(HarnessError) as caught:
        load_file(path)
    assert caught.value.code == "VECTOR_INVALID"
    assert "/expect/anthropic.serialize/checks/output" in caught.value.where
    path.write_text(path.read_text().replace('"output": "BO-002"', '"error-code": "BO-001"'))
    with pytest.raises(HarnessError, match="error-code needs an error"):
        load_file(path)


# ---- B: the invariant table ------------------------------------------------------------------


def test_an_invariant_is_checked_on_every_case_of_its_operations(monkeypatch):
    def no_empty_messages(given: Any, output: Any):
        for i, message in enumerate(output.get("messages", [])):
            if not message.get("content"):
                yield "BO-D001", "no-empty-turn", f"/messages/{i} is empty"

    fake = (Invariant("anthropic.*", "BO-D001", "no-empty-turn", no_empty_messages),
            Invariant("openai.serialize", "BO-D001", "never", lambda g, o: ()))
    monkeypatch.setattr(invariants, "INVARIANTS", fake)
    case = next(c for c in load_cases() if c.id == "bo-durable-two-user-texts")
    ok, _ = judge(InProcessTarget(), case, _expectation(case, "anthropic.serialize"))
    assert ("invariant:no-empty-turn", "BO-D001", "pass") in {
        (c.check, c.rule, c.status) for c in ok.checks}
    assert "BO-D001" not in case.rules  # charged to the invariant's rule, not the case's

    def empty_turn(payload: Any) -> Any:
        return {"messages": [{"role": "user", "content": []}]}

    bad, _ = judge(InProcessTarget({"anthropic.serialize": empty_turn}), case,
                   _expectation(case, "anthropic.serialize"))
    assert CheckResult("invariant:no-empty-turn", "BO-D001", "fail",
                       "/messages/0 is empty") in bad.checks


# ---- the results stream: rule statuses from checks; format 1 still summarizes -----------------


RULES = [{"id": "BO-008", "family": "block-omission", "level": "MUST"},
         {"id": "BO-D007", "family": "block-omission", "level": "SHOULD"}]


def _record(checks: tuple[CheckResult, ...], status: str) -> CaseResult:
    return CaseResult(1, "c", "block-omission", "anthropic.serialize", ("BO-008", "BO-D007"),
                      status, "", {}, {}, None, "", checks=checks)


def test_a_rule_status_derives_only_from_its_own_checks():
    record = _record((CheckResult("outcome", "BO-D007", "fail", "accepted"),
                      CheckResult("observe:input-after", "BO-008", "pass"),
                      CheckResult("observe:repeat", "BO-008", "pass")), "fail")
    statuses, verdicts, _ = summarize(RULES, [record])
    assert statuses == {"BO-008": "pass", "BO-D007": "fail"}
    assert verdicts["overall"]["verdict"] == "conformant"
    assert exit_code(RULES, [record]) == 0
    assert exit_code(RULES, [record.to_json()], strict=True) == 1
    assert summarize(RULES, [record.to_json()]).rule_status == statuses
    assert CaseResult.from_json(record.to_json()).checks == record.checks


def test_a_format_1_record_counts_for_each_rule_it_cites():
    old = {"rules": ["BO-008", "BO-D007"], "status": "fail"}
    statuses, _, _ = summarize(RULES, [old])
    assert statuses == {"BO-008": "fail", "BO-D007": "fail"}
    assert exit_code(RULES, [old]) == 1


def test_a_resumed_request_keeps_the_rule_of_a_predicate_below_must():
    """Task 2 A: a predicate whose rule is a SHOULD (BO-D011) never fails CFP-024/025."""
    from agent_tck.harness.contract.catalogue import load_catalogue
    from agent_tck.reference_impl.session_log import invariants as resume
    from agent_tck.reference_impl.wire import validity
    level = {r.id: r.level for r in load_catalogue().rules}
    assert {p.rule for p in validity.PREDICATES if level[p.rule] != "MUST"} == resume.OWN_RULE
    log_case = _case("cfp-resume-drops-empty-assistant-message")
    request = {"messages": [{"role": "user", "content": "Summarize the report."},
                            {"role": "assistant", "content": None},
                            {"role": "user", "content": "Try again."}]}
    found = resume.resume_openai(log_case.input, request)
    assert {rule for rule, _check, _message in found} == {"BO-D011"}
