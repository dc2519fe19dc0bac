"""The offline audit's memory follows open conversations and findings, not requests (issue 26.4).

Each audit runs in a subprocess under an address-space limit (``RLIMIT_AS``, what ``ulimit -v``
sets), so the bound comes from the limit, never from a clock. The tree before the fix needed
368 MB for the 3,000 requests (25 records per request, each read back and validated) and read a
HAR file whole; here 200 MiB of address space must do for each capture.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 200 << 20
URL = "https://api.anthropic.com/v1/messages"


def _body(i: int, text: str = "") -> dict[str, Any]:
    return {"model": "m", "max_tokens": 8,
            "messages": [{"role": "user", "content": f"hello {i} {text}"}]}


def _reply(i: int) -> dict[str, Any]:
    return {"id": f"msg_{i}", "type": "message", "role": "assistant",
            "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn"}


def _har_entry(i: int, text: str = "") -> dict[str, Any]:
    return {"startedDateTime": "2026-07-01T12:00:00Z", "request": {
        "method": "POST", "url": URL, "headers": [{"name": "content-type",
                                                   "value": "application/json"}],
        "postData": {"mimeType": "application/json", "text": json.dumps(_body(i, text))}},
        "response": {"status": 200, "headers": [{"name": "content-type",
                                                 "value": "application/json"}],
                     "content": {"text": json.dumps(_reply(i))}}}


def _audit_under_limit(tmp_path: Path, capture: Path) -> dict[str, Any]:
    script = textwrap.dedent(f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, ({LIMIT}, {LIMIT}))
        from agent_tck.harness.cli import main
        sys.exit(main(["audit", "--read", {str(capture)!r}, "--report-dir", "out"]))
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, timeout=900, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "MemoryError" not in proc.stderr and "Traceback" not in proc.stderr
    return json.loads((tmp_path / "out" / "audit.json").read_text(encoding="utf-8"))


def test_3000_requests_of_a_jsonl_capture_fit_in_200_mib(tmp_path: Path) -> None:
    capture = tmp_path / "c.jsonl"
    with capture.open("w") as out:
        for i in range(3000):
            out.write(json.dumps({"method": "POST", "url": URL, "request": {"body": _body(i)},
                                  "response": {"status": 200, "body": _reply(i)}}) + "\n")
    doc = _audit_under_limit(tmp_path, capture)
    assert doc["counts"]["exchanges"] == 3000 and doc["exit_code"] == 0
    assert len(doc["exchanges"]) == 3000  # every request is still listed


def test_a_har_is_read_entry_by_entry(tmp_path: Path) -> None:
    """An 80 MB HAR (40 entries of 2 MB): read whole, the file alone would take its size
    three times over (bytes, text, objects)."""
    capture = tmp_path / "big.har"
    filler = "word " * (400 * 1024)
    with capture.open("w") as out:
        out.write('{"log": {"version": "1.2", "creator": {"name": "t"}, "entries": [\n')
        out.write(",\n".join(json.dumps(_har_entry(i, filler)) for i in range(40)))
        out.write("\n]}}\n")
    assert capture.stat().st_size > 80_000_000
    doc = _audit_under_limit(tmp_path, capture)
    assert doc["counts"]["exchanges"] == 40 and doc["exit_code"] == 0
