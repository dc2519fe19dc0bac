"""The adapter protocol, v1: typed, frozen commands and replies, checked against the schemas.

Written twice and kept in sync (like bowtie): the JSON Schemas in ``vectors/schema/protocol/``
are the contract an implementer reads; these classes are what the runner builds and parses,
and ``tests/test_protocol.py`` validates every command against the schema.

Exchange, one JSON object per line each way::

    runner -> {"cmd": "start", "protocol": 1}
    adapter <- {"protocol": 1, "implementation": {...}, "operations": [...]}
    runner -> {"cmd": "run", "seq": 1, "case": "...", "operation": "...", "input": ...}
    adapter <- {"seq": 1, "output": ...}  |  {"seq": 1, "error": {"code": ...}}
                                           |  {"seq": 1, "crashed": {"message": ...}}
    runner -> {"cmd": "stop"}               (the adapter exits)

Protocol 1.1 (backward compatible, the version number stays 1): an adapter may declare
``"observe": ["input-after", "repeat"]`` in its start reply; a run command may then carry the
same list, and the reply adds ``"observed": {"repeat": {"output"|"error": ...},
"input_after": ...}`` - the operation run twice on one in-memory input (BO-008).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from agent_tck.harness.common.jsonschema_util import pointer, validator
from agent_tck.harness.run.outcome import CallResult, Errored, Observed, Output, Rejected
from agent_tck.reference_impl import strict_json

PROTOCOL_VERSION = 1
#: What a start reply looks like (vectors/PROTOCOL.md), for a handshake error to show.
HANDSHAKE_EXAMPLE = ('one line, {"protocol": 1, "implementation": {"name": "...", "language": '
                     '"..."}, "operations": ["family.operation", ...]}, then nothing until the '
                     'first run command')
#: Protocol 1.1 observation capability: what an adapter can report beyond a result (BO-008).
OBSERVE = ("input-after", "repeat")


class ProtocolViolation(Exception):
    """The adapter said something the protocol does not allow; the message says what."""


@dataclass(frozen=True)
class StartCommand:
    """``{"cmd": "start"}``: the runner's first line, the protocol version it speaks."""

    tck_version: str

    def to_json(self) -> dict[str, Any]:
        return {"cmd": "start", "protocol": PROTOCOL_VERSION, "tck_version": self.tck_version}


@dataclass(frozen=True)
class RunCommand:
    """``{"cmd": "run"}``: one operation on one input, answered by the reply with its seq."""

    seq: int
    operation: str
    input: Any
    case: str | None = None
    observe: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"cmd": "run", "seq": self.seq, "operation": self.operation}
        if self.case is not None:
            out["case"] = self.case
        out["input"] = self.input
        if self.observe:
            out["observe"] = list(self.observe)
        return out


@dataclass(frozen=True)
class StopCommand:
    """``{"cmd": "stop"}``: the runner's last line; the adapter exits."""

    def to_json(self) -> dict[str, Any]:
        return {"cmd": "stop"}


Command = StartCommand | RunCommand | StopCommand


@dataclass(frozen=True)
class Implementation:
    name: str
    language: str
    version: str = ""
    homepage: str = ""
    operations: frozenset[str] = frozenset()
    observe: frozenset[str] = frozenset()
    #: it takes commands before it has answered earlier ones (``"pipeline": true``)
    pipeline: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "version": self.version,
                               "language": self.language}
        if self.homepage:
            out["homepage"] = self.homepage
        out["operations"] = sorted(self.operations)
        if self.observe:
            out["observe"] = sorted(self.observe)
        if self.pipeline:
            out["pipeline"] = True
        return out


