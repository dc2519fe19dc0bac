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
* ``canonical-transcript`` (default for ``session.load`` / ``session.record-load``) and
  ``parts-view`` (default for ``message-parts.answer`` / ``titles`` / ``branches``) - the same
  mechanism for the session views and the message-parts views: both sides are rewritten to
  their canonical form under the order the rules define (:func:`_canonical_order`), so an
  order no rule governs never decides a verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_tck.harness.run.order import Unseen, fold_orders, parse_order
from agent_tck.reference_impl.json_pointer import ABSENT, at_pointer, escape, pointer_tokens

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
        "canonical-transcript": normalize_canonical_transcript,
        "parts-view": normalize_parts_view,
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
            where = f"{at}/{escape(key)}"
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


def _normalized(expected: Any, actual: Any, mode: str) -> tuple[Any, Any] | str:
    """Both sides in ``mode``'s normal form (actual aligned to expected), or why the actual
    output has none."""
    normalize = _normalizers()[mode]
    try:
        actual_n = normalize(actual)
    except Exception as exc:  # an unnormalizable actual output is a failed comparison
        return f"/: output is not a well-formed {mode} body ({type(exc).__name__}: {exc})"
    expected_n = normalize(expected)
    align = _aligners().get(mode)
    if align is not None:
        actual_n = align(expected_n, actual_n)
    return expected_n, actual_n


def compare(expected: Any, actual: Any, mode: str) -> str | None:
    """None when ``actual`` satisfies ``expected`` under ``mode``, else the first difference."""
    both = _normalized(expected, actual, mode)
    return both if isinstance(both, str) else first_difference(*both)


def _without(value: Any, pointer: str) -> Any:
    """A copy of ``value`` with the member at ``pointer`` replaced by a marker (present or
    not), so the rest compares without it and list positions stay put."""
    tokens = pointer_tokens(pointer)
    if not tokens:
        return "<named part>"
    head, rest = tokens[0], "/" + "/".join(tokens[1:]) if len(tokens) > 1 else ""
    if isinstance(value, dict):
        copy = dict(value)
        if head in copy:
            copy[head] = _without(copy[head], rest) if rest else "<named part>"
        elif not rest:
            copy[head] = "<named part>"
        return copy
    if isinstance(value, list) and head.isascii() and head.isdigit() and int(head) < len(value):
        copy_list = list(value)
        index = int(head)
        copy_list[index] = _without(copy_list[index], rest) if rest else "<named part>"
        return copy_list
    return value


def normal_expected(expected: Any, mode: str) -> Any:
    """An expected output in ``mode``'s normal form (what named parts and orders address)."""
    return _normalizers()[mode](expected)


def compare_parts(expected: Any, actual: Any, mode: str, parts: tuple[str, ...],
                  orders: tuple[str, ...] = ()) -> dict[str, str | None]:
    """Each named part (a JSON pointer into the normal form of ``mode``) compared on its own,
    and the rest of the output (``""``) without them: pointer -> first difference or None.
    A part charged to another rule than the whole output fails only that rule. Each order
    check (``order:...`` names, :mod:`harness.run.order`) is held on its own, keyed by its
    name, and the arrays it orders compare with their order folded."""
    both = _normalized(expected, actual, mode)
    if isinstance(both, str):  # an output the mode cannot read has no order to see
        return {**dict.fromkeys(("", *parts), both), **dict.fromkeys(orders, Unseen(both))}
    expected_n, actual_n = both
    out: dict[str, str | None] = {}
    if orders:
        actual_n, held = fold_orders(expected_n, actual_n,
                                     tuple(parse_order(o) for o in orders))
        out.update(held)
    rest_e, rest_a = expected_n, actual_n
    for pointer in parts:
        want, got = at_pointer(expected_n, pointer), at_pointer(actual_n, pointer)
        if want is ABSENT or got is ABSENT:
            out[pointer] = None if want is got else (
                f"{pointer}: {'missing' if got is ABSENT else 'unexpected member'}")
        else:
            out[pointer] = first_difference(want, got, pointer)
        rest_e, rest_a = _without(rest_e, pointer), _without(rest_a, pointer)
    out[""] = first_difference(rest_e, rest_a)
    return out


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


