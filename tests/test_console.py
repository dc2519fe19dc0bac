"""The console never shows a secret or a terminal escape (issue 26, items 1 and 5).

Unit tests of ``harness/common/console.py``, then the redaction corpus
(tests/test_redaction_corpus.py) and an escape corpus routed through the console output of every
command, in real subprocess runs of the CLI: an adapter's words (tests/fakes/hostile_text.py) in
``run``, ``smoke`` and ``subagents --impl``; a capture's transport error in ``audit``; a session log
in ``check-log``; a saved results stream in ``report`` and ``baseline``; a request line in the mock
provider's log; and a file name every command repeats in its error message.
"""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from reports_sample_runs import case, footer, header

from agent_tck.harness.common.console import ConsoleStream, clean, neutralize, one_line, pump
from tests.test_redaction_corpus import CORPUS, leaks

ROOT = Path(__file__).resolve().parent.parent
HOSTILE_ADAPTER = f"{sys.executable} {ROOT / 'tests' / 'fakes' / 'hostile_text.py'}"

#: what a terminal must never receive raw: screen clear, an OSC 8 link, BEL, NUL, DEL, C1 CSI,
#: backspace, a carriage return that overwrites a line, vertical tab, form feed, bidi overrides
ESCAPES = ("\x1b[2J\x1b]8;;https://evil.example\x07click\x1b]8;;\x07 bell\x07 nul\x00 del\x7f"
           " csi\x9b31m bs\x08 cr\rforged vt\x0b ff\x0c bidi\u202egnp.exe\u2066\u2069")
_C = CORPUS
_URL = (f"https://{_C['userinfo']}@api.anthropic.com/v1/messages?key={_C['query-key']}"
        f"&token={_C['query-token']}&password={_C['query-password']}&sig={_C['query-sig']}"
        f"&X-Amz-Credential={_C['amz-credential']}/20260101&X-Amz-Signature="
        f"{_C['amz-signature']}")
#: every shape of the corpus, one a line (a credential header takes the rest of its line)
SECRET_LINES = [
    f"keys {_C['anthropic']} {_C['openai']} {_C['aws-key-id']} {_C['github']}",
    f"fine-grained {_C['github-pat']} slack {_C['slack-bot']} {_C['slack-user']}",
    f"Bearer {_C['bearer']}",
    f"x-api-key: {_C['x-api-key']}",
    f"Cookie: {_C['cookie']}",
    f"connect to {_URL} failed: token={_C['free-token']}, sent x-api-key {_C['spaced-api-key']}",
    f"callback https://app.example/cb#access_token={_C['fragment-token']}&state=s and "
    f"https://app.example/cb#key={_C['fragment-key']}",
    f'body {{"api_key": "{_C["json-api-key"]}", "password": "{_C["json-password"]}", '
    f'"client_secret": "{_C["json-secret"]}"}}',
]
TEXT = "\n".join([*SECRET_LINES, ESCAPES])
# the characters no console line may hold (\n and \t are line structure; \r is only the progress
# bar's, on a terminal: these runs write to pipes)
_FORBIDDEN = {chr(c) for c in (*range(0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0),
                               *range(0x202A, 0x202F), *range(0x2066, 0x206A))}


def check_console(output: bytes) -> str:
    """The output is UTF-8, holds no secret of the corpus and no raw control character."""
    text = output.decode("utf-8")  # strict: no stray byte either
    assert leaks(text) == []
    raw = sorted({f"U+{ord(ch):04X}" for ch in text if ch in _FORBIDDEN})
    assert raw == [], f"raw control characters on the console: {raw}"
    return text


def cli(*args: str | Path, cwd: Path, env: dict[str, str] | None = None,
        stdin: bytes = b"") -> tuple[int, str]:
    """``agent-tck ARGS`` as a user runs it; the exit status and stdout + stderr, checked."""
    done = subprocess.run([sys.executable, "-m", "agent_tck", *map(str, args)], cwd=cwd,
                          input=stdin, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          env={**os.environ, **(env or {}), "PYTHONPATH": str(ROOT / "src")},
                          timeout=300, check=False)
    return done.returncode, check_console(done.stdout)


# -- the pure parts ---------------------------------------------------------------------------

@pytest.mark.parametrize(("raw", "shown"), [
    ("\x1b[2J", "^[[2J"), ("\x07", "^G"), ("\x00", "^@"), ("\x7f", "^?"), ("\x9b", "M-^["),
    ("\x85", "M-^E"), ("\r", "^M"), ("\x08", "^H"), ("\u202e", "<U+202E>"),
    ("\u2066", "<U+2066>"), ("\udcff", "\\udcff"), ("a\tb\nc", "a\tb\nc"),
    ("plain, ünïcödé, 中文 and \U0001f600", "plain, ünïcödé, 中文 and \U0001f600"),
])
def test_neutralize_shows_control_characters_as_cat_v_does(raw: str, shown: str) -> None:
    assert neutralize(raw) == shown


