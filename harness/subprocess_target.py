"""An implementation under test as a subprocess speaking the adapter protocol.

Whatever the program does - crash, hang, print garbage, answer out of order, chatter on
stderr - each call ends as an outcome value; after any protocol breach the process is killed
and restarted for the next call, so one bad case never poisons the rest of the run.
"""

from __future__ import annotations

import collections
import contextlib
import os
import queue
import shlex
import subprocess
import threading
import time
from typing import Any

from harness import __version__
from harness.errors import HarnessError
from harness.outcome import CallResult, Errored, Output
from harness.protocol import (
    Implementation,
    ProtocolViolation,
    Run,
    Start,
    Stop,
    encode,
    parse_result,
    parse_started,
)

_EOF = object()
_TRANSCRIPT_LINE = 2000  # characters kept per transcript line


def _clip(text: str) -> str:
    return text if len(text) <= _TRANSCRIPT_LINE else text[:_TRANSCRIPT_LINE] + " …(clipped)"


class _Process:
    """One running adapter process with reader threads for stdout and stderr."""

    def __init__(self, argv: list[str], cwd: str | None, env: dict[str, str] | None) -> None:
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            text=True,
            encoding="utf-8",
            errors="replace",
            bufsize=1,
        )
        self.lines: queue.Queue[object] = queue.Queue()
        self.stderr: collections.deque[str] = collections.deque(maxlen=200)
        threading.Thread(target=self._pump_stdout, daemon=True).start()
        threading.Thread(target=self._pump_stderr, daemon=True).start()

    def _pump_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(_EOF)

    def _pump_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line.rstrip("\n"))

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text)
        self.proc.stdin.flush()

    def receive(self, timeout: float) -> str | None:
        """The next stdout line; None on EOF; raises queue.Empty on timeout."""
        item = self.lines.get(timeout=timeout)
        return None if item is _EOF else str(item)

    def exit_status(self) -> int | None:
        """The exit status once stdout has closed (the process may need a moment to exit)."""
        try:
            return self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return None

    def drain_stderr(self) -> list[str]:
        out = list(self.stderr)
        self.stderr.clear()
        return out

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)


class SubprocessTarget:
    """``agent-tck run --impl CMD``: the implementation under test as a child process."""

    def __init__(
        self,
        command: str,
        *,
        timeout: float = 10.0,
        start_timeout: float = 30.0,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.command = command
        self.timeout = timeout
        self.start_timeout = start_timeout
        self._argv = shlex.split(command)
        if not self._argv:
            raise HarnessError("IMPL_START_FAILED", "the --impl command is empty")
        self._cwd = cwd
        self._env = {**os.environ, **(env or {})}
        self._seq = 0
        self._proc: _Process | None = None
        self.restarts = 0
        self.implementation = self._start(first=True)

    # -- Target interface -----------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.implementation.name

    @property
    def operations(self) -> frozenset[str]:
        return self.implementation.operations

    def call(self, operation: str, payload: Any, case: str | None = None) -> CallResult:
        transcript: list[str] = []
        if self._proc is None:
            try:
                self._start(first=False)
                self.restarts += 1
            except HarnessError as exc:
                return Errored(f"could not restart the implementation: {exc.message}")
        proc = self._proc
        assert proc is not None
        self._seq += 1
        line = encode(Run(self._seq, operation, payload, case))
        transcript.append(">> " + _clip(line.rstrip("\n")))
        try:
            proc.send(line)
        except (BrokenPipeError, OSError) as exc:
            return self._fail(f"could not write the command ({exc})", transcript)
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                reply = proc.receive(max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return self._fail(f"no reply within {self.timeout:g} s (timed out)", transcript)
            if reply is None:
                return self._fail(f"the implementation exited (status {proc.exit_status()})",
                                  transcript)
            if not reply.strip():
                continue  # blank lines are tolerated
            transcript.append("<< " + _clip(reply.rstrip("\n")))
            try:
                result = parse_result(reply, self._seq)
            except ProtocolViolation as exc:
                return self._fail(str(exc), transcript)
            if isinstance(result, Errored):
                return Errored(result.reason, (*self._with_stderr(transcript), *result.transcript))
            if isinstance(result, Output):
                return result
            return result

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError, ValueError):
            proc.send(encode(Stop()))
            assert proc.proc.stdin is not None
            proc.proc.stdin.close()
        try:
            proc.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()

    # -- internals --------------------------------------------------------------------------

    def _with_stderr(self, transcript: list[str]) -> tuple[str, ...]:
        assert self._proc is not None
        return (*transcript, *("stderr: " + _clip(s) for s in self._proc.drain_stderr()))

    def _fail(self, reason: str, transcript: list[str]) -> Errored:
        """Record a breach and kill the process; the next call restarts it."""
        proc, self._proc = self._proc, None
        assert proc is not None
        proc.kill()
        time.sleep(0.01)  # let the stderr pump catch the last lines
        lines = (*transcript, *("stderr: " + _clip(s) for s in proc.drain_stderr()))
        return Errored(reason, lines)

    def _start(self, *, first: bool) -> Implementation:
        try:
            proc = _Process(self._argv, self._cwd, self._env)
        except OSError as exc:
            raise HarnessError(
                "IMPL_START_FAILED",
                f"could not start {self.command!r}: {exc.strerror or exc}. Check the command "
                "and that it is on PATH (it is split like a shell would, not run by a shell).",
            ) from exc
        transcript = [">> " + encode(Start(__version__)).rstrip("\n")]
        try:
            proc.send(encode(Start(__version__)))
            deadline = time.monotonic() + self.start_timeout
            while True:
                reply = proc.receive(max(0.0, deadline - time.monotonic()))
                if reply is None:
                    raise ProtocolViolation(
                        f"the implementation exited (status {proc.exit_status()}) before "
                        "answering the start command"
                    )
                if reply.strip():
                    break
            transcript.append("<< " + _clip(reply.rstrip("\n")))
            implementation = parse_started(reply)
        except queue.Empty:
            proc.kill()
            raise HarnessError(
                "IMPL_START_FAILED",
                f"{self.command!r} did not answer the start command within "
                f"{self.start_timeout:g} s",
            ) from None
        except (ProtocolViolation, BrokenPipeError, OSError) as exc:
            proc.kill()
            stderr = "\n".join(proc.drain_stderr()[-20:])
            raise HarnessError(
                "IMPL_START_FAILED",
                f"{self.command!r} failed the handshake: {exc}"
                + (f"\n--- its stderr ---\n{stderr}" if stderr else ""),
            ) from exc
        if not first and implementation.operations != self.implementation.operations:
            proc.kill()
            raise HarnessError(
                "IMPL_START_FAILED", "the restarted implementation declared other operations"
            )
        self._proc = proc
        return implementation
