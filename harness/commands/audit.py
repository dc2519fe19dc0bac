"""``agent-tck audit``: rule violations read off an agent's provider traffic.

Live, as a reverse proxy the agent's base URL points at (no certificate needed)::

    agent-tck audit --listen 127.0.0.1:8080 --upstream https://api.anthropic.com

or offline, over recorded traffic (mitmproxy flow files, HAR, the JSONL capture format)::

    agent-tck audit --read capture.har more.flows

Both write the runner's report files (results.jsonl, junit.xml, summary.md, report.html with a
per-conversation timeline, badges) plus audit.json into ``--report-dir``; ``--format json``
prints audit.json on stdout. Exit 1 when an error-severity finding exists or a request could not
be audited (errored), 0 otherwise, 2 on a usage error or when a --read file is not a capture at
all (the other files are still audited and reported; the unusable one is a note). A --read path
that cannot be opened (a typo) is exit 2 before anything is read, and no report is written
over the previous one. A damaged
record inside a capture is a note in the report, never the end of the run. docs/AUDIT.md and
docs/RELIABILITY.md say more.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, Any

from agent_tck.harness.common.console import pump
from agent_tck.harness.common.errors import HarnessError
from agent_tck.harness.common.options import ListOption

DEFAULT_REPORT_DIR = Path("reports") / "audit"
ADDON = Path(__file__).resolve().parent.parent / "audit" / "addon.py"


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "audit",
        help="audit an agent's provider traffic (live proxy or recorded captures)",
        description="Audit an LLM agent's provider traffic against the rule catalogue: live "
                    "through mitmproxy (--listen/--upstream), or offline (--read).",
    )
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--read", action=ListOption, nargs="+", convert=Path, metavar="FILE",
                        help="audit recorded traffic: mitmproxy flow files, HAR files, "
                             "JSONL captures (docs/AUDIT.md; several, repeatable, or a comma "
                             "list)")
    source.add_argument("--listen", metavar="[HOST:]PORT",
                        help="run an audit proxy here (host 127.0.0.1 unless given)")
    p.add_argument("--upstream", metavar="URL",
                   help="reverse mode: the provider base URL requests are forwarded to, "
                        "e.g. https://api.anthropic.com")
    p.add_argument("--mode", choices=("reverse", "regular"), default=None,
                   help="proxy mode (default: reverse when --upstream is given, else regular; "
                        "regular mode needs the agent to trust the CA in --confdir)")
    p.add_argument("--confdir", type=Path, metavar="DIR",
                   help="mitmproxy's configuration and CA folder (default: a fresh temporary "
                        "one, removed afterwards; give a stable one for regular mode)")
    p.add_argument("--mitmdump", metavar="PATH",
                   help="the mitmdump to run (default: beside this Python, else on PATH)")
    p.add_argument("--report-dir", type=Path, default=DEFAULT_REPORT_DIR, metavar="DIR",
                   help=f"where the reports go (default {DEFAULT_REPORT_DIR})")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="json: print audit.json on stdout (for machines)")
    p.add_argument("--name", default="audited agent", help="the agent's label in the reports")
    p.add_argument("--max-body", type=int, default=None, metavar="BYTES",
                   help="largest decoded body the audit reads (default 64 MiB); larger ones "
                        "are noted, not audited")
    p.add_argument("--save-vectors", type=Path, metavar="DIR",
                   help="with --read: write a minimized regression vector for each finding of "
                        "a serializer rule into DIR/audit-regression.json, for "
                        "'agent-tck run --impl ... --vectors DIR' (docs/AUDIT.md)")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="with --read: audit the files in N processes; files whose "
                        "conversations may cross are audited together, with a note "
                        "(docs/AUDIT.md)")
    p.add_argument("--metrics", metavar="HOST:PORT",
                   help="with --listen: serve Prometheus metrics on http://HOST:PORT/metrics "
                        "(docs/AUDIT.md; needs prometheus-client, in the proxy extra)")
    p.add_argument("--log-format", choices=("text", "json"), default="text",
                   help="with --listen: the proxy's log lines as text or as JSON lines")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.jobs < 1:
        raise HarnessError("USAGE", "--jobs takes a positive number of processes")
    if args.read:
        if args.upstream or args.mode or args.confdir or args.mitmdump or args.metrics:
            raise HarnessError("USAGE", "--upstream, --mode, --confdir, --mitmdump and "
                                        "--metrics go with --listen, not --read")
        return read_command(args.read, args.report_dir, fmt=args.format, name=args.name,
                            max_body=args.max_body, out=sys.stdout, err=sys.stderr,
                            save_vectors=args.save_vectors, jobs=args.jobs)
    if args.jobs != 1:
        raise HarnessError("USAGE", "--jobs goes with --read")
    if args.save_vectors:
        raise HarnessError("USAGE", "--save-vectors goes with --read (the live proxy keeps no "
                                    "bodies); record the traffic and audit it with --read")
    return proxy_command(args, out=sys.stdout, err=sys.stderr)


# --- offline -------------------------------------------------------------------------------------


def read_command(files: list[Path], report_dir: Path, *, fmt: str = "text",
                 name: str = "audited agent", max_body: int | None = None,
                 out: IO[str], err: IO[str], save_vectors: Path | None = None,
                 jobs: int = 1) -> int:
    from agent_tck.harness.audit.batch import audit_parallel, audit_stream, write_vectors
    from agent_tck.harness.audit.redact import Scrubber
    from agent_tck.harness.audit.sink import ReportSink

    check_readable(files)  # a mistyped path: exit 2, and the previous report stays
    scrub = Scrubber()
    save = save_vectors is not None
    source = "agent-tck audit --read " + " ".join(p.name for p in files)
    sink = ReportSink(report_dir, source=source, name=name, scrub=scrub)

    def add(x: Any) -> None:
        sink.add(x)
        if fmt != "json":
            print_exchange(x, scrub, out)

    try:
        if jobs > 1 and len(files) > 1:
            result, unusable, cases = audit_parallel([str(p) for p in files], jobs=jobs,
                                                     max_body=max_body, salt=scrub.salt,
                                                     save_vectors=save)
            for x in result.exchanges:
                add(x)
        else:
            result, unusable, cases = audit_stream([str(p) for p in files], max_body=max_body,
                                                   salt=scrub.salt, save_vectors=save,
                                                   on_result=add)
    except BaseException:
        sink.abandon()
        raise
    if save_vectors is not None:
        saved = write_vectors(save_vectors, cases, source)
        err.write(f"agent-tck audit: {len(cases)} regression vectors"
                  + (f" saved to {saved}" if saved else " (no serializer finding to save)")
                  + "\n")
    paths = sink.finish(result.conversations, result.notes)
    if fmt == "json":
        with paths["audit.json"].open(encoding="utf-8") as doc:
            shutil.copyfileobj(doc, out)
    else:
        print_totals(sink.tally, len(result.conversations), paths, out)
    for note in result.notes:
        err.write(scrub.text(f"agent-tck audit: note: {note}") + "\n")
    if unusable:
        err.write(f"agent-tck audit: {unusable} of {len(files)} files could not be read as "
                  "captures (see the notes above)\n")
        return 2
    return sink.exit_code


def check_readable(files: list[Path]) -> None:
    """Every ``--read`` file exists and can be opened, before any report is touched."""
    for path in files:
        try:
            with path.open("rb"):
                pass
        except OSError as exc:
            raise HarnessError("CAPTURE_UNREADABLE", f"{exc.strerror or exc}; nothing was "
                               "audited and no report was written", str(path)) from None


def print_exchange(x: Any, scrub: Any, out: IO[str]) -> None:
    """The console lines of one audited exchange: its findings, errored checks and notes."""
    where = f" [{x.conversation} {x.placement}]" if x.conversation else ""
    for f in x.findings:
        out.write(scrub.text(f"#{x.index} {x.method} {x.path}{where}: {f.severity} "
                             f"{f.rule} at {f.pointer}: {f.message}") + "\n")
    for e in x.errors:
        out.write(scrub.text(f"#{x.index} {x.method} {x.path}{where}: check {e.check} "
                             f"raised {e.error}") + "\n")
    for note in x.notes:
        out.write(scrub.text(f"#{x.index} {x.method} {x.path}{where}: note: {note}") + "\n")


def print_totals(tally: Any, conversations: int, paths: dict[str, Path], out: IO[str]) -> None:
    errored = f", {tally.errored} not auditable (errored)" if tally.errored else ""
    out.write(f"audited {tally.audited} LLM requests in {conversations} conversations "
              f"({tally.ignored} other requests ignored): {tally.severity.get('error', 0)} "
              f"errors, {tally.severity.get('warning', 0)} warnings{errored}\n")
    out.write("reports: " + ", ".join(str(p) for k, p in paths.items()
                                      if not k.startswith("badges/")) + "\n")


# --- live ----------------------------------------------------------------------------------------


def parse_listen(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", value
    host = host.strip("[]") or "127.0.0.1"
    try:
        number = int(port)
    except ValueError:
        raise HarnessError("USAGE", f"--listen {value!r}: expected [HOST:]PORT") from None
    if not 0 < number < 65536:
        raise HarnessError("USAGE", f"--listen {value!r}: port out of range")
    return host, number


def check_upstream(url: str) -> None:
    """``--upstream`` must be an absolute http(s) URL with a host (mitmproxy would otherwise
    start and fail every request)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as exc:
        raise HarnessError("USAGE", f"--upstream is not a URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise HarnessError("USAGE", "--upstream needs an http:// or https:// URL with a host, "
                                    "e.g. https://api.anthropic.com")