def test_one_line_escapes_line_structure_too() -> None:
    assert one_line("a\nPASS forged\tx\r") == "a^JPASS forged^Ix^M"
    assert clean("a\nb") == "a\nb"


def test_clean_redacts_before_it_escapes() -> None:
    # the key on the second line is found while the newline is still a newline
    assert one_line(f"x\n{_C['anthropic']}") == "x^Jsk-ant-[REDACTED]"
    assert leaks(one_line(TEXT)) == [] and leaks(clean(TEXT)) == []
    assert not set(one_line(TEXT)) & (_FORBIDDEN | {"\n", "\t"})


def test_the_stream_redacts_a_line_written_in_pieces() -> None:
    raw = io.StringIO()
    stream = ConsoleStream(raw)
    for piece in ("auth ", _C["anthropic"][:10], _C["anthropic"][10:], " \x1b[2J", "\n"):
        stream.write(piece)
    stream.write("held until flushed: Bearer ")
    assert raw.getvalue() == "auth sk-ant-[REDACTED] ^[[2J\n"
    stream.write(_C["bearer"])
    stream.flush()
    assert raw.getvalue().endswith("held until flushed: Bearer [REDACTED]")


def test_the_stream_keeps_a_leading_carriage_return_only() -> None:
    raw = io.StringIO()
    stream = ConsoleStream(raw)
    stream.write("\r[##..] 1/2")
    stream.flush()
    stream.write("\r[####] 2/2 an\radapter's\n")
    assert raw.getvalue() == "\r[##..] 1/2\r[####] 2/2 an^Madapter's\n"


def test_the_stream_holds_a_bounded_part_of_an_endless_line() -> None:
    raw = io.StringIO()
    stream = ConsoleStream(raw)
    for _ in range(3):
        stream.write("x" * (ConsoleStream.MAX_PENDING // 2 + 1))
    assert len(raw.getvalue()) > ConsoleStream.MAX_PENDING  # written out, not held


def test_pump_copies_a_child_s_output_cleaned(tmp_path: Path) -> None:
    child = subprocess.Popen([sys.executable, "-c",
                              "import sys; sys.stdout.buffer.write(sys.stdin.buffer.read()"
                              " + b' \\xff\\n')"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    out = io.StringIO()
    assert child.stdout is not None and child.stdin is not None
    copying = pump(child.stdout, out)
    child.stdin.write(TEXT.encode("utf-8"))
    child.stdin.close()
    copying.join(60)
    child.wait(60)
    shown = out.getvalue()
    assert leaks(shown) == [] and "^[[2J" in shown and shown.endswith(" \\udcff\n")


# -- every command's console ------------------------------------------------------------------

def _hostile_env() -> dict[str, str]:
    return {"HOSTILE_TEXT": json.dumps(TEXT)}


def _seen(text: str) -> None:
    """The hostile text did reach the console (the test is not vacuous), shown harmless."""
    assert "^[[2J" in text and "[REDACTED" in text, text[-2000:]


@pytest.mark.slow
def test_run_progress_header_and_summary(tmp_path: Path) -> None:
    code, text = cli("run", "--impl", HOSTILE_ADAPTER, "--rule", "BO-001", "--report-dir",
                     tmp_path / "r", cwd=tmp_path, env=_hostile_env())
    assert code == 1 and "ERRORED" in text
    _seen(text)
    assert "\nPASS forged" not in text and "^Jfine-grained" in text  # one line per case


@pytest.mark.slow
def test_run_of_an_adapter_that_cannot_start_shows_its_stderr_tail(tmp_path: Path) -> None:
    code, text = cli("run", "--impl", f"{HOSTILE_ADAPTER} no-start", "--rule", "BO-001",
                     "--report-dir", tmp_path / "r", cwd=tmp_path, env=_hostile_env())
    assert code == 2 and "IMPL_START_FAILED" in text
    _seen(text)


@pytest.mark.slow
def test_smoke_fail_lines_and_transcript(tmp_path: Path) -> None:
    code, text = cli("smoke", "--impl", HOSTILE_ADAPTER, cwd=tmp_path, env=_hostile_env())
    assert code == 1 and "[FAIL]" in text
    _seen(text)


SCENARIO = {
    "scenario": "console",
    "world": {"agents": [{"id": "root", "state": "idle"},
                         {"id": "c1", "parent": "root", "mode": "continuable"}]},
    "actions": [{"do": "send", "from": "c1", "to": "root", "message": TEXT},
                {"do": "boundary", "agent": "root"}],
}


@pytest.mark.slow
def test_subagents_traces_and_an_adapter_s_errors(tmp_path: Path) -> None:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(SCENARIO), encoding="utf-8")
    code, text = cli("subagents", path, cwd=tmp_path)
    # one JSON line: "x-api-key: ..." takes the rest of it (the escapes, JSON-escaped already)
    assert code == 0 and "sk-ant-[REDACTED]" in text
    code, text = cli("subagents", path, "--impl", HOSTILE_ADAPTER, cwd=tmp_path,
                     env=_hostile_env())
    assert code != 0
    _seen(text)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_audit_transport_errors_and_notes(tmp_path: Path, fmt: str) -> None:
    capture = tmp_path / "capture.jsonl"
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}
    records = [{"method": "POST", "url": _URL, "request": {"headers": [], "body": body},
                "response": None, "error": TEXT},
               "{" + TEXT.replace("\n", " ")]
    capture.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records)
                       + "\n", encoding="utf-8")
    _code, text = cli("audit", "--read", capture, "--report-dir", tmp_path / "a", "--format",
                      fmt, cwd=tmp_path)
    assert "[REDACTED" in text


