"""The conformance matrix's shell: installs clients, runs each cell, writes the reports.

Each cell (client x API x scenario) gets its own mock provider (in this process, answering
the scenario's script), its own audit proxy (``agent-tck audit --listen ... --upstream
<mock>``, a subprocess, stopped with SIGTERM so it writes its reports) and one run of the
client's driver pointed at the proxy, with placeholder keys and a bounded time. What the
audit found and what the driver did go to :mod:`harness.matrix.model`, which makes the
matrix. Nothing leaves 127.0.0.1: the mock and the proxy listen there and the drivers are
given only their addresses.

Secrets: the drivers' environment drops every variable whose name looks like a credential
and sets placeholder keys; every text written under the report folder is scrubbed (the
audit's scrubber, plus the literal values of credential-named variables of this process).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent_tck.harness.matrix import model as mm
from agent_tck.harness.reports import matrix_html

MATRIX_DIR = Path(__file__).resolve().parents[2] / "matrix"  # the checkout (or agent_tck/)
DEFAULT_REPORT_DIR = Path("reports") / "matrix"
PLACEHOLDER_KEYS = {"ANTHROPIC_API_KEY": "placeholder-anthropic-key",
                    "OPENAI_API_KEY": "placeholder-openai-key"}
_SECRET_NAME = re.compile(r"(?i)(key|token|secret|passw|credential|auth|cookie)")
_LLM_PATH = re.compile(r"(/v1/messages|/chat/completions)/?$")


def cache_dir() -> Path:
    """Installs go here, outside the checkout: $AGENT_TCK_CACHE or ~/.cache/agent-tck."""
    root = os.environ.get("AGENT_TCK_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "agent-tck")
    return Path(root) / "clients"


# --- inputs ---------------------------------------------------------------------------------


def load_yaml(path: Path) -> Any:
    """A registry or scenario file (``--registry``, ``--scenario-dir``: the user's own files):
    capped in size (harness/common/whole_file.py), YAML without aliases
    (harness/common/safe_yaml.py); a file
    that is not YAML is a MatrixInputError naming it, not a traceback."""
    from agent_tck.harness.common.safe_yaml import YAMLInputError, load
    from agent_tck.harness.common.whole_file import read_whole

    try:
        return load(read_whole(path).decode("utf-8"))
    except (YAMLInputError, UnicodeDecodeError) as exc:
        raise mm.MatrixInputError(str(path), "", str(exc)) from None


def load_scenarios(folder: Path = MATRIX_DIR / "scenarios") -> list[mm.Scenario]:
    schema = json.loads((MATRIX_DIR / "schema" / "scenario.schema.json").read_text())
    return [mm.parse_scenario(load_yaml(p), str(p), schema)
            for p in sorted(folder.glob("*.yaml"))]


def load_registry(path: Path = MATRIX_DIR / "clients.yaml"
                  ) -> tuple[list[mm.Client], list[mm.Agent]]:
    return mm.parse_registry(load_yaml(path), str(path))


# --- secrets --------------------------------------------------------------------------------


def secret_values(env: Mapping[str, str]) -> list[str]:
    """Values of credential-named variables (long enough to be a real secret)."""
    return sorted({v for k, v in env.items() if _SECRET_NAME.search(k) and len(v) >= 8
                   and v not in PLACEHOLDER_KEYS.values()}, key=len, reverse=True)


class Scrub:
    """The audit's scrubber plus literal replacement of this process's secret values."""

    def __init__(self, literals: Iterable[str]) -> None:
        from agent_tck.harness.audit.redact import Scrubber

        self.scrubber = Scrubber()
        self.literals = list(literals)

    def text(self, text: str) -> str:
        for value in self.literals:
            text = text.replace(value, "[REDACTED]")
        return self.scrubber.text(text)

    def value(self, value: Any) -> Any:
        return json.loads(self.text(json.dumps(self.scrubber.value(value), ensure_ascii=False)))

    def tree(self, folder: Path) -> None:
        """Every text file under ``folder``, scrubbed in place (the last line of defence)."""
        for path in folder.rglob("*"):
            if path.is_file():
                try:
                    text = path.read_text(encoding="utf-8")
                except (UnicodeDecodeError, OSError):
                    path.unlink()  # nothing binary belongs in the reports
                    continue
                clean = self.text(text)
                if clean != text:
                    path.write_text(clean, encoding="utf-8")


def driver_env(base: Mapping[str, str], proxy: str, extra: Mapping[str, str]) -> dict[str, str]:
    env = {k: v for k, v in base.items() if not _SECRET_NAME.search(k)}
    env.update(PLACEHOLDER_KEYS)
    env.update({"AGENT_TCK_ANTHROPIC_BASE_URL": proxy, "AGENT_TCK_OPENAI_BASE_URL": proxy + "/v1",
                "ANTHROPIC_BASE_URL": proxy, "OPENAI_BASE_URL": proxy + "/v1",
                "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"})
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                 "all_proxy"):
        env.pop(name, None)
    env.update(extra)
    return env


# --- installing ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Installed:
    argv: tuple[str, ...]  # the driver command; the scenario path is appended
    env: Mapping[str, str]
    version: str


class InstallError(Exception):
    pass


def _run_quiet(cmd: Sequence[str], cwd: Path | None, timeout: float) -> None:
    try:
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InstallError(f"{' '.join(cmd[:3])}: {exc}") from None
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-8:]
        raise InstallError(f"{' '.join(cmd[:3])} exited with {done.returncode}: "
                           + " / ".join(tail))


_install_lock = threading.Lock()


def install(client: mm.Client, *, offline: bool = False, timeout: float = 900.0) -> Installed:
    """The client, from the cache or installed into it; InstallError says why not."""
    driver = MATRIX_DIR / client.driver if not Path(client.driver).is_absolute() \
        else Path(client.driver)
    with _install_lock:
        if client.kind == "command":
            return Installed(tuple(client.command), {}, client.version)
        if client.kind == "python":
            return _install_python(client, driver, offline, timeout)
        return _install_node(client, driver, offline, timeout)


def _install_python(client: mm.Client, driver: Path, offline: bool,
                    timeout: float) -> Installed:
    with contextlib.suppress(importlib.metadata.PackageNotFoundError):
        if importlib.metadata.version(client.package) == client.version:
            return Installed((sys.executable, str(driver)), {}, client.version)
    target = cache_dir() / "python" / f"{client.package}@{client.version}"
    if not (target / ".agent-tck-complete").exists():
        if offline:
            raise InstallError(f"{client.package} {client.version} is not installed "
                               f"(--offline)")
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        lock = MATRIX_DIR / client.lock if client.lock else None
        spec = ["-r", str(lock)] if lock and lock.exists() else \
            [f"{client.package}=={client.version}"]
        _run_quiet([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-"
                    "check", "--target", str(target), *spec], None, timeout)
        (target / ".agent-tck-complete").write_text(client.version)
    return Installed((sys.executable, str(driver)), {"PYTHONPATH": str(target)},
                     client.version)


def _install_node(client: mm.Client, driver: Path, offline: bool,
                  timeout: float) -> Installed:
    node_src = MATRIX_DIR / "drivers" / "node"
    lock = node_src / "package-lock.json"
    pinned = bool(client.lock) or _pinned_in(node_src / "package.json", client)
    if pinned and lock.exists():
        digest = hashlib.sha256(lock.read_bytes()).hexdigest()[:12]
        target = cache_dir() / "node" / f"lock-{digest}"
    else:
        target = cache_dir() / "node" / f"{client.package.replace('/', '+')}@{client.version}"
    if not (target / ".agent-tck-complete").exists():
        if offline:
            raise InstallError(f"{client.package} {client.version} is not installed "
                               f"(--offline)")
        if shutil.which("npm") is None or shutil.which("node") is None:
            raise InstallError("node and npm are needed for this client and are not on PATH")
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        shutil.copy(node_src / "package.json", target / "package.json")
        flags = ["--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
        if pinned and lock.exists():
            shutil.copy(lock, target / "package-lock.json")
            _run_quiet(["npm", "ci", *flags], target, timeout)
        else:
            _run_quiet(["npm", "install", *flags, f"{client.package}@{client.version}"],
                       target, timeout)
        (target / ".agent-tck-complete").write_text(client.version)
    # the drivers sit beside node_modules, so their bare imports resolve there
    shutil.copytree(node_src, target / "drivers", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("node_modules", "package*.json"))
    version = client.version
    with contextlib.suppress(OSError, ValueError, KeyError):
        meta = target / "node_modules" / client.package / "package.json"
        version = json.loads(meta.read_text())["version"]
    node = shutil.which("node") or "node"
    return Installed((node, str(target / "drivers" / driver.name)), {}, version)


def _pinned_in(package_json: Path, client: mm.Client) -> bool:
    try:
        deps = json.loads(package_json.read_text())["dependencies"]
    except (OSError, ValueError, KeyError):
        return False
    return deps.get(client.package) == client.version


# --- one cell -------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for_port(port: int, process: subprocess.Popen[Any], timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return f"the audit proxy exited with {process.returncode} before listening"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return ""
        except OSError:
            time.sleep(0.1)
    return f"the audit proxy did not listen within {timeout:g}s"


def _kill_group(process: subprocess.Popen[Any]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(10)


@dataclass(frozen=True)
class Settings:
    out: Path
    timeout: float = 90.0  # one driver run
    proxy_timeout: float = 60.0  # the audit proxy's start and stop
    audit_argv: tuple[str, ...] = (sys.executable, "-m", "agent_tck", "audit")
    save_vectors: bool = False  # a regression vector per request with findings


def run_cell(cell: mm.Cell, installed: Installed | InstallError, settings: Settings,
             scrub: Scrub) -> mm.Outcome:
    rel = Path("cells") / cell.id
    folder = settings.out / rel
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    base: dict[str, Any] = {"cell_id": cell.id, "column": cell.column.id,
                            "scenario": cell.scenario.id}
    if isinstance(installed, InstallError):
        (folder / "driver.log").write_text(scrub.text(f"install failed: {installed}\n"))
        return mm.Outcome(**base, status="could-not-run",
                          reason=scrub.text(f"install failed: {installed}"),
                          log=str(rel / "driver.log"))
    from agent_tck.harness.mock_provider.server import start

    scenario_path = folder / "scenario.json"
    scenario_path.write_text(json.dumps({**cell.scenario.data, "api": cell.column.api},
                                        indent=2, ensure_ascii=False))
    server, upstream = start(dict(cell.scenario.data["script"]))
    try:
        proxy, port, audit_error = _start_proxy(cell, settings, folder, upstream)
        if proxy is None:
            return mm.Outcome(**base, status="could-not-run", reason=audit_error,
                              log=str(rel / "proxy.log"))
        timeout = cell.column.client.timeout or settings.timeout
        env = driver_env(os.environ, f"http://127.0.0.1:{port}", installed.env)
        output, exit_code, timed_out = _run_driver([*installed.argv, str(scenario_path)],
                                                   folder, env, timeout)
        (folder / "driver.log").write_text(scrub.text(
            f"$ {' '.join(Path(a).name for a in installed.argv)} scenario.json\n{output}"
            + ("\n[killed: timed out]\n" if timed_out else f"\n[exit {exit_code}]\n")))
        proxy.send_signal(signal.SIGTERM)  # the audit writes its reports, then exits
        try:
            proxy.wait(settings.proxy_timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proxy)
        audit, checked = _read_audit(folder / "audit")
        bodies = _llm_bodies(server.received)
    finally:
        server.close()
    audit_error = "" if audit is not None else "the audit proxy wrote no report (see proxy.log)"
    requests = len((audit or {}).get("exchanges", []))
    status, reason = mm.classify_run(exit_code=exit_code, timed_out=timed_out, stdout=output,
                                     requests=requests, audit_error=audit_error,
                                     timeout=timeout)
    findings = tuple(scrub.value(f) for f in mm.findings_of(audit or {}, bodies))
    if settings.save_vectors and audit:
        findings = _save_vectors(cell, audit, bodies, findings, out=settings.out,
                                 scrub=scrub)
    return mm.Outcome(**base, status=status, reason=scrub.text(reason), requests=requests,
                      findings=findings, checked=checked,
                      unexercised=mm.unexercised(cell.scenario.data, bodies),
                      log=str(rel / "driver.log"),
                      report=str(rel / "audit"))


def _save_vectors(cell: mm.Cell, audit: Mapping[str, Any], bodies: Sequence[Any],
                  findings: tuple[Mapping[str, Any], ...], *, out: Path, scrub: Scrub
                  ) -> tuple[Mapping[str, Any], ...]:
    from agent_tck.harness.audit.engine import CONVERSATION_RULES

    doc = mm.regression_vectors(cell.id, cell.column.api, audit, bodies, CONVERSATION_RULES)
    if doc is None:
        return findings
    rel = Path("vectors") / f"{cell.id}.json"
    (out / "vectors").mkdir(exist_ok=True)
    (out / rel).write_text(json.dumps(scrub.value(doc), indent=2, ensure_ascii=False) + "\n",
                           encoding="utf-8")
    saved = {(int(c["id"].rsplit(".", 1)[1]), o["rule"]): c["id"] for c in doc["cases"]
             for o in c["expect"]["wire.check"]["output"]}
    return tuple({**f, "vector": f"{rel}#{saved[f['exchange'], f['rule']]}"}
                 if (f["exchange"], f["rule"]) in saved else f for f in findings)


def _start_proxy(cell: mm.Cell, settings: Settings, folder: Path, upstream: str
                 ) -> tuple[subprocess.Popen[bytes] | None, int, str]:
    """``agent-tck audit --listen`` in front of the mock; (process, port, '') or (None, 0,
    why)."""
    audit_error = ""
    for _attempt in range(2):  # a port taken between choosing and binding: once more
        port = free_port()
        with (folder / "proxy.log").open("w") as log:
            proxy = subprocess.Popen(
                [*settings.audit_argv, "--listen", f"127.0.0.1:{port}", "--upstream", upstream,
                 "--report-dir", str(folder / "audit"), "--name", cell.id],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True)
        audit_error = _wait_for_port(port, proxy, settings.proxy_timeout)
        if not audit_error:
            return proxy, port, ""
        _kill_group(proxy)
    return None, 0, audit_error


def _run_driver(argv: Sequence[str], folder: Path, env: Mapping[str, str], timeout: float
                ) -> tuple[str, int | None, bool]:
    """(output, exit code, timed out): the driver and everything it started are killed at
    the timeout."""
    try:
        driver = subprocess.Popen(argv, cwd=folder, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                  start_new_session=True)
    except OSError as exc:
        return f"could not start the driver: {exc}", None, False
    try:
        raw, _ = driver.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        _kill_group(driver)
        raw, _ = driver.communicate()
        timed_out = True
    return raw.decode("utf-8", "replace"), driver.returncode, timed_out


def _read_audit(report: Path) -> tuple[dict[str, Any] | None, frozenset[str]]:
    audit_path, results_path = report / "audit.json", report / "results.jsonl"
    if not audit_path.exists():
        return None, frozenset()
    audit = json.loads(audit_path.read_text(encoding="utf-8"))
    lines = [json.loads(ln) for ln in results_path.read_text(encoding="utf-8").splitlines()
             if ln.strip()] if results_path.exists() else []
    return audit, mm.checked_rules(lines)


def _llm_bodies(received: Iterable[Any]) -> list[Any]:
    """The bodies of the LLM requests the mock received, in order (None: not JSON)."""
    bodies = []
    for request in received:
        if request.method == "POST" and _LLM_PATH.search(request.target.split("?")[0]):
            try:
                bodies.append(json.loads(request.body))
            except ValueError:
                bodies.append(None)
    return bodies


# --- the whole run --------------------------------------------------------------------------


def run_matrix(cells: Sequence[mm.Cell], agents: Sequence[mm.Agent], settings: Settings, *,
               jobs: int = 1, offline: bool = False,
               progress: Callable[[str], None] = lambda _m: None) -> dict[str, Any]:
    from agent_tck.harness import __version__
    from agent_tck.harness.audit.report import rule_infos

    scrub = Scrub(secret_values(os.environ))
    settings.out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(settings.out / "cells", ignore_errors=True)
    shutil.rmtree(settings.out / "vectors", ignore_errors=True)
    clients = list(dict.fromkeys(c.column.client for c in cells))
    installed: dict[str, Installed | InstallError] = {}
    for client in clients:
        progress(f"installing {client.package} {client.version} ({client.language})")
        try:
            installed[client.id] = install(client, offline=offline)
        except InstallError as exc:
            installed[client.id] = exc
            progress(f"  could not install: {exc}")

    def one(cell: mm.Cell) -> mm.Outcome:
        outcome = run_cell(cell, installed[cell.column.client.id], settings, scrub)
        progress(f"{cell.id}: {outcome.status}" + (f" ({outcome.reason})" if outcome.reason
                                                   else ""))
        return outcome

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        outcomes = list(pool.map(one, cells))
    columns = list(dict.fromkeys(c.column for c in cells))
    scenarios = list(dict.fromkeys(c.scenario for c in cells))
    rule_ids = {r for s in scenarios for r in s.rules} | {f["rule"] for o in outcomes
                                                          for f in o.findings}
    versions = {cid: i.version for cid, i in installed.items() if isinstance(i, Installed)}
    doc = mm.assemble(columns=columns, scenarios=scenarios, outcomes=outcomes,
                      rule_info={r["id"]: r for r in rule_infos(rule_ids)}, agents=agents,
                      generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
                      tck_version=__version__, installed=versions)
    doc = scrub.value(doc)
    write_reports(settings.out, doc)
    scrub.tree(settings.out)
    return doc


def write_reports(out: Path, doc: Mapping[str, Any]) -> dict[str, Path]:
    paths = {"matrix.json": out / "matrix.json", "matrix.md": out / "matrix.md",
             "matrix.html": out / "matrix.html"}
    paths["matrix.json"].write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n",
                                    encoding="utf-8")
    paths["matrix.md"].write_text(mm.render_markdown(doc), encoding="utf-8")
    paths["matrix.html"].write_text(matrix_html.render(doc), encoding="utf-8")
    return paths

