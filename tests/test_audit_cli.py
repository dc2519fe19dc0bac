"""``agent-tck audit``: the offline path end to end, and how the live proxy is started."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_tck.harness.cli import main
from agent_tck.harness.commands.audit import mitmdump_command, parse_listen
from agent_tck.harness.common.errors import HarnessError

KEY = "sk-ant-api03-PLANTEDcliKEY0123456789abc"


def capture(tmp_path: Path, *exchanges: dict[str, Any]) -> Path:
    path = tmp_path / "capture.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in exchanges) + "\n")
    return path


def anthropic(messages: list[Any], reply: str | None = "ok") -> dict[str, Any]:
    return {"method": "POST", "url": "https://api.anthropic.com/v1/messages",
            "request": {"headers": [["x-api-key", KEY]],
                        "body": {"model": "m", "messages": messages}},
            "response": None if reply is None else {
                "status": 200, "headers": {"content-type": "application/json"},
                "body": {"type": "message", "content": [{"type": "text", "text": reply}]}}}


def test_read_reports_errors_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                         ) -> None:
    path = capture(tmp_path, anthropic([{"role": "user", "content": [
        {"type": "text", "text": f"key {KEY}"}, {"type": "thinking", "thinking": "t"}]}]))
    out_dir = tmp_path / "out"
    assert main(["audit", "--read", str(path), "--report-dir", str(out_dir)]) == 1
    out = capsys.readouterr().out
    assert "error BO-001 at /request/body/messages/0/content/1" in out
    assert "audited 1 LLM requests in 1 conversations" in out
    for name in ("results.jsonl", "junit.xml", "summary.md", "report.html", "audit.json"):
        assert (out_dir / name).is_file()
    for path_ in out_dir.rglob("*"):
        if path_.is_file():
            assert KEY not in path_.read_text(errors="replace")


def test_read_json_format_and_warnings_exit_0(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = capture(tmp_path,
                   anthropic([{"role": "user", "content": "q"}], reply="a"),
                   anthropic([{"role": "user", "content": "q"}, {"role": "assistant",
                                                                 "content": "a"},
                              {"role": "user", "content": [{"type": "hologram"}]}]),
                   {"method": "GET", "url": "https://example.com/", "request": {}})
    assert main(["audit", "--read", str(path), "--report-dir", str(tmp_path / "o"),
                 "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["exit_code"] == 0 and doc["ignored"] == 1
    assert doc["counts"] == {"error": 0, "warning": 1, "exchanges": 2, "errored_checks": 0,
                             "errored_exchanges": 0}
    assert [c["requests"] for c in doc["conversations"]] == [[0, 1]]


def test_damaged_lines_are_notes_on_stderr(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text("{not json\n" + json.dumps(anthropic([{"role": "user", "content": "x"}])))
    assert main(["audit", "--read", str(path), "--report-dir", str(tmp_path / "o")]) == 0
    assert "note: c.jsonl:1: not a JSON line" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["audit"],
    ["audit", "--read", "x.har", "--listen", "8080"],
    ["audit", "--read", "missing.har"],
    ["audit", "--read", "x.har", "--upstream", "http://x"],
    ["audit", "--listen", "127.0.0.1:notaport", "--upstream", "http://x"],
    ["audit", "--listen", "8080", "--mode", "reverse"],
    ["audit", "--listen", "8080", "--mode", "regular", "--upstream", "http://x"],
])
def test_usage_and_input_errors_exit_2(argv: list[str], tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.har").write_text('{"log": {"entries": []}}')
    with pytest.raises(SystemExit) as info:
        raise SystemExit(main(argv))
    assert info.value.code == 2


def test_a_mistyped_read_path_exits_2_and_leaves_the_previous_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 23: an audit that fails before reading anything writes no report."""
    out_dir = tmp_path / "out"
    path = capture(tmp_path, anthropic([{"role": "user", "content": "q"}]))
    assert main(["audit", "--read", str(path), "--report-dir", str(out_dir)]) == 0
    before = {p.name: p.read_bytes() for p in out_dir.rglob("*") if p.is_file()}
    capsys.readouterr()
    assert main(["audit", "--read", str(path), str(tmp_path / "captrue.jsonl"),
                 "--report-dir", str(out_dir)]) == 2
    err = capsys.readouterr().err
    assert "CAPTURE_UNREADABLE" in err and "captrue.jsonl" in err and "no report" in err
    assert {p.name: p.read_bytes() for p in out_dir.rglob("*") if p.is_file()} == before


