"""Operations of the developer-messages family (vectors/developer-messages/README.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_tck.reference_impl.developer_messages import admission as dm
from agent_tck.reference_impl.developer_messages import projection, writers
from agent_tck.reference_impl.errors import TckError


def _object(payload: Any) -> Mapping[str, Any]:
    if not isinstance(payload, Mapping):
        raise TckError("DM_MALFORMED", "the operation input must be an object", "")
    return payload


def _log(payload: Mapping[str, Any]) -> list[Any]:
    log = payload.get("log")
    if not isinstance(log, list):
        raise TckError("DM_MALFORMED", "input.log must be an array of log lines", "/log")
    return log


def op_admit(payload: Any) -> Any:
    payload = _object(payload)
    return dm.admit(_log(payload), payload.get("registry")).to_json()


def op_roundtrip(payload: Any) -> Any:
    return {"log": writers.roundtrip(_log(_object(payload)))}


def op_append(payload: Any) -> Any:
    payload = _object(payload)
    event = payload.get("event")
    if not isinstance(event, Mapping):
        raise TckError("DM_MALFORMED", "input.event must be an event object", "/event")
    return writers.append(_log(payload), event)


def op_fork(payload: Any) -> Any:
    payload = _object(payload)
    return writers.fork(_log(payload), payload.get("at")).to_json()


def op_remap(payload: Any) -> Any:
    payload = _object(payload)
    drop = payload.get("drop")
    if not isinstance(drop, list):
        raise TckError("DM_MALFORMED", "input.drop must be an array of seqs", "/drop")
    return {"log": writers.remap(_log(payload), drop)}


OPERATIONS = {
    "developer-messages.admit": op_admit,
    "developer-messages.roundtrip": op_roundtrip,
    "developer-messages.append": op_append,
    "developer-messages.fork": op_fork,
    "developer-messages.remap": op_remap,
}


def op_anthropic_request(payload: Any) -> Any:
    return projection.anthropic_request(payload)


def op_anthropic_betas(payload: Any) -> Any:
    return {"betas": projection.anthropic_betas(payload)}


OPERATIONS["developer-messages.anthropic-request"] = op_anthropic_request
OPERATIONS["developer-messages.anthropic-betas"] = op_anthropic_betas
