"""Operations of the chunk-free-persistence family (vectors/chunk-free-persistence/README.md).

Log operations take ``{"log": "<JSONL text>"}`` or, for bytes that are not UTF-8,
``{"logBase64": "<base64>"}``; a rejection is ``TckError(code, "line N (seq S): ...")``.
Recorder operations take a replay fixture.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.session_log import format as sl
from agent_tck.reference_impl.session_log import reader as log_reader
from agent_tck.reference_impl.session_log import recorder as rec
from agent_tck.reference_impl.session_log import views

INVALID_INPUT = "INVALID_INPUT"


def _log_lines(payload: Any) -> tuple[list[bytes], str]:
    if not isinstance(payload, Mapping):
        raise TckError(INVALID_INPUT, "the input must be an object", "")
    if isinstance(payload.get("log"), str):
        return sl.split_lines(payload["log"].encode("utf-8", "surrogatepass")), "/log"
    if isinstance(payload.get("logBase64"), str):
        try:
            data = base64.b64decode(payload["logBase64"], validate=True)
        except (binascii.Error, ValueError) as exc:
            raise TckError(INVALID_INPUT, f"logBase64 is not base64: {exc}", "/logBase64") from None
        return sl.split_lines(data), "/logBase64"
    raise TckError(INVALID_INPUT, 'the input needs "log" (text) or "logBase64"', "")


def _rejected(exc: sl.LogRejected, pointer: str) -> TckError:
    error = exc.error
    return TckError(error.code, f"{error.where()}: {error.message}", pointer)


def _read(payload: Any) -> sl.Log:
    lines, pointer = _log_lines(payload)
    try:
        return log_reader.read(lines, sl.default_vocabulary())
    except sl.LogRejected as exc:
        raise _rejected(exc, pointer) from None


def check_log(payload: Any) -> dict[str, Any]:
    lines, pointer = _log_lines(payload)
    try:
        return log_reader.check(lines, sl.default_vocabulary()).to_json()
    except sl.LogRejected as exc:
        raise _rejected(exc, pointer) from None


def recover(payload: Any) -> dict[str, Any]:
    """What a loader keeps of a damaged log (``check-log``'s reading, CFP-D012): the summary of
    the kept events and the tail it drops (``null`` when none), or the refusal."""
    lines, pointer = _log_lines(payload)
    try:
        summary = log_reader.check(lines, sl.default_vocabulary(), recover=True)
    except sl.LogRejected as exc:
        raise _rejected(exc, pointer) from None
    return {**summary.to_json(), "tail": summary.tail.brief() if summary.tail else None}


def read_log(payload: Any) -> dict[str, Any]:
    log = _read(payload)
    return {"header": log.header.value, "events": [e.value for e in log.events]}


def roundtrip(payload: Any) -> dict[str, Any]:
    return {"log": sl.write(_read(payload))}


def load(payload: Any) -> dict[str, Any]:
    return {"transcript": views.transcript(_read(payload))}


def _user(payload: Any) -> list[Any] | None:
    user = payload.get("user")
    if user is not None and not isinstance(user, list):
        raise TckError(INVALID_INPUT, "user must be an array of content blocks", "/user")
    return user


def resume(payload: Any) -> dict[str, Any]:
    history, tools = views.resume(_read(payload), _user(payload))
    return {"history": history, "tools": tools}


def _serialize(operation: str, payload: Any) -> Any:
    from agent_tck.reference_impl.serialize.ops import (
        OPERATIONS,  # the serialize family's serializers
    )

    history, tools = views.resume(_read(payload), _user(payload))
    serializer = OPERATIONS.get(operation)
    if serializer is None:
        raise TckError("NOT_IMPLEMENTED", f"{operation} is not available", "")
    request: dict[str, Any] = {"history": history}
    if tools is not None:
        request["tools"] = tools
    return serializer(request)


def resume_anthropic(payload: Any) -> Any:
    return _serialize("anthropic.serialize", payload)


def resume_openai(payload: Any) -> Any:
    return _serialize("openai.serialize", payload)


def record(payload: Any) -> dict[str, Any]:
    return views.durable_view(rec.record(payload, sl.default_vocabulary()).log)


def record_log(payload: Any) -> dict[str, Any]:
    return {"log": sl.write(rec.record(payload, sl.default_vocabulary()).log)}


def record_live(payload: Any) -> dict[str, Any]:
    return {"live": rec.live_view(rec.record(payload, sl.default_vocabulary()).live)}


def record_load(payload: Any) -> dict[str, Any]:
    """``session.load`` of the log the recorder wrote. CFP-D007 lets an implementation keep
    partial output as an attempt (loads as ``failed``) or as an interrupted message (loads as
    ``interrupted``); which one is its own choice, so here both read ``partial``."""
    transcript = views.transcript(rec.record(payload, sl.default_vocabulary()).log)
    return {"transcript": [
        {**entry, "status": "partial"} if entry.get("status") in ("failed", "interrupted")
        else entry
        for entry in transcript
    ]}


OPERATIONS = {
    "session.check-log": check_log,
    "session.recover": recover,
    "session.read": read_log,
    "session.roundtrip": roundtrip,
    "session.load": load,
    "session.resume": resume,
    "session.resume-anthropic": resume_anthropic,
    "session.resume-openai": resume_openai,
    "session.record": record,
    "session.record-log": record_log,
    "session.record-live": record_live,
    "session.record-load": record_load,
}
