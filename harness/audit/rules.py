"""Wire rules: pure checks over one captured provider exchange (family wire-audit).

An *exchange* is plain JSON (the shape is documented in vectors/wire-audit/README.md)::

    {"method": "POST", "url": "https://host/v1/messages",
     "request": {"headers": {"anthropic-beta": "..."}, "body": {...}},
     "response": {"status": 200, "headers": {...}, "body": {...} | "events": [...]} | null}

``request.body`` is the decoded JSON body; when the capture could not decode it,
``request.body_error`` says why instead (``not-json``, ``undecodable``, ``truncated``,
``too-large``...). :func:`check_exchange` returns the findings of every check that applies,
sorted; :func:`audit_exchange` also reports which rules were checked, contains a check that
raises (an exception inside a rule is a reported value, never a broken flow) and, given the
audits of recent requests, carries the findings about a repeated conversation start over
instead of checking it again: the same result, in time proportional to what changed.

Every check is a row of :data:`CHECKS` (name, dialect, the rules it enforces with their
severity) and a function of :mod:`harness.audit.checks` yielding ``(rule key, pointer,
message)``. The rule IDs live in :data:`harness.audit.findings.RULES`, one place, each beside
the words of the note or the suite decision it enforces.
A finding's severity is fixed by its rule: ``error`` for MUST rules, ``warning`` for SHOULD.
Pointers are JSON pointers into the exchange (``/request/body/messages/2/content/0``).
"""

from __future__ import annotations

import marshal
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import repeat
from typing import Any

from agent_tck.harness.audit.checks import (
    Emit,
    Request,
    check_anthropic_system_placement,
    check_anthropic_tool_changes,
    check_anthropic_tool_results,
    check_anthropic_user_blocks,
    check_empty_user,
    check_openai_tool_messages,
    check_openai_user_tool,
    check_shape,
    check_tools,
    dialect_of,
    request_headers,
)
from agent_tck.harness.audit.conversation_state import common_prefix
from agent_tck.harness.audit.findings import Finding, make_finding, rule_id, sort_findings
from agent_tck.harness.audit.provider_checks import (
    carried_normals,
    check_provider_accepts,
    readable_from,
)
from agent_tck.reference_impl.wire.dialects import ANTHROPIC, OPENAI
from agent_tck.reference_impl.wire.normal_form import same_but_cache_control

# ---------------------------------------------------------------------------------------------
# The check table


@dataclass(frozen=True)
class Check:
    name: str
    dialects: frozenset[str]
    rules: tuple[str, ...]  # rule keys (RULES) this check can report
    fn: Callable[[Request], Emit]
    #: True: the check reports only at messages from ``Request.start`` on, and a finding at a
    #: message depends on nothing past the next message that is neither system nor tool
    #: (what makes carrying findings over in audit_exchange sound), and never on a cache_control
    #: member (a moved prompt-cache breakpoint is no change). False: always run whole.
    windowed: bool = True
    #: True: the check judges a request only when every message is in the wire normal form
    #: (the validity predicates judge nothing otherwise), so its findings carry over only
    #: between requests that are (see ``Request.readable``)
    whole_form: bool = False
    #: a body member the check reads alone (with the dialect): a request whose member is the
    #: same as its conversation's previous request's (marshal bytes: types and order kept)
    #: has that request's findings of the check, which is not run again
    reads: str | None = None

    @cached_property
    def rule_ids(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(rule_id(k) for k in self.rules))


#: the check that reads the tools alone: ``ExchangeAudit.read`` holds the marshal bytes of the
#: body's tools under its name, which the conversation tracker's head key reuses
TOOLS_READ = "tool-definitions"

_BOTH = frozenset({ANTHROPIC, OPENAI})
_A = frozenset({ANTHROPIC})
_O = frozenset({OPENAI})

