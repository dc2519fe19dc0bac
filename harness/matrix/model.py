"""The conformance matrix's logic, sans I/O (docs/MATRIX.md, issue 14).

Plain data in, plain data out: scenarios and the client registry are validated here, the
cells to run are planned here, and the outcome of every run (what a driver did and what the
audit found in its traffic) is folded here into the matrix: one row per rule, one column per
client and API, each cell ``pass`` / ``fail`` / ``not-exercised`` / ``could-not-run``. The
Markdown view (here) and the HTML view
(harness/reports/matrix_html.py) are rendered from the matrix document alone. Installing
clients, starting the mock provider and the audit proxy and running drivers is
:mod:`harness.matrix.run`'s job.

Verdict of a cell (rule R, column C), strongest first:

* ``fail``: the audit reported R on a request of any scenario run in C (whatever the scenario
  names: a finding is a fact of the wire);
* ``could-not-run``: a scenario naming R did not complete in C (install failure, crash, hang,
  no request sent): a pass elsewhere would rest on part of the evidence;
* ``pass``: a scenario naming R completed in C, and the audit checked R on its requests;
* ``not-exercised``: no selected scenario naming R could be expressed by the client, or the
  audit does not check R on C's API (say Messages-only rules on Chat Completions).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_tck.reference_impl.json_pointer import pointer

MATRIX_FORMAT = "agent-tck-matrix/1"
STATUSES = ("pass", "fail", "not-exercised", "could-not-run")
API_NAMES = {"anthropic": "Messages", "openai": "Chat Completions"}
UNSUPPORTED_EXIT = 3  # a driver's exit code for "my client cannot express this scenario"


class MatrixInputError(ValueError):
    """A scenario or registry entry that does not hold: names the file and JSON pointer."""

    def __init__(self, where: str, pointer: str, message: str) -> None:
        at = "" if where.startswith("--") else f" {pointer or '/'}:"  # an option: no pointer
        super().__init__(f"{where}:{at} {message}")
        self.where, self.pointer, self.message = where, pointer, message


# --- scenarios and clients ------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    rules: tuple[str, ...]
    apis: tuple[str, ...]
    data: Mapping[str, Any] = field(hash=False, compare=False)  # the document, as read


@dataclass(frozen=True)
class Client:
    id: str
    package: str
    language: str
    kind: str  # python | node | command (tests)
    version: str
    driver: str
    apis: tuple[str, ...]
    lock: str = ""
    also: tuple[str, ...] = ()
    command: tuple[str, ...] = ()  # kind command: argv, the scenario path appended
    timeout: float | None = None  # seconds one run may take (default: the run's --timeout)


@dataclass(frozen=True)
class Agent:
    id: str
    package: str
    reason: str


@dataclass(frozen=True)
class Column:
    client: Client
    api: str

    @property
    def id(self) -> str:
        return f"{self.client.id}/{self.api}"


@dataclass(frozen=True)
class Cell:
    """One run: a scenario performed by one client on one API."""

    column: Column
    scenario: Scenario

    @property
    def id(self) -> str:
        return f"{self.column.client.id}.{self.column.api}.{self.scenario.id}"


def parse_scenario(data: Any, where: str, schema: Mapping[str, Any]) -> Scenario:
    """A scenario from its parsed YAML, or MatrixInputError naming the first problem."""
    import jsonschema

    from agent_tck.harness.mock_provider.script import parse_script
    from agent_tck.reference_impl.errors import TckError

    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(data),
                    key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        raise MatrixInputError(where, pointer(e.absolute_path), e.message)
    try:
        parse_script(data["script"])
    except TckError as exc:
        raise MatrixInputError(where, "/script" + (exc.pointer or "").rstrip("/"),
                               exc.message) from None
    return Scenario(id=data["id"], title=data["title"], rules=tuple(data["rules"]),
                    apis=tuple(data["apis"]), data=data)


def parse_registry(data: Any, where: str) -> tuple[list[Client], list[Agent]]:
    if not isinstance(data, Mapping) or not isinstance(data.get("clients"), list):
        raise MatrixInputError(where, "/clients", "expected a list of clients")
    clients = []
    for i, c in enumerate(data["clients"]):
        for key in ("id", "package", "kind", "driver", "apis"):
            if not isinstance(c, Mapping) or key not in c:
                raise MatrixInputError(where, f"/clients/{i}/{key}", "required")
        if c["kind"] not in ("python", "node", "command"):
            raise MatrixInputError(where, f"/clients/{i}/kind", "python, node or command")
        clients.append(Client(
            id=c["id"], package=c["package"], language=c.get("language", c["kind"]),
            kind=c["kind"], version=str(c.get("version", "")), driver=c["driver"],
            apis=tuple(c["apis"]), lock=c.get("lock", ""), also=tuple(c.get("also", ())),
            command=tuple(c.get("command", ())),
            timeout=float(c["timeout"]) if c.get("timeout") is not None else None))
    agents = [Agent(id=a["id"], package=a["package"], reason=" ".join(a["reason"].split()))
              for a in data.get("agents", [])]
    return clients, agents


def override_versions(clients: Sequence[Client], pins: Iterable[str]) -> list[Client]:
    """``--client NAME@VERSION``: NAME is a client id or its package name."""
    from dataclasses import replace

    wanted: dict[str, str] = {}
    for pin in pins:
        name, sep, version = pin.rpartition("@")
        if not sep or not name or not version:
            raise MatrixInputError("--client", "", f"{pin!r}: expected NAME@VERSION")
        wanted[name] = version
    known = {c.id for c in clients} | {c.package for c in clients}
    unknown = sorted(set(wanted) - known)
    if unknown:
        raise MatrixInputError("--client", "", f"unknown client {unknown[0]!r}")
    out = []
    for c in clients:
        pinned = wanted.get(c.id, wanted.get(c.package))
        out.append(replace(c, version=pinned, lock="") if pinned else c)
    return out


def plan(clients: Sequence[Client], scenarios: Sequence[Scenario],
         only_clients: Sequence[str] = (), only_scenarios: Sequence[str] = ()) -> list[Cell]:
    """Every (client, API, scenario) to run, in a stable order; unknown filter names raise."""
    for name, pool in (("--clients", {c.id for c in clients} | {c.package for c in clients}),
                       ("--scenarios", {s.id for s in scenarios})):
        chosen = only_clients if name == "--clients" else only_scenarios
        unknown = sorted(set(chosen) - pool)
        if unknown:
            raise MatrixInputError(name, "", f"unknown name {unknown[0]!r} (known: "
                                             f"{', '.join(sorted(pool))})")
    cells = []
    for client in clients:
        if only_clients and client.id not in only_clients and client.package not in only_clients:
            continue
        for api in client.apis:
            for scenario in scenarios:
                if only_scenarios and scenario.id not in only_scenarios:
                    continue
                if api in scenario.apis:
                    cells.append(Cell(Column(client, api), scenario))
    return cells


# --- outcomes ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What one run gave. ``status``: ``ran`` (the driver finished and its requests were
    audited), ``unsupported`` (the client cannot express the scenario), ``could-not-run``."""

    cell_id: str
    column: str
    scenario: str
    status: str
    reason: str = ""
    requests: int = 0
    findings: tuple[Mapping[str, Any], ...] = ()  # rule, severity, pointer, message, exchange,
    checked: frozenset[str] = frozenset()  #         excerpt
    unexercised: Mapping[str, str] = field(default_factory=dict)  # rule -> why (see below)
    log: str = ""  # a path, relative to the matrix folder
    report: str = ""  # the cell's audit report folder, relative to the matrix folder