def encode(command: Command) -> str:
    return json.dumps(command.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n"


def decode(line: str) -> Any:
    """One reply line, read strictly: NaN, Infinity, duplicate keys, lone surrogates, numbers
    out of range and nesting deeper than the strict reader's limit are protocol breaches."""
    try:
        return strict_json.loads(line)
    except strict_json.StrictJSONError as exc:
        raise ProtocolViolation(f"reply is not strict JSON ({exc}): {line[:200]!r}") from exc


@cache
def _validator(definition: str) -> Any:
    """The response schema's ``definition``, compiled once (not per reply)."""
    schema = validator("protocol/response.schema.json")
    document: Any = schema.schema  # a JSON Schema document: an object here
    base: dict[str, Any] = dict(document)
    return schema.evolve(schema={"$ref": f"#/$defs/{definition}", **base})


_ERROR_CODE = re.compile(r"[A-Z][A-Z0-9_]*")


def _plain_result(reply: dict[str, Any]) -> bool:
    """Whether ``reply`` is one of the common result shapes the schema accepts, decided
    without it: a positive integer seq and an output, or an error with a string code (and a
    string message and pointer, if any), and nothing observed. False means "ask the schema"."""
    seq = reply.get("seq")
    if type(seq) is not int or seq < 1 or "observed" in reply:
        return False
    if "output" in reply:
        return "error" not in reply and "crashed" not in reply
    err = reply.get("error")
    if type(err) is not dict or "crashed" in reply:
        return False
    code = err.get("code")
    return (type(code) is str and _ERROR_CODE.fullmatch(code) is not None
            and type(err.get("message", "")) is str and type(err.get("pointer", "")) is str)


def _check(instance: Any, definition: str) -> None:
    if definition == "result" and type(instance) is dict and _plain_result(instance):
        return
    errors = sorted(_validator(definition).iter_errors(instance), key=lambda e: list(e.path))
    if errors:
        err = errors[0]
        raise ProtocolViolation(
            f"{definition} reply breaks the protocol schema at {pointer(err.path) or '/'}: "
            f"{err.message}"
        )


def parse_started(line: str) -> Implementation:
    reply = decode(line)
    if isinstance(reply, dict) and reply.get("protocol") not in (None, PROTOCOL_VERSION):
        raise ProtocolViolation(
            f"adapter speaks protocol {reply.get('protocol')!r}; this runner speaks "
            f"{PROTOCOL_VERSION}"
        )
    _check(reply, "started")
    impl = reply["implementation"]
    return Implementation(
        name=impl["name"],
        language=impl["language"],
        version=impl.get("version", ""),
        homepage=impl.get("homepage", ""),
        operations=frozenset(reply["operations"]),
        observe=frozenset(reply.get("observe", ())),
        pipeline=reply.get("pipeline") is True,
    )


#: What :func:`read_reply` returns for a line that is not strict JSON (decoding it again says why)
UNREADABLE: Any = object()


def read_reply(line: str) -> Any:
    """``line`` read strictly, or :data:`UNREADABLE`: the runner reads each reply line once,
    to see whose it is, and hands the value on to :func:`parse_result`."""
    try:
        return decode(line)
    except ProtocolViolation:  # its reason is worded again by parse_result, on this path only
        return UNREADABLE


def parse_result(line: str, expected_seq: int, observe: bool = False,
                 reply: Any = UNREADABLE) -> CallResult | Observed:
    """A run reply as an outcome; raises ProtocolViolation for anything off-protocol. With
    ``observe`` (the command asked for it), a result also carries what was observed. ``reply``
    is ``line`` already read by :func:`read_reply`, when it was."""
    if reply is UNREADABLE:
        reply = decode(line)
    if not isinstance(reply, dict):
        raise ProtocolViolation(f"reply is not a JSON object: {line[:200]!r}")
    kinds = sorted({"output", "error", "crashed"} & reply.keys())
    if len(kinds) != 1:
        if not kinds and {"protocol", "implementation", "operations"} & reply.keys():
            raise ProtocolViolation(
                f"expected the reply to run command seq {expected_seq} "
                f"({{\"seq\": {expected_seq}, \"output\"|\"error\"|\"crashed\": ...}}); received "
                f"a second start reply (the start command is answered once): {line[:200]!r}")
        keys = ", ".join(sorted(reply)) or "none"
        raise ProtocolViolation(
            f"a run reply holds exactly one of output, error, crashed; this one holds "
            f"{', '.join(kinds) or 'none'} (its keys: {keys}; expected {{\"seq\": "
            f"{expected_seq}, \"output\": ...}}, {{\"seq\": {expected_seq}, \"error\": "
            f"{{\"code\": ...}}}} or {{\"seq\": {expected_seq}, \"crashed\": "
            f"{{\"message\": ...}}}})"
        )
    _check(reply, "result")
    if type(reply["seq"]) is not int:
        raise ProtocolViolation(f"seq must be a JSON integer, not {reply['seq']!r}")
    if reply["seq"] != expected_seq:
        raise ProtocolViolation(f"reply has seq {reply['seq']}, expected {expected_seq}")
    first = _result(reply)
    if "observed" in reply and not observe:
        raise ProtocolViolation("the reply holds observed, which the command did not ask for")
    if not observe or isinstance(first, Errored):
        return first
    observed = reply.get("observed")
    if not isinstance(observed, dict) or not {"repeat", "input_after"} <= observed.keys():
        raise ProtocolViolation("the command asked to observe (protocol 1.1): the reply must "
                                "hold observed with repeat and input_after")
    second = _result(observed["repeat"])
    assert not isinstance(second, Errored)  # the schema allows output or error only
    return Observed(first, second, observed["input_after"])


def _result(reply: dict[str, Any]) -> CallResult:
    if "output" in reply:
        return Output(reply["output"])
    if "error" in reply:
        err = reply["error"]
        return Rejected(err["code"], err.get("message", ""), err.get("pointer"))
    crashed = reply["crashed"]
    return Errored(
        f"implementation reported a crash: {crashed['message']}",
        tuple(crashed.get("traceback", ())),
    )