def find_mitmdump(explicit: str | None) -> str:
    if explicit:
        return explicit
    beside = Path(sys.executable).parent / "mitmdump"
    if beside.exists():
        return str(beside)
    found = shutil.which("mitmdump")
    if found:
        return found
    raise HarnessError("AUDIT_NEEDS_MITMPROXY", "mitmdump not found: pip install "
                       "'agent-tck[proxy]' or give --mitmdump PATH")


def mitmdump_command(*, mitmdump: str, mode: str, upstream: str | None, host: str, port: int,
                     confdir: Path, report_dir: Path, name: str, max_body: int | None,
                     metrics: str | None = None, log_format: str = "text") -> list[str]:
    """The mitmdump command line: reverse (or regular) mode, lazy upstream connections, our
    own confdir, the addon; never ``-w`` or ``hardump``, and no flow dump on the terminal."""
    spec = f"reverse:{upstream}" if mode == "reverse" else "regular"
    source = f"proxy {host}:{port}" + (f" -> {upstream}" if upstream else " (regular mode)")
    cmd = [
        mitmdump, "--mode", spec, "--listen-host", host, "--listen-port", str(port),
        "--set", f"confdir={confdir}", "--set", "connection_strategy=lazy",
        "--set", "flow_detail=0", "--set", "termlog_verbosity=warn",
        "-s", str(ADDON), "--set", f"tck_report_dir={report_dir}",
        "--set", f"tck_name={name}", "--set", f"tck_source={source}",
    ]
    if max_body is not None:
        cmd += ["--set", f"tck_max_body={max_body}"]
    if metrics:
        cmd += ["--set", f"tck_metrics={metrics}"]
    if log_format != "text":
        cmd += ["--set", f"tck_log_format={log_format}"]
    return cmd


