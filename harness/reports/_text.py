"""Text hygiene shared by the renderers: every untrusted string passes through here.

``visible`` redacts secrets and turns characters that would corrupt or disguise a report into
visible escapes: C0/C1 control characters (but tab and newline), lone surrogates (which cannot be
encoded as UTF-8 at all) and the bidirectional overrides used to make text read differently from
what it is. Markup escaping (XML, Markdown) is each renderer's own job, done after this; the
HTML one, :func:`h`, is here because two renderers share it (report.html and the audit timeline
section it embeds, harness/audit/timeline.py).
"""

from __future__ import annotations

import json
import re
from html import escape
from typing import Any

from agent_tck.harness.reports.redact import redact, redact_text

_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff"
    "\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff\ufffe\uffff]"
)


def _escape_char(m: re.Match[str]) -> str:
    code = ord(m.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _json_escape_char(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group(0)):04x}"


def visible(text: str) -> str:
    """Redacted, with invisible or unencodable characters shown as ``\\xNN`` / ``\\uNNNN``."""
    return _INVISIBLE.sub(_escape_char, redact_text(text))


def one_line(text: str, limit: int = 300) -> str:
    """``visible`` text on one line (whitespace runs folded), cut to ``limit`` characters."""
    folded = " ".join(visible(text).split())
    return folded if len(folded) <= limit else folded[: limit - 1] + "…"


def json_visible(text: str) -> str:
    """JSON text with invisible or unencodable characters as ``\\uNNNN`` (still valid JSON)."""
    return _INVISIBLE.sub(_json_escape_char, text)


def pretty_json(value: Any, limit: int = 65536) -> str:
    """A redacted, indented JSON rendering of ``value``, cut to ``limit`` characters."""
    text = json.dumps(redact(value), indent=2, ensure_ascii=False, sort_keys=False,
                      default=repr)
    text = json_visible(text)
    if len(text) > limit:
        text = text[:limit] + f"\n… ({len(text) - limit} more characters in results.jsonl)"
    return text


def label(value: Any) -> str:
    """``visible`` for anything: ``None`` becomes the empty string."""
    return "" if value is None else visible(str(value))


def h(value: object) -> str:
    """Untrusted text, redacted, made visible and HTML-escaped (quotes too)."""
    return escape(label(value), quote=True)
