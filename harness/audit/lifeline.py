"""A child process that dies with its parent, however the parent dies (issue 26.8).

``agent-tck audit --listen`` runs mitmdump as a child. A parent killed with ``kill -9`` cannot
forward anything, so the child must learn of it on its own: on Linux the kernel sends it a
signal when its parent exits (``prctl(PR_SET_PDEATHSIG)``). The signal is SIGKILL, so the
child stops where it is and ``results.jsonl`` reads as a truncated run (no footer), as
docs/RELIABILITY.md says; a parent that stops normally (Ctrl-C, SIGTERM) still lets the child
finish its reports first.

:func:`die_with_parent` returns the ``preexec_fn`` to give :class:`subprocess.Popen`
(it runs in the child between fork and exec; the command line starts no thread before it), or
``None`` where the platform has no such call. The audit process that mitmdump starts
(:mod:`harness.audit.worker`) arms the same call on itself with :func:`arm_now`: mitmdump has
threads by then, and ``preexec_fn`` is not safe in a process with threads.
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
    libc = _libc()  # loaded before the fork: find_library may run a program
    parent = os.getpid()

    def arm() -> None:
        arm_now(parent, sig, libc)

    return arm


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def arm_now(parent: int, sig: int = signal.SIGKILL, libc: ctypes.CDLL | None = None) -> None:
    """In the child: receive ``sig`` when the parent ``parent`` exits (at once if it already
    has). Nothing happens where the platform has no such call."""
    if not sys.platform.startswith("linux"):
        return
    libc = libc or _libc()
    if libc.prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent:  # the parent died before the call: nobody will signal
        os.kill(os.getpid(), sig)
