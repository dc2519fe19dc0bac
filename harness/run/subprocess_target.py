"""An implementation under test as a subprocess speaking the adapter protocol.

Whatever the program does - crash, hang, print garbage or floods of blank lines, answer twice or
out of order, chatter on stderr, stop reading its stdin - each call ends as an outcome value
within the reply time, and the memory the runner spends on it is bounded by :class:`Limits`.
After any protocol breach the process group is killed and the program restarted for the next
call, so one bad case never poisons the rest of the run.

Reply framing is deterministic: a reply is matched to its command by ``seq``. A reply carrying
the ``seq`` of an earlier command (an adapter that answered twice) is attributed to the case that
owns that ``seq`` - never to the case whose reply is awaited - and the runner learns of it through
:meth:`SubprocessTarget.pop_late`. Nothing depends on when a line arrives: the runner never peeks
for "more output" between cases.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

from agent_tck.harness import __version__
from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.run.outcome import CallResult, Errored, Observed
from agent_tck.harness.run.protocol import (
    OBSERVE,
    Implementation,
    ProtocolViolation,
    RunCommand,
    StartCommand,
    StopCommand,
    decode,
    encode,
    parse_result,
    parse_started,
)

_EOF = object()
_TRANSCRIPT_LINE = 2000  # characters kept per transcript line
MAX_FAILED_STARTS = 3  # restarts that fail in a row before the rest of the run is errored


@dataclass(frozen=True)
class Limits:
    """What one adapter may cost the runner. Each breach is an ``errored`` case, never a hang,
    an unbounded buffer or an aborted run (docs/RELIABILITY.md)."""

    #: bytes in one stdout line (a reply); longer is a breach and the rest is discarded unread
    line_bytes: int = 16 * 1024 * 1024
    #: stdout lines that are not the awaited reply (blank lines, earlier replies) per command
    noise_lines: int = 10_000
    #: stdout lines read ahead of the runner (back-pressure on the adapter beyond this)
    queued_lines: int = 64
    #: stderr is a ring buffer: the last ``stderr_lines`` chunks of ``stderr_chunk`` bytes
    stderr_lines: int = 200
    stderr_chunk: int = 4096
    #: seconds the program gets to exit after the stop command before its group is killed
    stop_grace: float = 5.0


def _clip(text: str) -> str:
    return text if len(text) <= _TRANSCRIPT_LINE else text[:_TRANSCRIPT_LINE] + " …(clipped)"


@dataclass(frozen=True)
class _Breach:
    """Something the stdout reader saw that no reply may be (too long, not UTF-8)."""

    reason: str


_BLANK = object()


class _Process:
    """One running adapter process (in its own process group) with reader threads."""

    def __init__(self, argv: list[str], cwd: str | None, env: dict[str, str] | None,
                 limits: Limits) -> None:
        self.limits = limits
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,  # its own process group: a kill reaches what it started
        )
        # bounded: a flood of output waits in the adapter's pipe, not in the runner's memory
        self.lines: queue.Queue[object] = queue.Queue(maxsize=limits.queued_lines)
        self.stderr: deque[str] = deque(maxlen=limits.stderr_lines)
        self._stderr_lock = threading.Lock()
        self._stop = threading.Event()
        self._stdout_thread = threading.Thread(target=self._pump_stdout, daemon=True)
        self._stderr_thread = threading.Thread(target=self._pump_stderr, daemon=True)
        self._stdout_thread.start()
        self._stderr_thread.start()

    def _put(self, item: object) -> bool:
        """Queue ``item`` unless the process is being dropped (then the pump ends)."""
        while not self._stop.is_set():
            try:
                self.lines.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _pump_stdout(self) -> None:
        """Lines of stdout, decoded strictly; an oversized or non-UTF-8 line is a breach."""
        assert self.proc.stdout is not None
        stream = self.proc.stdout
        limit = self.limits.line_bytes
        with contextlib.suppress(OSError, ValueError):
            while True:
                raw = stream.readline(limit + 1)
                if not raw:
                    break
                if len(raw) > limit and not raw.endswith(b"\n"):
                    while (rest := stream.readline(1 << 16)) and not rest.endswith(b"\n"):
                        if self._stop.is_set():
                            return
                    item: object = _Breach(f"a reply line is longer than {limit} bytes")
                elif not raw.strip():
                    item = _BLANK
                else:
                    try:
                        item = raw.decode("utf-8")
                    except UnicodeDecodeError as exc:
                        item = _Breach(f"a reply line is not UTF-8 ({exc.reason} at byte "
                                       f"{exc.start}): {raw[:120]!r}")
                if not self._put(item):
                    return
        self._put(_EOF)

    def _pump_stderr(self) -> None:
        """Stderr into a ring buffer of bounded chunks: the tail survives, memory does not grow."""
        assert self.proc.stderr is not None
        with contextlib.suppress(OSError, ValueError):
            while chunk := self.proc.stderr.readline(self.limits.stderr_chunk):
                text = _clip(chunk.decode("utf-8", "replace").rstrip("\n"))
                with self._stderr_lock:
                    self.stderr.append(text)

    def send(self, text: str, deadline: float) -> None:
        """Write one command; raises TimeoutError when the program does not read it in time
        (a writer thread, so a full pipe never blocks the runner past its deadline)."""
        assert self.proc.stdin is not None
        stdin = self.proc.stdin
        failure: list[BaseException] = []

        def write() -> None:
            try:
                stdin.write(text.encode("utf-8"))
                stdin.flush()
            except (OSError, ValueError) as exc:
                failure.append(exc)

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        writer.join(max(0.0, deadline - time.monotonic()))
        if writer.is_alive():
            raise TimeoutError
        if failure:
            raise OSError(str(failure[0]))

    def receive(self, deadline: float) -> object:
        """The next stdout item (str, _BLANK, _Breach or _EOF); raises queue.Empty at the
        deadline, even while the program floods output."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise queue.Empty
        return self.lines.get(timeout=remaining)

    def exit_status(self) -> int | None:
        """The exit status once stdout has closed (the process may need a moment to exit)."""
        try:
            return self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return None

    def drain_stderr(self) -> list[str]:
        with self._stderr_lock:
            out = list(self.stderr)
            self.stderr.clear()
        return out

    def kill(self) -> None:
        """End the whole process group (and reap the leader); the reader threads then end."""
        self._stop.set()
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        # stderr ends at EOF once every writer is gone; wait (briefly) so the tail is kept
        self._stderr_thread.join(timeout=1)
        # the pipes are not closed here: a thread blocked on one holds its lock, and a process
        # that escaped the group could keep it blocked; they close when their threads end


