"""A child process that dies with its parent, however the parent dies (issue 26.8).

``agent-tck audit --listen`` runs mitmdump as a child. A parent killed with ``kill -9`` cannot
forward anything, so the child must learn of it on its own: on Linux the kernel sends it a
signal when its parent exits (``prctl(PR_SET_PDEATHSIG)``). The signal is SIGKILL, so the
child stops where it is and ``results.jsonl`` reads as a truncated run (no footer), as
docs/RELIABILITY.md says; a parent that stops normally (Ctrl-C, SIGTERM) still lets the child
finish its reports first.

:func:`die_with_parent` returns the ``preexec_fn`` to give :class:`subprocess.Popen`
(it runs in the child between fork and exec; the command line starts no thread before it), or
``None`` where the platform has no such call.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
from collections.abc import Callable

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent(sig: int = signal.SIGKILL) -> Callable[[], None] | None:
    """A ``preexec_fn`` that makes the child receive ``sig`` when this process exits."""
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    parent = os.getpid()

    def arm() -> None:
        if libc.prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
        if os.getppid() != parent:  # the parent died before the call: nobody will signal
            os.kill(os.getpid(), sig)

    return arm
