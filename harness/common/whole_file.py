"""Untrusted files read whole, with a size cap: one home for the cap and its error.

The kit parses a few inputs as one document, so it reads them whole: vector files
(``--vectors``), baselines (``--expect``), mock-provider scripts (``simulate-provider
--script``) and subagent scenarios (``subagents``). A 2 GB file given by mistake (or a sparse
one, ``truncate -s 2G``) ended in a MemoryError traceback; now it is refused before a byte is
read, with its size and the cap: :data:`MAX_INPUT_BYTES`, raised by the environment variable
``AGENT_TCK_MAX_INPUT_BYTES`` (docs/RELIABILITY.md). A file whose size the system does not
know (a pipe, ``/dev/zero``) is read up to the cap plus one byte, never further.

The refusal is an ``OSError`` (``EFBIG``, "File too large") whose ``strerror`` says it all, so
each reader's "cannot read" error names its file with the command's own error code, exit 2.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

#: The largest file read whole (64 MiB): the biggest built-in vector file is under 1 MiB.
MAX_INPUT_BYTES = 64 << 20
VARIABLE = "AGENT_TCK_MAX_INPUT_BYTES"


def max_input_bytes() -> int:
    """The cap in force: ``AGENT_TCK_MAX_INPUT_BYTES`` when it is a positive integer."""
    raw = os.environ.get(VARIABLE, "").strip().replace("_", "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else MAX_INPUT_BYTES


def _too_large(path: Path, size: int | None, cap: int) -> OSError:
    said = (f"the file is {size:,} bytes, more than the cap of {cap:,}" if size is not None
            else f"the file holds more than the cap of {cap:,} bytes")
    return OSError(errno.EFBIG, f"{said} for a file read whole (the environment variable "
                                f"{VARIABLE} raises it)", str(path))


def read_whole(path: Path) -> bytes:
    """The bytes of ``path``, or ``OSError(EFBIG)`` naming its size and the cap."""
    cap = max_input_bytes()
    with path.open("rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > cap:
            raise _too_large(path, size, cap)
        data = handle.read(cap + 1)
    if len(data) > cap:  # a pipe or a device: no size known beforehand
        raise _too_large(path, None, cap)
    return data
