"""``agent-tck simulate-provider``: script loading, addresses, a real run (thread and process)."""

from __future__ import annotations

import argparse
import io
import json
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from lazy_import import lazy

from agent_tck.harness.cli import main
from agent_tck.harness.commands.simulate_provider import (
    load_script,
    parse_listen,
    register,
    simulate_provider,
)
from agent_tck.harness.common.errors import HarnessError

openai = lazy("openai")  # imported on first use (tests/lazy_import.py)

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = {"version": 1, "replies": [{"content": [{"type": "text", "text": "from the script"}]}]}


def write(tmp_path: Path, data: object, name: str = "script.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def test_parse_listen() -> None:
    assert parse_listen("127.0.0.1:8080") == ("127.0.0.1", 8080)
    assert parse_listen("0") == ("127.0.0.1", 0)
    assert parse_listen("[::1]:9") == ("::1", 9)
    for bad in ("127.0.0.1:", "host:http", ":80", "[::1]9", "1.2.3.4:70000"):
        with pytest.raises(HarnessError) as caught:
            parse_listen(bad)
        assert caught.value.code == "BAD_ADDRESS"


def test_load_script_reads_json_and_yaml_and_names_the_problem(tmp_path: Path) -> None:
    assert load_script(write(tmp_path, SCRIPT)).replies[0].content[0].text == "from the script"
    yaml_text = "version: 1\nreplies:\n  - content:\n      - {type: text, text: yaml}\n"
    assert load_script(write(tmp_path, yaml_text, "s.yaml")).replies[0].content[0].text == "yaml"
    cases = [
        ("{nope", "not valid JSON/YAML", ""),
        (
            {"version": 1, "replies": [{"content": [{"type": "txt"}]}]},
            "schema",
            "#/replies/0/content/0",
        ),
        (
            {"version": 1, "replies": [{"faults": [{"kind": "drop"}, {"kind": "drop"}]}]},
            "at most one terminal fault",
            "#/replies/0/faults/1",
        ),
    ]
    for data, words, where in cases:
        with pytest.raises(HarnessError) as caught:
            load_script(write(tmp_path, data))
        assert caught.value.code == "SCRIPT_INVALID" and words in caught.value.message
        assert caught.value.where.endswith(where)
    with pytest.raises(HarnessError, match="cannot read"):
        load_script(tmp_path / "missing.json")


def test_bad_scripts_and_addresses_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    bad = write(tmp_path, {"version": 1})
    assert main(["simulate-provider", "--script", str(bad)]) == 2
    assert "SCRIPT_INVALID" in capsys.readouterr().err
    good = write(tmp_path, SCRIPT, "good.json")
    assert main(["simulate-provider", "--script", str(good), "--listen", "nohost:x"]) == 2


def test_a_run_in_a_thread_serves_the_script_until_stopped(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["simulate-provider", "--script", str(write(tmp_path, SCRIPT))])
    args.stop = threading.Event()
    ready = threading.Event()
    out = io.StringIO()
    result: list[int] = []
    runner = threading.Thread(target=lambda: result.append(args.func(args, out, ready)))
    runner.start()
    try:
        assert ready.wait(10)
        first = out.getvalue().splitlines()[0]
        assert first.startswith("listening on http://127.0.0.1:")
        url = first.removeprefix("listening on ")
        client = openai.OpenAI(base_url=url + "/v1", api_key="k", max_retries=0)
        reply = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "x"}]
        )
        assert reply.choices[0].message.content == "from the script"
    finally:
        args.stop.set()
        runner.join(10)
    assert result == [0] and args.func is simulate_provider


@pytest.mark.slow
def test_the_command_runs_as_a_process_and_stops_on_sigterm(tmp_path: Path) -> None:
    script = write(tmp_path, SCRIPT)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agent_tck",
            "simulate-provider",
            "--script",
            str(script),
            "--listen",
            "127.0.0.1:0",
            "--verbose",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().strip()
        assert first.startswith("listening on http://127.0.0.1:"), first
        url = first.removeprefix("listening on ")
        client = openai.OpenAI(base_url=url + "/v1", api_key="k", max_retries=0)
        with client.chat.completions.stream(
            model="m", messages=[{"role": "user", "content": "x"}]
        ) as stream:
            assert stream.get_final_completion().choices[0].message.content == "from the script"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0
    assert "#1 POST /v1/chat/completions -> 200 (reply 0)" in err
    assert "stopped after 1 requests" in err
