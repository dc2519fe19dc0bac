"""Comparing an implementation's output with a vector's expectation.

Modes (documented for implementers in vectors/README.md):

* ``json`` - equal as JSON values: key order never matters; ``true`` is not ``1``; ``1`` equals
  ``1.0`` (JSON does not tell them apart).
* ``anthropic-messages`` / ``openai-chat`` - both sides are first normalized to the form the
  provider would see (the wire model's normal form, ``reference_impl.wire.normal_form``; its
  equivalences are listed once, with reasons, in ``reference_impl.wire.equivalences``), then
  compared as ``json``. For ``openai-chat`` an alignment step then writes the actual body's
  message contents in the expected form where the two differ only in how text is cut into parts
  (``normal_form.align_openai_chat``).
* ``canonical-history`` - a ``session.resume`` result (``{"history", "tools"}``) normalized by
  :func:`normalize_canonical_history`, then compared as ``json``.
* ``subagent-trace`` (default for ``subagents.simulate``) - a trace compared against the partial
  order the send_message rules define (:func:`normalize_subagent_trace`), never against the
  incidental order in which one action's events were reported.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Normalizer = Callable[[Any], Any]
Json = Any


def _normalizers() -> dict[str, Normalizer]:
    from agent_tck.reference_impl.wire import normal_form

    return {
        "json": lambda value: value,
        "anthropic-messages": normal_form.normalize_anthropic_messages,
        "openai-chat": normal_form.normalize_openai_chat,
        "canonical-history": normalize_canonical_history,
        "subagent-trace": normalize_subagent_trace,
    }


def _aligners() -> dict[str, Callable[[Any, Any], Any]]:
    """Two-sided equivalences a one-sided normalizer cannot express: (expected, actual) ->
    actual rewritten where it is the same as expected in another form."""
    from agent_tck.reference_impl.wire import normal_form

    return {"openai-chat": normal_form.align_openai_chat}


def mode_for(operation: str, explicit: str | None) -> str:
    """The vector's mode, else the family descriptors' default for the operation, else json."""
    from agent_tck.harness.families import default_modes

    return explicit or default_modes().get(operation, "json")


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def first_difference(expected: Any, actual: Any, at: str = "") -> str | None:
    """The JSON pointer and a short reason of the first difference, or None when equal."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        if type(expected) is not type(actual) or expected != actual:
            return f"{at or '/'}: expected {_short(expected)}, got {_short(actual)}"
        return None
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return None if expected == actual else (
            f"{at or '/'}: expected {_short(expected)}, got {_short(actual)}"
        )
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual)):
            where = f"{at}/{_escape(str(key))}"
            if key not in actual:
                return f"{where}: missing (expected {_short(expected[key])})"
            if key not in expected:
                return f"{where}: unexpected member {_short(actual[key])}"
            if diff := first_difference(expected[key], actual[key], where):
                return diff
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            # an extra or missing item: say so first, then where the lists part ways
            index = next((i for i, (e, a) in enumerate(zip(expected, actual, strict=False))
                          if first_difference(e, a) is not None), min(len(expected), len(actual)))
            got = _short(actual[index]) if index < len(actual) else "nothing"
            want = _short(expected[index]) if index < len(expected) else "nothing"
            return (f"{at or '/'}: expected {len(expected)} items, got {len(actual)}; first "
                    f"difference at {at}/{index}: expected {want}, got {got}")
        for index, (e, a) in enumerate(zip(expected, actual, strict=False)):
            if diff := first_difference(e, a, f"{at}/{index}"):
                return diff
        return None
    if type(expected) is not type(actual) or expected != actual:
        return f"{at or '/'}: expected {_short(expected)}, got {_short(actual)}"
    return None


def _short(value: Any, limit: int = 80) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def compare(expected: Any, actual: Any, mode: str) -> str | None:
    """None when ``actual`` satisfies ``expected`` under ``mode``, else the first difference."""
    normalize = _normalizers()[mode]
    try:
        actual_n = normalize(actual)
    except Exception as exc:  # an unnormalizable actual output is a failed comparison
        return f"/: output is not a well-formed {mode} body ({type(exc).__name__}: {exc})"
    expected_n = normalize(expected)
    align = _aligners().get(mode)
    if align is not None:
        actual_n = align(expected_n, actual_n)
    return first_difference(expected_n, actual_n)