def run_child(cmd: list[str], err: IO[str]) -> int:
    """Run mitmdump until it exits; SIGTERM and Ctrl-C become its SIGINT (it writes the
    reports, then exits). Its lines (the addon's warnings, its own errors) reach the console
    through the one output path: redacted, control characters escaped. kill -9 of this
    process must not orphan it (it would keep the port and go on appending to results.jsonl):
    the kernel kills it with us (issue 26.8)."""
    from agent_tck.harness.audit.lifeline import die_with_parent

    # preexec_fn: the CLI has started no thread when it forks mitmdump
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             preexec_fn=die_with_parent())  # noqa: PLW1509
    assert child.stdout is not None
    copying = pump(child.stdout, err)
    try:
        return _wait_forwarding_signals(child)
    finally:
        copying.join(5.0)  # the pipe's end comes with mitmdump's exit


def _wait_forwarding_signals(child: subprocess.Popen[bytes]) -> int:
    """Wait for mitmdump's exit; SIGTERM and Ctrl-C reach it as SIGINT, its clean stop."""
    previous = signal.getsignal(signal.SIGTERM)

    def forward(signum: int, _frame: Any) -> None:
        child.send_signal(signal.SIGINT)

    signal.signal(signal.SIGTERM, forward)
    try:
        while True:
            try:
                return child.wait()
            except KeyboardInterrupt:
                child.send_signal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGTERM, previous)


