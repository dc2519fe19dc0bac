"""Every file read whole has a size cap and a clear error (issue 26 item 3).

``mkdir v; truncate -s 2G v/big.json; (ulimit -v 4000000; agent-tck run --vectors v
--only-vectors)`` ended in a MemoryError traceback plus INTERNAL_ERROR; so did ``--expect``,
``simulate-provider --script`` and ``subagents`` with such a file. Now each names the file, its
size and the cap, and exits 2; ``AGENT_TCK_MAX_INPUT_BYTES`` raises the cap. Memory is bounded
by RLIMIT_AS in a subprocess (sparse files: nothing is written to disk), never by a clock.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agent_tck.harness.common.whole_file import (
    MAX_INPUT_BYTES,
    VARIABLE,
    max_input_bytes,
    read_whole,
)

ROOT = Path(__file__).resolve().parent.parent
SIZE = 2 << 30
LIMIT = 1536 << 20  # RLIMIT_AS of the subprocess, below the file's size


def sparse(path: Path, size: int = SIZE) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        handle.truncate(size)
    return path


@pytest.mark.slow
def test_a_2g_file_is_refused_by_every_reader_naming_its_size_and_the_cap(tmp_path: Path) -> None:
    sparse(tmp_path / "v" / "big.json")
    for name in ("big.yaml", "big.json"):
        sparse(tmp_path / name)
    script = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, ({LIMIT}, {LIMIT}))
        from agent_tck.harness.cli import main
        codes = [main(["run", "--vectors", "v", "--only-vectors", "--report-dir", "o1"]),
                 main(["run", "--expect", "big.yaml", "--rule", "BO-001", "--report-dir", "o2"]),
                 main(["simulate-provider", "--script", "big.json"]),
                 main(["subagents", "big.json"])]
        print(codes)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[2, 2, 2, 2]"
    assert "MemoryError" not in proc.stderr and "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if "cap of" in ln]
    assert [ln.split(":")[0] if not ln.startswith("agent-tck") else ln.split(": ")[1]
            for ln in lines] == ["VECTOR_INVALID", "BASELINE_INVALID", "SCRIPT_INVALID",
                                 "big.json"]
    for line, name in zip(lines, ("v/big.json", "big.yaml", "big.json", "big.json"),
                          strict=True):
        assert name in line and f"{SIZE:,} bytes" in line and f"cap of {MAX_INPUT_BYTES:,}" \
            in line and VARIABLE in line


def test_the_variable_raises_or_lowers_the_cap(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "small.json"
    path.write_text(json.dumps({"x": "y" * 100}), encoding="utf-8")
    assert read_whole(path) == path.read_bytes() and max_input_bytes() == MAX_INPUT_BYTES
    monkeypatch.setenv(VARIABLE, "50")
    with pytest.raises(OSError, match=r"the file is 109 bytes, more than the cap of 50") as err:
        read_whole(path)
    assert err.value.filename == str(path)
    monkeypatch.setenv(VARIABLE, "1_000")
    assert max_input_bytes() == 1000 and read_whole(path) == path.read_bytes()
    for nonsense in ("", "0", "-5", "lots"):
        monkeypatch.setenv(VARIABLE, nonsense)
        assert max_input_bytes() == MAX_INPUT_BYTES


def test_a_file_of_unknown_size_is_read_to_the_cap_and_no_further(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(VARIABLE, "4096")
    with pytest.raises(OSError, match="holds more than the cap of 4,096 bytes"):
        read_whole(Path("/dev/zero"))  # endless, and its size says 0


def test_a_capped_vector_folder_is_a_usage_error_in_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from agent_tck.harness.cli import main

    sparse(tmp_path / "v" / "big.json", 200)
    monkeypatch.setenv(VARIABLE, "100")
    assert main(["run", "--vectors", str(tmp_path / "v"), "--only-vectors",
                 "--report-dir", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "VECTOR_INVALID" in err and "200 bytes, more than the cap of 100" in err


def test_a_matrix_registry_is_capped_and_not_yaml_is_an_input_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from agent_tck.harness.cli import main

    bad = tmp_path / "clients.yaml"
    bad.write_text("{not yaml: [\n", encoding="utf-8")
    assert main(["matrix", "--offline", "--registry", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "MATRIX_INPUT" in err and "not YAML" in err and "INTERNAL_ERROR" not in err
    sparse(bad, 200)
    monkeypatch.setenv(VARIABLE, "100")
    assert main(["matrix", "--offline", "--registry", str(bad)]) == 2
    assert "200 bytes, more than the cap of 100" in capsys.readouterr().err