def _group_alive(pgid: int) -> bool:
    """Whether any process is left in the process group ``pgid``."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, but not ours to signal
    return True


class SubprocessTarget:
    """``agent-tck run --impl CMD``: the implementation under test as a child process."""

    def __init__(
        self,
        command: str,
        *,
        timeout: float = 10.0,
        start_timeout: float | None = None,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        limits: Limits | None = None,
    ) -> None:
        self.command = command
        self.timeout = timeout
        # the start-up wait follows --timeout: three reply times (30 s at the default 10 s)
        self.start_timeout = 3 * timeout if start_timeout is None else start_timeout
        self.limits = limits or Limits()
        try:
            self._argv = shlex.split(command)
        except ValueError as exc:
            raise HarnessError("USAGE", f"the --impl command cannot be split like a shell "
                                        f"would ({exc}): {command!r}") from None
        if not self._argv:
            raise HarnessError("IMPL_START_FAILED", "the --impl command is empty")
        self._cwd = cwd
        self._env = {**os.environ, **(env or {})}
        self._seq = 0
        self._owner: dict[int, tuple[str | None, str]] = {}  # seq -> (case, operation)
        self._late: dict[tuple[str | None, str], list[str]] = {}
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

    @property
    def observe(self) -> frozenset[str]:
        return self.implementation.observe

    def call(self, operation: str, payload: Any, case: str | None = None,
             observe: bool = False) -> CallResult | Observed:
        try:
            return self._call(operation, payload, case, observe)
        except BaseException:  # Ctrl-C or SIGTERM mid-case: end the program now, not later
            proc, self._proc = self._proc, None
            if proc is not None:
                proc.kill()
            raise

    def _call(self, operation: str, payload: Any, case: str | None,
              observe: bool) -> CallResult | Observed:
        transcript: list[str] = []
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
        self._owner[self._seq] = (case, operation)
        line = encode(RunCommand(self._seq, operation, payload, case, OBSERVE if observe else ()))
        transcript.append(">> " + _clip(line.rstrip("\n")))
        # one budget for the whole exchange: writing the command and reading its reply
        deadline = time.monotonic() + self.timeout
        try:
            proc.send(line, deadline)
        except TimeoutError:
            return self._fail(f"the implementation did not read the command within "
                              f"{self.timeout:g} s (timed out writing to its stdin)", transcript)
        except OSError as exc:
            return self._fail(f"could not write the command ({exc})", transcript)
        noise = 0
        while True:
            try:
                item = proc.receive(deadline)
            except queue.Empty:
                return self._fail(f"no reply within {self.timeout:g} s (timed out)", transcript)
            if item is _EOF:
                status = proc.exit_status()
                what = ("closed its stdout but is still running" if status is None
                        else f"exited (status {status})")
                return self._fail(f"the implementation {what}", transcript)
            if isinstance(item, _Breach):
                return self._fail(item.reason, transcript)
            if item is _BLANK or self._stray(item):  # tolerated, but within a budget
                noise += 1
                if noise > self.limits.noise_lines:
                    return self._fail(f"the implementation wrote more than "
                                      f"{self.limits.noise_lines} lines without replying",
                                      transcript)
                continue
            assert isinstance(item, str)
            transcript.append("<< " + _clip(item.rstrip("\n")))
            try:
                result = parse_result(item, self._seq, observe)
            except ProtocolViolation as exc:
                return self._fail(str(exc), transcript)
            if isinstance(result, Errored):
                return Errored(result.reason, (*self._with_stderr(transcript), *result.transcript))
            return result

    def pop_late(self, case: str | None, operation: str) -> tuple[str, ...]:
        """Transcript lines of replies to ``case``'s command that came after its reply was
        taken (an adapter that answered twice); empty when there were none."""
        return tuple(self._late.pop((case, operation), ()))

    def settle(self) -> None:
        """End the program cleanly and attribute whatever it wrote after its last reply."""
        self.close()

    def close(self) -> None:
        """Stop command, then read stdout to its end (late replies are attributed by seq) within
        the stop grace; then the whole process group is killed - a clean stop included, so
        nothing the adapter forked outlives the run."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        deadline = time.monotonic() + self.limits.stop_grace
        with contextlib.suppress(OSError, TimeoutError, queue.Empty):
            proc.send(encode(StopCommand()), deadline)
            assert proc.proc.stdin is not None
            with contextlib.suppress(OSError, ValueError):
                proc.proc.stdin.close()
            seen = 0
            while seen <= self.limits.noise_lines and time.monotonic() < deadline:
                # to EOF (deterministic: every line written before the exit comes first); but
                # once the adapter has exited and only a child of it keeps the pipe open, that
                # child is not waited for past a short quiet spell
                held_open = proc.proc.poll() is not None and _group_alive(proc.proc.pid)
                try:
                    item = proc.receive(min(deadline, time.monotonic() + 0.2))
                except queue.Empty:
                    if held_open:
                        break
                    continue
                if item is _EOF:
                    break
                seen += 1
                if isinstance(item, str):
                    self._stray(item, settled=True)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        proc.kill()

    # -- internals --------------------------------------------------------------------------

    def _stray(self, line: str, *, settled: bool = False) -> bool:
        """True (and recorded against its owner) when ``line`` is a reply to an earlier command.
        Decided by the line alone, so the same adapter output is always attributed alike."""
        try:
            reply = decode(line)
        except ProtocolViolation:
            return False
        seq = reply.get("seq") if isinstance(reply, dict) else None
        last = self._seq if settled else self._seq - 1  # replies taken so far
        if type(seq) is not int or seq > last or seq not in self._owner:
            return False
        late = self._late.setdefault(self._owner[seq], [])
        if not late:
            late.append(f"note: the implementation replied again to seq {seq} after its reply "
                        "was taken; the extra reply:")
        if len(late) <= 20:
            late.append("<< " + _clip(line.rstrip("\n")))
        return True

    def _with_stderr(self, transcript: list[str]) -> tuple[str, ...]:
        assert self._proc is not None
        return (*transcript, *("stderr: " + _clip(s) for s in self._proc.drain_stderr()))

    def _fail(self, reason: str, transcript: list[str]) -> Errored:
        """Record a breach and kill the process group; the next call restarts it."""
        proc, self._proc = self._proc, None
        assert proc is not None
        proc.kill()
        lines = (*transcript, *("stderr: " + _clip(s) for s in proc.drain_stderr()))
        return Errored(reason, lines)

    def _start(self, *, first: bool) -> Implementation:
        try:
            proc = _Process(self._argv, self._cwd, self._env, self.limits)
        except OSError as exc:
            raise HarnessError(
                "IMPL_START_FAILED",
                f"could not start {self.command!r}: {exc.strerror or exc}. Check the command "
                "and that it is on PATH (it is split like a shell would, not run by a shell).",
            ) from exc
        line = encode(StartCommand(__version__))
        deadline = time.monotonic() + self.start_timeout
        noise = 0
        try:
            proc.send(line, deadline)
            while True:
                reply = proc.receive(deadline)
                if isinstance(reply, _Breach):
                    raise ProtocolViolation(reply.reason)
                if reply is _EOF:
                    raise ProtocolViolation(
                        f"the implementation exited (status {proc.exit_status()}) before "
                        "answering the start command"
                    )
                if reply is not _BLANK:
                    break
                noise += 1
                if noise > self.limits.noise_lines:
                    raise ProtocolViolation(f"it wrote more than {self.limits.noise_lines} "
                                            "blank lines before answering")
            assert isinstance(reply, str)
            implementation = parse_started(reply)
        except (queue.Empty, TimeoutError):
            proc.kill()
            raise HarnessError(
                "IMPL_START_FAILED",
                f"{self.command!r} did not answer the start command within "
                f"{self.start_timeout:g} s",
            ) from None
        except (ProtocolViolation, OSError) as exc:
            proc.kill()
            stderr = "\n".join(proc.drain_stderr()[-20:])
            raise HarnessError(
                "IMPL_START_FAILED",
                f"{self.command!r} failed the handshake: {exc}"
                + (f"\n--- its stderr ---\n{stderr}" if stderr else ""),
            ) from exc
        except BaseException:  # Ctrl-C or SIGTERM during start-up: leave nothing running
            proc.kill()
            raise
        if not first and implementation.operations != self.implementation.operations:
            proc.kill()
            raise HarnessError(
                "IMPL_START_FAILED", "the restarted implementation declared other operations"
            )
        self._proc = proc
        return implementation