def _canonical_order(items: list[Any], group: Callable[[Any], Any],
                     key: Callable[[Any], Any]) -> list[Any]:
    """``items`` in their canonical form under a partial order: consecutive items of one group
    (``group`` returns the same value other than None) are unordered among themselves, so they are
    sorted by ``key`` (stable); the groups and every item outside one keep their place. The one
    mechanism every trace-like comparison uses to fold an order no rule governs."""
    out: list[Any] = []
    run: list[Any] = []
    run_group: Any = None
    for item in [*items, None]:
        g = group(item) if item is not None else None
        if run and (g is None or g != run_group):
            out.extend(sorted(run, key=key))
            run = []
        if g is None:
            if item is not None:
                out.append(item)
        else:
            run.append(item)
            run_group = g
    return out


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
        group = _canonical_order(group, lambda e: "one action", lambda e: (
            _who(e), _RANK.get(str(e.get("event")), 9), str(e.get("event"))))
        timeline.append({"action": action, "events": group})
    return {"timeline": timeline, "heads": heads}


# --- trace constraints: the checks ``trace:<name>`` of a trace expectation ---------------------
#
# The partial order above makes a trace a set of constraints, each compared on its own and
# charged to its own rule (vectors/README.md, "Checks"): ``action-<i>``, the events observed
# during action i of the scenario (in the canonical order of that action; an action expected to
# show nothing is a constraint too: "not seen during the send"), and ``heads-<agent>``, the
# request heads of an agent the vector expects heads of. A vector may carve one event kind out
# of an action, ``action-<i>/<kind>`` (``action-0/rejected``: the reason code apart from what
# else the send did), by attributing it; ``action-<i>`` then holds the rest of that action.
# Splitting by kind loses nothing: inside an action the canonical order is by agent, then kind,
# and one kind's events keep their order. Whatever no constraint holds (an event of no scenario
# action, a head of an agent with none expected) is the rest, the ``output`` check.

#: The comparison mode whose outputs are traces with constraints.
TRACE_MODE = "subagent-trace"
TRACE_ACTION = "action-"
TRACE_HEADS = "heads-"
#: The event kinds a constraint ``action-<i>/<kind>`` may carve out of an action.
TRACE_KINDS = ("accepted", "rejected", "cold-resume", "turn-start", "input", "turn-end",
               "settled")


def _is_trace(value: Any) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("trace"), list)
            and all(isinstance(e, dict) for e in value["trace"]))


def _action_index(action: Any) -> int | None:
    """An event's ``action`` as a scenario index (``2`` and ``2.0`` alike), else None."""
    if isinstance(action, bool) or not isinstance(action, int | float):
        return None
    return int(action) if action == int(action) and action >= 0 else None


def trace_constraints(expected: Any, scenario: Any) -> tuple[str, ...]:
    """The names of the constraints of an expected trace for ``scenario``: one per action of
    the scenario (and per action the expected trace names), one per agent with expected heads.
    Empty when ``expected`` is not a trace."""
    if not _is_trace(expected):
        return ()
    actions = scenario.get("actions") if isinstance(scenario, dict) else None
    indices = set(range(len(actions))) if isinstance(actions, list) else set()
    agents: dict[str, None] = {}
    for event in expected["trace"]:
        if event.get("event") == "request-head":
            agents[_who(event)] = None
        elif (index := _action_index(event.get("action"))) is not None:
            indices.add(index)
    return (*(f"{TRACE_ACTION}{i}" for i in sorted(indices)),
            *(f"{TRACE_HEADS}{agent}" for agent in agents))


