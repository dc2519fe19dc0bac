"""Hostile inputs to the readers and the command line (issue 12; docs/RELIABILITY.md).

Each test feeds one input an attacker or a damaged file could hand the kit and asserts the
documented outcome: a clear error naming the file and the line or JSON pointer, exit 2 for an
unusable input, 1 for invalid content, a note in the report where one record of many is bad,
never a traceback. Memory is bounded by a limit the test sets (RLIMIT_AS in a subprocess), never
by a clock. The adapter runner and check-log have their own batteries.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from agent_tck.harness.audit.readers import CaptureNote, read_capture, read_jsonl
from agent_tck.harness.cli import main

ROOT = Path(__file__).resolve().parent.parent
DEEP = 100_000
BOMB = textwrap.dedent("""\
    a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
    b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
    c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
    d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
    e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
    f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
    g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
    h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
    expected_failures: [*h]
    """)


def deep_json(key: str = "x") -> str:
    return '{"' + key + '": ' + "[" * DEEP + "]" * DEEP + "}"


def tck(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the command line in process; a traceback or internal error fails the test."""
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "INTERNAL_ERROR" not in err, err
    return code, out, err


def exchange(**extra: Any) -> dict[str, Any]:
    record = {"method": "POST", "url": "https://api.anthropic.com/v1/messages",
              "request": {"body": {"model": "m", "messages": [
                  {"role": "user", "content": [{"type": "text", "text": "q"},
                                               {"type": "thinking", "thinking": "t"}]}]}},
              "response": {"status": 200, "headers": {"content-type": "application/json"},
                           "body": {"type": "message", "content": []}}}
    record.update(extra)
    return record


def good_capture(tmp_path: Path) -> Path:
    """One request that breaks BO-001 (reasoning in user input): exit 1 when audited."""
    path = tmp_path / "good.jsonl"
    path.write_text(json.dumps(exchange()) + "\n")
    return path


def audit_doc(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "audit.json").read_text(encoding="utf-8"))


# --- captures (audit --read) ---------------------------------------------------------------------


