"""``agent-tck check-log FILE...``: validate chunk-free session logs (chunk-free-persistence).

Each file is read once, as a stream, in bounded chunks, by
:func:`reference_impl.session_log.reader.check`; memory stays flat however long the log, and
no line may exceed ``--max-line-bytes`` (an endless stream such as ``/dev/zero`` ends with
LINE_TOO_LONG, not with the machine's memory). A file may be plain JSONL or zstd-framed (the
source runtime's default ``.jsonl.zstd``: concatenated frames; recognised by the frame magic,
whatever the name). zstd is decoded a few hundred bytes at a time, so one call yields a bounded
block whatever the ratio, and a stream that expands past :data:`MAX_ZSTD_RATIO` is a ZSTD_BOMB
naming the ratio (issue 26: a 131 KB file of 4 GB of zeros took 4.35 GB of memory).

Verdicts: a valid log (exit 0), a valid log with warnings (exit 0: a torn final line, or a torn or
corrupt tail the source runtime's loader drops, which the warning names), an invalid log (exit 1),
a file that cannot be read (CANNOT_READ: exit 2, a usage error, as in every command). One file's
failure never costs the others their verdicts. ``--profile dsh-v4`` adds the source
runtime's own v4 strictness (:mod:`reference_impl.session_log.profile_dsh`). ``-`` reads stdin.
"""

from __future__ import annotations

import argparse
import io
import itertools
import json
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO

CANNOT_READ = "CANNOT_READ"
INTERNAL_ERROR = "INTERNAL_ERROR"
#: a zstd stream that expands past the cap (a decompression bomb), not a session log
ZSTD_BOMB = "ZSTD_BOMB"

#: Longest line read (64 MiB): far above any real event, small enough to stop an endless line.
MAX_LINE_BYTES = 64 << 20
CHUNK_BYTES = 1 << 20
PROFILES = ("default", "dsh-v4")
#: zstd input goes to the decoder this many bytes at a time. A zstd block yields at most
#: 128 KiB and takes at least 4 input bytes, so one call yields at most about 8 MiB, whatever
#: the file holds (a 1 MiB read decompressed in one call was 4 GB for 131 KB of zeros).
ZSTD_SLICE = 256
#: Decompressed bytes per compressed byte past which a zstd stream is a bomb: real session logs
#: compress 10 to 50 times. The environment variable AGENT_TCK_MAX_ZSTD_RATIO raises it.
MAX_ZSTD_RATIO = 1000
#: ... judged once this much has come out, so a log of a few lines is never judged by its ratio
ZSTD_RATIO_AFTER = 1 << 20
RATIO_VARIABLE = "AGENT_TCK_MAX_ZSTD_RATIO"


class DecompressionBomb(Exception):
    """A zstd stream expands past :data:`MAX_ZSTD_RATIO`; the message says by how much."""


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "check-log", help="validate session logs (chunk-free format, version 4)",
        description="Validate chunk-free session logs (plain or zstd-framed JSONL): header and "
                    "version, no assistant/chunk, contiguous seq, well-formed events, the "
                    "note-governed log rules. Exit 0 when all are valid (warnings included), "
                    "1 otherwise, 2 when a file cannot be read.")
    p.add_argument("files", nargs="+", metavar="FILE", help="log files (JSONL); - for stdin")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--profile", choices=PROFILES, default="default",
                   help="default: what the notes require; dsh-v4: also the source runtime's "
                        "closed header/envelope, surfaceOp, message ids and sources, turn/step "
                        "numbering, seq from 0, deferLoading (each check cites its source file)")
    p.add_argument("--max-line-bytes", type=int, default=MAX_LINE_BYTES, metavar="N",
                   help=f"longest line accepted (default {MAX_LINE_BYTES})")
    p.set_defaults(func=check_log_command)


def read_blocks(handle: BinaryIO, chunk: int = CHUNK_BYTES) -> Iterator[bytes]:
    """The plain bytes of a log, ``chunk`` at a time: zstd frames (recognised by their magic)
    are decompressed frame by frame; a last frame that ends early raises
    LogRejected(TORN_FRAME), which the reader treats as a recoverable tail."""
    from agent_tck.reference_impl.session_log.dsh_v4 import ZSTD_MAGIC

    peek = getattr(handle, "peek", None)
    head = peek(4)[:4] if peek else b""
    if head != ZSTD_MAGIC:
        while block := handle.read(chunk):
            yield block
        return
    yield from _zstd_blocks(handle, chunk)


