"""The audit normalizes a message once (compare form) and derives the rest: the track form
(normal_form.track_from_compare) and the validity predicates' pre-normalized argument give
what normalizing again gives, on every message of the vectors and on generated ones."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tck.reference_impl.wire import validity
from agent_tck.reference_impl.wire.dialects import ANTHROPIC, OPENAI
from agent_tck.reference_impl.wire.normal_form import (
    NotARequest,
    normal_message,
    track_from_compare,
)

ROOT = Path(__file__).resolve().parent.parent


def _lists(value: Any) -> Iterator[list[Any]]:
    if isinstance(value, dict):
        if isinstance(value.get("messages"), list):
            yield value["messages"]
        for v in value.values():
            yield from _lists(v)
    elif isinstance(value, list):
        for v in value:
            yield from _lists(v)


def _vector_lists() -> list[list[Any]]:
    found: list[list[Any]] = []
    for path in sorted((ROOT / "vectors").rglob("*.json")):
        try:
            found.extend(_lists(json.loads(path.read_text(encoding="utf-8"))))
        except ValueError:
            continue
    return found


VECTOR_LISTS = _vector_lists()


def _same_track(dialect: str, message: Any) -> None:
    try:
        compare = normal_message(dialect, message, "compare")
    except NotARequest:
        with pytest.raises(NotARequest):
            normal_message(dialect, message, "track")
        return
    derived = track_from_compare(dialect, compare)
    track = normal_message(dialect, message, "track")
    assert derived == track
    assert list(derived) == list(track)  # key order too (fingerprints are of the JSON)


def _compare_forms(messages: list[Any]) -> dict[int, dict[str, Any]]:
    """The Messages compare forms of ``messages`` up to the first one not in normal form, as
    the audit's readability probe makes them."""
    normal: dict[int, dict[str, Any]] = {}
    for i, message in enumerate(messages):
        try:
            normal[i] = normal_message(ANTHROPIC, message, "compare")
        except NotARequest:
            break
    return normal


def test_track_form_derived_on_every_vector_message() -> None:
    assert VECTOR_LISTS
    for messages in VECTOR_LISTS:
        for message in messages:
            for dialect in (ANTHROPIC, OPENAI):
                _same_track(dialect, message)


def test_validity_with_pre_normalized_messages_on_every_vector_list() -> None:
    for messages in VECTOR_LISTS:
        body = {"messages": messages}
        normal = _compare_forms(messages)
        some = {i: n for i, n in normal.items() if i % 2}  # the rest normalized inside
        expected = validity.messages_problems(body)
        assert validity.messages_problems(body, normal=normal) == expected
        assert validity.messages_problems(body, normal=some) == expected


_text = st.one_of(st.just(""), st.just(" "), st.text(max_size=5))
_block = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": _text},
                          optional={"cache_control": st.just({"type": "ephemeral"}),
                                    "citations": st.none()}),
    st.fixed_dictionaries({"type": st.sampled_from(["thinking", "redacted_thinking"]),
                           "thinking": _text}, optional={"signature": _text}),
    st.fixed_dictionaries({"type": st.just("tool_use"), "id": st.sampled_from(["a", "b"]),
                           "name": st.just("f"), "input": st.sampled_from([{}, "{}", "x"])},
                          optional={"caller": st.just({"type": "direct"})}),
    st.fixed_dictionaries({"type": st.just("tool_result"), "tool_use_id": st.just("a"),
                           "content": st.one_of(_text, st.lists(st.fixed_dictionaries(
                               {"type": st.just("text"), "text": _text}), max_size=2))}),
    st.just("not a block"),
)
_call = st.fixed_dictionaries(
    {"id": st.sampled_from(["a", "b"]),
     "function": st.fixed_dictionaries({"name": st.just("f"),
                                        "arguments": st.sampled_from(["{}", "x"])})},
    optional={"index": st.integers(0, 2), "type": st.just("function")})
_message = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "system", "tool"])},
    optional={"content": st.one_of(st.none(), _text, st.lists(_block, max_size=3)),
              "tool_calls": st.lists(_call, max_size=2),
              "reasoning_content": _text, "name": st.just("n"),
              "refusal": st.none(), "cache_control": st.just({"type": "ephemeral"})})


@settings(max_examples=300, deadline=None)
@given(st.lists(_message, max_size=5))
def test_track_form_and_validity_on_generated_messages(messages: list[Any]) -> None:
    for message in messages:
        for dialect in (ANTHROPIC, OPENAI):
            _same_track(dialect, message)
    body = {"messages": messages}
    normal = _compare_forms(messages)
    assert validity.messages_problems(body, normal=normal) == validity.messages_problems(body)
