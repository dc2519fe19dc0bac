"""CFP-024 / CFP-025 as invariants of every ``session.resume*`` output.

Note 001: a loaded log must "resume with a valid provider history". Each function here has the
invariant shape ``(given_input, output) -> [(rule_id, check_name, message)]`` and charges every
provider-validity problem (:mod:`reference_impl.wire.validity`) of the resumed request to
CFP-024 (Messages) or CFP-025 (Chat Completions), whatever MUST the predicate has elsewhere; a
predicate whose own rule is below MUST keeps that rule (:data:`OWN_RULE`: BO-D011, a SHOULD
because compatible endpoints differ), so a SHOULD-level difference never fails CFP-024/025:

* ``session.resume-anthropic`` / ``session.resume-openai``: the request itself;
* ``session.resume`` (a canonical history and tools): the request the reference serializers
  make of it, both wire formats. A resumed history the reference serializer refuses (content
  no provider request can carry) is a finding of CFP-024 / CFP-025 too: it is not "a valid
  provider history" (review Task 2 B), unless the reference's own resume of the same log is
  refused alike (the log holds that content). An output that is not a canonical history at all
  cannot be checked: :class:`CannotCheck`, the check ``errored`` (the comparison fails it).

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
from agent_tck.reference_impl.serialize.invariants import CannotCheck, Finding
from agent_tck.reference_impl.serialize.ops import OPERATIONS as SERIALIZERS
from agent_tck.reference_impl.session_log import ops
from agent_tck.reference_impl.wire import validity
from agent_tck.reference_impl.wire.dialects import ANTHROPIC, OPENAI

RULES: Final = {ANTHROPIC: "CFP-024", OPENAI: "CFP-025"}
_SERIALIZER: Final = {ANTHROPIC: "anthropic.serialize", OPENAI: "openai.serialize"}
#: The predicates' rules below MUST (vectors/rules/; tests/test_check_model.py checks the list):
#: a resumed request failing one of them fails that rule, not CFP-024/025.
OWN_RULE: Final = frozenset({"BO-D011"})
#: Predicates of such a rule whose refusal no compatible endpoint lifts: a resumed request
#: failing one fails CFP-024/025 after all. BO-D011 is a SHOULD because endpoints differ on an
#: assistant message carrying only reasoning_content; none accepts a request without messages.
REFUSED_EVERYWHERE: Final = frozenset({"chat-not-empty"})


class _Resumed:
    """The reference's own resume of a log: its history and what that history calls for."""

    def __init__(self, given_input: Any) -> None:
        self.raw = ops.resume(given_input)  # TckError: not a log the reference resumes
        self.history = model.parse_history(self.raw["history"])
        self.defects = serialize_invariants.history_defects(self.history)

    def refused(self, dialect: str) -> bool:
        """Does the reference serializer refuse the reference's resumed history?"""
        request = {k: v for k, v in self.raw.items() if k in ("history", "tools") and v is not None}
        try:
            SERIALIZERS[_SERIALIZER[dialect]](request)
        except TckError:
            return True
        return False


def _reference(given_input: Any) -> _Resumed | None:
    try:
        return _Resumed(given_input)
    except TckError:
        return None


def _wire_findings(dialect: str, request: Any, resumed: _Resumed,
                   where: str = "") -> list[Finding]:
    suspend = serialize_invariants.suspensions(resumed.defects, resumed.history, dialect, request)
    problems = validity.problems(dialect, serialize_invariants.judged(dialect, request), suspend)
    return [finding for p in problems for finding in serialize_invariants.findings(
        [p], rule=None if p.rule in OWN_RULE and p.check not in REFUSED_EVERYWHERE
        else RULES[dialect], where=where)]


def resume_anthropic(given_input: Any, output: Any) -> list[Finding]:
    """Invariant of ``session.resume-anthropic`` (CFP-024)."""
    resumed = _reference(given_input)
    return [] if resumed is None else _wire_findings(ANTHROPIC, output, resumed)


def resume_openai(given_input: Any, output: Any) -> list[Finding]:
    """Invariant of ``session.resume-openai`` (CFP-025)."""
    resumed = _reference(given_input)
    return [] if resumed is None else _wire_findings(OPENAI, output, resumed)


def _request(output: Any) -> dict[str, Any]:
    """A ``session.resume`` output as a serialize input (CannotCheck: not a history at all)."""
    if not isinstance(output, Mapping):
        raise CannotCheck(f"a session.resume output is an object, not a {type(output).__name__}")
    request: dict[str, Any] = {"history": output.get("history")}
    if output.get("tools") is not None:
        request["tools"] = output["tools"]
    try:
        model.parse_serialize_input(request)
    except TckError as exc:
        raise CannotCheck(f"the output is not a canonical history and tools: {exc}") from None
    return request


def resume(given_input: Any, output: Any) -> list[Finding]:
    """Invariant of ``session.resume``: CFP-024 and CFP-025 on the requests the reference
    serializers make of the resumed history."""
    resumed = _reference(given_input)
    if resumed is None:
        return []
    request = _request(output)
    out: list[Finding] = []
    for dialect in (ANTHROPIC, OPENAI):
        where = f"(the {_SERIALIZER[dialect]} request of the resumed history) "
        try:
            body = SERIALIZERS[_SERIALIZER[dialect]](request)
        except TckError as exc:
            if not resumed.refused(dialect):  # the log's own content is not to blame
                out.append((RULES[dialect], "invariant:provider-request",
                            f"{where}cannot be made: {exc}"))
            continue
        out.extend(_wire_findings(dialect, body, resumed, where))
    return out


#: operation -> invariant (for harness.run.invariants)
INVARIANTS: Final = {
    "session.resume": resume,
    "session.resume-anthropic": resume_anthropic,
    "session.resume-openai": resume_openai,
}