CHECKS: tuple[Check, ...] = (
    Check("body-shape", _BOTH, ("unreadable-body",), check_shape),
    Check("anthropic-user-blocks", _A,
          ("user-reasoning", "user-tool-call", "tool-result-reasoning", "tool-result-tool-call",
           "user-unsupported", "tool-result-unsupported", "tool-change-developer-only",
           "empty-text-block", "unknown-block"), check_anthropic_user_blocks),
    Check("anthropic-empty-user", _A, ("empty-user-messages",), check_empty_user),
    Check("openai-empty-user", _O, ("empty-user-chat",), check_empty_user),
    Check("anthropic-tool-results", _A,
          ("tool-result-answers-call", "tool-result-first", "tool-call-answered"),
          check_anthropic_tool_results),
    Check("anthropic-system-messages", _A,
          ("system-placement", "system-first", "system-empty", "tool-change-placement"),
          check_anthropic_system_placement),
    Check("anthropic-tool-changes", _A, ("tool-change-declared", "tool-change-beta"),
          check_anthropic_tool_changes, windowed=False),
    Check(TOOLS_READ, _BOTH, ("send-message-schema", "retired-report-tool"),
          check_tools, windowed=False, reads="tools"),
    Check("openai-user-tool-messages", _O,
          ("user-reasoning", "user-tool-call", "tool-result-reasoning", "tool-result-tool-call",
           "chat-unsupported-part", "unreadable-body"), check_openai_user_tool),
    Check("openai-tool-messages", _O, ("tool-result-answers-call", "tool-call-answered"),
          check_openai_tool_messages),
    # the wire model's provider-validity predicates (each finding is local to its message)
    Check("provider-accepts", _BOTH, ("empty-turn", "empty-text", "assistant-content"),
          check_provider_accepts, whole_form=True),
)

#: check name -> rule IDs it enforces (read by harness.contract.catalogue.wire_check_citations)
WIRE_CHECKS: dict[str, tuple[str, ...]] = {c.name: c.rule_ids for c in CHECKS}
WIRE_CHECKS["conversation-prefix"] = (rule_id("prefix-stable"),)
WIRE_CHECKS["conversation-head"] = (rule_id("head-stable"), rule_id("fork-head"))


# ---------------------------------------------------------------------------------------------
# Running the checks


@dataclass(frozen=True)
class CheckError:
    """A check that raised: contained, reported, never a broken flow."""

    check: str
    rules: tuple[str, ...]
    error: str
    traceback: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"check": self.check, "rules": list(self.rules), "error": self.error}


@dataclass(frozen=True)
class ExchangeAudit:
    """The result of auditing one exchange."""

    dialect: str | None
    findings: tuple[Finding, ...]
    checked: tuple[str, ...]  # rule IDs checked (the records of a report), sorted
    errors: tuple[CheckError, ...] = ()
    #: the request's messages as sent (a reference, for carrying findings over to the next
    #: request of the conversation) and the checks that ran
    messages: Any = field(default=None, compare=False, repr=False)
    table: tuple[str, ...] = field(default=(), compare=False, repr=False)
    #: (earlier request's messages, how many of this request's messages equal their start,
    #: how many are equal but for prompt-cache marks - Messages only, else the same count):
    #: each comparison made, for the conversation tracker to reuse rather than compare again
    compared: tuple[tuple[Any, int, int], ...] = field(default=(), compare=False, repr=False)
    #: every message in the wire normal form (None: unknown, a probe raised)
    readable: bool | None = field(default=None, compare=False, repr=False)
    #: the first system message's index (None: none), carried to the next request
    system_at: int | None = field(default=0, compare=False, repr=False)
    #: the messages this audit normalized (index -> compare form), carried to the next request
    normals: Mapping[int, dict[str, Any]] = field(default_factory=dict, compare=False,
                                                  repr=False)
    #: check name -> the marshal bytes of the body member it reads alone (``Check.reads``)
    read: Mapping[str, bytes] = field(default_factory=dict, compare=False, repr=False)


def _unreadable(exchange: Mapping[str, Any], dialect: str) -> ExchangeAudit | None:
    request = exchange.get("request")
    request = request if (type(request) is dict or isinstance(request, Mapping)) else {}
    problem = request.get("body_error")
    body = request.get("body")
    if problem is None and (type(body) is dict or isinstance(body, Mapping)):
        return None
    reason = str(problem) if problem is not None else "the body is not a JSON object"
    finding = make_finding("unreadable-body", "/request/body",
                           f"the {dialect} request body could not be audited: {reason}",
                           "body-shape")
    return ExchangeAudit(dialect, (finding,), (finding.rule,))


_MESSAGES = "/request/body/messages/"


