"""The wire model's provider-validity predicates as a wire check (family block-omission).

BO-D009 (no empty assistant or system turn), BO-D010 (no empty text block in assistant or system
content), BO-D011 (a Chat assistant message has content or tool_calls) are checked on the wire
with the predicates of reference_impl/wire/validity.py, the same ones every serializer output is
held to (harness/run/invariants.py): one home for both.

The check is windowed (``Check.windowed``): each of these findings depends on its own message
(its role, its content in normal form) and on whether a message follows it, so the predicates
run on the messages from ``Request.start`` on and the findings before it carry over. One thing
is not local: the Messages predicates judge nothing when a message is not in the wire normal
form, so whether every message is (:func:`readable_from`) is carried from request to request
too (``Check.whole_form``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_tck.harness.audit.checks import Emit, Request
from agent_tck.reference_impl.wire import validity
from agent_tck.reference_impl.wire.dialects import ANTHROPIC
from agent_tck.reference_impl.wire.normal_form import (
    NotARequest,
    normal_message,
    same_but_cache_control,
)

#: the predicates' rules the audit reports through :func:`check_provider_accepts` (the other
#: predicates' rules have checks of their own in harness/audit/checks.py)
_VALIDITY_KEYS = {"BO-D009": "empty-turn", "BO-D010": "empty-text", "BO-D011": "assistant-content"}
_REPORTED = frozenset(_VALIDITY_KEYS)  # the predicates of other rules are not run


def readable_from(dialect: str, messages: Sequence[Any], start: int,
                  previous: Sequence[Any] = (),
                  normals: dict[int, dict[str, Any]] | None = None) -> bool | None:
    """Are ``messages[start:]`` in the wire normal form, as the Messages predicates read them
    (True on Chat Completions, whose predicates read messages as sent)? None when normalizing
    raised something else (the check then runs whole and reports it). ``previous``: the
    messages of a request all in normal form whose first ``start`` these repeat; one that
    differs from its counterpart only by a moved prompt-cache breakpoint is in normal form.
    ``normals``: where to keep the normal forms made (index -> compare form), so that the
    validity predicates and the tracker do not make them again."""
    if dialect != ANTHROPIC:
        return True
    limit = min(len(messages), len(previous))
    while start < limit and same_but_cache_control(messages[start], previous[start]):
        start += 1
    try:
        for i in range(start, len(messages)):
            normal = normal_message(ANTHROPIC, messages[i], "compare")
            if normals is not None:
                normals[i] = normal
    except NotARequest:
        return False
    except Exception:  # e.g. RecursionError in a tool input's JSON: validity raises it too
        return None
    return True


def _text_ids(normal: Mapping[str, Any]) -> bool:
    """Are the tool ids of a message in normal form all text? The predicates read them as
    text (``str``), and ``==`` holds ``1`` and ``true`` equal: only then is another message
    equal to this one (``==``, or but for cache marks) the same to them."""
    content = normal.get("content")
    return isinstance(content, list) and all(
        type(b) is not dict or (type(b.get("id", "")) is str
                                and type(b.get("tool_use_id", "")) is str) for b in content)


def carried_normals(normals: dict[int, dict[str, Any]], previous: Mapping[int, dict[str, Any]],
                    start: int, known: int) -> Mapping[int, dict[str, Any]]:
    """``normals`` and, for the messages from ``start`` to ``known`` not normalized here, the
    normal forms an earlier request all in normal form made (``previous``) of its messages
    these repeat (the first ``known``, ``==`` or but for cache marks, which the compare form
    drops): the window's repeated messages are not normalized again (see :func:`_text_ids`)."""
    extra = {i: previous[i] for i in range(start, known)
             if i not in normals and i in previous and _text_ids(previous[i])}
    return {**normals, **extra} if extra else normals


def _shifted(normals: Mapping[int, dict[str, Any]], start: int
             ) -> Mapping[int, dict[str, Any]]:
    """``normals`` indexed from ``start`` (the window's body holds ``messages[start:]``)."""
    return normals if start == 0 else {i - start: n for i, n in normals.items() if i >= start}


def check_provider_accepts(req: Request) -> Emit:
    """BO-D009 (no empty assistant or system turn), BO-D010 (no empty text block in assistant or
    system content), BO-D011 (a Chat assistant message has content or tool_calls): the wire
    model's provider-validity predicates, one home for the audit and the serializer
    invariants (reference_impl/wire/validity.py, with the provider documentation of each)."""
    if req.readable is False:
        return  # a message not in normal form: the predicates judge nothing (WA-D004's)
    start = req.start
    body = req.body if start == 0 else {"messages": list(req.messages[start:])}
    if req.dialect == ANTHROPIC:
        problems = validity.messages_problems(body, normal=_shifted(req.normals, start),
                                              rules=_REPORTED)
    else:
        problems = validity.chat_problems(body)
    for problem in problems:
        key = _VALIDITY_KEYS.get(problem.rule)
        if key is None:
            continue
        parts = problem.pointer.split("/")  # /messages/<index in the window>/...
        at = len(req.messages)
        if len(parts) > 2 and parts[2].isdigit():
            at = int(parts[2]) + start
            parts[2] = str(at)
        message = req.messages[at] if at < len(req.messages) else None
        if isinstance(message, dict) and message.get("role") == "system":
            continue  # an empty system update is IHU-D004's (check_anthropic_system_placement)
        yield key, "/request/body" + "/".join(parts), problem.message
