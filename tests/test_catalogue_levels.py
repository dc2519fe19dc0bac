"""Levels agree with the notes' modal words, and untestable obligations say why.

A rule whose quote carries a modal word (MUST/SHOULD/MAY in either case, shall; 必须, 不得,
只能 ... for MUST; 应, 应该, 不应 for SHOULD; 可以 for MAY) has that level, or a recorded
``level_reason`` saying why it differs (a list introduced by "MUST 遵守", a "may" that grants a
freedom to someone else, ...). Quotes without a modal word are declarative statements of a
decision note and need no reason.
"""

from __future__ import annotations

import re

import pytest

from agent_tck.harness.common.data import spec_dir
from agent_tck.harness.contract.catalogue import load_catalogue

CATALOGUE = load_catalogue()
SPEC = spec_dir()

#: Modal words by level. 应 is matched only as a word of its own: not inside 响应 (response),
#: 对应 (correspond), 适应, 反应, 相应, 供应, 回应, 效应, 理应, nor 应用 (application).
MODALS: dict[str, tuple[str, ...]] = {
    "MUST": (r"\bMUST\b", r"\bmust\b", r"\bSHALL\b", r"\bshall\b", r"必须", r"不得", r"禁止",
             r"不能", r"只能"),
    "SHOULD": (r"\bSHOULD\b", r"\bshould\b", r"(?<![响对适反相供回效理])应(?!用)"),
    "MAY": (r"\bMAY\b", r"\bmay\b", r"可以"),
}


def modal_levels(text: str) -> set[str]:
    """The levels whose modal words occur in ``text``."""
    return {level for level, words in MODALS.items() if any(re.search(w, text) for w in words)}


@pytest.mark.parametrize(("text", "levels"), [
    ("The header reference is absent when the message contains no additions.", set()),
    ("UI MUST reconcile final content", {"MUST"}),
    ("Accepted messages may extend a running target's current turn", {"MAY"}),
    ("Running reasoning 应保持可见", {"SHOULD"}),
    ("同屏 timeline archive 不应再渲染", {"SHOULD"}),
    ("以流式响应返回, 对应的应用", set()),
    ("the mayor must go", {"MUST"}),
    ("不能用正在流式到达的碎片 token", {"MUST"}),
    ("completed history 的 turn timeline 可以折叠归档", {"MAY"}),
])
def test_modal_words_are_recognised(text, levels):
    assert modal_levels(text) == levels


def _mismatches(rules) -> list[str]:
    out = []
    for rule in rules:
        if rule.decision or not rule.quote:
            continue
        levels = modal_levels(rule.quote)
        if levels and rule.level not in levels and not rule.level_reason.strip():
            out.append(f"{rule.id}: {rule.level}, but the quote says {sorted(levels)}")
    return out


def test_every_level_matches_its_quote_or_says_why():
    assert _mismatches(CATALOGUE.rules) == []


def test_the_check_catches_a_level_that_contradicts_its_quote():
    from dataclasses import replace

    rule = CATALOGUE.by_id["SMA-016"]  # MUST quoting "may", with a recorded reason
    assert rule.level_reason
    assert _mismatches([rule]) == []
    assert _mismatches([replace(rule, level_reason="")]) == [
        "SMA-016: MUST, but the quote says ['MAY']"]


def test_level_reasons_belong_to_stated_rules():
    for rule in CATALOGUE.rules:
        if rule.level_reason:
            assert not rule.decision, f"{rule.id}: a decision's level is argued in its reason"
            assert len(rule.level_reason.split()) >= 8, rule.id


def _fold(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.mark.skipif(SPEC is None, reason="../shared/spec is not beside this checkout")
@pytest.mark.parametrize("entry", CATALOGUE.untestable, ids=lambda u: u.title)
def test_untestable_entries_quote_the_note_and_say_why(entry):
    assert SPEC is not None
    text = _fold((SPEC / entry.source).read_text(encoding="utf-8"))
    assert _fold(entry.quote) in text, f"{entry.title}: quote not found in {entry.source}"
    assert len(entry.reason.split()) >= 12, entry.title


def test_untestable_entries_are_few_and_distinct():
    titles = [u.title for u in CATALOGUE.untestable]
    assert len(titles) == len(set(titles))
    assert 0 < len(titles) <= 3 * len(CATALOGUE.families)