def _message_index(pointer: str) -> int | None:
    if not pointer.startswith(_MESSAGES):
        return None
    token = pointer[len(_MESSAGES):].split("/", 1)[0]
    return int(token) if token.isdigit() else None


def first_system(messages: Sequence[Any], start: int = 0) -> int | None:
    """The index of the first system message (an object with role system) from ``start`` on,
    or None."""
    if start == 0:
        try:  # the usual request has none: one pass in C
            if "system" not in map(dict.get, messages, repeat("role")):
                return None
        except TypeError:  # a message that is not an object: looked at one by one
            pass
    return next((i for i in range(start, len(messages)) if isinstance(messages[i], dict)
                 and messages[i].get("role") == "system"), None)


@dataclass(frozen=True)
class _Window:
    start: int  # where windowed checks start
    prior: ExchangeAudit | None  # the audit whose findings before ``start`` carry over
    known: int  # messages equal (``==``) to the start of ``prior``'s
    #: (earlier messages, common prefix, the prefix equal but for cache marks) per comparison
    compared: tuple[tuple[Any, int, int], ...]


def _window(messages: list[Any], previous: Iterable[ExchangeAudit],
            dialect: str, table: tuple[str, ...]) -> _Window:
    """Where windowed checks must start, and the audit whose findings before it carry over.

    With k messages exactly equal (``==``) to the start of a previous request's, findings at a
    message before s, the last message before k that is neither system nor tool, depend only on
    messages up to s (see ``Check.windowed``), so they are that request's findings. On the
    Messages wire a message equal but for its prompt-cache marks counts as equal (no check
    reads cache_control: a moved breakpoint changes no finding). Which
    previous request is used changes the cost, never the result; the most recent one sharing
    a start is taken. Each request's history is compared once: the comparisons are kept for
    the conversation tracker.
    """
    best_k, best = 0, None
    compared: list[tuple[Any, int, int]] = []
    for prior in previous:
        old = prior.messages
        if (prior.dialect != dialect or prior.table != table or prior.errors
                or not isinstance(old, list)):
            continue
        equal = k = common_prefix(messages, old)
        if dialect == ANTHROPIC:  # a message that only lost or gained a cache mark is the same
            limit = min(len(messages), len(old))
            while k < limit and same_but_cache_control(messages[k], old[k]):
                k += 1
        compared.append((old, equal, k))
        if k > best_k:
            best_k, best = k, prior
        if k:
            break  # the most recent request sharing a start: older ones share no more
    s = best_k - 1
    while s > 0 and not (isinstance(messages[s], dict)
                         and messages[s].get("role") not in ("system", "tool")):
        s -= 1
    if best is None or s <= 0:
        return _Window(0, None, 0, tuple(compared))
    return _Window(s, best, best_k, tuple(compared))


@dataclass(frozen=True)
class _Plan:
    """What a check table runs on one dialect (computed once per table and dialect)."""

    checks: tuple[Check, ...]  # those that apply, in order
    table: tuple[str, ...]  # their names
    checked: tuple[str, ...]  # the rule IDs they check, sorted
    carry: frozenset[str]  # windowed checks whose findings carry over between any requests
    carry_all: frozenset[str]  # ... and between requests all in normal form


_PLANS: dict[tuple[int, str], tuple[Sequence[Check], _Plan]] = {}


def _plan(checks: Sequence[Check], dialect: str) -> _Plan:
    cached = _PLANS.get((id(checks), dialect))
    if cached is not None and cached[0] is checks:
        return cached[1]
    applicable = tuple(c for c in checks if dialect in c.dialects)
    plan = _Plan(applicable, tuple(c.name for c in applicable),
                 tuple(sorted({r for c in applicable for r in c.rule_ids})),
                 frozenset(c.name for c in applicable if c.windowed and not c.whole_form),
                 frozenset(c.name for c in applicable if c.windowed))
    if checks is CHECKS:  # the default table: kept (any other is computed per call)
        _PLANS[(id(checks), dialect)] = (checks, plan)
    return plan


def _read_again(name: str, member: str, body: Mapping[str, Any], prior: ExchangeAudit | None,
                read: dict[str, bytes]) -> bool:
    """Does ``prior`` hold this request's findings of check ``name``, which reads ``member``
    alone (``Check.reads``: it is the same)? Keeps its bytes in ``read`` for the next one."""
    try:
        key = marshal.dumps(body.get(member))
    except ValueError:  # not JSON values: the check runs
        return False
    read[name] = key
    return prior is not None and prior.read.get(name) == key


