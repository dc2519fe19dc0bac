"""Small hand-made result streams for the report writers' tests (harness/reports)."""

from __future__ import annotations

from typing import Any

from agent_tck.harness.run.results import summarize

RULES = [
    {"id": "BO-001", "family": "block-omission", "level": "MUST",
     "title": "Omit reasoning blocks from user input", "decision": False},
    {"id": "BO-002", "family": "block-omission", "level": "MUST",
     "title": "Omit tool-call blocks from user input", "decision": False},
    {"id": "BO-003", "family": "block-omission", "level": "SHOULD",
     "title": "Keep empty tool results", "decision": False},
    {"id": "BO-D001", "family": "block-omission", "level": "MAY",
     "title": "Chat Completions: other unsupported blocks", "decision": True},
    {"id": "IH-001", "family": "in-history-update", "level": "MUST",
     "title": "Reject an update whose user input is all omitted", "decision": False},
]

# Strings that try to break out of every format we write.
HOSTILE = (
    "</pre></details><script>alert('x')</script><img src=x onerror=alert(1)>"
    ' "quoted" & \'single\' ]]> <!-- --> {{7*7}} | pipe | `tick` *bold* [link](http://evil.test)'
    " \x00nul \x1b[31mred\x1b[0m \x07bell \u202eevil-bidi\u202c \ud800lone"
    " \u2028line-sep \U0001F600 中文"
)
SECRETS = ("sk-ant-api03-SECRETSECRETSECRET01", "sk-proj-SECRETSECRETSECRET02",
           "Bearer SECRETTOKENSECRETTOKEN03")


def header(**overrides: Any) -> dict[str, Any]:
    head = {
        "type": "header", "format": "agent-tck-results/1", "tck_version": "0.1.0",
        "started": "2026-01-02T03:04:05+00:00",
        "implementation": {"name": "demo-impl", "version": "1.2.3", "language": "python",
                           "operations": ["anthropic.serialize", "openai.serialize"]},
        "target": {"kind": "subprocess", "command": "python adapter.py"},
        "filters": {"family": [], "rule": [], "k": None},
        "strict": False,
        "rules": RULES,
        "families": ["block-omission", "in-history-update"],
    }
    head.update(overrides)
    return head


def case(seq: int, case_id: str, rules: list[str], status: str, **overrides: Any) -> dict:
    family = "in-history-update" if rules[0].startswith("IH") else "block-omission"
    record: dict[str, Any] = {
        "type": "case", "seq": seq, "case": case_id, "family": family,
        "operation": "anthropic.serialize", "rules": rules, "status": status,
        "description": f"description of {case_id}",
        "input": {"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]},
        "expected": {"output": {"messages": [{"role": "user", "content": "hi"}]}},
        "actual": ({"output": {"messages": []}} if status in ("fail", "expected-fail") else
                   None if status in ("errored", "not-applicable") else
                   {"output": {"messages": [{"role": "user", "content": "hi"}]}}),
        "message": {"fail": "output differs at /messages", "errored": "adapter crashed",
                    "not-applicable": "the implementation does not declare it"}.get(status, ""),
        "duration_ms": 1.5,
    }
    if status == "errored":
        record["transcript"] = [">> {\"cmd\":\"run\",\"seq\":1}", "!! Traceback ...",
                                "<< exit 7"]
    record.update(overrides)
    return record


def footer(cases: list[dict], rules: list[dict] = RULES, exit_code: int | None = None) -> dict:
    summary = summarize(rules, cases)
    code = exit_code if exit_code is not None else int(any(
        summary.rule_status[r["id"]] in ("fail", "errored") for r in rules
        if r["level"] == "MUST"))
    return summary.footer(finished="2026-01-02T03:05:00+00:00", exit_code=code).to_json()


def passing_records() -> list[dict]:
    cases = [case(1, "bo-reasoning", ["BO-001"], "pass"),
             case(2, "bo-tool-call", ["BO-002"], "pass"),
             case(3, "bo-empty-result", ["BO-003"], "pass"),
             case(4, "bo-chat-other", ["BO-D001"], "not-applicable"),
             case(5, "ih-omitted", ["IH-001"], "pass")]
    return [header(), *cases, footer(cases)]


def failing_records() -> list[dict]:
    cases = [case(1, "bo-reasoning", ["BO-001"], "pass"),
             case(2, "bo-reasoning-2", ["BO-001", "BO-002"], "fail",
                  message="kept a thinking block in user content"),
             case(3, "bo-empty-result", ["BO-003"], "errored"),
             case(4, "bo-chat-other", ["BO-D001"], "not-applicable",
                  operation="openai.serialize"),
             case(5, "ih-omitted", ["IH-001"], "expected-fail",
                  baseline={"reason": "known bug", "issue": "https://example.test/1"}),
             case(6, "ih-stale", ["IH-001"], "stale", baseline={"reason": "was broken"})]
    return [header(), *cases, footer(cases)]


def hostile_records() -> list[dict]:
    """Every free-text field hostile, and secrets planted in input, output and transcript."""
    rules = [{**RULES[0], "title": HOSTILE}]
    planted = {"headers": {"Authorization": SECRETS[2], "x-api-key": "plain-key-value-04"},
               "text": f"key {SECRETS[0]} and {SECRETS[1]}", "evil": HOSTILE}
    cases = [
        case(1, "bo-hostile", ["BO-001"], "fail", description=HOSTILE, message=HOSTILE,
             input=planted, actual={"output": planted}),
        case(2, "bo-hostile-err", ["BO-001"], "errored", message=HOSTILE,
             transcript=[HOSTILE, f"authorization: {SECRETS[2]}", f"<< {SECRETS[0]}"]),
    ]
    return [header(rules=rules, families=["block-omission"],
                   target={"kind": "subprocess", "command": f"run --key {SECRETS[1]}"}),
            *cases, footer(cases, rules)]


def truncated_records() -> list[dict]:
    """A run that died after two cases: no footer."""
    return failing_records()[:3]