def proxy_command(args: argparse.Namespace, *, out: IO[str], err: IO[str]) -> int:
    host, port = parse_listen(args.listen)
    mode = args.mode or ("reverse" if args.upstream else "regular")
    if mode == "reverse" and not args.upstream:
        raise HarnessError("USAGE", "reverse mode needs --upstream URL (the provider base URL)")
    if mode == "regular" and args.upstream:
        raise HarnessError("USAGE", "--upstream is for reverse mode")
    if args.upstream:
        check_upstream(args.upstream)
    mitmdump = find_mitmdump(args.mitmdump)
    metrics = None
    if args.metrics:
        metrics_host, metrics_port = parse_listen(args.metrics)
        metrics = f"{metrics_host}:{metrics_port}"
        try:
            import prometheus_client  # noqa: F401
        except ImportError:
            raise HarnessError("USAGE", "--metrics needs prometheus-client: pip install "
                               "'agent-tck[proxy]'") from None
    temp_confdir = None
    confdir = args.confdir
    if confdir is None:
        temp_confdir = tempfile.mkdtemp(prefix="agent-tck-mitmproxy-")
        confdir = Path(temp_confdir)
    report_dir = args.report_dir.resolve()
    stale = report_dir / "audit.json"
    stale.unlink(missing_ok=True)
    cmd = mitmdump_command(mitmdump=mitmdump, mode=mode, upstream=args.upstream, host=host,
                           port=port, confdir=confdir, report_dir=report_dir, name=args.name,
                           max_body=args.max_body, metrics=metrics, log_format=args.log_format)
    shown = f"http://{host}:{port}"
    line = (f"agent-tck audit: {mode} proxy on {shown}"
            + (f" -> {args.upstream}" if args.upstream else "")
            + f"; point the agent's base URL here. Ctrl-C writes the reports to {report_dir}"
            + (f"; metrics on http://{metrics}/metrics" if metrics else ""))
    if args.log_format == "json":
        from datetime import datetime

        now = datetime.now().astimezone().strftime("%Y-%m-%dT%H:%M:%S%z")
        line = json.dumps({"time": now, "level": "info", "logger": "agent_tck.audit",
                           "message": line}, ensure_ascii=False)
    err.write(line + "\n")
    err.flush()
    try:
        code = run_child(cmd, err)
    finally:
        if temp_confdir is not None:
            shutil.rmtree(temp_confdir, ignore_errors=True)
    if not stale.exists():
        raise HarnessError("AUDIT_PROXY_FAILED", f"mitmdump exited with {code} and the audit "
                           "wrote no audit.json (is the port free? did the audit process stop? "
                           "see the lines above)", " ".join(cmd[:3]))
    doc = json.loads(stale.read_text(encoding="utf-8"))
    if args.format == "json":
        json.dump(doc, out, indent=2, ensure_ascii=False)
        out.write("\n")
    else:
        counts = doc.get("counts", {})
        out.write(f"audited {counts.get('exchanges', 0)} LLM requests: "
                  f"{counts.get('error', 0)} errors, {counts.get('warning', 0)} warnings; "
                  f"reports in {report_dir}\n")
    return int(doc.get("exit_code", 0))