def test_the_audit_never_says_conformant(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 21 E: "no violation seen in N requests", the rules checked and those never
    exercised; never "conformant" in any report or badge."""
    from agent_tck.harness.reports import read

    clean = [anthropic([{"role": "user", "content": f"q{i}"}]) for i in range(3)]
    out_dir = tmp_path / "out"
    assert main(["audit", "--read", str(capture(tmp_path, *clean)), "--report-dir",
                 str(out_dir)]) == 0
    run = read(out_dir / "results.jsonl")
    assert run.verdicts is not None
    assert run.verdicts["overall"].text == "no violation seen in 3 requests"
    assert run.verdicts["block-omission"].verdict == "no violation seen"
    assert run.rule_status["BO-D002"] == "untested"  # no tool result in this traffic
    checked = {c.rules[0]: c.message for c in run.cases if c.case.startswith("audit.")}
    assert checked["BO-001"] == "no violation seen in 3 of 3 requests"
    page = (out_dir / "report.html").read_text()
    assert "Rules checked" in page and "BO-001" in page
    assert "Rules never exercised (" in page and "BO-D002" in page
    badge = json.loads((out_dir / "badges" / "overall.json").read_text())
    assert badge["message"] == "no violation seen in 3 requests"
    for path_ in out_dir.rglob("*"):
        if path_.is_file() and path_.suffix in (".html", ".md", ".json", ".xml"):
            text = path_.read_text().lower().replace("not conformant", "")
            assert "conformant" not in text, path_.name
    bad = anthropic([{"role": "user", "content": [{"type": "thinking", "thinking": "t"}]}])
    assert main(["audit", "--read", str(capture(tmp_path, bad, *clean)), "--report-dir",
                 str(out_dir)]) == 1
    run = read(out_dir / "results.jsonl")
    assert run.verdicts is not None
    assert run.verdicts["block-omission"].verdict == "violation seen"
    assert "BO-001" in run.verdicts["overall"].failing
    assert json.loads((out_dir / "badges" / "overall.json").read_text())["message"] == (
        "violation seen in 4 requests")


def test_listen_addresses_default_to_loopback() -> None:
    assert parse_listen("8080") == ("127.0.0.1", 8080)
    assert parse_listen("127.0.0.1:9") == ("127.0.0.1", 9)
    assert parse_listen("[::1]:9") == ("::1", 9)
    assert parse_listen(":9") == ("127.0.0.1", 9)
    with pytest.raises(HarnessError):
        parse_listen("0")


def test_the_proxy_command_is_reverse_lazy_with_its_own_confdir_and_no_dumps() -> None:
    cmd = mitmdump_command(mitmdump="mitmdump", mode="reverse", upstream="https://api.x.com",
                           host="127.0.0.1", port=8081, confdir=Path("/tmp/conf"),
                           report_dir=Path("/tmp/r"), name="agent", max_body=None)
    joined = " ".join(cmd)
    assert "--mode reverse:https://api.x.com" in joined
    assert "--listen-host 127.0.0.1 --listen-port 8081" in joined
    assert "connection_strategy=lazy" in joined and "confdir=/tmp/conf" in joined
    assert "-s" in cmd and cmd[cmd.index("-s") + 1].endswith("harness/audit/addon.py")
    assert "-w" not in cmd and "hardump" not in joined and "save_stream_file" not in joined
    assert "flow_detail=0" in joined  # no flow dump (headers, keys) on the terminal


def test_an_interrupted_read_leaves_a_truncated_report(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C in the middle of `audit --read`: results.jsonl reads as truncated, and the views
    beside it are those of the truncated stream, not of an earlier run."""
    from agent_tck.harness.audit import engine
    from agent_tck.harness.reports import read

    out_dir = tmp_path / "out"
    path = capture(tmp_path, *[anthropic([{"role": "user", "content": [
        {"type": "thinking", "thinking": "t"}]}]) for _ in range(3)])
    assert main(["audit", "--read", str(path), "--report-dir", str(out_dir)]) == 1
    real, seen = engine.Auditor.observe, []

    def interrupted(self: Any, raw: Any) -> Any:
        seen.append(raw)
        if len(seen) == 2:
            raise KeyboardInterrupt
        return real(self, raw)

    monkeypatch.setattr(engine.Auditor, "observe", interrupted)
    assert main(["audit", "--read", str(path), "--report-dir", str(out_dir)]) == 130
    assert read(out_dir / "results.jsonl").truncated
    assert not (out_dir / "audit.json").exists()
    assert "truncated" in (out_dir / "summary.md").read_text()