def classify_run(*, exit_code: int | None, timed_out: bool, stdout: str, requests: int,
                 audit_error: str = "", timeout: float = 0.0) -> tuple[str, str]:
    """A driver's exit and the audit's count -> (status, reason)."""
    if audit_error:
        return "could-not-run", audit_error
    if timed_out:
        return "could-not-run", f"the driver did not finish within {timeout:g}s (killed)"
    if exit_code == UNSUPPORTED_EXIT:
        lines = [ln for ln in stdout.splitlines() if ln.startswith("unsupported:")]
        why = lines[-1].removeprefix("unsupported:").strip() if lines else "not expressible"
        return "unsupported", why
    if exit_code != 0:
        return "could-not-run", f"the driver exited with {exit_code}"
    if requests == 0:
        return "could-not-run", "the driver sent no request to the provider"
    return "ran", ""


def findings_of(audit: Mapping[str, Any], bodies: Sequence[Any]) -> list[dict[str, Any]]:
    """The findings of an ``audit.json``, each with the request excerpt its pointer names.

    ``bodies`` are the request bodies the provider received, in order (one per audited
    exchange; the drivers are sequential). Excerpts are not yet redacted."""
    out = []
    for i, x in enumerate(audit.get("exchanges", [])):
        body = bodies[i] if i < len(bodies) else None
        for f in x.get("findings", []):
            out.append({"rule": f["rule"], "severity": f["severity"], "pointer": f["pointer"],
                        "message": f.get("message", ""), "exchange": i,
                        "excerpt": excerpt({"request": {"body": body}}, f["pointer"])})
    return out


