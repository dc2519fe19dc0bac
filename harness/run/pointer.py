"""JSON pointers into a JSON value (RFC 6901): the one home of reading the member a pointer
names, for the named output parts (:mod:`harness.run.compare`) and the order checks
(:mod:`harness.run.order`). Pure functions."""

from __future__ import annotations

from typing import Any

#: What :func:`at_pointer` returns where a pointer names nothing.
ABSENT = object()


def pointer_tokens(pointer: str) -> list[str]:
    """A JSON pointer's reference tokens, unescaped (``~1`` is ``/``, ``~0`` is ``~``)."""
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]


def at_pointer(value: Any, pointer: str) -> Any:
    """The member a JSON pointer names, or ``ABSENT``."""
    for token in pointer_tokens(pointer):
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif (isinstance(value, list) and token.isascii() and token.isdigit()
              and int(token) < len(value)):
            value = value[int(token)]
        else:
            return ABSENT
    return value