def carved_constraint(name: str, constraints: tuple[str, ...]) -> bool:
    """Whether ``name`` is ``action-<i>/<kind>`` carved out of one of ``constraints``."""
    action, slash, kind = name.partition("/")
    return bool(slash) and action in constraints and action.startswith(TRACE_ACTION) and (
        kind in TRACE_KINDS)


def _trace_split(value: Any, names: tuple[str, ...]) -> tuple[dict[str, Any], Any]:
    """A trace's canonical form cut into its constraints (name -> events or heads) and the
    rest (what no constraint holds). Carved kinds first, so their action keeps the rest."""
    canonical = normalize_subagent_trace(value)
    by_action = {_action_index(t["action"]): t["events"] for t in canonical["timeline"]}
    heads = dict(canonical["heads"])
    held: dict[str, Any] = {}
    for name in sorted(names, key=lambda n: not n.startswith(TRACE_ACTION) or "/" not in n):
        if name.startswith(TRACE_HEADS):  # an agent id may hold any character, "/" too
            held[name] = heads.pop(name[len(TRACE_HEADS):], [])
            continue
        action, _, kind = name.partition("/")
        index = int(action[len(TRACE_ACTION):])
        if kind:
            events = by_action.get(index, [])
            held[name] = [e for e in events if e.get("event") == kind]
            by_action[index] = [e for e in events if e.get("event") != kind]
        else:
            held[name] = by_action.pop(index, [])
    rest = {"events of no scenario action": [t for t in canonical["timeline"]
                                             if _action_index(t["action"]) in by_action],
            "heads of other agents": heads}
    return held, rest


def compare_trace(expected: Any, actual: Any,
                  names: tuple[str, ...]) -> dict[str, str | None]:
    """Each trace constraint compared on its own, and the rest (``""``): name -> first
    difference or None. An actual output that is not a trace fails every one."""
    if not _is_trace(actual):
        reason = "/: output is not a trace ({\"trace\": [event, ...]}, every event an object)"
        return dict.fromkeys(("", *names), reason)
    want, want_rest = _trace_split(expected, names)
    try:
        got, got_rest = _trace_split(actual, names)
    except (TypeError, ValueError, KeyError, AttributeError) as exc:  # an unhashable action, ...
        reason = (f"/: output is not a well-formed subagent-trace body "
                  f"({type(exc).__name__}: {exc})")
        return dict.fromkeys(("", *names), reason)
    out: dict[str, str | None] = {}
    for name in names:
        diff = first_difference(want[name], got[name])
        out[name] = f"{name.replace('-', ' ', 1)}: {diff}" if diff else None
    out[""] = first_difference(want_rest, got_rest)
    return out


# --- canonical history (mode ``canonical-history``; chunk-free-persistence) --------------------
#
# ``session.resume`` returns ``{"history": [message, ...], "tools": [tool, ...] | null}`` in the
# canonical history of vectors/schema/history.schema.json. Equal after normalization:
#
# * a message's metadata ``id``, ``source`` and ``createdAt`` present or absent (the schema's
#   ``metadata``: "accepted on every message and never read");
# * a tool message's ``isError`` absent and ``false`` (only ``true`` marks an error result);
# * ``tools`` absent, ``null`` and ``[]`` (no tools to offer);
# * the order among consecutive tool messages (one message's results: no rule orders them, see
#   the session views below).
#
# Never normalized: a message's presence, its order otherwise, its role, content blocks (types,
# text, order, tool-call ids and raw arguments), ``toolCallId``, ``isError: true``, each tool.

_HISTORY_METADATA = frozenset({"id", "source", "createdAt"})


def _canonical_history_message(message: Json) -> Json:
    if not isinstance(message, dict):
        return message
    out = {key: value for key, value in message.items() if key not in _HISTORY_METADATA}
    if out.get("role") == "tool" and out.get("isError") is False:
        del out["isError"]
    return out


def _tool_run(message: Json) -> Any:
    """The results of one assistant message's calls are one group: no rule orders them."""
    return "tool" if isinstance(message, dict) and message.get("role") == "tool" else None