def regression_vectors(cell_id: str, api: str, audit: Mapping[str, Any],
                       bodies: Sequence[Any], conversation_rules: Iterable[str]
                       ) -> dict[str, Any] | None:
    """``--save-vectors``: a wire-audit vector file (vectors/schema/vector-file.schema.json)
    with one ``wire.check`` case per request that had per-request findings: the request body
    as the provider received it (to be redacted by the caller) and the findings it must give.
    Cross-request rules (WA-D006, WA-D007, WA-001) need the whole conversation and are left
    out. None when there is nothing to save. (These pin the wire checker; the audit's
    ``--save-vectors``, harness/audit/regression.py, pins an implementation's serializer.)"""
    skip = set(conversation_rules)
    path = "/v1/messages" if api == "anthropic" else "/v1/chat/completions"
    cases = []
    for i, x in enumerate(audit.get("exchanges", [])):
        found = sorted({(f["rule"], f["pointer"], f["severity"]) for f in x.get("findings", [])
                        if f["rule"] not in skip})
        if not found or i >= len(bodies) or not isinstance(bodies[i], Mapping):
            continue
        cases.append({
            "id": f"matrix.{cell_id}.{i}".lower(),
            "rules": sorted({r for r, _, _ in found}),
            "description": f"agent-tck matrix: request {i} of {cell_id}, as the client sent it.",
            "input": {"method": "POST", "url": f"http://127.0.0.1{path}",
                      "request": {"body": bodies[i]}},
            "expect": {"wire.check": {"output": [{"rule": r, "severity": sev, "pointer": ptr}
                                                 for r, ptr, sev in found]}},
        })
    if not cases:
        return None
    return {"family": "wire-audit",
            "description": f"Regression vectors from the conformance matrix run {cell_id}.",
            "cases": cases}


