"""redact(): no secret reaches an artifact, and nothing that is not a secret is touched."""

from __future__ import annotations

import copy
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tck.harness.reports.redact import PLACEHOLDER, redact, redact_text

ANTHROPIC = "sk-ant-api03-Zx9_aB-cdEFghIJklMNopQRstUVwxYZ0123456789"
OPENAI = "sk-proj-AbCdEf0123456789_ghIJkl-mnOPqr"
BEARER_TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"key={ANTHROPIC}", "key=sk-ant-[REDACTED]"),
        (f"use {OPENAI} now", "use sk-[REDACTED] now"),
        (f"Bearer {BEARER_TOKEN}", "Bearer [REDACTED]"),
        (f"bearer {BEARER_TOKEN}", "bearer [REDACTED]"),
        ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: [REDACTED]"),
        ("x-api-key: 0123-plain", "x-api-key: [REDACTED]"),
        ("Cookie: session=abc; theme=dark", "Cookie: [REDACTED]"),
        ("set-cookie: id=1", "set-cookie: [REDACTED]"),
        ('{"api-key": "abc", "model": "m"}', '{"api-key": "[REDACTED]", "model": "m"}'),
        ("{'X-Api-Key': 'abc', 'n': 1}", "{'X-Api-Key': '[REDACTED]', 'n': 1}"),
        ('{\\"authorization\\": \\"tok\\", \\"a\\": 1}',
         '{\\"authorization\\": \\"[REDACTED]\\", \\"a\\": 1}'),
        ("ANTHROPIC_API_KEY=abc123", "ANTHROPIC_API_KEY=[REDACTED]"),
    ],
)
def test_secrets_in_text_are_replaced_keeping_their_kind(text, expected):
    assert redact_text(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "a risk-free task-management plan",  # "sk-" inside words
        "sk-short",  # too short to be a key
        "the bearer of news",
        "reasoning blocks are omitted from user input",
        "Authorization is discussed here without a colon",
        "",
    ],
)
def test_ordinary_text_is_left_alone(text):
    assert redact_text(text) == text


def test_credential_fields_are_replaced_whatever_their_value():
    value = {
        "headers": {"Authorization": "Basic abc", "X-API-Key": "k", "api_key": 42,
                    "OpenAI-Api-Key": "plain", "cookie": ["a=1"], "content-type": "json"},
        "list": [["authorization", "Bearer xyz"], ["accept", "*/*"]],
    }
    assert redact(value) == {
        "headers": {"Authorization": PLACEHOLDER, "X-API-Key": PLACEHOLDER, "api_key": PLACEHOLDER,
                    "OpenAI-Api-Key": PLACEHOLDER, "cookie": PLACEHOLDER,
                    "content-type": "json"},
        "list": [["authorization", PLACEHOLDER], ["accept", "*/*"]],
    }


def test_nested_values_keys_and_tuples():
    value = {f"k-{OPENAI}": ({"t": ANTHROPIC},), "n": None, "b": True, "f": 1.5}
    assert redact(value) == {"k-sk-[REDACTED]": [{"t": "sk-ant-[REDACTED]"}], "n": None,
                             "b": True, "f": 1.5}


def test_redact_never_mutates_its_input():
    value = {"authorization": "x", "deep": [{"text": ANTHROPIC}]}
    before = copy.deepcopy(value)
    redact(value)
    assert value == before


def test_salt_gives_a_stable_irreversible_token_per_secret():
    out = redact_text(f"{ANTHROPIC} {ANTHROPIC} {OPENAI}", salt=b"run-1")
    tokens = re.findall(r"\[REDACTED:([0-9a-f]{12})\]", out)
    assert len(tokens) == 3 and tokens[0] == tokens[1] != tokens[2]
    assert "Zx9_aB" not in out
    other = redact_text(ANTHROPIC, salt=b"run-2")
    assert other != redact_text(ANTHROPIC, salt=b"run-1")
    assert redact_text(out, salt=b"run-1") == out


secret = st.sampled_from([ANTHROPIC, OPENAI, f"Bearer {BEARER_TOKEN}",
                          "sk-" + "Q" * 40, "sk-ant-" + "w9" * 20])
