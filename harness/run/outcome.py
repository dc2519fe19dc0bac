"""What an implementation answered for one operation call, as a value.

A call ends in exactly one of three ways:

* ``Output``  - the implementation returned a result;
* ``Rejected`` - the implementation refused the input with an error code (a rule verdict);
* ``Errored`` - the implementation crashed, hung, lied or spoke out of protocol. This is never a
  verdict about a rule: it carries the transcript so a person can see what went wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Output:
    value: Any


@dataclass(frozen=True)
class Rejected:
    code: str
    message: str = ""
    pointer: str | None = None


@dataclass(frozen=True)
class Errored:
    reason: str
    transcript: tuple[str, ...] = field(default_factory=tuple)


CallResult = Output | Rejected | Errored


@dataclass(frozen=True)
class Observed:
    """One operation run twice on one in-memory input (protocol 1.1 ``observe``): the first and
    second results and the input as it stood after both calls. BO-008 ("without changing Session
    records") holds when the input is unchanged and both results are equal."""

    first: Output | Rejected
    second: Output | Rejected
    input_after: Any
