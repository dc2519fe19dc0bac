"""The strict reader's fast path at the edges of its own shortcuts: the re-encoded value compared
with the text (a compact text), the depth read from the decoded value level by level, and the
long-integer search that samples the text first. Each case is held to the stdlib path (same value,
or the same refusal with the same reason, line and column), as str and as bytes.
"""

from __future__ import annotations

import pytest

from agent_tck.reference_impl import strict_json
from agent_tck.reference_impl.strict_json import MAX_DEPTH, MAX_INT_DIGITS, StrictJSONError
from tests.test_strict_json_differential import assert_paths_agree

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


def test_an_integer_one_digit_too_long_is_refused_inside_a_long_text() -> None:
    text = '{"a": [' + "1, " * 2000 + "1" * (MAX_INT_DIGITS + 1) + "]}"
    with pytest.raises(StrictJSONError, match=f"integer of {MAX_INT_DIGITS + 1} digits"):
        strict_json.loads(text)
