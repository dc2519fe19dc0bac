"""Errors as values: every rejection carries a stable code that vectors pin."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(eq=True)  # not frozen: Python must be able to set __traceback__ on it
class TckError(Exception):
    """A rule-level rejection by an operation.

    ``code`` is stable and is what vectors compare (``UNSUPPORTED_CONTENT``, ...).
    ``pointer`` is a JSON pointer into the operation's input naming the offending element,
    when there is one. ``message`` is for people and is never compared.
    """

    code: str
    message: str
    pointer: str | None = None

    def __str__(self) -> str:
        where = f" at {self.pointer}" if self.pointer else ""
        return f"{self.code}{where}: {self.message}"

    def to_json(self) -> dict[str, str]:
        out = {"code": self.code, "message": self.message}
        if self.pointer is not None:
            out["pointer"] = self.pointer
        return out
