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
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Normalizer = Callable[[Any], Any]
Json = Any

#: The comparison an operation uses when its vector does not say.
DEFAULT_MODES: dict[str, str] = {
    "anthropic.serialize": "anthropic-messages",
    "openai.serialize": "openai-chat",
    "session.resume": "canonical-history",
}


def _normalizers() -> dict[str, Normalizer]:
    from reference_impl.wire import normal_form

    return {
        "json": lambda value: value,
        "anthropic-messages": normal_form.normalize_anthropic_messages,
        "openai-chat": normal_form.normalize_openai_chat,
        "canonical-history": normalize_canonical_history,
    }


def _aligners() -> dict[str, Callable[[Any, Any], Any]]:
    """Two-sided equivalences a one-sided normalizer cannot express: (expected, actual) ->
    actual rewritten where it is the same as expected in another form."""
    from reference_impl.wire import normal_form

    return {"openai-chat": normal_form.align_openai_chat}


def mode_for(operation: str, explicit: str | None) -> str:
    return explicit or DEFAULT_MODES.get(operation, "json")


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