def _max_ratio() -> int:
    raw = os.environ.get(RATIO_VARIABLE, "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else MAX_ZSTD_RATIO


def _zstd_blocks(handle: BinaryIO, chunk: int) -> Iterator[bytes]:
    """Concatenated zstd frames decompressed :data:`ZSTD_SLICE` input bytes at a time, so
    memory stays bounded whatever the ratio; past :data:`MAX_ZSTD_RATIO` the stream is a bomb.
    A corrupt or torn last frame raises LogRejected(TORN_FRAME)."""
    import zstandard

    from agent_tck.reference_impl.session_log import format as sl

    limit = _max_ratio()
    decompressor = zstandard.ZstdDecompressor()
    frame = decompressor.decompressobj()
    started = False
    fed = produced = 0
    while compressed := handle.read(chunk):
        view = memoryview(compressed)
        for at in range(0, len(view), ZSTD_SLICE):
            piece: bytes | memoryview = view[at:at + ZSTD_SLICE]
            fed += len(piece)
            while piece:
                try:
                    out = frame.decompress(piece)
                except zstandard.ZstdError as exc:
                    raise sl.LogRejected(sl.LogError(
                        sl.TORN_FRAME, 0, f"corrupt zstd frame ({exc})")) from None
                started = True
                produced += len(out)
                if produced > ZSTD_RATIO_AFTER and produced > limit * fed:
                    raise DecompressionBomb(
                        f"the zstd stream expands {produced // fed:,}:1 ({produced:,} bytes "
                        f"from the first {fed:,}), more than the cap of {limit:,}:1: a "
                        f"decompression bomb, not a session log ({RATIO_VARIABLE} raises "
                        "the cap)")
                if out:
                    yield out
                if frame.eof:
                    piece = frame.unused_data
                    frame = decompressor.decompressobj()
                    started = False
                else:
                    piece = b""
    if started:
        raise sl.LogRejected(sl.LogError(
            sl.TORN_FRAME, 0, "the last zstd frame ends early (a torn write)"))


def bounded_lines(blocks: Iterable[bytes], max_line: int = MAX_LINE_BYTES) -> Iterator[bytes]:
    """Lines (each with its ``\\n``, the last maybe without) cut from a stream of byte blocks.

    A line longer than ``max_line`` raises LogRejected(LINE_TOO_LONG) as soon as it is seen, so
    an endless line costs at most ``max_line`` plus one block. An error from ``blocks`` (a torn
    zstd frame) is re-raised naming the line it cut. The lines of a block are handed on in C
    (``chain``): the cutting resumes once a block, not once a line.
    """
    return itertools.chain.from_iterable(_line_batches(blocks, max_line))


def _line_batches(blocks: Iterable[bytes], max_line: int) -> Iterator[list[bytes]]:
    """:func:`bounded_lines`, a block's lines at a time."""
    from agent_tck.reference_impl.session_log import format as sl

    pending = b""
    number = 0
    source = iter(blocks)
    while True:
        try:
            block = next(source, b"")
        except sl.LogRejected as exc:
            raise sl.LogRejected(sl.LogError(exc.error.code, number + 1, exc.error.message)) \
                from None
        if not block:
            break
        if b"\n" not in block:  # no line ends here: keep the fragment, bounded
            if len(pending) + len(block) > max_line:
                raise _too_long(number + 1, max_line)
            pending += block
            continue
        # cut at b"\n" only, each line keeping its newline, in C (no copy of a line to re-add it)
        parts = io.BytesIO(pending + block if pending else block).readlines()
        pending = b"" if parts[-1].endswith(b"\n") else parts.pop()
        if max(map(len, parts)) > max_line:  # a line of max_line bytes, then its newline
            longest = max(range(len(parts)), key=lambda i: len(parts[i]))
            raise _too_long(number + longest + 1, max_line)
        number += len(parts)
        yield parts
        if len(pending) > max_line:
            raise _too_long(number + 1, max_line)
    if pending:
        yield [pending]


def _too_long(line: int, max_line: int) -> Exception:
    from agent_tck.reference_impl.session_log import format as sl

    return sl.LogRejected(sl.LogError(
        sl.LINE_TOO_LONG, line, f"line {line} is longer than {max_line} bytes (no newline within "
        "the bound: not a session log, or an endless stream)"))


def check_file(path: str, stdin: BinaryIO | None = None, *, profile: str = "default",
               max_line: int = MAX_LINE_BYTES) -> dict[str, Any]:
    """One file's verdict as JSON: ``{"path", "valid", ...summary}`` or ``{..., "error"}``.

    Never raises: an unreadable file or an internal fault is this file's error value.
    """
    from agent_tck.reference_impl.session_log import format as sl
    from agent_tck.reference_impl.session_log import reader as log_reader

    vocabulary = sl.default_vocabulary()
    if profile == "dsh-v4":
        from agent_tck.reference_impl.session_log import profile_dsh as session_profile_dsh

        vocabulary = session_profile_dsh.vocabulary(vocabulary)
    try:
        if path == "-":
            blocks = read_blocks(stdin or sys.stdin.buffer)
            summary = log_reader.check(bounded_lines(blocks, max_line), vocabulary, recover=True)
        else:
            with open(path, "rb", buffering=CHUNK_BYTES) as handle:
                summary = log_reader.check(bounded_lines(read_blocks(handle), max_line), vocabulary,
                                   recover=True)
    except sl.LogRejected as exc:
        return {"path": path, "valid": False, "error": exc.error.to_json()}
    except DecompressionBomb as exc:
        return {"path": path, "valid": False, "error": {"code": ZSTD_BOMB, "message": str(exc)}}
    except OSError as exc:
        return {"path": path, "valid": False,
                "error": {"code": CANNOT_READ, "message": exc.strerror or str(exc)}}
    except (RecursionError, MemoryError, ValueError, TypeError, KeyError) as exc:
        return {"path": path, "valid": False,
                "error": {"code": INTERNAL_ERROR, "message": f"{type(exc).__name__}: {exc}"}}
    warnings = summary.warnings()
    return {"path": path, **({"profile": profile} if profile != "default" else {}),
            **summary.to_json(), **({"warnings": warnings} if warnings else {})}


def _where(item: dict[str, Any]) -> str:
    if "line" not in item:
        return ""
    return f": line {item['line']}" + (f" (seq {item['seq']})" if "seq" in item else "")


def _human(result: dict[str, Any]) -> str:
    if result["valid"]:
        span = ("no events" if result["events"] == 0 else
                f"{result['events']} events, seq {result['firstSeq']}..{result['lastSeq']}")
        text = f"{result['path']}: ok (version {result['version']}, {span})"
        for warning in result.get("warnings", ()):
            text += (f"\n{result['path']}{_where(warning)}: warning {warning['code']}: "
                     f"{warning['message']}")
        return text
    error = result["error"]
    return f"{result['path']}{_where(error)}: {error['code']}: {error['message']}"


def check_log_command(args: argparse.Namespace, out: Any = None) -> int:
    out = out or sys.stdout
    profile = getattr(args, "profile", "default")
    max_line = getattr(args, "max_line_bytes", MAX_LINE_BYTES)
    results = [check_file(path, profile=profile, max_line=max_line) for path in args.files]
    valid = all(r["valid"] for r in results)
    if args.format == "json":
        json.dump({"valid": valid, "files": results}, out, ensure_ascii=False, indent=2)
        out.write("\n")
    else:
        for result in results:
            out.write(_human(result) + "\n")
        bad = sum(not r["valid"] for r in results)
        warned = sum(bool(r.get("warnings")) for r in results)
        out.write(f"{len(results)} file(s) checked, {bad} invalid"
                  + (f", {warned} with warnings" if warned else "") + "\n")
    if any(not r["valid"] and r["error"]["code"] == CANNOT_READ for r in results):
        return 2  # a file that is not there (or not readable) is a usage error, as everywhere
    return 0 if valid else 1
