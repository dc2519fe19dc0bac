"""JSON pointers (RFC 6901): the one home of writing them (every error, finding and diff
names a place with :func:`pointer` or :func:`escape`) and of reading the member one names
(the named output parts of :mod:`harness.run.compare`, the order checks of
:mod:`harness.run.order`). Pure functions."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: What :func:`at_pointer` returns where a pointer names nothing.
ABSENT = object()


def escape(token: object) -> str:
    """A member name or index as a reference token (``~`` is ``~0``, ``/`` is ``~1``)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def pointer(path: Iterable[object]) -> str:
    """The JSON pointer of a path of member names and indexes (``""``: the whole value)."""
    return "".join("/" + escape(token) for token in path)


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
