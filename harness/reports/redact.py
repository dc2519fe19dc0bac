"""Keep secrets out of every artifact: ``redact(value)`` returns a copy with credentials replaced.

What counts as a secret (what a captured exchange, an adapter transcript or a vector can carry):

* key-shaped strings anywhere in text: ``sk-ant-...`` and ``sk-...`` (at least 8 key characters
  after the prefix, not preceded by a letter or digit, so ``risk-free`` and ``task-list`` stay),
  and ``Bearer <token>`` (a token of at least 8 characters);
* the value of a credential header or field, whatever it looks like: ``authorization``,
  ``proxy-authorization``, ``x-api-key``, ``api-key`` (and any field name ending in ``api-key``,
  ``api_key`` or ``apiKey``, such as ``OPENAI_API_KEY``), ``cookie`` and ``set-cookie``.
  Matched as mapping keys, as ``[name, value]`` pairs (mitmproxy's header lists) and as
  ``name: value`` / ``"name": "value"`` inside text (transcript lines, header dumps, JSON
  quoted in a string).

The replacement keeps the kind (``sk-ant-[REDACTED]``, ``Bearer [REDACTED]``) so a reader still
sees what was there. With ``salt`` (bytes), each secret becomes ``[REDACTED:<12 hex>]``, a salted
SHA-256, so the same key is recognisable across one artifact without being recoverable.

``redact`` is pure: it never mutates its input, returns plain JSON-shaped values (dicts, lists,
strings...), and is idempotent (redacting twice changes nothing more).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

PLACEHOLDER = "[REDACTED]"

# field names (lower-cased, "-" and "_" removed) whose whole value is a credential
_SECRET_FIELDS = frozenset({
    "authorization", "proxyauthorization", "xapikey", "apikey", "cookie", "setcookie",
})

_KEY_CHARS = r"[A-Za-z0-9_\-]"
_ANTHROPIC_KEY = re.compile(rf"(?<![A-Za-z0-9])sk-ant-{_KEY_CHARS}{{8,}}")
_OPENAI_KEY = re.compile(rf"(?<![A-Za-z0-9])sk-{_KEY_CHARS}{{8,}}")
_BEARER = re.compile(r"(?<![A-Za-z0-9])([Bb][Ee][Aa][Rr][Ee][Rr])\s+[A-Za-z0-9\-._~+/]{8,}=*")
# "Authorization: Basic abc", "x-api-key=abc", '"cookie": "a=b"', "'api-key': 'abc'",
# and the same with the quotes escaped (JSON inside a JSON string).
_HEADER_IN_TEXT = re.compile(
    r"""(?ix)
    (?<![A-Za-z0-9_-])
    (?P<name>proxy-authorization|authorization|(?:[a-z0-9]+[-_])*api[-_]?key|set-cookie|cookie)
    (?P<sep>\\?["']?\s*[:=]\s*)
    (?:
        (?P<q>\\?["'])(?P<quoted>(?:(?!(?P=q)).)*)(?P=q)   # a quoted value, to its quote
      | (?P<rest>[^\r\n]*)                                 # else the rest of the line
    )
    """
)
_ALREADY = re.compile(r"^\[REDACTED(?::[0-9a-f]{12})?\]$")


def _field_is_secret(name: str) -> bool:
    folded = name.lower().replace("-", "").replace("_", "")
    return folded in _SECRET_FIELDS or folded.endswith("apikey")


def _mask(secret: str, salt: bytes | None) -> str:
    if _ALREADY.match(secret):
        return secret
    if salt is None:
        return PLACEHOLDER
    digest = hashlib.sha256(salt + secret.encode("utf-8", "surrogatepass")).hexdigest()
    return f"[REDACTED:{digest[:12]}]"


def redact_text(text: str, *, salt: bytes | None = None) -> str:
    """``text`` with key-shaped strings and credential header values replaced."""
    if not text:
        return text

    def header(m: re.Match[str]) -> str:
        if m.group("q") is not None:
            q = m.group("q")
            return f"{m.group('name')}{m.group('sep')}{q}{_mask(m.group('quoted'), salt)}{q}"
        rest = m.group("rest")
        if not rest.strip():
            return m.group(0)
        return f"{m.group('name')}{m.group('sep')}{_mask(rest.strip(), salt)}"

    text = _HEADER_IN_TEXT.sub(header, text)
    text = _ANTHROPIC_KEY.sub(lambda m: "sk-ant-" + _mask(m.group(0), salt), text)
    text = _OPENAI_KEY.sub(lambda m: "sk-" + _mask(m.group(0), salt), text)
    return _BEARER.sub(lambda m: f"{m.group(1)} {_mask(m.group(0), salt)}", text)


def _secret_value(value: Any, salt: bytes | None) -> Any:
    if isinstance(value, str):
        return _mask(value, salt)
    if value is None or isinstance(value, bool):
        return value
    return _mask(repr(value), salt)


def redact(value: Any, *, salt: bytes | None = None) -> Any:
    """A copy of ``value`` (any JSON-shaped data) with every secret replaced."""
    if isinstance(value, str):
        return redact_text(value, salt=salt)
    if isinstance(value, Mapping):
        out: dict[Any, Any] = {}
        for key, item in value.items():
            new_key = redact_text(key, salt=salt) if isinstance(key, str) else key
            if isinstance(key, str) and _field_is_secret(key):
                out[new_key] = _secret_value(item, salt)
            else:
                out[new_key] = redact(item, salt=salt)
        return out
    if isinstance(value, list | tuple):
        if len(value) == 2 and isinstance(value[0], str) and _field_is_secret(value[0]):
            return [value[0], _secret_value(value[1], salt)]  # a [name, value] header pair
        return [redact(item, salt=salt) for item in value]
    return value
