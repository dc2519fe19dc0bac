"""Secrets never reach an audit artifact: captures carry credentials, and reports get shared.

Everything the audit writes (report files, ``audit.json``, ``--format json`` on stdout, log
lines) goes through :class:`Scrubber`, which applies :func:`harness.reports.redact.redact`
with a per-run random salt: credential headers (authorization, x-api-key, api-key, cookie...)
and key-shaped strings (``sk-...``, ``sk-ant-...``, ``Bearer ...``) become
``[REDACTED:<12 hex>]``, a salted SHA-256, so one key is recognisable across one run's
artifacts without being recoverable, and not linkable across runs.

The audit never writes mitmproxy's raw ``-w`` flow output or a ``hardump`` HAR: captured
bodies are read, audited and dropped; artifacts hold findings, pointers and URLs only.
"""

from __future__ import annotations

import os
import re
from typing import Any

from harness.reports.redact import redact, redact_text

# a query string parameter that carries a credential (?key=..., ?api_key=..., ?token=...)
_QUERY_SECRET = re.compile(r"(?i)([?&](?:key|api[-_]?key|token|access[-_]?token|auth)=)[^&#\s]+")


class Scrubber:
    """Redacts JSON-shaped values and text with one salt for the whole run."""

    def __init__(self, salt: bytes | None = None) -> None:
        self.salt = salt if salt is not None else os.urandom(16)

    def value(self, value: Any) -> Any:
        return redact(value, salt=self.salt)

    def text(self, text: str) -> str:
        return redact_text(_QUERY_SECRET.sub(lambda m: m.group(1) + "[REDACTED]", text),
                           salt=self.salt)

    def url(self, url: str) -> str:
        """A URL fit for a report: credentials in the query string or userinfo removed."""
        text = re.sub(r"(?i)^([a-z][a-z0-9+.-]*://)[^/@\s]*@", r"\1[REDACTED]@", url)
        return self.text(text)
