"""check-log's zstd reader stays bounded on a decompression bomb (issue 26 item 2).

A 131 KB file of 4 GB of zeros reached 4.35 GB of memory, an 8 KB file of 256 MiB of newlines
4.5 GB, because each 1 MiB read was decompressed in one call. Now the decoder gets
:data:`ZSTD_SLICE` bytes at a time and a stream that expands past :data:`MAX_ZSTD_RATIO` is a
ZSTD_BOMB naming the file and the ratio. Memory is bounded by RLIMIT_AS in a subprocess, never
judged by a clock.
"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import zstandard

from agent_tck.harness.commands.check_log import (
    MAX_ZSTD_RATIO,
    RATIO_VARIABLE,
    ZSTD_SLICE,
    _zstd_blocks,
    check_file,
)

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 1 << 30  # RLIMIT_AS of the subprocess: far below what the old reader needed


def one_frame(path: Path, block: bytes, times: int) -> Path:
    """``block`` ``times`` over as a single zstd frame (a bomb: a small file, a huge output)."""
    with path.open("wb") as handle:
        writer = zstandard.ZstdCompressor(level=1).stream_writer(handle, closefd=False)
        for _ in range(times):
            writer.write(block)
        writer.flush(zstandard.FLUSH_FRAME)
    return path


def check_log_limited(tmp_path: Path, *files: Path, env: dict[str, str] | None = None
                      ) -> subprocess.CompletedProcess[str]:
    script = textwrap.dedent(f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, ({LIMIT}, {LIMIT}))
        from agent_tck.harness.cli import main
        raise SystemExit(main(["check-log", "--format", "json", *sys.argv[1:]]))
    """)
    return subprocess.run([sys.executable, "-c", script, *map(str, files)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src"), **(env or {})})


@pytest.mark.slow
def test_a_bomb_of_zeros_and_one_of_newlines_are_clear_errors_in_bounded_memory(
        tmp_path: Path) -> None:
    zeros = one_frame(tmp_path / "zeros.jsonl.zstd", bytes(1 << 24), 128)  # 2 GiB
    newlines = one_frame(tmp_path / "newlines.jsonl.zstd", b"\n" * (1 << 24), 16)  # 256 MiB
    assert zeros.stat().st_size < 100_000 and newlines.stat().st_size < 20_000
    proc = check_log_limited(tmp_path, zeros, newlines)
    assert proc.returncode == 1, proc.stderr
    assert "MemoryError" not in proc.stdout + proc.stderr and "Traceback" not in proc.stderr
    files = json.loads(proc.stdout)["files"]
    assert [f["path"] for f in files] == [str(zeros), str(newlines)]
    for result in files:
        error = result["error"]
        assert error["code"] == "ZSTD_BOMB", result
        assert f"more than the cap of {MAX_ZSTD_RATIO:,}:1" in error["message"]
        assert ":1 (" in error["message"] and RATIO_VARIABLE in error["message"]


@pytest.mark.slow
def test_with_the_cap_raised_memory_stays_bounded_by_the_line_limit(tmp_path: Path) -> None:
    zeros = one_frame(tmp_path / "zeros.jsonl.zstd", bytes(1 << 24), 128)
    proc = check_log_limited(tmp_path, zeros, env={RATIO_VARIABLE: str(10**9)})
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["files"][0]["error"]["code"] == "LINE_TOO_LONG"


def test_one_decoder_call_yields_a_bounded_block(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(RATIO_VARIABLE, str(10**9))
    data = zstandard.ZstdCompressor(level=19).compress(bytes(64 << 20))
    assert len(data) < 16 * ZSTD_SLICE  # a few slices hold 64 MiB
    sizes = [len(block) for block in _zstd_blocks(io.BytesIO(data), 1 << 20)]
    assert sum(sizes) == 64 << 20
    # a zstd block (at most 128 KiB out) takes at least 4 input bytes
    assert max(sizes) <= (ZSTD_SLICE // 4 + 1) * (128 << 10)


def test_an_ordinary_log_is_far_below_the_cap() -> None:
    rng = random.Random(7)
    lines = b"".join(json.dumps({"type": "turn/start", "seq": i, "time": 1767225600000 + i,
                                 "data": {"note": "word " * rng.randint(1, 40)}}).encode()
                     + b"\n" for i in range(60_000))
    data = zstandard.ZstdCompressor(level=9).compress(lines)
    assert len(lines) > 4 << 20 and len(lines) / len(data) < MAX_ZSTD_RATIO / 10
    assert b"".join(_zstd_blocks(io.BytesIO(data), 1 << 20)) == lines


def test_concatenated_frames_and_a_torn_last_frame_read_as_before(tmp_path: Path) -> None:
    header = json.dumps({"type": "session", "version": 4, "id": "s", "createdAt": 1}) + "\n"
    compressor = zstandard.ZstdCompressor()
    frames = compressor.compress(header.encode()) + compressor.compress(b"")
    assert b"".join(_zstd_blocks(io.BytesIO(frames), 7)) == header.encode()
    path = tmp_path / "torn.jsonl.zstd"
    path.write_bytes(frames + compressor.compress(header.encode() * 50)[:-5])
    result = check_file(str(path))
    assert any(w["code"] == "RECOVERABLE_TAIL" for w in result.get("warnings", [])) or (
        result.get("error", {}).get("code") == "TORN_FRAME"), result