def excerpt(doc: Any, pointer: str, limit: int = 400) -> str:
    """The JSON the pointer names, compact, cut at ``limit`` characters ('' when absent)."""
    node = doc
    for raw in pointer.split("/")[1:]:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        elif isinstance(node, Mapping) and token in node:
            node = node[token]
        else:
            return ""
    text = json.dumps(node, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def unexercised(scenario: Mapping[str, Any], bodies: Sequence[Any]) -> dict[str, str]:
    """Rules of ``exercised_when`` whose condition no request body meets -> why.

    ``message_role: R``: some request carries a message of role R after its first message
    (an in-history message); a client that rewrote it (as user text, or hoisted into the
    system prompt) sent nothing the rule governs, so the rule is not exercised there."""
    out = {}
    for rule, cond in scenario.get("exercised_when", {}).items():
        role = cond.get("message_role")
        if role is None:
            continue
        seen = any(isinstance(b, Mapping) and isinstance(b.get("messages"), list)
                   and any(isinstance(m, Mapping) and m.get("role") == role
                           for m in b["messages"][1:]) for b in bodies)
        if not seen:
            out[rule] = f"the client sent no in-history {role} message (it rewrote it)"
    return out


def checked_rules(results_lines: Iterable[Mapping[str, Any]]) -> frozenset[str]:
    """The rules the audit checked on some request (results.jsonl case records)."""
    return frozenset(rid for r in results_lines if r.get("type") == "case"
                     and r.get("status") in ("pass", "fail") for rid in r.get("rules", ()))


# --- the matrix -------------------------------------------------------------------------------


@dataclass
class _CellVerdict:
    status: str = "not-exercised"
    notes: list[str] = field(default_factory=list)
    findings: list[dict[str, Any]] = field(default_factory=list)


def verdict(rule: str, outcomes: Sequence[Outcome], scenarios: Mapping[str, Scenario]
            ) -> dict[str, Any]:
    """One cell from the outcomes of one column (see the module docstring)."""
    v = _CellVerdict()
    for o in outcomes:
        for f in o.findings:
            if f["rule"] == rule:
                v.findings.append({**f, "scenario": o.scenario, "report": o.report,
                                   "log": o.log})
    naming = [o for o in outcomes if rule in scenarios[o.scenario].rules]
    passed = [o for o in naming if o.status == "ran" and rule in o.checked
              and rule not in o.unexercised]
    broken = [o for o in naming if o.status == "could-not-run"]
    if v.findings:
        v.status = "fail"
    elif broken:
        v.status = "could-not-run"
    elif passed:
        v.status = "pass"
    for o in naming:
        if o.status == "could-not-run":
            v.notes.append(f"{o.scenario}: could not run: {o.reason}")
        elif o.status == "unsupported":
            v.notes.append(f"{o.scenario}: not expressible: {o.reason}")
        elif rule not in o.checked:
            v.notes.append(f"{o.scenario}: the audit does not check {rule} on this API")
        elif rule in o.unexercised:
            v.notes.append(f"{o.scenario}: not exercised: {o.unexercised[rule]}")
        elif not any(f["rule"] == rule for f in o.findings):
            v.notes.append(f"{o.scenario}: pass")
    if not naming and not v.findings:
        v.notes.append("no selected scenario names this rule for this column")
    cell: dict[str, Any] = {"rule": rule, "status": v.status, "notes": v.notes}
    if v.findings:
        cell["severity"] = "error" if any(f["severity"] == "error" for f in v.findings) \
            else "warning"
        cell["findings"] = v.findings
    return cell


def assemble(*, columns: Sequence[Column], scenarios: Sequence[Scenario],
             outcomes: Sequence[Outcome], rule_info: Mapping[str, Mapping[str, Any]],
             agents: Sequence[Agent] = (), generated: str = "", tck_version: str = "",
             installed: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The matrix document (matrix/schema/matrix.schema.json)."""
    by_id = {s.id: s for s in scenarios}
    rules = sorted({r for s in scenarios for r in s.rules}
                   | {f["rule"] for o in outcomes for f in o.findings}, key=_rule_key)
    installed = installed or {}
    cols: list[dict[str, Any]] = []
    for col in columns:
        mine = [o for o in outcomes if o.column == col.id]
        cols.append({
            "id": col.id, "client": col.client.id, "package": col.client.package,
            "also": list(col.client.also), "language": col.client.language,
            "version": installed.get(col.client.id, col.client.version), "api": col.api,
            "api_name": API_NAMES.get(col.api, col.api),
            "cells": [verdict(r, mine, by_id) for r in rules],
        })
    return {
        "format": MATRIX_FORMAT, "generated": generated, "tck_version": tck_version,
        "rules": [{"id": r, **{k: v for k, v in rule_info.get(r, {}).items()
                               if k in ("level", "title", "family")}} for r in rules],
        "scenarios": [{"id": s.id, "title": s.title, "rules": list(s.rules),
                       "apis": list(s.apis)} for s in scenarios],
        "columns": cols,
        "runs": [{"cell": o.cell_id, "column": o.column, "scenario": o.scenario,
                  "status": o.status, "reason": o.reason, "requests": o.requests,
                  "findings": len(o.findings), "log": o.log, "report": o.report}
                 for o in outcomes],
        "agents": [{"id": a.id, "package": a.package, "status": "could-not-run",
                    "reason": a.reason} for a in agents],
        "counts": {s: sum(1 for c in cols for cell in c["cells"] if cell["status"] == s)
                   for s in STATUSES},
    }


def _rule_key(rid: str) -> tuple[str, int, str]:
    prefix, _, rest = rid.partition("-")
    return (prefix, 1 if rest.startswith("D") else 0, rest)


# --- views --------------------------------------------------------------------------------------

_MARK = {"pass": "pass", "fail": "FAIL", "not-exercised": "\u2014", "could-not-run": "n/r"}


def _cell_text(cell: Mapping[str, Any]) -> str:
    if cell["status"] == "fail":
        return "FAIL" if cell.get("severity") == "error" else "warn"
    if cell["status"] == "pass" and any("not expressible" in n for n in cell["notes"]):
        return "pass*"  # passed where it ran; some scenario naming the rule was not expressible
    return _MARK[cell["status"]]


def render_markdown(doc: Mapping[str, Any]) -> str:
    cols = doc["columns"]
    lines = [f"# Conformance matrix ({doc['generated'] or 'undated'}, agent-tck "
             f"{doc['tck_version']})", "",
             "Cells: `pass` (`pass*`: a scenario naming the rule could not be expressed by the "
             "client; it passed the others); `FAIL` (a MUST rule broken) or `warn` (a SHOULD "
             "rule); "
             "`\u2014` not exercised (not expressible by the client, or not checked on that "
             "API); `n/r` could not run. Findings are listed below the table.", "",
             "| rule | " + " | ".join(f"{c['package']} {c['version']} ({c['language']}) "
                                       f"{c['api_name']}" for c in cols) + " |",
             "|---|" + "---|" * len(cols)]
    for i, rule in enumerate(doc["rules"]):
        title = rule.get("title", "")
        lines.append(f"| {rule['id']} {_md(title)} | "
                     + " | ".join(_cell_text(c["cells"][i]) for c in cols) + " |")
    lines += ["", "## Findings", ""]
    any_finding = False
    for c in cols:
        for cell in c["cells"]:
            for f in cell.get("findings", []):
                any_finding = True
                lines.append(f"- **{c['package']} ({c['language']}) {c['api_name']}**, "
                             f"{f['rule']} {f['severity']}, scenario `{f['scenario']}` request "
                             f"{f['exchange']} at `{f['pointer']}`: {_md(f['message'])}"
                             + (f" Request excerpt: `{_md(f['excerpt'])}`" if f["excerpt"]
                                else "") + f" ([audit report]({f['report']}/report.html)"
                             + (f", [vector]({f['vector']})" if f.get("vector") else "") + ")")
    if not any_finding:
        lines.append("None.")
    lines += ["", "## Runs that did not complete", ""]
    bad = [r for r in doc["runs"] if r["status"] != "ran"]
    lines += [f"- `{r['cell']}`: {r['status']}: {_md(r['reason'])}"
              + (f" ([log]({r['log']}))" if r["log"] else "") for r in bad] or ["None."]
    if doc["agents"]:
        lines += ["", "## Agents", ""]
        lines += [f"- `{a['package']}`: {_md(a['reason'])}" for a in doc["agents"]]
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'").replace("\n", " ")
