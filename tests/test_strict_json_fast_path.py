"""The strict reader's fast path at the edges of its own shortcuts, in each form of its check
(tests/test_strict_json_differential.py's ``fast_check``: native in 64-byte AVX2 or SSE2 blocks,
native bytewise, Python): the native reads across block and word edges (strings and runs of
blanks, escaped quotes, backslash runs, digit runs at every alignment) and the Python one's
re-encoded value compared with the text (a compact text), depth read from the decoded value level
by level, and long-integer search that samples the text first. Each case is held to the stdlib
path (same value, or the same refusal with the same reason, line and column), as str and as bytes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tck.reference_impl import strict_json
from agent_tck.reference_impl.strict_json import MAX_DEPTH, MAX_INT_DIGITS, StrictJSONError
from tests.test_strict_json_differential import assert_paths_agree, fast_check  # noqa: F401

_COMPACT = [
    '{"a":1}', '{"a":1}\n', '{"a":1}\r\n', '{"a":1}\n\n', '{"a":1,"a":1}', '{"a":1,"a":1}\n',
    '{"a":{"b":1,"b":1}}', '[{"a":1},{"a":1}]', '{"a":"\\u003a","a":1}', '{"a\\u003a":1,"a:":1}',
    '{"a":"é","b":"\\u00e9"}', '{"a":1.0,"b":1e16}',
]


@pytest.mark.parametrize("text", _COMPACT)
def test_compact_texts_and_their_duplicates(text: str) -> None:
    assert_paths_agree(text)


def _nest(depth: int, inner: str) -> str:
    return "[" * depth + inner + "]" * depth


@pytest.mark.parametrize("max_depth", [1, 2, 3, 8, MAX_DEPTH])
@pytest.mark.parametrize("inner", ["", "1", "[]", "{}", '{"a":1}', '{"a":[]}', "1," * 300 + "1",
                                   ' "' + "[" * 300 + '" '])
@pytest.mark.parametrize("shift", [-2, -1, 0, 1])
def test_depth_at_the_limit(max_depth: int, inner: str, shift: int) -> None:
    # padded past the length under which no depth check runs, and past the bracket-count cut-off
    for pad in ("", " " * (2 * max_depth + 2), " " * (strict_json._COUNT_BRACKETS_UP_TO + 1)):
        text = _nest(max(max_depth + shift, 0), inner) + pad
        assert_paths_agree(text, max_depth=max_depth)


@pytest.mark.parametrize("offset", [0, 1, 250, 499, 500, 501, 999])
@pytest.mark.parametrize("digits", [MAX_INT_DIGITS - 1, MAX_INT_DIGITS, MAX_INT_DIGITS + 1])
def test_long_integers_wherever_the_sample_falls(offset: int, digits: int) -> None:
    for number in ("7" * digits, "-" + "7" * digits, "1." + "7" * digits):
        text = "[" + " " * offset + number + "]"
        assert_paths_agree(text)
        assert_paths_agree('{"pad": "' + "x" * offset + '", "n": ' + number + "}")


@pytest.mark.parametrize("digits", [MAX_INT_DIGITS, MAX_INT_DIGITS + 1])
def test_long_integers_at_every_block_alignment(digits: int) -> None:
    # the block scan sends a text on to the stdlib path only after enough whole blocks of digits
    # in a row: a run one digit too long, starting at each byte of a block (and after a string
    # of digits, which ends a run), must still get there and be refused
    for offset in range(64 + 1):
        number = "9" * digits
        assert_paths_agree("[" + " " * offset + number + "]")
        assert_paths_agree('["' + "1" * offset + '",' + number + "]")
    if digits > MAX_INT_DIGITS:
        with pytest.raises(StrictJSONError, match=f"integer of {digits} digits"):
            strict_json.loads("[" + " " * 63 + "9" * digits + "]")


def test_an_integer_one_digit_too_long_is_refused_inside_a_long_text() -> None:
    text = '{"a": [' + "1, " * 2000 + "1" * (MAX_INT_DIGITS + 1) + "]}"
    with pytest.raises(StrictJSONError, match=f"integer of {MAX_INT_DIGITS + 1} digits"):
        strict_json.loads(text)


# Pretty-printed texts (vector files, request bodies): the value re-encoded is not the text, so
# duplicate keys are found by counting colons. Keys repeat often, and hold colons, escaped
# colons (\u003a), escaped quotes before a colon (the `":` of a key's end inside a key) and
# backslashes.
_TRICKY_KEYS = st.sampled_from([
    '"a"', '"a"', '"b"', '"a\\":"', '"\\":\\""', '"\\u003a"', '"\\u003A"', '":"', '"a:"',
    '"a\\u003a"', '"\\\\"', '"\\\\\\":"', '"\\ud83d\\ude00:"'])
_SCALAR_TEXTS = st.one_of(
    st.sampled_from(["1", "-0", "1.5", "1e400", "NaN", "null", "true", '":"', '"\\u003a"',
                     '"a\\":b"', '"\\\\"', '"x: y"']),
    st.text(max_size=6).map(json.dumps))

_TREES = st.recursive(_SCALAR_TEXTS, lambda kids: st.one_of(
    st.lists(kids, max_size=4).map(lambda items: ("[", items)),
    st.lists(st.tuples(_TRICKY_KEYS, kids), max_size=4).map(lambda pairs: ("{", pairs))),
    max_leaves=20)


def _render(tree: Any, indent: int, colon: str, level: int = 0) -> str:
    """``tree`` laid out as ``json.dumps(indent=indent)`` lays a value out (separators
    ``","`` and ``colon``)."""
    if isinstance(tree, str):
        return tree
    kind, items = tree
    close = "]" if kind == "[" else "}"
    if not items:
        return kind + close
    inner = "\n" + " " * (indent * (level + 1))
    parts = [_render(item, indent, colon, level + 1) if kind == "[" else
             f"{item[0]}{colon}{_render(item[1], indent, colon, level + 1)}" for item in items]
    return kind + inner + ("," + inner).join(parts) + "\n" + " " * (indent * level) + close


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_TREES, st.sampled_from([0, 1, 2, 4]), st.sampled_from([": ", ":", " : "]))
def test_pretty_printed_texts_with_repeated_keys(tree: Any, indent: int, colon: str) -> None:
    assert_paths_agree(_render(tree, indent, colon))


@pytest.mark.parametrize("text", [
    '{\n  "a": 1,\n  "a": 1\n}', '{\n  "a": {\n    "b": 1,\n    "b": 2\n  }\n}',
    '{\n  "a\\":": 1,\n  "a\\":": 2\n}', '{\n  "\\u003a": 1,\n  ":": 2\n}',
    '{\n  "\\u003a": ":",\n  "\\u003a": ":"\n}', '{\n  "a": "\\u003a",\n  "a": 1\n}',
    '[\n  {\n    "k": "x:y",\n    "k": "x:y"\n  }\n]', '{\n  "\\\\": 1,\n  "\\\\": 1\n}',
    '{\n  "a": 1,\n  "b": "\\u003A\\u003a"\n}', '{\n  "a": "\\u0030"\n}',
])
def test_pretty_printed_duplicates_by_name(text: str) -> None:
    assert_paths_agree(text)


# The native check reads 64-byte blocks (bytewise: eight-byte words through strings and blanks):
# quotes, escapes, backslash runs, colons and brackets inside strings at every offset, in strings
# shorter and longer than a block, and texts shorter than a word.
_STRING_BITS = st.sampled_from(["a", "\\\"", "\\\\", ":", "[", "{", "]", " ", "7", "\\u003a",
                                "\\n", "é", "a" * 9])


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.lists(_STRING_BITS, max_size=40).map("".join),
                          st.lists(_STRING_BITS, max_size=40).map("".join),
                          st.integers(0, 20)), max_size=4),
       st.booleans(), st.integers(0, 20))
def test_strings_and_blanks_across_words(pairs: list[tuple[str, str, int]], repeat: bool,
                                         lead: int) -> None:
    items = [f'"{key}":{" " * pad}"{value}"' for key, value, pad in pairs]
    if repeat and items:
        items.append(items[0])  # a duplicate key
    assert_paths_agree(" " * lead + "{" + ",".join(items) + "}")
    assert_paths_agree("[" + ",".join(f'"{v}"' for _, v, _ in pairs) + "," + " " * lead + "7]")


@pytest.mark.parametrize("escape", ['\\"', "\\\\", '\\\\\\"', "\\u003a", '\\":'])
def test_escapes_across_the_64_byte_blocks(escape: str) -> None:
    # each escape slid over the native check's block edges (64 and 128): a backslash read as
    # unescaped there ends the string early, and the colons, brackets and duplicate key after it
    # are read inside out
    for offset in range(50, 140):
        key = "k" * offset + escape
        assert_paths_agree(f'{{"{key}":"[:{{","{key}":1}}')
        assert_paths_agree(f'{{"{key}":"[:{{","b":{{"c":[1]}}}}')
        assert_paths_agree(f'["{key}",' + "[" * 6 + "]" * 6 + "]", max_depth=6)