@pytest.mark.slow
def test_check_log_quotes_a_hostile_log(tmp_path: Path) -> None:
    log = tmp_path / "session.jsonl"
    log.write_text(json.dumps({"type": "session", "version": 4, "id": TEXT}) + "\n"
                   + json.dumps({"type": TEXT, "seq": 0}) + "\n" + TEXT + "\n",
                   encoding="utf-8")
    for fmt in ("text", "json"):
        code, _text = cli("check-log", log, "--format", fmt, cwd=tmp_path)
        assert code == 1


def _planted_results(tmp_path: Path) -> Path:
    """A results stream from elsewhere: not written by our (redacting) writer."""
    cases = [case(1, "planted", ["BO-001"], "fail", message=TEXT, transcript=TEXT.split("\n"))]
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [header(), *cases, footer(cases)]),
                    encoding="utf-8")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["md", "html", "junit"])
def test_report_of_a_planted_stream(tmp_path: Path, fmt: str) -> None:
    code, text = cli("report", _planted_results(tmp_path), "--format", fmt, cwd=tmp_path)
    assert code == 0, text


@pytest.mark.slow
def test_baseline_of_a_planted_stream(tmp_path: Path) -> None:
    code, text = cli("baseline", _planted_results(tmp_path), cwd=tmp_path)
    assert code == 0 and "planted" in text


@pytest.mark.slow
def test_the_mock_provider_s_request_log(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"version": 1, "replies": [{"content": [
        {"type": "text", "text": "ok"}]}]}), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_tck", "simulate-provider", "--script", str(script),
         "--listen", "127.0.0.1:0", "--verbose"], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().decode()
        port = int(first.strip().rsplit(":", 1)[1])
        target = f"/v1/{_C['anthropic']}/\x1b[2J\x9b\x07?k=v".encode("latin-1")
        with socket.create_connection(("127.0.0.1", port), timeout=60) as conn:
            conn.sendall(b"POST " + target + b" HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n"
                         b"Connection: close\r\n\r\n{}")
            while conn.recv(65536):
                pass
        proc.terminate()
        rest, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = check_console(first.encode() + rest)
    assert "/v1/sk-ant-[REDACTED]/^[[2JM-^[^G -> " in text


def _named(tmp_path: Path) -> Path:
    """A file whose name carries a key and the escapes (no NUL or slash: a file name's own)."""
    name = f"{_C['anthropic']} {ESCAPES.replace(chr(0), '')}"[:200].replace("/", "_")
    path = tmp_path / f"{name}.json"
    path.write_text("{not json\n", encoding="utf-8")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    ["check-log"], ["report"], ["baseline"], ["subagents"], ["simulate-provider", "--script"],
    ["run", "--only-vectors", "--vectors"], ["run", "--expect"], ["audit", "--read"],
    ["matrix", "--offline", "--registry"],
])
def test_every_command_repeats_a_hostile_file_name_harmlessly(tmp_path: Path,
                                                              command: list[str]) -> None:
    path = _named(tmp_path)
    code, text = cli(*command, path, *(["--report-dir", tmp_path / "a"]
                                       if command[0] == "audit" else []), cwd=tmp_path)
    assert code != 0
    _seen(text)


@pytest.mark.slow
@pytest.mark.parametrize("command", [["rules", "--family"], ["run", "--family"],
                                     ["mutants", "--family"]])
def test_a_hostile_argument_in_a_usage_error(tmp_path: Path, command: list[str]) -> None:
    code, _text = cli(*command, ESCAPES.replace("\x00", "") + _C["anthropic"], cwd=tmp_path)
    assert code == 2