def audit_exchange(
    exchange: Mapping[str, Any], checks: Sequence[Check] | None = None,
    previous: Iterable[ExchangeAudit] = (), normals: dict[int, dict[str, Any]] | None = None,
) -> ExchangeAudit:
    """Run every applicable check; a check that raises becomes a :class:`CheckError`.

    ``previous``: audits of earlier requests (the audit engine passes its recent ones). When
    this request repeats the start of one of them, findings about that unchanged start are
    carried over and the windowed checks run only on the rest: the same result as a full run
    (a property test holds them equal), in time proportional to what changed. ``normals``: a
    memo this call fills with the messages it normalized (index -> compare form) for the
    conversation tracker to reuse (``ConversationTracker.observe``).
    """
    checks = CHECKS if checks is None else checks
    dialect = dialect_of(exchange)
    if dialect is None:
        return ExchangeAudit(None, (), ())
    unreadable = _unreadable(exchange, dialect)
    if unreadable is not None:
        return unreadable
    body = exchange["request"]["body"]
    raw = body.get("messages")
    plan = _plan(checks, dialect)
    table = plan.table
    window = (_window(raw, previous, dialect, table) if isinstance(raw, list)
              else _Window(0, None, 0, ()))
    start, prior = window.start, window.prior
    messages = tuple(raw) if isinstance(raw, list) else ()
    # the normal form is probed only where this request differs from a readable prior
    normals = {} if normals is None else normals
    if prior is not None and prior.readable:
        readable = readable_from(dialect, messages, window.known, prior.messages, normals)
    else:
        readable = readable_from(dialect, messages, 0, (), normals)
    whole_form_carry = prior is not None and prior.readable is True and readable is True
    if prior is not None and prior.system_at is not None and prior.system_at < window.known:
        system_at: int | None = prior.system_at  # the repeated messages hold it
    else:
        system_at = first_system(messages, window.known if prior is not None else 0)
    headers = request_headers(exchange)
    known: Mapping[int, dict[str, Any]] = normals  # and the window's repeated messages
    if whole_form_carry and prior is not None and prior.normals:
        known = carried_normals(normals, prior.normals, start, window.known)
    req = Request(dialect, body, messages, headers, start, readable, system_at, known)
    findings: list[Finding] = []
    if prior is not None:
        carry = plan.carry_all if whole_form_carry else plan.carry
        for f in prior.findings:
            if f.check in carry:
                index = _message_index(f.pointer)
                if index is not None and index < start:
                    findings.append(f)
    errors: list[CheckError] = []
    whole = req if start == 0 else Request(dialect, body, messages, headers, 0, readable,
                                           system_at, known)
    read: dict[str, bytes] = {}
    for check in plan.checks:
        if check.reads is not None and _read_again(check.name, check.reads, body, prior, read
                                                   ) and prior is not None:
            findings.extend(f for f in prior.findings if f.check == check.name)
            continue
        run = req if check.windowed and (whole_form_carry or not check.whole_form) else whole
        try:
            for key, pointer, message in check.fn(run):
                findings.append(make_finding(key, pointer, message, check.name))
        except Exception as exc:  # contained: a rule's bug is a reported value
            errors.append(CheckError(
                check.name, check.rule_ids, f"{type(exc).__name__}: {exc}",
                tuple(traceback.format_exc().splitlines()[-12:]),
            ))
    return ExchangeAudit(dialect, tuple(sort_findings(findings)), plan.checked,
                         tuple(errors), raw if isinstance(raw, list) else None, table,
                         window.compared, readable, system_at, normals, read)


def check_exchange(exchange: Mapping[str, Any]) -> list[Finding]:
    """The sorted findings of one exchange (``[]`` for traffic that is not an LLM request).

    Strict: a check that raises re-raises here (the vectors must see a crash as a crash);
    the audit engine uses :func:`audit_exchange`, which contains it.
    """
    audit = audit_exchange(exchange)
    if audit.errors:
        raise RuntimeError(f"check {audit.errors[0].check} failed: {audit.errors[0].error}")
    return list(audit.findings)
