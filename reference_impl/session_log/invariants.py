"""CFP-024 / CFP-025 as invariants of every ``session.resume*`` output.

Note 001: a loaded log must "resume with a valid provider history". Each function here has the
invariant shape ``(given_input, output) -> [(rule_id, check_name, message)]`` and charges every
provider-validity problem (:mod:`reference_impl.wire.validity`) of the resumed request to
CFP-024 (Messages) or CFP-025 (Chat Completions), whatever MUST the predicate has elsewhere; a
predicate whose own rule is below MUST keeps that rule (:data:`OWN_RULE`: BO-D011, a SHOULD
because compatible endpoints differ), so a SHOULD-level difference never fails CFP-024/025:

* ``session.resume-anthropic`` / ``session.resume-openai``: the request itself;
* ``session.resume`` (a canonical history and tools): the request the reference serializers
  make of it, both wire formats (a history they cannot serialize gives no finding here: the
  comparison judges it).

Any valid answer passes: an unanswered call dropped (CFP-D009, the reference) or answered with a
synthetic error result, an empty assistant message dropped or given content.

When it applies: not when the input is not a log the reference reads (the implementation should
have rejected it). What the log itself holds and no resume is asked to change is passed through
without blame: the predicates an input defect calls for
(:func:`reference_impl.serialize.invariants.history_defects`) are suspended when the history the
reference resumes from the same log has that defect (an assistant message holding an empty text
block, or holding reasoning only, for example). Unanswered calls and empty assistant messages
are never suspended that way: the reference's resume drops them (CFP-D009), so a valid history
exists and CFP-024/025 require one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.serialize import invariants as serialize_invariants
from agent_tck.reference_impl.serialize import model
from agent_tck.reference_impl.serialize.invariants import Finding
from agent_tck.reference_impl.serialize.ops import OPERATIONS as SERIALIZERS
from agent_tck.reference_impl.session_log import ops
from agent_tck.reference_impl.wire import validity
from agent_tck.reference_impl.wire.dialects import ANTHROPIC, OPENAI

RULES: Final = {ANTHROPIC: "CFP-024", OPENAI: "CFP-025"}
_SERIALIZER: Final = {ANTHROPIC: "anthropic.serialize", OPENAI: "openai.serialize"}
#: The predicates' rules below MUST (vectors/rules/; tests/test_check_model.py checks the list):
#: a resumed request failing one of them fails that rule, not CFP-024/025.
OWN_RULE: Final = frozenset({"BO-D011"})


def _suspensions(given_input: Any) -> frozenset[str] | None:
    """What the log itself calls for (None: not a log the reference resumes)."""
    try:
        resumed = ops.resume(given_input)
        history = model.parse_history(resumed["history"])
    except TckError:
        return None
    return serialize_invariants.history_defects(history)


def _wire_findings(dialect: str, request: Any, suspend: frozenset[str],
                   where: str = "") -> list[Finding]:
    problems = validity.problems(dialect, request, suspend)
    return [finding for p in problems for finding in serialize_invariants.findings(
        [p], rule=None if p.rule in OWN_RULE else RULES[dialect], where=where)]


def resume_anthropic(given_input: Any, output: Any) -> list[Finding]:
    """Invariant of ``session.resume-anthropic`` (CFP-024)."""
    suspend = _suspensions(given_input)
    return [] if suspend is None else _wire_findings(ANTHROPIC, output, suspend)


def resume_openai(given_input: Any, output: Any) -> list[Finding]:
    """Invariant of ``session.resume-openai`` (CFP-025)."""
    suspend = _suspensions(given_input)
    return [] if suspend is None else _wire_findings(OPENAI, output, suspend)


def resume(given_input: Any, output: Any) -> list[Finding]:
    """Invariant of ``session.resume``: CFP-024 and CFP-025 on the requests the reference
    serializers make of the resumed history."""
    suspend = _suspensions(given_input)
    if suspend is None or not isinstance(output, Mapping):
        return []
    request: dict[str, Any] = {"history": output.get("history")}
    if output.get("tools") is not None:
        request["tools"] = output["tools"]
    out: list[Finding] = []
    for dialect in (ANTHROPIC, OPENAI):
        try:
            body = SERIALIZERS[_SERIALIZER[dialect]](request)
        except TckError:
            continue
        where = f"(the {_SERIALIZER[dialect]} request of the resumed history) "
        out.extend(_wire_findings(dialect, body, suspend, where))
    return out


#: operation -> invariant (for harness.run.invariants)
INVARIANTS: Final = {
    "session.resume": resume,
    "session.resume-anthropic": resume_anthropic,
    "session.resume-openai": resume_openai,
}
