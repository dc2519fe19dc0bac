"""``agent-tck check-log FILE...``: validate chunk-free session logs (chunk-free-persistence).

Each file is read once, as a stream, by :func:`reference_impl.session_log.check`; memory stays
flat however long the log. Human output by default, ``--format json`` for tools. Exit status 0
when every file is a valid log, 1 otherwise (a file that cannot be read counts as invalid).
``-`` reads standard input.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, BinaryIO

CANNOT_READ = "CANNOT_READ"


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "check-log", help="validate session logs (chunk-free format, version 4)",
        description="Validate chunk-free session logs: header and version, no assistant/chunk, "
                    "contiguous seq, well-formed events. Exit 0 when all are valid, 1 otherwise.")
    p.add_argument("files", nargs="+", metavar="FILE", help="log files (JSONL); - for stdin")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=check_log_command)


def check_file(path: str, stdin: BinaryIO | None = None) -> dict[str, Any]:
    """One file's verdict as JSON: ``{"path", "valid", ...summary}`` or ``{..., "error"}``."""
    from reference_impl import session_log as sl

    vocabulary = sl.default_vocabulary()
    try:
        if path == "-":
            summary = sl.check(stdin or sys.stdin.buffer, vocabulary)
        else:
            with open(path, "rb", buffering=1 << 20) as handle:
                summary = sl.check(handle, vocabulary)
    except sl.LogRejected as exc:
        return {"path": path, "valid": False, "error": exc.error.to_json()}
    except OSError as exc:
        return {"path": path, "valid": False,
                "error": {"code": CANNOT_READ, "message": exc.strerror or str(exc)}}
    return {"path": path, **summary.to_json()}


def _human(result: dict[str, Any]) -> str:
    if result["valid"]:
        span = ("no events" if result["events"] == 0 else
                f"{result['events']} events, seq {result['firstSeq']}..{result['lastSeq']}")
        return f"{result['path']}: ok (version {result['version']}, {span})"
    error = result["error"]
    where = ""
    if "line" in error:
        where = f": line {error['line']}" + (f" (seq {error['seq']})" if "seq" in error else "")
    return f"{result['path']}{where}: {error['code']}: {error['message']}"


def check_log_command(args: argparse.Namespace, out: Any = None) -> int:
    out = out or sys.stdout
    results = [check_file(path) for path in args.files]
    valid = all(r["valid"] for r in results)
    if args.format == "json":
        json.dump({"valid": valid, "files": results}, out, ensure_ascii=False, indent=2)
        out.write("\n")
    else:
        for result in results:
            out.write(_human(result) + "\n")
        bad = sum(not r["valid"] for r in results)
        out.write(f"{len(results)} file(s) checked, {bad} invalid\n")
    return 0 if valid else 1