def _by_call(message: Json) -> str:
    return str(message.get("toolCallId"))


def normalize_canonical_history(body: Json) -> Json:
    """``body`` (a ``{"history", "tools"}`` object) in the form where the equivalences above
    compare equal. Anything not recognizably a history is returned unchanged, for the JSON
    comparison to report. Pure: returns a new value."""
    if not isinstance(body, dict):
        return body
    out = dict(body)
    history = out.get("history")
    if isinstance(history, list):
        out["history"] = _canonical_order([_canonical_history_message(m) for m in history],
                                          _tool_run, _by_call)
    if out.get("tools") == []:
        out["tools"] = None
    out.setdefault("tools", None)
    return out


# --- session views: the loaded transcript (mode ``canonical-transcript``) ----------------------
#
# The order the rules define (vectors/chunk-free-persistence/README.md, "Order"): entries follow
# the conversation (CFP-021/022 show the same completed messages; CFP-024/025 a valid provider
# history): a user message before the reply it gets, an assistant message before the results of
# its tool calls, those results before the next assistant message. The results of one assistant
# message's parallel calls are not ordered by any rule (each names its call; both provider wires
# accept them in any order): consecutive tool entries compare in any order. Same for the resume
# history above.


def normalize_canonical_transcript(body: Json) -> Json:
    """A ``{"transcript": [...]}`` with each run of consecutive tool entries in canonical order;
    a live view ``{"live": [...]}`` (``session.record-live``) with its entries in canonical
    order: CFP-008 asks only that the transient events show the assembled text, so no rule
    orders the entries (one per turn, step and block) and they compare in any order."""
    if isinstance(body, dict) and isinstance(body.get("live"), list):
        return {**body, "live": _canonical_order(body["live"], lambda entry: "live", _live_key)}
    if not isinstance(body, dict) or not isinstance(body.get("transcript"), list):
        return body
    return {**body, "transcript": _canonical_order(body["transcript"], _tool_run, _by_call)}


def _live_key(entry: Any) -> str:
    where = ({k: entry.get(k) for k in ("turn", "step", "index")} if isinstance(entry, dict)
             else entry)
    return f"{_short_key(where)} {_short_key(entry)}"


# --- message-parts views (mode ``parts-view``) --------------------------------------------------
#
# The order the rules define (vectors/message-parts/README.md, "Order"): a turn's parts, its
# answer segments and its projected items follow part.start (MP-030, MP-031/032, MP-033, MP-105,
# MP-D006); those views stay compared as ``json``. No rule orders: the answer's links and
# citations (MP-D011 keeps each once, in no order), the titles list (each entry names its turn
# and part; MP-039/040/D009 govern only the title), and the branches view's ownership lists
# (MP-094/095/097 say which turn owns what, not in which order). Those compare in any order;
# a duplicate or a missing entry still differs.


def _sorted_json(items: list[Any]) -> list[Any]:
    return _canonical_order(items, lambda item: "any", _short_key)


def _short_key(item: Any) -> str:
    import json

    return json.dumps(item, sort_keys=True, ensure_ascii=False)


def normalize_parts_view(body: Json) -> Json:
    """An ``answer``, ``titles`` or ``branches`` view with its unordered lists in canonical
    order. Anything else is returned unchanged."""
    if not isinstance(body, dict):
        return body
    out = dict(body)
    if isinstance(out.get("titles"), list):
        out["titles"] = _sorted_json(out["titles"])
    if isinstance(out.get("artifacts"), list):
        out["artifacts"] = _sorted_json(out["artifacts"])
    if isinstance(out.get("turns"), list):
        out["turns"] = [
            {**turn, **{key: _sorted_json(turn[key]) for key in
                        ("links", "citations", "process", "evidence")
                        if isinstance(turn.get(key), list)}}
            if isinstance(turn, dict) else turn
            for turn in out["turns"]]
    return out
