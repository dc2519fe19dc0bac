"""check-log verdicts stay byte-identical across speed work: every log the tests and vectors read,
and seeded mutations of each (tests/check_log_corpus.py), under the default vocabulary and
``--profile dsh-v4``, through ``reader.check(recover=True)`` and ``reader.read``, against the
digests recorded from the code before the change (tests/data/check_log_verdicts.json)."""

from __future__ import annotations

import hashlib
import json

import pytest

from tests import check_log_corpus as corpus


@pytest.fixture(scope="module")
def verdicts() -> list[tuple[str, str]]:
    """(name, verdict) of every log of the corpus, checked once for both tests."""
    return [(name, corpus.verdict(text)) for name, text in corpus.corpus()]


def test_every_verdict_matches_the_recorded_one(verdicts: list[tuple[str, str]]) -> None:
    found = [hashlib.sha256(v.encode()).hexdigest()[:corpus.DIGITS] for _, v in verdicts]
    expected = corpus.recorded()
    assert len(found) == len(expected), "the corpus changed: record it again from the old code"
    changed = [verdicts[i][0] for i, (a, b) in enumerate(zip(found, expected, strict=True))
               if a != b]
    assert not changed, f"{len(changed)} verdict(s) changed, first: {changed[:5]}"


def test_the_corpus_reaches_every_layer(verdicts: list[tuple[str, str]]) -> None:
    codes = {item[0]["code"] for _, v in verdicts for item in json.loads(v)
             if isinstance(item[0], dict) and "code" in item[0]}
    assert {"INVALID_FIELD", "DM_TOOL_CHANGE_NOT_DEVELOPER", "DM_ROLE_CONFINED", "RETIRED_SYNTAX",
            "STEP_MESSAGE_REPEATED", "DSH_TOOL", "DSH_MESSAGE", "DSH_LIFECYCLE",
            "DSH_SURFACE"} <= codes