def accept_any(expectation: Any, result: Any, evaluate: Callable[[Any, Any], Any]) -> Any:
    """Hold ``result`` against an expectation that lists accepted alternatives.

    Where the notes admit several readings (a suite decision the source runtime or a second
    reading does otherwise, vectors/README.md "Accepted alternatives"), the vector lists each
    accepted outcome; the result passes when it satisfies any of them. A failure says why it
    matched none, alternative by alternative. ``evaluate`` holds one outcome against one plain
    expectation (``harness.runner.evaluate``) and returns its verdict value.
    """
    import dataclasses

    verdicts = [evaluate(alternative, result) for alternative in expectation.alternatives]
    for verdict in verdicts:
        if verdict.status != "fail":  # pass, or errored (the same for every alternative)
            return verdict
    reasons = "; ".join(f"({i + 1}) {v.message}" for i, v in enumerate(verdicts))
    return dataclasses.replace(verdicts[0], message=f"matches none of the accepted "
                                                    f"outcomes: {reasons}")


# --- send_message traces: only the order the rules define --------------------------------------
#
# The partial order (vectors/send-message-adjacency/README.md, "Comparison"): actions are
# sequential, so every event of action i precedes every event of action i + 1. Inside one
# action only two things are ordered by a rule:
#   * SMA-018 "cold-resumed, then receives the same Steer delivery": a cold-resume precedes the
#     acceptance it causes;
#   * SMA-019 (FIFO), SMA-036, SMA-D005, SMA-D006: an agent's inputs keep the order its model
#     sees them in.
# Everything else inside an action (turn-end and settled, request-head and turn-start, events of
# different agents) is incidental. A request-head belongs to no moment a rule names ("the head
# of the first request after a spawn or a cold resume"): it is compared by content, per agent.

_RANK = {"cold-resume": 0, "accepted": 1, "rejected": 1, "turn-start": 2, "input": 3,
         "turn-end": 4, "settled": 5}


def _who(event: dict[str, Any]) -> str:
    return str(event.get("agent", event.get("to", "")))


def normalize_subagent_trace(value: Any) -> Any:
    """A trace ``{"trace": [...]}`` rewritten to its canonical form under the rules' order."""
    if not isinstance(value, dict) or not isinstance(value.get("trace"), list):
        return value  # not a trace: compared as it is, so the difference is reported
    events = value["trace"]
    if not all(isinstance(e, dict) for e in events):
        return value
    heads: dict[str, list[Any]] = {}
    actions: dict[Any, list[dict[str, Any]]] = {}
    for event in events:
        if event.get("event") == "request-head":
            heads.setdefault(_who(event), []).append(
                {k: v for k, v in event.items() if k != "action"})
        else:
            actions.setdefault(event.get("action"), []).append(event)
    timeline = []
    for action in sorted(actions, key=lambda a: (not isinstance(a, int), str(a) if not
                                                 isinstance(a, int) else a)):
        group = list(actions[action])
        kinds = [e.get("event") for e in group]
        if "cold-resume" in kinds and "accepted" in kinds:  # SMA-018
            first_accept = kinds.index("accepted")
            group = [{**e, "beforeAcceptance": i < first_accept}
                     if e.get("event") == "cold-resume" else e for i, e in enumerate(group)]
        # a stable sort: an agent's inputs keep their relative order (SMA-019, SMA-036)
        group.sort(key=lambda e: (_who(e), _RANK.get(str(e.get("event")), 9),
                                  str(e.get("event"))))
        timeline.append({"action": action, "events": group})
    return {"timeline": timeline, "heads": heads}


# --- canonical history (mode ``canonical-history``; chunk-free-persistence) --------------------
#
# ``session.resume`` returns ``{"history": [message, ...], "tools": [tool, ...] | null}`` in the
# canonical history of vectors/schema/history.schema.json. Equal after normalization:
#
# * a message's metadata ``id``, ``source`` and ``createdAt`` present or absent (the schema's
#   ``metadata``: "accepted on every message and never read");
# * a tool message's ``isError`` absent and ``false`` (only ``true`` marks an error result);
# * ``tools`` absent, ``null`` and ``[]`` (no tools to offer).
#
# Never normalized: a message's presence, order or role, content blocks (types, text, order,
# tool-call ids and raw arguments), ``toolCallId``, ``isError: true``, and each tool.

_HISTORY_METADATA = frozenset({"id", "source", "createdAt"})


def _canonical_history_message(message: Json) -> Json:
    if not isinstance(message, dict):
        return message
    out = {key: value for key, value in message.items() if key not in _HISTORY_METADATA}
    if out.get("role") == "tool" and out.get("isError") is False:
        del out["isError"]
    return out


def normalize_canonical_history(body: Json) -> Json:
    """``body`` (a ``{"history", "tools"}`` object) in the form where the equivalences above
    compare equal. Anything not recognizably a history is returned unchanged, for the JSON
    comparison to report. Pure: returns a new value."""
    if not isinstance(body, dict):
        return body
    out = dict(body)
    history = out.get("history")
    if isinstance(history, list):
        out["history"] = [_canonical_history_message(m) for m in history]
    if out.get("tools") == []:
        out["tools"] = None
    out.setdefault("tools", None)
    return out