def test_a_deep_har_is_a_note_naming_line_and_column_and_the_other_file_is_audited(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    har = tmp_path / "deep.har"
    har.write_text('{"log": ' + "[" * DEEP + "]" * DEEP + "}")
    code, _, err = tck(capsys, "audit", "--read", str(har), str(good_capture(tmp_path)),
                       "--report-dir", str(tmp_path / "out"))
    assert code == 2
    assert "deep.har:1:" in err and "nested deeper than 200 levels" in err
    doc = audit_doc(tmp_path / "out")
    assert doc["counts"]["exchanges"] == 1 and doc["counts"]["error"] == 1
    assert any("deep.har" in note for note in doc["notes"])


def test_a_har_whose_log_is_a_list_is_a_clear_error(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    har = tmp_path / "list.har"
    har.write_text('{"log": [1, 2, 3]}')
    code, _, err = tck(capsys, "audit", "--read", str(har), "--report-dir", str(tmp_path / "o"))
    assert code == 2 and "CAPTURE_INVALID" in err and "/log/entries" in err


def test_a_deep_jsonl_line_is_a_note_and_the_other_lines_are_audited(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "capture.jsonl"
    path.write_text(json.dumps(exchange()) + "\n" + deep_json("method") + "\n"
                    + json.dumps(exchange()) + "\n")
    code, _, err = tck(capsys, "audit", "--read", str(path), "--report-dir", str(tmp_path / "o"))
    assert code == 1  # the two good lines break BO-001
    assert "capture.jsonl:2: not a JSON line: nested deeper than 200 levels" in err
    assert audit_doc(tmp_path / "o")["counts"]["exchanges"] == 2


@pytest.mark.parametrize("line", [
    '{"method": "POST", "method": "GET", "url": "https://api.anthropic.com/v1/messages"}',
    '{"method": "POST", "url": "https://api.anthropic.com/v1/messages", "time": NaN}',
    '{"method": "POST", "url": "https://api.anthropic.com/v1/messages", "x": "\\ud800"}',
    '{"method": "POST", "url": "https://api.anthropic.com/v1/messages", "n": 1' + "0" * 5000
    + "}",
])
def test_lenient_json_in_a_capture_line_is_a_note(line: str, tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(line + "\n")
    (item,) = list(read_capture(path))
    assert isinstance(item, CaptureNote) and item.ref == "c.jsonl:1"
    assert item.message.startswith("not a JSON line")


@pytest.mark.parametrize("time", [1e300, -1e300, "9999999-01-01T00:00:00Z", 10**400])
def test_an_impossible_time_is_a_note_never_the_end_of_the_audit(
        time: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.jsonl"
    text = json.dumps(exchange(time=time)) if not isinstance(time, int) else (
        json.dumps(exchange(time=0)).replace('"time": 0', f'"time": {time}'))
    path.write_text(text + "\n" + json.dumps(exchange()) + "\n")
    code, _, _ = tck(capsys, "audit", "--read", str(path), "--report-dir", str(tmp_path / "o"))
    doc = audit_doc(tmp_path / "o")
    assert doc["counts"]["exchanges"] == 2
    assert any("time" in n and "ignored" in n for n in doc["exchanges"][0]["notes"])
    assert code == 1 and (tmp_path / "o" / "report.html").is_file()


def test_a_har_started_date_time_of_1e300_is_a_note(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    entry = {"startedDateTime": 1e300, "request": {
        "method": "POST", "url": "https://api.anthropic.com/v1/messages", "headers": [],
        "postData": {"text": json.dumps(exchange()["request"]["body"])}},
        "response": {"status": 200, "headers": [], "content": {"text": "{}"}}}
    har = tmp_path / "t.har"
    har.write_text(json.dumps({"log": {"entries": [entry, entry]}}))
    code, _, _ = tck(capsys, "audit", "--read", str(har), "--report-dir", str(tmp_path / "o"))
    doc = audit_doc(tmp_path / "o")
    assert code == 1 and doc["counts"]["exchanges"] == 2
    assert all(x["time"] is None for x in doc["exchanges"])
    assert all(any("not a usable time" in n for n in x["notes"]) for x in doc["exchanges"])


def test_a_request_too_deep_to_audit_is_errored_and_the_exit_code_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deep = exchange(request={"body_text": '{"model": "m", "messages": '
                             + "[" * 5000 + "]" * 5000 + "}"}, response=None)
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(deep) + "\n")
    code, out, _ = tck(capsys, "audit", "--read", str(path), "--report-dir", str(tmp_path / "o"))
    assert code == 1 and "1 not auditable (errored)" in out
    records = [json.loads(line) for line in
               (tmp_path / "o" / "results.jsonl").read_text().splitlines()]
    assert [r["status"] for r in records if r["type"] == "case"] == ["errored"]


def test_a_flow_length_prefix_beyond_the_file_is_a_note(tmp_path: Path) -> None:
    path = tmp_path / "dump.flows"
    path.write_bytes(b"99999999999:abc")
    (note,) = list(read_capture(path))
    assert isinstance(note, CaptureNote) and "claims 99999999999 bytes" in note.message


def test_a_deeply_nested_flow_record_is_a_note(tmp_path: Path) -> None:
    payload = b"0:]"
    for _ in range(5000):
        payload = str(len(payload)).encode() + b":" + payload + b"]"
    path = tmp_path / "deep.flows"
    path.write_bytes(payload)
    (note,) = list(read_capture(path))
    assert isinstance(note, CaptureNote) and note.ref == "deep.flows#1"


def test_an_over_long_jsonl_line_is_skipped_without_being_held(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    path.write_bytes(b'{"method": "' + b"x" * 100_000 + b'"}\n' + json.dumps(exchange()).encode()
                     + b"\n")
    with path.open("rb") as handle:
        items = list(read_jsonl(handle, "long.jsonl", max_line=1000))
    assert isinstance(items[0], CaptureNote) and "longer than 1000 bytes" in items[0].message
    assert items[1].ref == "long.jsonl:2" and not isinstance(items[1], CaptureNote)


# --- baselines, vectors, scripts, scenarios -------------------------------------------------------


def test_a_yaml_alias_bomb_baseline_is_refused(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB)
    code, _, err = tck(capsys, "run", "--expect", str(path), "--rule", "BO-001",
                       "--report-dir", str(tmp_path / "o"))
    assert code == 2 and "BASELINE_INVALID" in err and "line 2: YAML aliases" in err


@pytest.mark.parametrize(("text", "expected"), [
    ("expected_failures:\n  - case: 5\n    reason: x\n", "/expected_failures/0/case: case must "
                                                          "be a string, not int"),
    ("expected_failures:\n  - rule: [BO-001]\n    reason: x\n", "rule must be a string"),
    ("expected_failures:\n  - rule: BO-001\n    reason: {a: 1}\n", "reason must be a string"),
    ("expected_failures:\n  - rule: BO-001\n    1: x\n    reason: y\n", "unknown keys ['1']"),
    ("expected_failures: " + "[" * 300 + "]" * 300 + "\n", "nested deeper than 200 levels"),
    ("expected_failures:\n  - [unclosed\n", "not YAML"),
])
def test_a_baseline_with_wrong_types_is_a_clear_error(
        text: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "b.yaml"
    path.write_text(text)
    code, _, err = tck(capsys, "run", "--expect", str(path), "--rule", "BO-001",
                       "--report-dir", str(tmp_path / "o"))
    assert code == 2 and "BASELINE_INVALID" in err and expected in err


def test_a_baseline_that_is_not_utf8_is_a_clear_error(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "b.yaml"
    path.write_bytes(b"expected_failures: []\n# \xff\xfe\n")
    code, _, err = tck(capsys, "run", "--expect", str(path), "--rule", "BO-001",
                       "--report-dir", str(tmp_path / "o"))
    assert code == 2 and "b.yaml: not UTF-8: byte 24" in err


def test_a_deep_vector_file_names_file_line_and_column(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "deep.json").write_text(deep_json("family"))
    code, _, err = tck(capsys, "run", "--only-vectors", "--vectors", str(tmp_path / "v"),
                       "--report-dir", str(tmp_path / "o"))
    assert code == 2 and "VECTOR_INVALID" in err and "deep.json:1:" in err
    assert "nested deeper than 200 levels" in err


def test_duplicate_keys_in_a_vector_file_are_refused(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "dup.json").write_text('{"family": "a", "family": "b", "cases": []}')
    code, _, err = tck(capsys, "run", "--only-vectors", "--vectors", str(tmp_path / "v"),
                       "--report-dir", str(tmp_path / "o"))
    assert code == 2 and "duplicate key 'family'" in err


def test_a_folder_named_like_a_vector_file_is_skipped(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "v"
    (folder / "sub.json").mkdir(parents=True)
    shutil.copy(ROOT / "vectors" / "block-omission" / "user-input.json", folder)
    code, out, _ = tck(capsys, "run", "--only-vectors", "--vectors", str(folder),
                       "--report-dir", str(tmp_path / "o"))
    assert code == 0 and "block-omission" in out


def test_a_yaml_alias_bomb_provider_script_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "script.yaml"
    path.write_text(BOMB.replace("expected_failures", "replies"))
    code, _, err = tck(capsys, "simulate-provider", "--script", str(path))
    assert code == 2 and "SCRIPT_INVALID" in err and "YAML aliases" in err


def test_a_deep_json_provider_script_is_refused(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "script.json"
    path.write_text(deep_json("replies"))
    code, _, err = tck(capsys, "simulate-provider", "--script", str(path))
    assert code == 2 and "SCRIPT_INVALID" in err and "nested deeper" in err


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("bomb.yaml", BOMB.replace("expected_failures", "actions"), "YAML aliases"),
    ("deep.json", deep_json("scenario"), "nested deeper than 200 levels"),
    ("dup.json", '{"scenario": "a", "scenario": "b"}', "duplicate key"),
])
def test_a_hostile_scenario_file_is_a_clear_error(
        name: str, text: str, expected: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / name
    path.write_text(text)
    code, _, err = tck(capsys, "subagents", str(path))
    assert code == 2 and f"{name}: not a readable scenario" in err and expected in err


def test_a_deep_or_endless_results_stream_is_a_clear_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text(deep_json("type") + "\n")
    code, _, err = tck(capsys, "report", str(path))
    assert code == 2 and "RESULTS_BAD_JSON" in err and "results.jsonl:1" in err


# --- the command line ----------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["rules", "mutants"])
def test_an_unknown_family_names_the_valid_ones(command: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = tck(capsys, command, "--family", "block-omision")
    assert code == 2 and out == ""
    assert "no family named 'block-omision'" in err and "block-omission" in err


def test_an_upstream_that_is_not_a_url_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = tck(capsys, "audit", "--listen", "8080", "--upstream", "notaurl")
    assert code == 2 and "--upstream needs an http:// or https:// URL" in err


def test_mutants_finds_the_checkout_it_runs_in(tmp_path: Path) -> None:
    from agent_tck.harness.mutation.mutants import find_checkout

    for part in ("tests/mutants", "reference_impl", "harness", "sub/dir"):
        (tmp_path / part).mkdir(parents=True)
    assert find_checkout(tmp_path / "sub" / "dir") == tmp_path.resolve()
    assert find_checkout(Path("/")) == ROOT  # outside any checkout: the one loaded from


def _closed_pipe_run(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run with stdout a pipe whose reader is already gone (``| head`` that exited)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run([sys.executable, "-m", "agent_tck", *argv], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, cwd=cwd, timeout=300,
                              check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        os.close(write_end)


def test_a_closed_stdout_pipe_ends_quietly(tmp_path: Path) -> None:
    capture = good_capture(tmp_path)
    for argv in (("rules",), ("audit", "--read", str(capture), "--format", "json",
                              "--report-dir", str(tmp_path / "o"))):
        proc = _closed_pipe_run(*argv, cwd=tmp_path)
        assert proc.returncode == 141, proc.stderr
        assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr


def test_readers_stay_within_a_memory_limit(tmp_path: Path) -> None:
    """Under a 1.5 GiB address-space limit: a 99999999999-byte flow record, an alias bomb
    baseline and a 100,000-deep HAR are notes or clear errors, not MemoryError."""
    (tmp_path / "dump.flows").write_bytes(b"99999999999:abc")
    (tmp_path / "bomb.yaml").write_text(BOMB)
    (tmp_path / "deep.har").write_text('{"log": ' + "[" * DEEP + "]" * DEEP + "}")
    script = textwrap.dedent("""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20))
        from agent_tck.harness.cli import main
        codes = [main(["audit", "--read", "dump.flows", "--report-dir", "o1"]),
                 main(["run", "--expect", "bomb.yaml", "--rule", "BO-001", "--report-dir", "o2"]),
                 main(["audit", "--read", "deep.har", "--report-dir", "o3"])]
        print(codes)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[0, 2, 2]"
    assert "MemoryError" not in proc.stderr and "Traceback" not in proc.stderr
    assert "claims 99999999999 bytes" in proc.stderr


def test_the_mock_provider_accepts_200_connections_at_once() -> None:
    """The listen backlog holds 200 clients connecting before the server accepts any (with
    socketserver's default of 5, about 5% were reset); Nagle stays off for SSE."""
    from agent_tck.harness.mock_provider.server import MockProviderServer, _Handler, make_provider

    server = MockProviderServer(("127.0.0.1", 0), make_provider(
        {"version": 1, "replies": [{"content": [{"type": "text", "text": "x"}]}]}))
    clients = []
    try:
        for _ in range(200):  # nothing accepts: every one waits in the backlog
            clients.append(socket.create_connection(server.server_address[:2], timeout=30))
        assert len(clients) == 200
        assert _Handler.disable_nagle_algorithm is True
    finally:
        for client in clients:
            client.close()
        server.server_close()
