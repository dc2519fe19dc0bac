"""badges/<family>.json and badges/overall.json: shields.io endpoint badges.

Each file is the JSON shields.io's endpoint badge reads (https://shields.io/badges/endpoint-badge):
``{"schemaVersion": 1, "label": ..., "message": ..., "color": ...}``. The message is the
verdict; a truncated run gets "incomplete" in grey, never a green badge.
"""

from __future__ import annotations

import json
import re

from agent_tck.harness.reports._text import one_line
from agent_tck.harness.reports.stream import Run
from agent_tck.harness.run.results import (
    CONFORMANT,
    NO_VIOLATION,
    NOT_CONFORMANT,
    NOT_DECLARED,
    NOT_EXERCISED,
    PARTIAL,
    RECOMMENDED,
    VIOLATION,
)

COLORS = {RECOMMENDED: "brightgreen", CONFORMANT: "green", NOT_CONFORMANT: "red",
          PARTIAL: "lightgrey", NOT_DECLARED: "lightgrey", NO_VIOLATION: "blue", VIOLATION: "red",
          NOT_EXERCISED: "lightgrey"}
_SAFE_NAME = re.compile(r"^[a-z][a-z0-9-]{0,63}$")


def badge(run: Run, family: str | None = None) -> dict[str, object]:
    """The endpoint JSON for one family, or for the whole run (``family=None``)."""
    key = family or "overall"
    verdict = run.verdicts.get(key) if run.verdicts else None
    if verdict is None:
        message, color = "incomplete", "lightgrey"
    else:
        message, color = verdict.text, COLORS.get(verdict.verdict, "red")
        if verdict.verdict == NOT_CONFORMANT and verdict.failing:
            n = len(verdict.failing)
            message += f" ({n} MUST rule{'s' if n != 1 else ''})"
    label = "agent-tck" if family is None else f"agent-tck {family}"
    return {"schemaVersion": 1, "label": one_line(label, 80), "message": one_line(message, 80),
            "color": color}


def render(run: Run, family: str | None = None) -> str:
    """One badge file's text."""
    return json.dumps(badge(run, family), ensure_ascii=False) + "\n"


def render_all(run: Run) -> dict[str, str]:
    """File name (``<family>.json``, ``overall.json``) -> text, for every family with rules.

    A family name that is not a plain lower-case slug (possible in a hand-edited stream) gets
    no file: names become paths.
    """
    out = {f"{family}.json": render(run, family) for family in run.families
           if run.rules_of(family) and _SAFE_NAME.match(family) and family != "overall"}
    out["overall.json"] = render(run)
    return out
