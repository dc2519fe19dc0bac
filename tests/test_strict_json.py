"""The strict JSON reader and the alias-free YAML loader refuse what untrusted input must not."""

from __future__ import annotations

import pytest

from agent_tck.harness.common.safe_yaml import YAMLInputError
from agent_tck.harness.common.safe_yaml import load as load_yaml
from agent_tck.reference_impl.strict_json import MAX_DEPTH, StrictJSONError, loads


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("NaN", "NaN is not JSON"),
        ('{"a": [Infinity]}', "Infinity is not JSON"),
        ("-Infinity", "-Infinity is not JSON"),
        ('{"type": "assistant/chunk", "type": "turn/start"}', "duplicate key 'type'"),
        ('"\\ud800"', "unpaired UTF-16 surrogate"),
        ('{"a": ["x", "\\udc00"]}', "string at /a/1"),
        ('{"k\\ud800": 1}', "unpaired"),
        ("1e400", "out of range"),
        ("1" * 5000, "integer of 5000 digits"),
        ("[" * 100_000, f"nested deeper than {MAX_DEPTH} levels"),
        ('{"a": [1, 2', "not JSON"),
        (b"\xff\xfe", "not UTF-8"),
    ],
)
def test_refused_with_a_reason(text: str | bytes, words: str) -> None:
    with pytest.raises(StrictJSONError) as caught:
        loads(text)
    assert words in str(caught.value)


def test_position_is_reported() -> None:
    with pytest.raises(StrictJSONError) as caught:
        loads('{"a": 1,\n  "b": }')
    assert (caught.value.line, caught.value.column) == (2, 8)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('["\\ud83d\\ude00"]', ["\U0001f600"]),
        ('{"a": "[[[[", "b": -0.0, "c": 1e300}', {"a": "[[[[", "b": -0.0, "c": 1e300}),
        ("[" * MAX_DEPTH + "]" * MAX_DEPTH, eval("[" * MAX_DEPTH + "]" * MAX_DEPTH)),
        ('"\\\\ud800"', "\\ud800"),  # an escaped backslash, not a surrogate
    ],
)
def test_plain_json_is_read_as_json_loads_reads_it(text: str, value: object) -> None:
    assert loads(text) == value


def test_yaml_aliases_are_refused() -> None:
    bomb = "a: &a [1, 2]\nb: &b [*a, *a]\nc: [*b, *b]\n"
    with pytest.raises(YAMLInputError, match=r"line 2: YAML aliases \(\*a\)"):
        load_yaml(bomb)


def test_yaml_depth_and_syntax_errors_name_the_line() -> None:
    with pytest.raises(YAMLInputError, match="nested deeper"):
        load_yaml("[" * 100_000)
    with pytest.raises(YAMLInputError, match="line 3: not YAML"):
        load_yaml("a: 1\nb: [x\n")
    assert load_yaml("a: 1\nb: [x, y]\n") == {"a": 1, "b": ["x", "y"]}


def test_lone_surrogates_only_where_the_caller_admits_them() -> None:
    # results.jsonl keeps an adapter's lone surrogate escaped; everything else stays refused
    assert loads('{"a": "\\ud800"}', lone_surrogates=True) == {"a": "\ud800"}
    with pytest.raises(StrictJSONError, match="duplicate key"):
        loads('{"a": "\\ud800", "a": 1}', lone_surrogates=True)
    with pytest.raises(StrictJSONError, match="unpaired"):
        loads(b'{"a": "\\ud800"}')
