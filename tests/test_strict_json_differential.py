"""The strict reader's two paths agree: the native fast path accepts exactly what the stdlib path
accepts, with the same value, and leaves every refusal to it (same reason, line and column).

Texts are generated, not sampled from a fixed list: JSON with the edge cases woven in (NaN and
Infinity, duplicate keys, lone and paired surrogates, escaped colons and quotes, brackets inside
strings, nesting around the depth limit, integers around the digit limit, -0, 1e400, a BOM, JSON
and non-JSON whitespace), each read as str and as bytes.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tck.reference_impl import strict_json
from agent_tck.reference_impl.strict_json import MAX_DEPTH, MAX_INT_DIGITS, StrictJSONError

ROOT = Path(__file__).resolve().parent.parent
_NATIVE = importlib.util.find_spec("agent_tck.reference_impl._strict_scan")
# the deep texts make long reprs, which hypothesis warns about when it prints a failing example
pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")


@pytest.fixture(scope="module", autouse=True, params=["avx2", "sse2", "bytewise", "python"])
def fast_check(request: pytest.FixtureRequest) -> Any:
    """Every test here in each form of the fast path's check, each held to the stdlib path: the
    native one (reference_impl/_strict_scan.c) reading 64-byte blocks with AVX2 or SSE2, or a
    byte at a time (a machine without either), and the same check in Python (a build without a
    compiler)."""
    way = request.param
    if way == "python":
        vouch = strict_json._vouch_in_python
    elif _NATIVE is None:
        pytest.skip("the native check was not built (tests/test_namespace.py fails)")
    else:
        from agent_tck.reference_impl import _strict_scan
        try:
            _strict_scan.vouch_as(way, "[]", [], 1, MAX_INT_DIGITS)
        except ValueError:
            pytest.skip(f"this CPU cannot read {way}")
        vouch = functools.partial(_strict_scan.vouch_as, way)
    saved = strict_json._vouch
    strict_json._vouch = vouch
    yield way
    strict_json._vouch = saved


def _outcome(fn: Any, data: str | bytes, **kw: Any) -> tuple[str, Any]:
    try:
        return "value", _typed(fn(data, **kw))
    except StrictJSONError as exc:
        return "refused", (exc.reason, exc.line, exc.column)


def _typed(value: Any) -> Any:
    """The value with every scalar's type (and a zero's sign) made part of it: 1 == 1.0 and
    0.0 == -0.0 in Python, not here."""
    if isinstance(value, dict):
        return ("dict", [(k, _typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [_typed(v) for v in value])
    if isinstance(value, float):
        return ("float", repr(value), math.copysign(1.0, value))
    return (type(value).__name__, value)


def _slow(data: str | bytes, max_depth: int = MAX_DEPTH, lone_surrogates: bool = False) -> Any:
    return strict_json._slow(data, max_depth, lone_surrogates)


def assert_paths_agree(text: str, **kw: Any) -> None:
    forms: list[str | bytes] = [text]
    with contextlib.suppress(UnicodeEncodeError):  # a raw lone surrogate: only a str holds it
        forms.append(text.encode("utf-8"))
    for data in forms:
        assert _outcome(strict_json.loads, data, **kw) == _outcome(_slow, data, **kw), data


_WS = st.sampled_from(["", "", "", " ", "\n", "\t", "\r\n", "  \n  "])
_ODD_WS = st.sampled_from(["\u00a0", "\f", "\v", "\u2028", "\ufeff"])
_SPECIAL_STRINGS = st.sampled_from([
    '"\\u003a"', '"\\u003A:"', '"a:b"', '"\\"[["', '"]]}}"', '"\\\\"', '"\\\\\\""', '"{\\"a\\":1}"',
    '"\\ud800"', '"\\udc00"', '"\\ud83d\\ude00"', '"\\ud83d"', '"\\n"', '"\\u0000"', '"\\/"',
    '"\\x"', '"\t"', '"\\u12"', '"\ud800"', '"\U0001f600"', '"' + "7" * (MAX_INT_DIGITS + 1) + '"',
])
_NUMBERS = st.one_of(
    st.integers().map(str),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.integers(min_value=MAX_INT_DIGITS - 2, max_value=MAX_INT_DIGITS + 2).map(lambda n: "9" * n),
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "1e-400", "-0", "-0.0",
                     "0.1e1", "1E+2", "01", "1.", ".5", "-", "2e308", "1.7976931348623157e308"]),
)
_SCALARS = st.one_of(
    st.sampled_from(["null", "true", "false", "nul", "True"]),
    _NUMBERS,
    st.text(max_size=12).map(json.dumps),
    st.text(max_size=12).map(lambda s: json.dumps(s, ensure_ascii=False)),
    st.text(st.characters(categories=["Cs", "Ll", "Po"]), max_size=4).map(json.dumps),
    _SPECIAL_STRINGS,
)
_KEYS = st.one_of(st.sampled_from(['"a"', '"b"', '"type"', '"\\u0061"', '"a:"', '"\\ud800"']),
                  st.text(max_size=6).map(json.dumps))


def _containers(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    array = st.tuples(_WS, st.lists(st.tuples(children, _WS), max_size=5)).map(
        lambda t: "[" + t[0] + ",".join(c + w for c, w in t[1]) + "]")
    obj = st.lists(st.tuples(_KEYS, _WS, children), max_size=5).map(
        lambda pairs: "{" + ",".join(f"{k}{w}:{w}{v}" for k, w, v in pairs) + "}")
    return st.one_of(array, obj)


_VALUES = st.recursive(_SCALARS, _containers, max_leaves=25)


@st.composite
def texts(draw: st.DrawFn) -> str:
    text = draw(_WS) + draw(_VALUES) + draw(_WS)
    if draw(st.integers(0, 9)) == 0:  # nesting at the limit, one under and one over it
        depth = draw(st.sampled_from([MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1]))
        text = "[" * depth + text + "]" * depth
    if draw(st.integers(0, 14)) == 0:
        where = draw(st.integers(0, len(text)))
        text = text[:where] + draw(_ODD_WS) + text[where:]
    return text


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts())
def test_both_paths_agree_on_generated_json(text: str) -> None:
    assert_paths_agree(text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts(), st.sampled_from([1, 3, 8, MAX_DEPTH + 16]), st.booleans())
def test_both_paths_agree_under_every_option(text: str, max_depth: int,
                                             lone_surrogates: bool) -> None:
    assert_paths_agree(text, max_depth=max_depth, lone_surrogates=lone_surrogates)


def test_both_paths_agree_on_the_edge_cases_by_name() -> None:
    deep = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    for text in [
        "NaN", "[Infinity]", '{"a": -Infinity}', "1e400", "[-1e400]", "-0", "[-0.0]",
        '{"a": 1, "a": 1}', '{"a": {"b": 1, "b": 2}}', '[{"a:b": 1, "a:b": 2}]',
        '{"a\\u003ab": 1, "a:b": 2}', '{"a\\u003ab": 1, "a\\u003Ab": 2}', '{"\\u003a": ":"}',
        '"\\ud800"', '["\\udbff\\udfff"]', '{"k\\udc00": 1}', "[\"\ud800\"]", '"\\ud83d\\ude00"',
        "\ufeff[1]", "[1]\ufeff", " \t\r\n[1] \t\r\n", "[1]\n", "\u00a0[1]", "[1,]", "[01]",
        "1" * MAX_INT_DIGITS, "1" * (MAX_INT_DIGITS + 1), "[" + "1" * (MAX_INT_DIGITS + 1) + "]",
        '["' + "1" * (MAX_INT_DIGITS + 1) + '"]', "[" + "1," * 600 + "1]",
        deep, "[" + deep + "]", '["\\"[[[["' + ",[" * (MAX_DEPTH - 1) + "]" * MAX_DEPTH,
        '["\\\\"' + ",[" * MAX_DEPTH + "]" * (MAX_DEPTH + 1), '"' + "[" * 500 + '"',
        "[" * 100_000, "", " ", "[", '{"a": 1}x', '{"a" 1}', "[1 2]",
    ]:
        assert_paths_agree(text)
        assert_paths_agree(text, lone_surrogates=True)


def test_both_paths_agree_on_every_vector_file() -> None:
    for path in sorted((ROOT / "vectors").glob("**/*.json")):
        assert_paths_agree(path.read_text(encoding="utf-8"))
