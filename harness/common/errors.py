"""The harness's own errors: a stable code, where, and what to fix."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(eq=True)  # not frozen: Python must be able to set __traceback__ on it
class HarnessError(Exception):
    """An error in *our* input (a vector, catalogue, capture, command line), not a verdict.

    ``code`` is stable (``VECTOR_INVALID``, ``CATALOGUE_INVALID``, ``IMPL_START_FAILED``...);
    ``where`` names the file and, when known, the JSON pointer or line; ``message`` says what is
    wrong and how to fix it.
    """

    code: str
    message: str
    where: str = ""

    def __str__(self) -> str:
        return f"{self.code}: {self.where}: {self.message}" if self.where else (
            f"{self.code}: {self.message}"
        )
