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
from typing import Any

from agent_tck.harness.reports.redact import redact, redact_text


class Scrubber:
    """Redacts JSON-shaped values and text with one salt for the whole run."""

    def __init__(self, salt: bytes | None = None) -> None:
        self.salt = salt if salt is not None else os.urandom(16)

    def value(self, value: Any) -> Any:
        return redact(value, salt=self.salt)

    def text(self, text: str) -> str:
        """``text`` with secrets, URL user-info and credential query parameters masked (one
        home for the patterns: :func:`harness.reports.redact.redact_text`)."""
        return redact_text(text, salt=self.salt)

    def url(self, url: str) -> str:
        """A URL fit for a report: credentials in the query string or user-info removed."""
        return self.text(url)
