"""The JavaScript example adapter (examples/js-adapter/) certifies through the real CLI.

The kit is language-agnostic, and this is the proof: `agent-tck run --impl 'node ...'` runs every
block-omission and in-history-update vector through the Node.js adapter as a subprocess over the
published protocol, and every case must pass; `agent-tck smoke` must find nothing wrong.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ADAPTER = ROOT / "examples" / "js-adapter" / "adapter.js"
FAMILIES = ("block-omission", "in-history-update")
OPERATIONS = {"anthropic.serialize", "openai.serialize"}

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH"),
]


def agent_tck(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent_tck", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )


def impl_command() -> str:
    # The runner splits the command like a shell (PROTOCOL.md); quote the path for that.
    return f"node {json.dumps(str(ADAPTER))}"


def expected_case_count() -> int:
    """Every (case, operation) pair the two families' vector files hold."""
    total = 0
    for family in FAMILIES:
        files = sorted((ROOT / "vectors" / family).glob("*.json"))
        assert files, f"no vector files for {family}"
        for path in files:
            data = json.loads(path.read_text(encoding="utf-8"))
            total += sum(len(case["expect"]) for case in data["cases"])
    return total


def test_js_adapter_passes_both_families(tmp_path: Path) -> None:
    report_dir = tmp_path / "report"
    proc = agent_tck(
        "run", "--impl", impl_command(),
        "--family", FAMILIES[0], "--family", FAMILIES[1],
        "--report-dir", str(report_dir),
    )
    assert proc.returncode == 0, (
        f"agent-tck run exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")

    text = (report_dir / "results.jsonl").read_text(encoding="utf-8")
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert lines[0]["type"] == "header"
    assert lines[-1]["type"] == "footer", "results.jsonl has no footer: the run was truncated"

    header = lines[0]
    assert header["target"]["kind"] == "subprocess"
    assert header["implementation"]["name"] == "agent-tck-js-example"
    assert header["implementation"]["language"] == "javascript"
    assert set(header["implementation"]["operations"]) == OPERATIONS

    cases = [line for line in lines if line["type"] == "case"]
    not_passed = [(c["case"], c["operation"], c["status"], c.get("message", ""))
                  for c in cases if c["status"] != "pass"]
    assert not not_passed, f"cases that did not pass: {not_passed}"

    assert {c["family"] for c in cases} == set(FAMILIES)
    assert {c["operation"] for c in cases} == OPERATIONS
    # No case was dropped on the way: one result per (case, operation) of the vector files.
    assert len(cases) == expected_case_count()
    counts = lines[-1]["counts"]
    assert counts["pass"] == len(cases)
    assert counts["fail"] == counts["errored"] == 0


def test_js_serializer_never_modifies_its_input() -> None:
    """BO-008 cannot be observed through the protocol; the example checks it in process."""
    proc = subprocess.run(
        ["node", str(ADAPTER.with_name("check-no-mutation.js")), str(ROOT / "vectors")],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    total = expected_case_count()
    assert f"{total}/{total} cases" in proc.stdout


def test_js_adapter_smoke() -> None:
    proc = agent_tck("smoke", "--impl", impl_command())
    assert proc.returncode == 0, (
        f"agent-tck smoke exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    for operation in sorted(OPERATIONS):
        assert operation in proc.stdout
