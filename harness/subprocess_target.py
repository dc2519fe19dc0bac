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
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
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
MAX_REPLY_BYTES = 16 * 1024 * 1024  # one reply line; larger is a breach, not a memory hazard
MAX_DEPTH = 200  # nesting of a reply; deeper is a breach (and would exhaust recursion)
MAX_FAILED_STARTS = 3  # restarts that fail in a row before the rest of the run is errored


def _clip(text: str) -> str:
    return text if len(text) <= _TRANSCRIPT_LINE else text[:_TRANSCRIPT_LINE] + " …(clipped)"


class _Process:
    """One running adapter process (in its own process group) with reader threads."""

    def __init__(self, argv: list[str], cwd: str | None, env: dict[str, str] | None) -> None:
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,  # so a kill reaches what an `sh -c` wrapper started
        )
        self.lines: queue.Queue[object] = queue.Queue()
        self.stderr: collections.deque[str] = collections.deque(maxlen=200)
        threading.Thread(target=self._pump_stdout, daemon=True).start()
        threading.Thread(target=self._pump_stderr, daemon=True).start()

    def _pump_stdout(self) -> None:
        """Lines of stdout, decoded strictly; an oversized or non-UTF-8 line is a breach."""
        assert self.proc.stdout is not None
        stream = self.proc.stdout
        while True:
            raw = stream.readline(MAX_REPLY_BYTES + 1)
            if not raw:
                break
            if len(raw) > MAX_REPLY_BYTES and not raw.endswith(b"\n"):
                while (rest := stream.readline(1 << 20)) and not rest.endswith(b"\n"):
                    pass  # discard the rest of the oversized line
                self.lines.put(_Breach(f"a reply line is longer than {MAX_REPLY_BYTES} bytes"))
                continue
            try:
                self.lines.put(raw.decode("utf-8"))
            except UnicodeDecodeError as exc:
                self.lines.put(_Breach(f"a reply line is not UTF-8 ({exc.reason} at byte "
                                       f"{exc.start}): {raw[:120]!r}"))
        self.lines.put(_EOF)

    def _pump_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(_clip(line.decode("utf-8", "replace").rstrip("\n")))

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text.encode("utf-8"))
        self.proc.stdin.flush()

    def receive(self, timeout: float) -> str | _Breach | None:
        """The next stdout line; None on EOF; raises queue.Empty on timeout."""
        item = self.lines.get(timeout=timeout)
        return None if item is _EOF else item  # type: ignore[return-value]

    def pending(self) -> list[object]:
        """Whatever the adapter wrote that nobody asked for."""
        out = []
        while True:
            try:
                out.append(self.lines.get_nowait())
            except queue.Empty:
                return out

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
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)


@dataclass(frozen=True)
class _Breach:
    """Something the stdout reader saw that no reply may be (too long, not UTF-8)."""

    reason: str


def _depth(value: object, limit: int) -> bool:
    """True when ``value`` nests no deeper than ``limit`` (checked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            if level > limit:
                return False
            stack.extend((v, level + 1) for v in (item.values() if isinstance(item, dict)
                                                  else item))
    return True


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
        self._failed_starts = 0
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
        if self._proc is not None:
            # A reply nobody asked for (two replies to one command): the stream is out of step,
            # so start afresh rather than blame this case for the previous one's extra line.
            stray = [item for item in self._proc.pending() if not (
                isinstance(item, str) and not item.strip())]
            if stray:
                transcript.append("note: the implementation wrote after its previous reply; "
                                  "it was restarted before this case. It wrote:")
                transcript += ["<< " + _clip(str(getattr(x, "reason", x)).rstrip("\n"))
                               for x in stray if x is not _EOF]
                self._proc.kill()
                self._proc = None
        if self._proc is None:
            if self._failed_starts >= MAX_FAILED_STARTS:
                return Errored(f"not run: the implementation failed to restart "
                               f"{self._failed_starts} times in a row", tuple(transcript))
            try:
                self._start(first=False)
                self.restarts += 1
                self._failed_starts = 0
            except HarnessError as exc:
                self._failed_starts += 1
                return Errored(f"could not restart the implementation: {exc.message}",
                               (*transcript, *exc.message.splitlines()))
        proc = self._proc
        assert proc is not None
        proc.drain_stderr()  # stderr of earlier cases is theirs, not this one's
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
                status = proc.exit_status()
                what = ("closed its stdout but is still running" if status is None
                        else f"exited (status {status})")
                return self._fail(f"the implementation {what}", transcript)
            if isinstance(reply, _Breach):
                return self._fail(reply.reason, transcript)
            if not reply.strip():
                continue  # blank lines are tolerated
            transcript.append("<< " + _clip(reply.rstrip("\n")))
            try:
                result = parse_result(reply, self._seq)
            except ProtocolViolation as exc:
                return self._fail(str(exc), transcript)
            if isinstance(result, Errored):
                return Errored(result.reason, (*self._with_stderr(transcript), *result.transcript))
            if isinstance(result, Output) and not _depth(result.value, MAX_DEPTH):
                return self._fail(f"the output nests deeper than {MAX_DEPTH} levels", transcript)
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
                if isinstance(reply, _Breach):
                    raise ProtocolViolation(reply.reason)
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
