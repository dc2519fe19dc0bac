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
for "more output" between cases. An adapter that declares ``"pipeline"`` is sent the runner's
planned commands ahead (:meth:`SubprocessTarget.plan`); K timeouts in a row open a breaker.
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
import shlex
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from agent_tck.harness import __version__
from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.run.outcome import CallResult, Errored, Observed
from agent_tck.harness.run.protocol import (
    HANDSHAKE_EXAMPLE,
    OBSERVE,
    UNREADABLE,
    Implementation,
    ProtocolViolation,
    RunCommand,
    StartCommand,
    StopCommand,
    encode,
    parse_result,
    parse_started,
    read_reply,
)
from agent_tck.harness.run.targets import PlannedCall

_EOF = object()
_TRANSCRIPT_LINE = 2000  # characters kept per transcript line
MAX_FAILED_STARTS = 3  # restarts that fail in a row before the rest of the run is errored
#: Consecutive timed-out calls after which the adapter is taken to be unresponsive (--max-timeouts)
MAX_TIMEOUTS = 3
#: Commands in flight at once for an adapter that declares "pipeline" (vectors/PROTOCOL.md)
PIPELINE_DEPTH = 16




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
        # commands go out through a non-blocking pipe and poll(): no thread per call, and a
        # program that stops reading costs the runner its deadline, never a blocked write
        assert self.proc.stdin is not None
        self._stdin_fd = self.proc.stdin.fileno()
        os.set_blocking(self._stdin_fd, False)
        self._writable = select.poll()
        self._writable.register(self._stdin_fd, select.POLLOUT)
        self._pending = bytearray()  # queued for stdin, not yet taken by the pipe
        self.queued = 0  # bytes queued for stdin so far (the offset each command ends at)
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

    def queue_command(self, text: str) -> int:
        """Queue ``text`` for stdin and write what the pipe takes now; the offset it ends at."""
        data = text.encode("utf-8")
        self._pending += data
        self.queued += len(data)
        with contextlib.suppress(OSError, TimeoutError):
            self.flush(self.queued, None)
        return self.queued

    def flush(self, upto: int, deadline: float | None) -> None:
        """Write queued bytes until the first ``upto`` are in the pipe. Without a deadline, only
        what the pipe takes now; past the deadline, TimeoutError (the program does not read)."""
        fd = self._stdin_fd
        while self._pending and self.queued - len(self._pending) < upto:
            try:
                written = os.write(fd, self._pending)
            except BlockingIOError:
                written = 0
            if written:
                del self._pending[:written]
                continue
            if deadline is None:
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            self._writable.poll(max(1, int(remaining * 1000)))  # POLLERR: the write then raises

    def send(self, text: str, deadline: float) -> None:
        """Write one command by ``deadline`` (else TimeoutError; OSError: stdin closed)."""
        self.flush(self.queue_command(text), deadline)

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
        max_timeouts: int = MAX_TIMEOUTS,
        pipeline: int | None = None,
    ) -> None:
        """``max_timeouts``: consecutive timed-out calls after which the remaining calls are
        errored unrun ("adapter unresponsive"; 0: never). ``pipeline``: commands in flight at
        once; by default :data:`PIPELINE_DEPTH` for an adapter that declares ``"pipeline":
        true`` in its start reply and 1 (one at a time) for any other."""
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
        self.max_timeouts = max_timeouts
        self._timeouts = 0  # consecutive timed-out calls
        self._unresponsive: str | None = None  # why the breaker opened, once it has
        self._todo: deque[PlannedCall] = deque()  # planned calls not sent yet, in order
        self._plan: Iterator[PlannedCall] | None = None
        # sent ahead: ((seq, stdin end offset, line), call)
        self._ahead: deque[tuple[tuple[int, int, str], PlannedCall]] = deque()
        self._dropped: set[int] = set()  # sent ahead, then not called for: reply not wanted
        self._answered = 0  # every seq up to this one has had its reply taken
        self.implementation = self._start(first=True)
        self.pipeline = (pipeline if pipeline is not None
                         else PIPELINE_DEPTH if self.implementation.pipeline else 1)

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

    def plan(self, calls: Iterable[PlannedCall]) -> None:
        """The calls the runner will make, in order (lazily): with pipelining, their commands
        are sent ahead. A call that turns out otherwise is still made, one at a time."""
        self._plan = iter(calls)

    def _call(self, operation: str, payload: Any, case: str | None,
              observe: bool) -> CallResult | Observed:
        if self._unresponsive is not None:
            return Errored(self._unresponsive)
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
        if self.pipeline <= 1:
            proc.drain_stderr()  # stderr of earlier cases is theirs, not this one's
        seq, end, line = self._claim(proc, operation, payload, case, observe)
        transcript.append(">> " + _clip(line.rstrip("\n")))
        # one budget for the whole exchange: writing the command and reading its reply
        deadline = time.monotonic() + self.timeout
        try:
            proc.flush(end, deadline)
        except TimeoutError:
            return self._timed_out(f"the implementation did not read the command within "
                                   f"{self.timeout:g} s (timed out writing to its stdin)",
                                   transcript)
        except OSError as exc:
            return self._fail(f"could not write the command ({exc})", transcript)
        self._send_ahead(proc)
        result = self._await(proc, seq, observe, deadline, transcript)
        if self.pipeline > 1 and self._proc is not None:
            proc.drain_stderr()  # what came before this reply was this case's (best effort)
        return result

    def _await(self, proc: _Process, seq: int, observe: bool, deadline: float,
               transcript: list[str]) -> CallResult | Observed:
        """The reply to ``seq``: stray and dropped replies and blank lines within a budget."""
        noise = 0
        while True:
            try:
                item = proc.receive(deadline)
            except queue.Empty:
                return self._timed_out(f"no reply within {self.timeout:g} s (timed out)",
                                       transcript)
            if item is _EOF:
                status = proc.exit_status()
                what = ("closed its stdout but is still running" if status is None
                        else f"exited (status {status})")
                return self._fail(f"the implementation {what}", transcript)
            if isinstance(item, _Breach):
                return self._fail(item.reason, transcript)
            # each line is read once: whose reply it is, then (the awaited one) what it says
            reply = read_reply(item) if isinstance(item, str) else UNREADABLE
            if item is _BLANK or (isinstance(item, str) and self._stray(reply, item)):  # budget
                noise += 1
                if noise > self.limits.noise_lines:
                    return self._fail(f"the implementation wrote more than "
                                      f"{self.limits.noise_lines} lines without replying",
                                      transcript)
                continue
            assert isinstance(item, str)
            transcript.append("<< " + _clip(item.rstrip("\n")))
            try:
                result = parse_result(item, seq, observe, reply)
            except ProtocolViolation as exc:
                return self._fail(str(exc), transcript)
            self._answered = seq
            self._timeouts = 0
            if isinstance(result, Errored):
                return Errored(result.reason, (*self._with_stderr(transcript), *result.transcript))
            return result

    def _claim(self, proc: _Process, operation: str, payload: Any, case: str | None,
               observe: bool) -> tuple[int, int, str]:
        """The seq, stdin end offset and line of this call's command: the one sent ahead for
        it, or one sent now (then whatever was sent ahead is not wanted: replies dropped)."""
        if self.pipeline > 1:
            self._send_ahead(proc)
            if self._ahead and self._ahead[0][1].matches(operation, payload, case, observe):
                return self._ahead.popleft()[0]
            if self._ahead or self._todo:  # the plan went wrong: one at a time from here
                self._dropped.update(sent[0] for sent, _ in self._ahead)
                self._ahead.clear()
                self._todo.clear()
                self._plan = None
        return self._send(proc, PlannedCall(operation, payload, case, observe))

    def _send(self, proc: _Process, call: PlannedCall) -> tuple[int, int, str]:
        self._seq += 1
        self._owner[self._seq] = (call.case, call.operation)
        line = encode(RunCommand(self._seq, call.operation, call.payload, call.case,
                                 OBSERVE if call.observe else ()))
        return self._seq, proc.queue_command(line), line

    def _send_ahead(self, proc: _Process) -> None:
        """Keep up to ``pipeline`` planned commands in flight (writes that do not block)."""
        while self.pipeline > 1 and len(self._ahead) < self.pipeline:
            if not self._todo:
                call = next(self._plan, None) if self._plan is not None else None
                if call is None:
                    return
                self._todo.append(call)
            call = self._todo.popleft()
            self._ahead.append((self._send(proc, call), call))

    def _timed_out(self, reason: str, transcript: list[str]) -> Errored:
        """A timeout; ``max_timeouts`` in a row open the breaker (docs/RELIABILITY.md)."""
        self._timeouts += 1
        errored = self._fail(reason, transcript)
        if self.max_timeouts > 0 and self._timeouts >= self.max_timeouts:
            self._unresponsive = (
                f"not run: adapter unresponsive ({self._timeouts} calls in a row timed out, the "
                f"last: {reason}); the remaining cases are not sent to it (--max-timeouts)")
        return errored

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
                    self._stray(read_reply(item), item, settled=True)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        proc.kill()

    # -- internals --------------------------------------------------------------------------

    def _stray(self, reply: Any, line: str, *, settled: bool = False) -> bool:
        """True (and recorded against its owner) when ``line``, read as ``reply``
        (:func:`read_reply`), is a reply to an earlier command. Decided by the line alone, so the
        same adapter output is always attributed alike."""
        seq = reply.get("seq") if isinstance(reply, dict) else None
        if type(seq) is not int:
            return False
        if seq in self._dropped:  # sent ahead for a call that was not made: the reply is
            self._dropped.discard(seq)  # not wanted (a second one would be late, as below)
            self._answered = max(self._answered, seq)
            return True
        last = self._seq if settled else self._answered  # replies taken so far
        if seq > last or seq not in self._owner:
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
        # commands sent ahead died with the process: sent again (to the restarted program) when
        # their calls come; replies still owed were lost with it
        self._todo.extendleft(reversed([call for _, call in self._ahead]))
        self._ahead.clear()
        self._dropped.clear()
        self._answered = self._seq
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
        received = ""
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
            received = reply
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
                + (f"\nreceived: {_clip(received.rstrip())}\nexpected: {HANDSHAKE_EXAMPLE}"
                   if received else "")
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