filler = st.text(alphabet=st.characters(codec="utf-8"), max_size=12)
planted_text = st.builds(lambda a, s, b: f"{a} {s} {b}", filler, secret, filler)
json_with_secret = st.recursive(
    planted_text | filler | st.integers() | st.none(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(filler, inner, max_size=3),
    max_leaves=8,
)


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


@settings(max_examples=150, deadline=None)
@given(json_with_secret)
def test_no_planted_secret_survives_and_redaction_is_idempotent(value):
    out = redact(value)
    for text in _strings(out):
        assert "Q" * 40 not in text and "w9" * 20 not in text
        assert "Zx9_aB" not in text and "AbCdEf0123" not in text and BEARER_TOKEN not in text
    assert redact(out) == out


# --- might_hold_secret: the writers' gate (serialize first, walk only when it says True) ----------

_TRIGGERS = ["sk-ant-api03-abcdefghijk", "sk-proj-abcdefghijk", "Bearer abcdefgh12",
             "AKIAZZZZ1234567890AB", "ghp_0123456789abcdefghijklmnopqrstuvwxyz",
             "github_pat_11ABCDEFGHIJ0123456789_abcdefghij", "xoxb-1234567890-abcdefghij",
             "AIzaSyA1234567890abcdefghijklmnopqrstu", "https://u:p@h/", "https://h/?sig=abc",
             "a&code=1", "token=abc", "password: x", "x-api-key abc123def", "Cookie: a=b"]
_NAMES = ["authorization", "Proxy-Authorization", "x-api-key", "API_KEY", "apiKey", "cookie",
          "set-cookie", "token", "id_token", "passwd", "pwd", "p-w_d", "db_pass_word",
          "webhook_secret", "access_token", "session-token", "private_key", "name", "model"]
_piece = st.sampled_from(_TRIGGERS) | st.text(alphabet=st.characters(codec="utf-8"), max_size=8)
_gate_text = st.lists(_piece, max_size=3).map(" ".join)
_gate_json = st.recursive(
    _gate_text | st.integers() | st.none() | st.booleans(),
    lambda inner: (st.lists(inner, max_size=3)
                   | st.dictionaries(st.sampled_from(_NAMES) | _gate_text, inner, max_size=3)
                   | st.tuples(st.sampled_from(_NAMES), inner).map(list)),
    max_leaves=8,
)


@settings(max_examples=400, deadline=None)
@given(_gate_json)
def test_the_gate_says_false_only_where_redaction_changes_nothing(value):
    import json

    from agent_tck.harness.reports.redact import might_hold_secret

    for text in (json.dumps(value, ensure_ascii=False, separators=(",", ":")),
                 json.dumps(value)):
        assert might_hold_secret(text) or redact(value) == value, text


def test_the_gate_lets_an_ordinary_record_through_and_stops_each_shape():
    import json

    from agent_tck.harness.reports.redact import might_hold_secret

    ordinary = {"type": "case", "id": "bo-001", "status": "passed", "rules": ["BO-001"],
                "output": {"messages": [{"role": "user", "content": "hello, world"}]}}
    assert not might_hold_secret(json.dumps(ordinary))
    for trigger in _TRIGGERS:
        assert might_hold_secret(json.dumps({**ordinary, "note": trigger})), trigger
    for name in _NAMES[:-2]:
        assert might_hold_secret(json.dumps({name: "v"})), name
        assert might_hold_secret(json.dumps([[name, "v"]])), name


# --- the gate and json.dumps(ensure_ascii=True): a character lower() folds to ASCII --------------
# KELVIN SIGN (U+212A) lowers to an ASCII "k" (str.lower, so _field_is_secret and redact_text's
# prefilters) and the patterns' IGNORECASE matches it as "k"; json.dumps(ensure_ascii=True) writes
# it as "\u212a", so the text held no "key", "token" or "cookie" and the gate said False.

_KELVIN = "\u212a"


@pytest.mark.parametrize("value", [
    {f"to{_KELVIN}en": "hunter2"},                      # a credential field, as a mapping key
    [f"API_{_KELVIN}EY", "abc123"],                     # ... as a [name, value] pair
    {"headers": [[f"Coo{_KELVIN}ie", "session=abc"]]},
    f"to{_KELVIN}en=abc123",                            # _QUERY_PARAM
    f"access_to{_KELVIN}en: abc123",                    # _FIELD_IN_TEXT
    f"x-api-{_KELVIN}ey: abc123",                       # _HEADER_IN_TEXT
    {"note": f"coo{_KELVIN}ie: a=b"},
])
def test_the_gate_sees_a_trigger_word_written_with_an_ascii_escape(value):
    import json

    from agent_tck.harness.reports.redact import might_hold_secret

    assert redact(value) != value
    for ensure_ascii in (True, False):
        for separators in (None, (",", ":")):
            text = json.dumps(value, ensure_ascii=ensure_ascii, separators=separators)
            assert might_hold_secret(text), text


def test_only_kelvin_and_dotted_capital_i_lower_to_ascii():
    """The gate's escape check covers every non-ASCII character whose lower() holds ASCII
    (a new Unicode version adding one would show here)."""
    found = {c for c in map(chr, range(128, 0x110000)) if any(ord(x) < 128 for x in c.lower())}
    assert found == {"\u0130", _KELVIN}


# each name with its "k"s (or "i"s, "s"s) written as a character lower() or IGNORECASE folds so
_CASE_ODD = st.sampled_from([("k", "\u212a"), ("K", "\u212a"), ("i", "\u0130"), ("i", "\u0131"),
                             ("s", "\u017f"), ("e", "E"), ("a", "\u212b")])
_odd_name = st.builds(lambda name, odd: name.replace(*odd),
                      st.sampled_from([*_NAMES, "cookie: a", "token=ab12", "api-key: x",
                                       "access_token: x", "passwd: x", "key=abc"]),
                      _CASE_ODD)
_odd_json = st.recursive(
    _odd_name | _gate_text | st.integers() | st.none(),
    lambda inner: (st.lists(inner, max_size=3)
                   | st.dictionaries(_odd_name | _gate_text, inner, max_size=3)
                   | st.tuples(_odd_name, inner).map(list)),
    max_leaves=6,
)


@settings(max_examples=400, deadline=None)
@given(_odd_json)
def test_the_gate_holds_with_case_odd_characters_and_ascii_escapes(value):
    import json

    from agent_tck.harness.reports.redact import might_hold_secret

    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False),
                 json.dumps(value, separators=(",", ":"))):
        assert might_hold_secret(text) or redact(value) == value, text
