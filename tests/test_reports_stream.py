"""results.jsonl: summarize, write, read back; truncated and malformed streams."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from reports_sample_runs import RULES, case, failing_records, footer, header, passing_records

from agent_tck.harness.common.data import vectors_dir
from agent_tck.harness.reports import stream
from agent_tck.harness.reports.stream import StreamError, parse_lines, read
from agent_tck.harness.run.results import (
    CASE_STATUSES,
    CONFORMANT,
    NOT_CONFORMANT,
    RECOMMENDED,
    rule_status,
    summarize,
)

# --- rule status: the precedence table ----------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "statuses", "expected"),
    [
        ("MUST", ["pass", "fail", "errored"], "fail"),
        ("MUST", ["pass", "errored", "not-applicable"], "errored"),
        ("MUST", ["pass", "expected-fail"], "expected-fail"),
        ("MUST", ["errored", "expected-fail"], "errored"),
        ("MUST", ["pass", "not-applicable"], "pass"),
        ("MUST", ["stale"], "pass"),
        ("MUST", ["not-applicable", "not-applicable"], "untested"),  # observed by nothing
        ("SHOULD", ["not-applicable"], "not-applicable"),
        ("MAY", ["not-applicable"], "not-applicable"),
        ("MUST", [], "untested"),
        ("SHOULD", [], "untested"),
    ],
)
def test_rule_status_precedence(level, statuses, expected):
    assert rule_status(level, statuses) == expected


def test_summarize_gives_statuses_verdicts_and_counts_and_unpacks_as_three():
    records = failing_records()
    rule_status_, verdicts, counts = summarize(RULES, records[1:-1])
    assert rule_status_ == {"BO-001": "fail", "BO-002": "fail", "BO-003": "errored",
                            "BO-D001": "not-applicable", "IH-001": "expected-fail"}
    assert verdicts["block-omission"] == {"verdict": NOT_CONFORMANT,
                                          "failing": ["BO-001", "BO-002"]}
    # a baseline turns a failure into an expected one, never into conformance
    assert verdicts["in-history-update"] == {"verdict": NOT_CONFORMANT, "failing": ["IH-001"]}
    assert verdicts["overall"] == {"verdict": NOT_CONFORMANT,
                                   "failing": ["BO-001", "BO-002", "IH-001"]}
    assert counts == {"pass": 1, "fail": 1, "errored": 1, "not-applicable": 1,
                      "expected-fail": 1, "stale": 1}


def test_verdict_levels_must_should_may():
    def verdict(statuses: dict[str, str]) -> str:
        cases = [case(i, f"c{i}", [rid], status) for i, (rid, status)
                 in enumerate(statuses.items())]
        return summarize(RULES, cases).verdicts["block-omission"]["verdict"]

    passing = {"BO-001": "pass", "BO-002": "pass", "BO-003": "pass"}
    assert verdict(passing) == RECOMMENDED
    # MAY rules never change a verdict
    assert verdict({**passing, "BO-D001": "fail"}) == RECOMMENDED
    # a SHOULD short of passing (failing, errored, untested) only loses "recommended"
    assert verdict({**passing, "BO-003": "fail"}) == CONFORMANT
    assert verdict({"BO-001": "pass", "BO-002": "pass"}) == CONFORMANT
    # any MUST failing, errored, untested or not applicable is not conformant
    for status in ("fail", "errored", "not-applicable", "expected-fail"):
        assert verdict({**passing, "BO-002": status}) == NOT_CONFORMANT
    assert verdict({"BO-001": "pass", "BO-003": "pass"}) == NOT_CONFORMANT


def test_a_run_without_rules_certifies_nothing():
    summary = summarize([], [])
    assert summary.verdicts == {"overall": {"verdict": NOT_CONFORMANT, "failing": []}}
    assert summary.verdict_text == {"overall": NOT_CONFORMANT}


def test_summary_footer_is_a_valid_footer_record():
    records = passing_records()
    assert records[-1]["verdicts"]["overall"]["verdict"] == RECOMMENDED
    stream._check("footer", records[-1], "<test>", 1)


# --- the schema ---------------------------------------------------------------------------------


def test_results_schema_is_a_valid_2020_12_schema_and_accepts_the_samples():
    schema = json.loads((vectors_dir() / "schema" / "results.schema.json").read_text())
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    for record in failing_records():
        assert not list(validator.iter_errors(record)), record["type"]


# --- reading ------------------------------------------------------------------------------------


def write_lines(tmp_path: Path, lines: list[str], end: str = "\n") -> Path:
    path = tmp_path / "results.jsonl"
    path.write_bytes((end.join(lines) + end).encode("utf-8"))
    return path


def test_write_then_read_round_trips(tmp_path):
    records = failing_records()
    path = stream.write(tmp_path / "results.jsonl", records)
    run = read(path)
    assert not run.truncated
    assert [c.case for c in run.cases] == [r["case"] for r in records[1:-1]]
    assert run.cases[4].baseline == {"reason": "known bug", "issue": "https://example.test/1"}
    assert run.cases[4].baseline_text == "known bug https://example.test/1"


def test_a_baseline_entry_may_be_a_bare_label():
    records = failing_records()
    records[5] = {**records[5], "baseline": "case ih-omitted [anthropic.serialize]"}
    run = parse_lines(json.dumps(r) for r in records)
    assert run.cases[4].baseline == {"entry": "case ih-omitted [anthropic.serialize]"}
    assert run.cases[4].baseline_text == "case ih-omitted [anthropic.serialize]"
    assert run.rule_status == records[-1]["rules"]
    assert run.verdicts["block-omission"].failing == ("BO-001", "BO-002")
    assert run.counts["stale"] == 1
    assert run.disagreements == ()
    assert run.header.rules[3].decision is True


def test_a_missing_footer_is_a_truncated_run(tmp_path):
    records = failing_records()[:-1]
    run = read(stream.write(tmp_path / "r.jsonl", records))
    assert run.truncated
    assert run.verdicts is None
    # statuses are recomputed from the cases present
    assert run.rule_status["BO-001"] == "fail"
    assert run.rule_status["IH-001"] == "expected-fail"


def test_a_header_alone_is_a_truncated_run_with_no_cases(tmp_path):
    run = read(write_lines(tmp_path, [json.dumps(header())]))
    assert run.truncated
    assert run.cases == ()
    assert set(run.rule_status.values()) == {"untested"}


def test_a_line_cut_off_by_a_killed_writer_is_dropped_with_a_note(tmp_path):
    lines = [json.dumps(r) for r in failing_records()[:3]]
    path = tmp_path / "results.jsonl"
    path.write_bytes(("\n".join(lines) + "\n").encode() + lines[2][:40].encode())
    run = read(path)
    assert run.truncated
    assert len(run.cases) == 2
    assert run.notes == ("line 4 was cut off mid-record and is ignored",)


def test_a_cut_off_multibyte_character_on_the_last_line_also_reads_as_truncated(tmp_path):
    good = json.dumps(failing_records()[0])
    path = tmp_path / "results.jsonl"
    path.write_bytes(good.encode() + b"\n" + '{"type":"case","case":"中'.encode()[:-1])
    assert read(path).truncated


@pytest.mark.parametrize(
    ("lines", "code", "line"),
    [
        (["HEADER", "{not json", "CASE"], "RESULTS_BAD_JSON", 2),
        (["HEADER", "{not json"], "RESULTS_BAD_JSON", 2),  # newline-terminated: not a cut-off
        (["HEADER", "[1, 2]"], "RESULTS_BAD_RECORD", 2),
        (["HEADER", '{"type": "verdict"}'], "RESULTS_BAD_RECORD", 2),
        (["CASE", "HEADER"], "RESULTS_NO_HEADER", 1),
        (["HEADER", "HEADER"], "RESULTS_ORDER", 2),
        (["HEADER", "FOOTER", "CASE"], "RESULTS_ORDER", 3),
        (["OLDHEADER", "CASE"], "RESULTS_FORMAT", 1),
        (["HEADER", "NOSTATUS"], "RESULTS_BAD_RECORD", 2),
        (["HEADER", "BADSTATUS"], "RESULTS_BAD_RECORD", 2),
        (["HEADER", "CASE", "BADFOOTER"], "RESULTS_BAD_RECORD", 3),
    ],
)
def test_malformed_streams_fail_with_a_code_and_the_line(tmp_path, lines, code, line):
    records = failing_records()
    bad_case = dict(records[1])
    del bad_case["status"]
    named = {
        "HEADER": json.dumps(records[0]),
        "OLDHEADER": json.dumps({**records[0], "format": "agent-tck-results/0"}),
        "CASE": json.dumps(records[1]),
        "NOSTATUS": json.dumps(bad_case),
        "BADSTATUS": json.dumps({**records[1], "status": "passed"}),
        "FOOTER": json.dumps(records[-1]),
        "BADFOOTER": json.dumps({**records[-1], "verdicts": {"overall": "fine"}}),
    }
    path = write_lines(tmp_path, [named.get(x, x) for x in lines])
    with pytest.raises(StreamError) as err:
        read(path)
    assert err.value.code == code
    assert err.value.line == line
    assert f"results.jsonl:{line}" in str(err.value)


def test_errors_say_what_was_found_and_where():
    records = failing_records()
    with pytest.raises(StreamError) as err:
        parse_lines([json.dumps({**records[0], "format": "agent-tck-results/9"})])
    assert ("'agent-tck-results/9' found, one of 'agent-tck-results/1', 'agent-tck-results/2'"
            in err.value.message)
    bad = {**records[1], "rules": "BO-001"}
    with pytest.raises(StreamError) as err:
        parse_lines([json.dumps(records[0]), json.dumps(bad)])
    assert "/rules" in err.value.message


def test_bad_utf8_in_the_middle_names_the_line(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_bytes(json.dumps(header()).encode() + b"\n\xff\xfe\n")
    with pytest.raises(StreamError) as err:
        read(path)
    assert (err.value.code, err.value.line) == ("RESULTS_BAD_ENCODING", 2)


def test_empty_and_missing_files(tmp_path):
    with pytest.raises(StreamError) as err:
        read(write_lines(tmp_path, [""]))
    assert err.value.code == "RESULTS_EMPTY"
    with pytest.raises(StreamError) as err:
        read(tmp_path / "nope.jsonl")
    assert err.value.code == "RESULTS_UNREADABLE"


def test_blank_lines_and_crlf_are_tolerated(tmp_path):
    lines = [json.dumps(r) for r in passing_records()]
    run = read(write_lines(tmp_path, [lines[0], "", *lines[1:]], end="\r\n"))
    assert not run.truncated
    assert len(run.cases) == 5


def test_a_bare_string_verdict_footer_is_read_and_failing_rules_named():
    records = failing_records()
    bare = {**records[-1], "verdicts": {"block-omission": NOT_CONFORMANT,
                                        "in-history-update": NOT_CONFORMANT,
                                        "overall": NOT_CONFORMANT}}
    run = parse_lines(json.dumps(r) for r in [*records[:-1], bare])
    assert run.verdicts["block-omission"].failing == ("BO-001", "BO-002")
    assert run.verdicts["overall"].failing == ("BO-001", "BO-002", "IH-001")


def test_a_footer_that_contradicts_its_cases_is_flagged():
    records = failing_records()
    lying = {**records[-1], "rules": {**records[-1]["rules"], "BO-001": "pass"}}
    run = parse_lines(json.dumps(r) for r in [*records[:-1], lying])
    assert run.disagreements == ("BO-001",)


def test_rule_counts_per_family_and_overall(tmp_path):
    run = parse_lines(json.dumps(r) for r in failing_records())
    assert run.rule_counts("block-omission") == {
        "pass": 0, "fail": 2, "errored": 1, "expected-fail": 0, "not-applicable": 1,
        "untested": 0}
    assert sum(run.rule_counts().values()) == len(RULES)


# --- writing ------------------------------------------------------------------------------------


def test_each_record_is_one_line_whatever_the_strings_hold(tmp_path):
    weird = "a\nb\r\u2028c\u2029d\x85e\ud800f\x00g"
    records = [header(), case(1, "weird", ["BO-001"], "pass", description=weird, input=weird)]
    path = stream.write(tmp_path / "results.jsonl", records)
    raw = path.read_bytes()
    raw.decode("utf-8")  # always valid UTF-8, even with a lone surrogate
    assert len(raw.decode().splitlines()) == 2
    run = read(path)
    assert run.cases[0].description == weird
    assert run.cases[0].input == weird


def test_the_writer_flushes_each_record_so_a_crash_leaves_a_truncated_stream(tmp_path):
    path = tmp_path / "results.jsonl"
    writer = stream.Writer(path)
    writer.write(header())
    writer.write(case(1, "one", ["BO-001"], "pass"))
    assert read(path).truncated  # readable mid-run, before close
    writer.write(footer([case(1, "one", ["BO-001"], "pass")]))
    writer.close()
    assert not read(path).truncated
    with pytest.raises(ValueError, match="closed"):
        writer.write(header())


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                               max_size=4),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=json_values)
def test_any_json_input_survives_a_write_and_read(value):
    from agent_tck.harness.reports.redact import redact

    records = [header(), case(1, "any", ["BO-001"], "fail", input=value,
                              actual={"output": value})]
    run = parse_lines(stream.dumps_record(r) + "\n" for r in records)
    assert run.cases[0].input == redact(value)
    assert run.cases[0].actual == {"output": redact(value)}


statuses = st.sampled_from(CASE_STATUSES)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([r["id"] for r in RULES]), statuses), max_size=12))
def test_summarize_properties(pairs):
    cases = [case(i, f"c{i}", [rid], status) for i, (rid, status) in enumerate(pairs)]
    summary = summarize(RULES, cases)
    assert sum(summary.counts.values()) == len(cases)
    for rule in RULES:
        seen = {s for rid, s in pairs if rid == rule["id"]}
        status = summary.rule_status[rule["id"]]
        assert (status == "fail") == ("fail" in seen)
        assert (status == "pass") <= bool(seen & {"pass", "stale"})
        assert (status == "untested") <= (rule["level"] == "MUST" or not seen)
    musts = [r["id"] for r in RULES if r["level"] == "MUST"]
    conformant = all(summary.rule_status[rid] == "pass" for rid in musts)
    assert (summary.verdicts["overall"]["verdict"] != NOT_CONFORMANT) == conformant
    assert summary.verdicts["overall"]["failing"] == [
        rid for rid in musts if summary.rule_status[rid] != "pass"]


def test_a_run_s_own_lines_are_checked_again_once_changed_or_read_by_another_process(
        tmp_path, monkeypatch):
    """A line this process wrote from a typed record is not checked against the schema when it
    is read back as written (stream._WRITTEN); every line of a reference run is valid all the
    same (read with the memory emptied, as another process reads it), and a line changed on
    disk is checked."""
    from agent_tck.harness.run.conformance_run import RunRequest, run_suite

    folder = tmp_path / "run"
    run_suite(RunRequest(report_dir=folder))
    results = folder / "results.jsonl"
    monkeypatch.setattr(stream, "_WRITTEN", set())
    assert len(read(results).cases) > 500
    lines = results.read_bytes().splitlines(keepends=True)
    stream._WRITTEN.update(stream._digest(line) for line in lines)
    record = json.loads(lines[1])
    record["status"] = "maybe"
    lines[1] = (json.dumps(record) + "\n").encode()
    results.write_bytes(b"".join(lines))
    with pytest.raises(StreamError) as err:
        read(results)
    assert err.value.code == "RESULTS_BAD_RECORD" and err.value.line == 2


def test_a_typed_record_s_line_that_redaction_changed_is_checked_when_read_back(tmp_path):
    """Redaction can make a typed record's line schema-invalid: a family named like a
    credential field (``db-password``) has its verdict replaced by "[REDACTED]". Such a line is
    not remembered as this process's own, so the same process's read rejects it, as another
    process's does."""
    from agent_tck.harness.run.results import (
        RESULTS_FORMAT,
        CaseResult,
        Footer,
        Header,
        RuleInfo,
        Verdict,
    )

    family = "db-password"
    records = (
        Header(RESULTS_FORMAT, "0", "2026-01-01T00:00:00Z", {"name": "x"},
               {"kind": "in-process"}, {}, False, (RuleInfo("DB-001", family, "MUST"),),
               (family,)),
        CaseResult(0, "c", family, "op", ("DB-001",), "pass", "", {}, {"output": 1},
                   {"output": 1}, ""),
        Footer("2026-01-01T00:00:00Z", {"pass": 1}, {"DB-001": "pass"},
               {family: Verdict("conformant"), "overall": Verdict("conformant")}, 0),
    )
    path = tmp_path / "results.jsonl"
    with stream.Writer(path) as writer:
        for record in records:
            writer.write(record)
    assert '"db-password":"[REDACTED]"' in path.read_text()
    with pytest.raises(StreamError) as err:
        read(path)
    assert err.value.code == "RESULTS_BAD_RECORD" and err.value.line == 3
