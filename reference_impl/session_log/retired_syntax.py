"""CFP-D011: the pre-v4 syntax a version-4 log may not hold, as the source runtime refuses it.

Its own module because two readers use it: the default vocabulary's note rules
(``ext_log_rules``) and the session-log reader's tail scan, which must refuse retired
syntax even inside a recoverable tail (session-format-v3-to-v4/src/retired-syntax.ts). It reads
only the format facts (``dsh_v4``), so the reader can import it without an import cycle.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

from agent_tck.reference_impl.session_log import dsh_v4

RETIRED_SYNTAX: Final = "RETIRED_SYNTAX"

Problem = tuple[str, str]
_WRAPPER: Final = "tool-result"


def _at(data: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if type(data) is not dict:
            return None
        data = data.get(key)
    return data


def _wrapper_in(content: Any) -> int | None:
    if type(content) is list:
        for index, block in enumerate(content):
            if type(block) is dict and block.get("type") == _WRAPPER:
                return index
    return None


#: event type -> the paths under data of the content arrays to look in (a tool/result's message
#: too); the path is spelled out only for a refusal (this runs for most events of a log)
_CONTENT_AT: Final = {**dsh_v4.RETIRED_CONTENT_AT, "tool/result": (
    *dsh_v4.RETIRED_CONTENT_AT.get("tool/result", ()), ("message", "content"))}
_STREAM_TYPES: Final = frozenset({"assistant/message", "assistant/attempt"})
#: the event types :func:`retired_syntax` reads (any other holds nothing it refuses)
READ_TYPES: Final = frozenset({"request/header", *_CONTENT_AT, *dsh_v4.RETIRED_MESSAGES_AT,
                               *_STREAM_TYPES})


def _content_arrays(kind: str, data: Mapping[str, Any]) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(path under data, content) of each array of messages' content to look in."""
    name = dsh_v4.RETIRED_MESSAGES_AT.get(kind)
    if name and type(data.get(name)) is list:
        for index, message in enumerate(data[name]):
            yield (f"{name}[{index}]", "content"), _at(message, ("content",))


def _wrapper_at(path: tuple[str, ...], index: int) -> Problem:
    where = "data." + ".".join(path)
    return (RETIRED_SYNTAX, f"CFP-D011: {where}[{index}] is a tool-result block, the v3 wrapper "
            "v4 retires (a tool result is a tool/result event with a tool-role message)")


Check = Callable[[Mapping[str, Any]], Problem | None]


def _system_key(data: Mapping[str, Any]) -> Problem | None:
    header = data.get("header")
    if type(header) is dict and "system" in header:
        return (RETIRED_SYNTAX, "CFP-D011: data.header.system is the retired system key "
                "(v4 keeps the system prompt in system/message events)")
    return None


def _in_stream(data: Mapping[str, Any]) -> Problem | None:
    if type(data.get("stream")) is list:
        for index, entry in enumerate(data["stream"]):
            chunk = entry.get("chunk") if type(entry) is dict else None
            if type(chunk) is not dict:
                continue
            block = chunk.get("block")
            if (chunk.get("type") == "block-start" and chunk.get("blockType") == "tool-result") \
                    or (chunk.get("type") == "block-end" and type(block) is dict
                        and block.get("type") == "tool-result"):
                return (RETIRED_SYNTAX, f"CFP-D011: data.stream[{index}] holds a tool-result "
                        "block, the v3 wrapper v4 retires")
    return None


def checker(kind: str) -> Check | None:
    """CFP-D011 for events of type ``kind``, as one function made for the type (None: the type
    holds nothing retired-syntax.ts refuses). The reader's note rules ask once per type."""
    if kind == "request/header":
        return _system_key
    if kind not in READ_TYPES:
        return None
    paths = _CONTENT_AT.get(kind) or ()
    messages = kind in dsh_v4.RETIRED_MESSAGES_AT
    stream = kind in _STREAM_TYPES
    if not messages and len(paths) == 1 and len(paths[0]) == 2:
        return _message_content_check(paths[0], stream)

    def check(data: Mapping[str, Any]) -> Problem | None:
        for path in paths:
            index = _wrapper_in(_at(data, path))
            if index is not None:
                return _wrapper_at(path, index)
        if messages:
            for path, content in _content_arrays(kind, data):
                index = _wrapper_in(content)
                if index is not None:
                    return _wrapper_at(path, index)
        return _in_stream(data) if stream else None

    return check


def _message_content_check(path: tuple[str, ...], stream: bool) -> Check:
    """:func:`checker`'s check for a type with one content array at ``data.<a>.<b>`` (a
    message's content: the common types), read without the generic walk."""
    outer, inner = path

    def check(data: Mapping[str, Any]) -> Problem | None:
        holder = data.get(outer)
        if type(holder) is dict and (index := _wrapper_in(holder.get(inner))) is not None:
            return _wrapper_at(path, index)
        return _in_stream(data) if stream and "stream" in data else None

    return check


def retired_syntax(kind: str, data: Mapping[str, Any]) -> Problem | None:
    """CFP-D011: the pre-v4 forms retired-syntax.ts refuses in a v4 file."""
    check = checker(kind)
    return None if check is None else check(data)
