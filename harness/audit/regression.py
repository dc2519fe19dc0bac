"""Violation -> regression vector (``agent-tck audit --save-vectors DIR``), sans I/O.

For a finding of a serializer rule (the block-omission, in-history-update and developer-messages
families: what a runtime's history serializer decides) on a captured request, this module builds
one case in the suite's own vector format (vectors/schema/vector-file.schema.json) that an
implementer replays with ``agent-tck run --impl ... --vectors DIR``:

1. **minimize** the captured request by delta debugging (:func:`ddmin`): over its messages, then
   over the blocks of each remaining message, then the tools; a part is dropped when the wire
   rules (:func:`harness.audit.rules.audit_exchange`) still report the same rule on what
   is left and the rest still reconstructs (:func:`still_fails`);
2. **reconstruct** the canonical history the request was serialized from (:func:`history_of`,
   the inverse of ``reference_impl/serialize/anthropic_messages.py`` / ``openai_chat.py``
   for the parts a finding needs);
3. **blank** the text of every block the finding does not point at (:data:`PLACEHOLDER`), kept
   only when the finding survives it, and scrub what is left with the audit's
   :class:`~harness.audit.redact.Scrubber` (credential-shaped strings are salted hashes);
4. **expect** what the reference serializer makes of that history (``anthropic.serialize`` or
   ``openai.serialize`` through :mod:`reference_impl.serialize.ops`): an output, or the
   error code when the history has no wire form (BO-005: "rejection of other unsupported
   blocks").

The conformance matrix's ``--save-vectors`` keeps a different kind of vector (the request body
with the ``wire.check`` findings it must give, :func:`harness.matrix.model.regression_vectors`):
that one pins the wire checker; this one pins the implementation's serializer.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agent_tck.harness.audit.rules import audit_exchange
from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.serialize.ops import OPERATIONS as SERIALIZERS

#: rule families a history serializer decides, by rule prefix (a finding of another rule is
#: not saved); a case goes in a file of its rule's family (harness/families/)
SERIALIZER_FAMILIES: dict[str, str] = {"BO-": "block-omission", "IHU-": "in-history-update",
                                       "DM-": "developer-messages"}

#: the text that replaces a block's text the finding does not point at
PLACEHOLDER = "[text not needed by the finding]"

_URL = {"anthropic": "http://127.0.0.1/v1/messages",
        "openai": "http://127.0.0.1/v1/chat/completions"}
_OPERATION = {"anthropic": "anthropic.serialize", "openai": "openai.serialize"}


class NotReconstructible(ValueError):
    """The request holds something this inverse does not map back to a canonical history."""


def is_serializer_rule(rule: str) -> bool:
    return rule.startswith(tuple(SERIALIZER_FAMILIES))


def family_of(rule: str) -> str:
    return next(f for p, f in SERIALIZER_FAMILIES.items() if rule.startswith(p))


# --- delta debugging --------------------------------------------------------------------------


def ddmin[T](items: Sequence[T], test: Callable[[list[T]], bool]) -> list[T]:
    """Zeller's ddmin: a 1-minimal sublist of ``items`` (order kept) on which ``test`` holds
    (removing any one more item makes it fail). ``test(list(items))`` must hold. The empty list
    is tried first: a part the finding does not need at all goes in one step."""
    current = list(items)
    if test([]):
        return []
    n = 2
    while len(current) >= 2:
        size = len(current) // n
        chunks = [current[i * size:(i + 1) * size if i < n - 1 else len(current)]
                  for i in range(n)]
        for i in range(n):  # a complement that still fails: keep it
            complement = [x for j, c in enumerate(chunks) if j != i for x in c]
            if test(complement):
                current, n = complement, max(n - 1, 2)
                break
        else:
            for chunk in chunks:  # a single chunk that still fails
                if test(chunk):
                    current, n = chunk, 2
                    break
            else:
                if n >= len(current):
                    break
                n = min(n * 2, len(current))
    return current


# --- the finding's predicate ------------------------------------------------------------------


def rules_found(body: Mapping[str, Any], dialect: str) -> set[str]:
    """The rules the wire checks report on ``body`` sent as a ``dialect`` request."""
    audit = audit_exchange({"method": "POST", "url": _URL[dialect], "request": {"body": body}})
    return {f.rule for f in audit.findings}


def still_fails(body: Mapping[str, Any], dialect: str, rule: str) -> bool:
    """The finding survives on ``body``: the rule is still reported and the history is still
    reconstructible (so the case can be built)."""
    try:
        history_of(body, dialect)
    except NotReconstructible:
        return False
    return rule in rules_found(body, dialect)


def minimize(body: Mapping[str, Any], dialect: str, rule: str) -> dict[str, Any]:
    """The smallest request (messages, then blocks, then tools dropped) still failing ``rule``;
    members other than system, messages and tools are dropped (they are no serializer input)."""
    out: dict[str, Any] = {k: copy.deepcopy(body[k]) for k in ("system", "messages", "tools")
                           if k in body}
    history_of(out, dialect)  # raises what cannot be read back
    if rule not in rules_found(out, dialect):
        raise NotReconstructible(f"the {rule} finding does not reproduce on the request body "
                                 "alone (it needs the headers or an earlier request)")

    def with_messages(messages: list[Any]) -> dict[str, Any]:
        return {**out, "messages": messages}

    messages = ddmin(out.get("messages", []),
                     lambda ms: still_fails(with_messages(ms), dialect, rule))
    out = with_messages(messages)
    for i, message in enumerate(messages):
        content = message.get("content") if isinstance(message, Mapping) else None
        if not isinstance(content, list) or len(content) < 2:
            continue

        def with_blocks(blocks: list[Any], i: int = i, base: dict[str, Any] = out
                        ) -> dict[str, Any]:
            ms = list(base["messages"])
            ms[i] = {**ms[i], "content": blocks}
            return with_messages(ms)

        # a turn that had words keeps some, so that it is not left with nothing to send
        # (which would make the case bear on BO-D001 "a user message with nothing left to send
        # is skipped" too: one reason to fail per case)
        anchored = any(_worded(b) for b in content)
        def keeps_failing(bs: list[Any], anchored: bool = anchored) -> bool:
            return bool(bs) and (not anchored or any(_worded(b) for b in bs)) and still_fails(
                with_blocks(bs), dialect, rule)

        blocks = ddmin(content, keeps_failing)
        out = with_blocks(blocks)
    if isinstance(out.get("tools"), list):
        tools = ddmin(out["tools"], lambda ts: still_fails(
            {**out, "tools": ts} if ts else {k: v for k, v in out.items() if k != "tools"},
            dialect, rule))
        out = {**out, "tools": tools} if tools else {k: v for k, v in out.items()
                                                     if k != "tools"}
    if "system" in out:
        without = {k: v for k, v in out.items() if k != "system"}
        if still_fails(without, dialect, rule):
            out = without
    return out


def _worded(block: Any) -> bool:
    return isinstance(block, Mapping) and block.get("type") == "text" and bool(block.get("text"))


def blank_texts(body: dict[str, Any], dialect: str, rule: str) -> dict[str, Any]:
    """``body`` with every free text (system prompt, text, thinking, string tool-result
    content, string content) replaced by :data:`PLACEHOLDER` and every tool-call input by
    ``{}`` and base64 image data by ``""``, one slot at a time, each kept only when the finding
    survives it: a text whose exact value the rule needs (an empty text for BO-D008) stays as
    it was, and empty texts are never touched. The block the finding points at is blanked too:
    the rules are about which blocks are sent, not about their words."""
    out = copy.deepcopy(body)
    for parent, key, blank in _slots(out):
        before = parent[key]
        if before in ("", {}, blank):
            continue
        parent[key] = blank
        if not still_fails(out, dialect, rule):
            parent[key] = before
    return out


def _slots(body: dict[str, Any]) -> list[tuple[Any, Any, Any]]:
    """(container, key, blank value) of every piece of user content in the request."""
    slots: list[tuple[Any, Any, Any]] = []
    if isinstance(body.get("system"), str):
        slots.append((body, "system", PLACEHOLDER))
    elif isinstance(body.get("system"), list):
        slots.extend((b, "text", PLACEHOLDER) for b in body["system"]
                     if isinstance(b, dict) and isinstance(b.get("text"), str))
    for m in body.get("messages", []):
        if not isinstance(m, dict):
            continue
        for key in ("reasoning_content", "reasoning"):
            if isinstance(m.get(key), str):
                slots.append((m, key, PLACEHOLDER))
        if isinstance(m.get("content"), str):
            slots.append((m, "content", PLACEHOLDER))
            continue
        blocks = [b for b in m.get("content") or [] if isinstance(b, dict)]
        nested = [x for b in blocks if b.get("type") == "tool_result"
                  and isinstance(b.get("content"), list) for x in b["content"]
                  if isinstance(x, dict)]
        for b in blocks + nested:
            for key in ("text", "thinking"):
                if isinstance(b.get(key), str):
                    slots.append((b, key, PLACEHOLDER))
            if b.get("type") == "tool_result" and isinstance(b.get("content"), str):
                slots.append((b, "content", PLACEHOLDER))
            if b.get("type") == "tool_use" and isinstance(b.get("input"), dict):
                slots.append((b, "input", {}))
            source = b.get("source")
            if isinstance(source, dict) and isinstance(source.get("data"), str):
                slots.append((source, "data", ""))
    return slots


# --- the inverse serializers ------------------------------------------------------------------


def history_of(body: Mapping[str, Any], dialect: str) -> dict[str, Any]:
    """The serializer input ``{"history": [...], "tools"?: [...]}`` ``body`` was made from."""
    if not isinstance(body, Mapping) or not isinstance(body.get("messages"), list):
        raise NotReconstructible("the request has no messages list")
    return _from_anthropic(body) if dialect == "anthropic" else _from_openai(body)


def _text(text: Any) -> dict[str, Any]:
    if not isinstance(text, str):
        raise NotReconstructible("a text that is not a string")
    return {"type": "text", "text": text}


def _anthropic_block(b: Any) -> dict[str, Any]:
    """A Messages content block as a canonical block (the inverse of ``_input_blocks`` and
    ``_assistant_blocks``; an unknown type stays a block of that type, as the model reads it)."""
    if not isinstance(b, Mapping) or not isinstance(b.get("type"), str) or not b["type"]:
        raise NotReconstructible("a content block without a type")
    kind = b["type"]
    if kind == "text":
        return _text(b.get("text"))
    if kind == "thinking":
        out = {"type": "reasoning", "text": _str(b.get("thinking"))}
        if isinstance(b.get("signature"), str):
            out["signature"] = b["signature"]
        return out
    if kind == "redacted_thinking":
        return {"type": "reasoning", "text": "", "signature": _str(b.get("data"))}
    if kind == "tool_use":
        return {"type": "tool-call", "id": _str(b.get("id")), "name": _str(b.get("name")),
                "arguments": json.dumps(b.get("input", {}), separators=(",", ":"))}
    if kind == "image":
        source = b.get("source")
        if not isinstance(source, Mapping) or source.get("type") != "base64":
            raise NotReconstructible("an image that is not base64")
        return {"type": "image", "attachment": {"mediaType": _str(source.get("media_type")),
                                                "data": _str(source.get("data"))}}
    if kind in ("tool_addition", "tool_removal"):
        tool = b.get("tool")
        name = tool.get("name") if isinstance(tool, Mapping) else None
        return {"type": kind.replace("_", "-"), "toolName": _str(name)}
    return {"type": kind}


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise NotReconstructible(f"expected a string, got {type(value).__name__}")
    return value


def _blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        raise NotReconstructible("content that is neither a string nor a list")
    return content


def _system_text(system: Any) -> str:
    if isinstance(system, str):
        return system
    return "".join(_str(b.get("text")) for b in system if isinstance(b, Mapping))


def _from_anthropic(body: Mapping[str, Any]) -> dict[str, Any]:
    history: list[dict[str, Any]] = []
    if body.get("system"):
        history.append({"role": "system", "content": [_text(_system_text(body["system"]))]})
    for m in body["messages"]:
        role = m.get("role") if isinstance(m, Mapping) else None
        blocks = _blocks(m.get("content")) if role else []
        if role == "user":
            # BO-D005 put tool results first in the turn: each one is a tool message
            for b in blocks:
                if isinstance(b, Mapping) and b.get("type") == "tool_result":
                    tool: dict[str, Any] = {
                        "role": "tool", "toolCallId": _str(b.get("tool_use_id")),
                        "content": [_anthropic_block(x) for x in _blocks(b.get("content", []))]}
                    if isinstance(b.get("is_error"), bool):
                        tool["isError"] = b["is_error"]
                    history.append(tool)
            rest = [_anthropic_block(b) for b in blocks
                    if not (isinstance(b, Mapping) and b.get("type") == "tool_result")]
            if rest:
                history.append({"role": "user", "content": rest})
        elif role == "assistant":
            history.append({"role": "assistant",
                            "content": [_anthropic_block(b) for b in blocks]})
        elif role == "system":  # an in-history update (IHU) or a tool change (DM)
            if all(h["role"] == "system" for h in history):
                # IHU-D003: no turn before it on the wire, so the turn the runtime omitted
                # before it is not in the capture; read back as it is, it would be the system
                # head and the case would not bear on the rule
                raise NotReconstructible("an in-history system message with no turn before "
                                         "it: what the runtime omitted there is not on the wire")
            content = [_anthropic_block(b) for b in blocks]
            changes = any(b["type"] in ("tool-addition", "tool-removal") for b in content)
            history.append({"role": "developer" if changes else "system", "content": content})
        else:
            raise NotReconstructible(f"a message with role {role!r}")
    out: dict[str, Any] = {"history": history}
    if isinstance(body.get("tools"), list):
        out["tools"] = [_anthropic_tool(t) for t in body["tools"]]
    return out


def _anthropic_tool(t: Any) -> dict[str, Any]:
    if not isinstance(t, Mapping) or not isinstance(t.get("input_schema"), Mapping):
        raise NotReconstructible("a tool without an input_schema (a server tool?)")
    out: dict[str, Any] = {"name": _str(t.get("name")), "inputSchema": dict(t["input_schema"])}
    if isinstance(t.get("description"), str):
        out["description"] = t["description"]
    if t.get("defer_loading") is True:
        out["deferLoading"] = True
    return out


_OPENAI_PARTS = {"reasoning": "reasoning", "thinking": "reasoning"}


def _openai_part(p: Any) -> dict[str, Any]:
    if not isinstance(p, Mapping) or not isinstance(p.get("type"), str) or not p["type"]:
        raise NotReconstructible("a content part without a type")
    kind = p["type"]
    if kind == "text":
        return _text(p.get("text"))
    if kind in _OPENAI_PARTS:
        return {"type": "reasoning", "text": _str(p.get("text", p.get(kind, "")))}
    if kind == "image_url":  # BO-D006: a data URL (the only image form the serializer makes)
        url = p.get("image_url", {}).get("url") if isinstance(p.get("image_url"), Mapping) \
            else None
        head, sep, data = _str(url).partition(";base64,")
        if not sep or not head.startswith("data:"):
            raise NotReconstructible("an image_url that is not a base64 data URL")
        return {"type": "image", "attachment": {"mediaType": head.removeprefix("data:"),
                                                "data": data}}
    if kind in ("tool_call", "tool_use", "function_call"):
        return {"type": "tool-call", "id": _str(p.get("id", "call")), "name": _str(
            p.get("name", "tool")), "arguments": "{}"}
    return {"type": kind}


def _from_openai(body: Mapping[str, Any]) -> dict[str, Any]:
    """Chat Completions: system / developer messages are system messages (the first ones the
    head), reasoning_content and tool_calls are reasoning and tool-call blocks."""
    history: list[dict[str, Any]] = []
    for m in body["messages"]:
        role = m.get("role") if isinstance(m, Mapping) else None
        content = m.get("content") if role else None
        parts = [] if content is None else [_openai_part(p) for p in _blocks(content)]
        for key in ("reasoning_content", "reasoning"):
            if isinstance(m.get(key), str) and m[key]:
                parts.insert(0, {"type": "reasoning", "text": m[key]})
        for call in m.get("tool_calls") or []:
            fn = call.get("function", {}) if isinstance(call, Mapping) else {}
            parts.append({"type": "tool-call", "id": _str(call.get("id")),
                          "name": _str(fn.get("name")), "arguments": _str(fn.get("arguments"))})
        if role in ("system", "developer"):
            history.append({"role": "system", "content": parts})
        elif role in ("user", "assistant"):
            history.append({"role": role, "content": parts})
        elif role == "tool":
            history.append({"role": "tool", "toolCallId": _str(m.get("tool_call_id")),
                            "content": parts})
        else:
            raise NotReconstructible(f"a message with role {role!r}")
    out: dict[str, Any] = {"history": history}
    if isinstance(body.get("tools"), list):
        tools = []
        for t in body["tools"]:
            fn = t.get("function") if isinstance(t, Mapping) else None
            if not isinstance(fn, Mapping):
                raise NotReconstructible("a tool without a function")
            tool = {"name": _str(fn.get("name")), "inputSchema": dict(fn.get("parameters") or {
                "type": "object"})}
            if isinstance(fn.get("description"), str):
                tool["description"] = fn["description"]
            tools.append(tool)
        out["tools"] = tools
    return out


# --- the case ---------------------------------------------------------------------------------


def expectation(payload: Mapping[str, Any], dialect: str) -> dict[str, Any]:
    """What the reference serializer does with ``payload``: its output, or its error code."""
    try:
        return {"output": SERIALIZERS[_OPERATION[dialect]](payload)}
    except TckError as exc:
        return {"error": {"code": exc.code}}


def build_case(body: Mapping[str, Any], dialect: str, rule: str, *, case_id: str, where: str,
               scrub: Callable[[Any], Any] = lambda v: v) -> dict[str, Any]:
    """One minimized vector case for ``rule`` found on the request ``body``. ``where`` names
    the captured request in the description; ``scrub`` redacts the kept values (the audit's
    :meth:`Scrubber.value`). Raises :class:`NotReconstructible` when no case can be built."""
    if not isinstance(body, Mapping):
        raise NotReconstructible("the request body is not a JSON object")
    small = blank_texts(minimize(body, dialect, rule), dialect, rule)
    payload = scrub(history_of(small, dialect))
    expected = expectation(payload, dialect)
    if "output" in expected and rule in rules_found(expected["output"], dialect):
        # a self-check of the inverse: the reference's request must not break the rule itself
        raise NotReconstructible(f"the reconstructed history still gives {rule} through the "
                                 "reference serializer")
    return {"id": case_id, "rules": [rule],
            "description": f"agent-tck audit: {rule} on {where}, minimized "
                           f"({len(small.get('messages', []))} of "
                           f"{len(body.get('messages', []))} messages kept).",
            "input": payload, "expect": {_OPERATION[dialect]: expected}}


def vector_files(cases: Sequence[Mapping[str, Any]], source: str) -> dict[str, dict[str, Any]]:
    """family -> the vector file of the cases whose rule is of that family."""
    out: dict[str, dict[str, Any]] = {}
    for case in cases:
        family = family_of(case["rules"][0])
        out.setdefault(family, {"family": family,
                                "description": f"Regression vectors saved by {source}.",
                                "cases": []})["cases"].append(case)
    return out
