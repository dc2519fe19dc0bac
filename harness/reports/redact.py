"""Keep secrets out of every artifact: ``redact(value)`` returns a copy with credentials replaced.

What counts as a secret (what a captured exchange, an adapter transcript or a vector can carry);
docs/RELIABILITY.md ("Redaction guarantees") lists exactly these, and
tests/test_redaction_corpus.py has a case for each:

* key-shaped strings anywhere in text, not inside a word (``risk-free`` and ``task-list`` stay)
  but also right after a string escape (``\\n``, ``\\t``, ``\\u001b``: a reply's JSON text in a
  transcript): ``sk-ant-...`` and ``sk-...`` (at least 8 key characters after the prefix),
  ``Bearer <token>`` (at least 8 characters), AWS access key ids (``AKIA``, ``ASIA``, ``ABIA``,
  ``ACCA``, ``AROA``, ``AIDA`` and 16 more capitals or digits), GitHub tokens (``ghp_``,
  ``gho_``, ``ghu_``, ``ghs_``, ``ghr_`` and 30 or more letters or digits; fine-grained
  ``github_pat_`` and 22 or more), Slack tokens (``xoxb-``, ``xoxp-``, ``xoxa-``, ``xoxe-``,
  ``xoxo-``, ``xoxr-``, ``xoxs-`` and 10 or more) and Google API keys (``AIza...``);
* in URLs anywhere in text: the user-info (``https://user:pw@host`` ->
  ``https://[REDACTED]@host``); the value of ``key``, ``sig``, ``signature``, ``code`` and
  ``auth`` after ``?``, ``&``, ``;`` or ``#`` (a query, a form body, a URL fragment such as
  ``#access_token=`` of an OAuth implicit grant); and anywhere, not only in a URL, the value
  of ``password=``, ``passwd=``, ``pwd=``, ``secret=``, ``client_secret=``, ``token=``,
  ``access_token=``, ``refresh_token=``, ``id_token=``, ``auth_token=``, ``api_key=``,
  ``apikey=``, ``aws_secret_access_key=``, ``X-Amz-Credential=``, ``X-Amz-Signature=``,
  ``X-Amz-Security-Token=``, ``X-Goog-Credential=``, ``X-Goog-Signature=``;
* the value of a credential field, whatever it looks like, as a mapping key or in a
  ``[name, value]`` pair (mitmproxy's header lists), the name compared without case, ``-`` and
  ``_``: ``authorization``, ``proxy-authorization``, ``x-api-key``, ``api-key``, ``cookie``,
  ``set-cookie``, ``token``, ``id_token``, ``passwd``, ``pwd``, and any name ending in
  ``api_key`` (``OPENAI_API_KEY``, ``apiKey``), ``password``, ``secret``, ``access_token``,
  ``refresh_token``, ``session_token``, ``security_token``, ``auth_token``,
  ``secret_access_key`` or ``private_key``;
* the same inside text (transcript lines, header dumps, logs, JSON quoted in a string, with its
  quotes escaped or not): ``authorization``, ``proxy-authorization``, ``cookie``, ``set-cookie``
  and any name ending in ``api-key`` / ``api_key`` / ``apikey``, followed by ``:`` or ``=``: the
  value to its quote, else the rest of the line; a name ending in ``password``, ``passwd``,
  ``secret``, ``secret_access_key``, ``access_token``, ``refresh_token``, ``session_token``,
  ``security_token``, ``auth_token``, ``id_token`` or ``private_key``, followed by ``:``: the
  value to its quote or to the next separator; and ``authorization``, ``proxy-authorization``,
  ``x-api-key`` or ``api-key`` followed by a space (``sent x-api-key abc123def``, optionally
  with a scheme word: ``Basic``, ``Bearer``, ``Token``, ``Digest``) when the value looks like a
  credential: 8 or more token characters with a digit among them, so ``the x-api-key header
  is missing`` stays.

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
    "token", "idtoken", "passwd", "pwd",
})
# ... and field names ending so (``OPENAI_API_KEY``, ``db_password``, ``aws_secret_access_key``)
_SECRET_SUFFIXES = ("apikey", "password", "secret", "accesstoken", "refreshtoken",
                    "sessiontoken", "securitytoken", "authtoken", "secretaccesskey",
                    "privatekey")

_KEY_CHARS = r"[A-Za-z0-9_\-]"
# Where a key shape may start: not inside a word (``risk-free`` stays), but right after a JSON or
# Python string escape (``\n``, ``\t``, ``\u001b``), so a key on the second line of a message
# is found in a transcript that holds the reply's JSON text too.
_AFTER_ESCAPE = r"(?<=\\[nrtbf])|(?<=\\u[0-9A-Fa-f]{4})"
_START = rf"(?:(?<![A-Za-z0-9])|{_AFTER_ESCAPE})"
_NAME_START = rf"(?:(?<![A-Za-z0-9_-])|{_AFTER_ESCAPE})"
_ANTHROPIC_KEY = re.compile(rf"(?=sk-ant-){_START}sk-ant-{_KEY_CHARS}{{8,}}")
_OPENAI_KEY = re.compile(rf"(?=sk-){_START}sk-{_KEY_CHARS}{{8,}}")
_BEARER = re.compile(rf"(?=[Bb]){_START}([Bb][Ee][Aa][Rr][Ee][Rr])\s+[A-Za-z0-9\-._~+/]{{8,}}=*")
# "Authorization: Basic abc", "x-api-key=abc", '"cookie": "a=b"', "'api-key': 'abc'",
# and the same with the quotes escaped (JSON inside a JSON string).
_HEADER_IN_TEXT = re.compile(
    rf"""(?ix)
    {_NAME_START}
    (?P<name>proxy-authorization|authorization|(?:[a-z0-9]+[-_])*api[-_]?key|set-cookie|cookie)
    (?P<sep>\\?["']?\s*[:=]\s*)
    (?:
        (?P<q>\\?["'])(?P<quoted>(?:(?!(?P=q)).)*)(?P=q)   # a quoted value, to its quote
      | (?P<rest>[^\r\n]*)                                 # else the rest of the line
    )
    """
)
# "sent x-api-key abc123def" (a header dumped without its colon, in a transport error): the
# word after the name, when it looks like a credential (8 or more token characters, a digit
# among them), so "the x-api-key header is missing" stays as it was
_HEADER_SPACED = re.compile(
    rf"""(?ix)
    (?=[apx]){_NAME_START}
    (?P<name>proxy-authorization|authorization|x-api-key|api-key)
    (?P<sep>[ \t]+(?:(?:basic|bearer|token|digest)[ \t]+)?)
    (?P<value>(?=[a-z._~+/=-]*[0-9])[a-z0-9._~+/=-]{{8,}})
    """
)
# '"password": "x"', "client_secret: x" (JSON quoted in a string, YAML, logs): the value only,
# to its quote or to the next separator, so the rest of the line stays readable
_FIELD_IN_TEXT = re.compile(
    rf"""(?ix)
    (?=[a-z0-9]){_NAME_START}
    (?P<name>(?:[a-z0-9]+[-_])*(?:password|passwd|secret|secret[-_]?access[-_]?key
            |access[-_]?token|refresh[-_]?token|session[-_]?token|security[-_]?token
            |auth[-_]?token|id[-_]?token|private[-_]?key))
    (?P<sep>\\?["']?\s*:\s*)
    (?:
        (?P<q>\\?["'])(?P<quoted>(?:(?!(?P=q)).)*)(?P=q)
      | (?P<bare>[^\s,;}}&"'<>]+)
    )
    """
)
_AWS_PREFIXES = ("AKIA", "ASIA", "ABIA", "ACCA", "AROA", "AIDA")
# a word every _QUERY_PARAM name holds (lower case), to skip the pattern on ordinary text
_QUERY_WORDS = ("key", "token", "auth", "sig", "code", "passw", "pwd", "secret", "amz", "goog")
_AWS_KEY_ID = re.compile(rf"(?=A){_START}(?:AKIA|ASIA|ABIA|ACCA|AROA|AIDA)[A-Z0-9]{{16}}"
                         r"(?![A-Za-z0-9])")
# classic (ghp_, gho_, ghu_, ghs_, ghr_) and fine-grained (github_pat_) GitHub tokens
_GITHUB_TOKEN = re.compile(rf"(?=g){_START}(?:gh[pousr]_[A-Za-z0-9]{{30,}}"
                           r"|github_pat_[A-Za-z0-9_]{22,})")
# Slack tokens: bot (xoxb-), user (xoxp-), app-level (xoxa-), refresh (xoxr-, xoxe-)...
_SLACK_TOKEN = re.compile(rf"(?=xox){_START}xox[abeoprs]-[A-Za-z0-9-]{{10,}}")
_GOOGLE_KEY = re.compile(rf"(?=AIza){_START}AIza[0-9A-Za-z_\-]{{30,}}")
# https://user:password@host -> the user-info
_USERINFO = re.compile(r"(?i)(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*://)([^/?#@\s\"'<>]+)@")
# a credential in a query string, a URL fragment (``#access_token=`` of an OAuth implicit
# grant) or a form body: the name, then the value to its end; the names of the second group
# anywhere in text (``token=abc`` in a transport error), not only after ``?``, ``&`` or ``#``
_QUERY_PARAM = re.compile(
    rf"""(?ix)
    (?P<name>
        (?<=[?&;\#])(?:key|sig|signature|code|auth)
      | (?=[aciprstx]){_NAME_START}(?:password|passwd|pwd|secret|client[-_]?secret
                          |token|access[-_]?token|refresh[-_]?token|id[-_]?token
                          |auth[-_]?token|api[-_]?key|apikey
                          |x-amz-credential|x-amz-signature|x-amz-security-token
                          |x-goog-credential|x-goog-signature|aws[-_]?secret[-_]?access[-_]?key)
    )
    =(?P<value>[^&\#\s"'<>]+)
    """
)
_ALREADY = re.compile(r"^\[REDACTED(?::[0-9a-f]{12})?\]$")


def _field_is_secret(name: str) -> bool:
    folded = name.lower().replace("-", "").replace("_", "")
    return folded in _SECRET_FIELDS or folded.endswith(_SECRET_SUFFIXES)


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
        if not rest.strip() or rest.lstrip().startswith(PLACEHOLDER[:-1]):
            return m.group(0)  # nothing, or redacted already: the rest of the line stays
        return f"{m.group('name')}{m.group('sep')}{_mask(rest.strip(), salt)}"

    # each pattern runs only when a word it needs is present: most text has none of them
    low = text.lower()
    if "key" in low or "authorization" in low or "cookie" in low:
        text = _HEADER_IN_TEXT.sub(header, text)
        text = _HEADER_SPACED.sub(
            lambda m: f"{m.group('name')}{m.group('sep')}{_mask(m.group('value'), salt)}", text)

    def field(m: re.Match[str]) -> str:
        if m.group("q") is not None:
            q = m.group("q")
            return f"{m.group('name')}{m.group('sep')}{q}{_mask(m.group('quoted'), salt)}{q}"
        return f"{m.group('name')}{m.group('sep')}{_mask(m.group('bare'), salt)}"

    if ":" in text and any(w in low for w in ("passw", "secret", "token", "private")):
        text = _FIELD_IN_TEXT.sub(field, text)
    if "://" in text and "@" in text:
        text = _USERINFO.sub(lambda m: f"{m.group(1)}{_mask(m.group(2), salt)}@", text)
    if "=" in text and any(w in low for w in _QUERY_WORDS):
        text = _QUERY_PARAM.sub(lambda m: f"{m.group('name')}={_mask(m.group('value'), salt)}",
                                text)
    if "sk-" in text:
        text = _ANTHROPIC_KEY.sub(lambda m: "sk-ant-" + _mask(m.group(0), salt), text)
        text = _OPENAI_KEY.sub(lambda m: "sk-" + _mask(m.group(0), salt), text)
    if any(prefix in text for prefix in _AWS_PREFIXES):
        text = _AWS_KEY_ID.sub(lambda m: _mask(m.group(0), salt), text)
    if "_" in text and ("gh" in text or "github_pat" in text):
        text = _GITHUB_TOKEN.sub(lambda m: _mask(m.group(0), salt), text)
    if "xox" in text:
        text = _SLACK_TOKEN.sub(lambda m: _mask(m.group(0), salt), text)
    if "AIza" in text:
        text = _GOOGLE_KEY.sub(lambda m: _mask(m.group(0), salt), text)
    if "bearer" in low:
        text = _BEARER.sub(lambda m: f"{m.group(1)} {_mask(m.group(0), salt)}", text)
    return text


# what might_hold_secret looks for: the words and characters redact_text's patterns start from
# (each pattern above runs only when one of these is in its text), and the credential field names
# as they read with case, "-" and "_" folded away (_field_is_secret)
_TEXT_WORDS = ("key", "authorization", "cookie", "passw", "secret", "token", "private", "bearer")
_TEXT_MARKS = ("sk-", "xox", "AIza", *_AWS_PREFIXES)
_GITHUB_START = re.compile(r"gh[pousr]_|github_pat_")
# the only non-ASCII characters whose str.lower() holds ASCII (KELVIN SIGN -> "k", which the
# patterns' IGNORECASE matches as "k" too; U+0130 -> "i" and a combining dot), as
# json.dumps(ensure_ascii=True) writes them: the word they make is not in the text
_ASCII_LOWERING_ESCAPES = ("\\u212a", "\\u0130")
_FOLDED_FIELDS = ("authorization", "apikey", "cookie", "token", "passwd", "pwd", "password",
                  "secret", "privatekey")


def might_hold_secret(text: str) -> bool:
    """False only when :func:`redact` changes nothing in a value whose JSON text is ``text``
    (``json.dumps``, any separators; it escapes quotes, backslashes and control characters,
    none of which a trigger holds, and with ``ensure_ascii`` every non-ASCII character, of
    which only ``\\u212a`` and ``\\u0130`` lower to ASCII: their escapes say True): no string
    of it holds a word one of :func:`redact_text`'s patterns needs, and no key or header name
    folds to a credential field's. A writer serializes first and redacts only when this says
    True: most records of a run hold nothing to redact, and walking each one cost a fifth of a
    run."""
    low = text.lower()
    if any(w in low for w in _TEXT_WORDS) or any(m in text for m in _TEXT_MARKS):
        return True
    if "\\u" in text and any(e in low for e in _ASCII_LOWERING_ESCAPES):
        return True  # a trigger word may be written with one (json.dumps, ensure_ascii=True)
    if ("://" in text and "@" in text) or ("=" in text and any(w in low for w in _QUERY_WORDS)):
        return True
    if _GITHUB_START.search(text):
        return True
    folded = low.replace("-", "").replace("_", "")
    return any(name in folded for name in _FOLDED_FIELDS)


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
