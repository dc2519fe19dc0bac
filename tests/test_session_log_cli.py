"""``agent-tck check-log`` (harness/commands/check_log.py)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tck.harness.cli import main

GOOD = ('{"type":"session","version":4,"id":"s","createdAt":1}\n'
        '{"type":"turn/start","seq":1,"time":1,"data":{"turn":1}}\n'
        '{"type":"turn/end","seq":2,"time":2,"data":{"turn":1,"reason":{"kind":"completed"}}}\n')
CHUNKY = GOOD + ('{"type":"assistant/chunk","seq":3,"time":3,"data":{"turn":1,"step":1,'
                 '"chunk":{"type":"text-delta","index":0,"text":"x"}}}\n')


@pytest.fixture
def logs(tmp_path: Path) -> dict[str, Path]:
    paths = {"good": tmp_path / "good.jsonl", "chunky": tmp_path / "chunky.jsonl",
             "old": tmp_path / "old.jsonl", "binary": tmp_path / "binary.jsonl"}
    paths["good"].write_text(GOOD, encoding="utf-8")
    paths["chunky"].write_text(CHUNKY, encoding="utf-8")
    paths["old"].write_text(GOOD.replace('"version":4', '"version":3'), encoding="utf-8")
    # a corrupt line a later turn/end follows: corruption, not a recoverable tail
    paths["binary"].write_bytes(GOOD.encode() + b'{"type":"x\xff"}\n' + GOOD.splitlines()[-1]
                                .replace('"seq":2', '"seq":4').encode() + b"\n")
    return paths


def test_all_valid_exits_0(logs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-log", str(logs["good"])]) == 0
    out = capsys.readouterr().out
    assert f"{logs['good']}: ok (version 4, 2 events, seq 1..2)" in out
    assert "1 file(s) checked, 0 invalid" in out


def test_any_invalid_exits_1_naming_line_seq_and_code(
    logs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check-log", str(logs["good"]), str(logs["chunky"]), str(logs["old"])]) == 1
    out = capsys.readouterr().out
    assert f"{logs['chunky']}: line 4 (seq 3): CHUNK_PERSISTED:" in out
    assert f"{logs['old']}: line 1: UNSUPPORTED_VERSION: session format version 3 found, " \
           "version 4 expected" in out
    assert "3 file(s) checked, 2 invalid" in out


def test_json_format(logs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    missing = logs["good"].parent / "missing.jsonl"
    code = main(["check-log", "--format", "json", str(logs["good"]), str(logs["binary"]),
                 str(missing)])
    report = json.loads(capsys.readouterr().out)
    assert code == 2 and report["valid"] is False  # a missing file: a usage error
    good, binary, gone = report["files"]
    assert good == {"path": str(logs["good"]), "valid": True, "version": 4, "events": 2,
                    "firstSeq": 1, "lastSeq": 2}
    assert binary["error"]["code"] == "INVALID_UTF8" and binary["error"]["line"] == 4
    assert gone["error"]["code"] == "CANNOT_READ"


def test_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(GOOD.encode()))
    monkeypatch.setattr(sys, "stdin", stdin)
    assert main(["check-log", "-"]) == 0
    assert "-: ok" in capsys.readouterr().out


def test_missing_argument_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as info:
        main(["check-log"])
    assert info.value.code == 2


def test_console_entry_point(logs: dict[str, Path]) -> None:
    done = subprocess.run([sys.executable, "-m", "agent_tck", "check-log", str(logs["chunky"])],
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 1 and "CHUNK_PERSISTED" in done.stdout
