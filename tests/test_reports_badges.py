"""badges/*.json: shields.io endpoint JSON per family and overall; never green when incomplete."""

from __future__ import annotations

import json

from reports_sample_runs import (
    RULES,
    case,
    failing_records,
    footer,
    header,
    passing_records,
    truncated_records,
)

from agent_tck.harness.reports import badges
from agent_tck.harness.reports.stream import parse_lines

ENDPOINT_KEYS = {"schemaVersion", "label", "message", "color"}


def files(records) -> dict[str, dict]:
    run = parse_lines(json.dumps(r) for r in records)
    return {name: json.loads(text) for name, text in badges.render_all(run).items()}


def test_one_endpoint_file_per_family_and_overall():
    out = files(passing_records())
    assert set(out) == {"block-omission.json", "in-history-update.json", "overall.json"}
    for badge in out.values():
        assert set(badge) == ENDPOINT_KEYS and badge["schemaVersion"] == 1
        assert all(isinstance(badge[k], str) for k in ("label", "message", "color"))
    assert out["overall.json"] == {"schemaVersion": 1, "label": "agent-tck",
                                   "message": "conformant, recommended",
                                   "color": "brightgreen"}
    assert out["block-omission.json"]["label"] == "agent-tck block-omission"


def test_colours_follow_the_verdict():
    cases = [case(1, "a", ["BO-001"], "pass"), case(2, "b", ["BO-002"], "pass"),
             case(3, "c", ["BO-003"], "fail"), case(4, "d", ["IH-001"], "pass")]
    out = files([header(), *cases, footer(cases)])
    assert (out["block-omission.json"]["message"], out["block-omission.json"]["color"]) == (
        "conformant", "green")
    out = files(failing_records())
    assert out["block-omission.json"]["message"] == "not conformant (2 MUST rules)"
    assert out["in-history-update.json"]["message"] == "not conformant (1 MUST rule)"
    assert out["overall.json"]["color"] == "red"


def test_a_truncated_run_is_grey_and_incomplete():
    out = files(truncated_records())
    assert {(b["message"], b["color"]) for b in out.values()} == {("incomplete", "lightgrey")}


def test_a_family_name_that_is_not_a_slug_gets_no_file():
    rules = [*RULES, {"id": "XX-001", "family": "overall", "level": "MUST", "title": "t"}]
    out = files([header(rules=rules), footer([], rules)])
    assert "overall.json" in out and out["overall.json"]["label"] == "agent-tck"
    assert sorted(out) == ["block-omission.json", "in-history-update.json", "overall.json"]
