"""The block-omission and in-history-update vectors: well-formed, passed by the reference, and
able to tell right from wrong.

* every case's input is a canonical history (or deliberately not, for INVALID_HISTORY);
* the reference passes every case when called directly, and leaves the input unchanged (BO-008);
* an independent small Messages serializer (``Faux``) passes the Messages expectations, and each
  of its switches, which reproduces one wrong behaviour, is caught by the rules it breaks;
* provider-equivalent rewrites of the reference's output never fail a case (no false failure).
"""

from __future__ import annotations

import contextlib
import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from agent_tck.harness.contract.catalogue import scenario_citations
from agent_tck.harness.contract.vectors import Case, load_file
from agent_tck.harness.families import operations as reference_operations
from agent_tck.harness.run.evaluate import judge
from agent_tck.harness.run.targets import InProcessTarget
from agent_tck.reference_impl.errors import TckError
from agent_tck.reference_impl.serialize import model

OPERATIONS = reference_operations()

ROOT = Path(__file__).resolve().parent.parent
FAMILIES = ("block-omission", "in-history-update")
CASES: list[Case] = [c for f in FAMILIES for p in sorted((ROOT / "vectors" / f).glob("*.json"))
                     for c in load_file(p)]
HISTORY = Draft202012Validator(
    json.loads((ROOT / "vectors/schema/history.schema.json").read_text()))
RULES = {r["id"]: r for f in FAMILIES
         for r in yaml.safe_load((ROOT / f"vectors/rules/{f}.yaml").read_text())["rules"]}
#: every rule of the catalogue: a serializer case may cite another family's rule where that is
#: the one its check bears on (a Chat tool message placed by WA-D001, issue 21)
ANY_RULE = {r["id"] for path in (ROOT / "vectors" / "rules").glob("*.yaml")
            for r in yaml.safe_load(path.read_text())["rules"]}

Impl = Callable[[Any], Any]


def test_there_are_enough_cases_with_unique_ids() -> None:
    assert len(CASES) >= 40
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))


#: the serializer cases kept with the developer-messages vectors: their inputs hold developer
#: messages, which the independent serializer below does not model (BO-D009, BO-D010)
ELSEWHERE: list[Case] = load_file(
    ROOT / "vectors" / "developer-messages" / "provider-validity.json")


def test_every_rule_has_a_vector_and_a_scenario_and_every_citation_exists() -> None:
    assert {r for c in ELSEWHERE for r in c.rules} <= ANY_RULE
    cited = {r for c in CASES for r in c.rules}
    assert cited <= ANY_RULE
    cited |= {r for c in ELSEWHERE for r in c.rules}
    assert set(RULES) <= cited, sorted(set(RULES) - cited)
    scenarios = {k: v for k, v in scenario_citations(ROOT / "features").items()
                 if k.startswith(("block_omission.feature", "in_history_update.feature"))}
    tagged = {r for tags in scenarios.values() for r in tags}
    assert tagged <= set(RULES)
    assert set(RULES) <= tagged, sorted(set(RULES) - tagged)


def test_the_notes_verification_cases_are_present() -> None:
    by_rule = {rule: {c.id for c in CASES if rule in c.rules} for rule in RULES}
    # "Verification covers user and tool-result filtering, unchanged durable content"
    assert by_rule["BO-001"] and by_rule["BO-003"] and by_rule["BO-008"]
    # "rejection ... when its user input is entirely omitted, both before another assistant and
    # at request end, and acceptance when text or a tool result retains the corresponding turn"
    assert {"ihu-reject-before-assistant-reasoning", "ihu-reject-at-end-reasoning",
            "ihu-accept-text-after-omitted", "ihu-accept-empty-tool-result"} <= {
        c.id for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_case_input_is_a_canonical_history_unless_it_tests_malformed_input(case: Case) -> None:
    malformed = any(e.error_code == "INVALID_HISTORY" for e in case.expect)
    assert bool(list(HISTORY.iter_errors(case.input))) == malformed


def _verdict(impl: Impl, case: Case, operation: str) -> str | None:
    """None when ``impl`` satisfies the case's expectation for ``operation``."""
    expectation = next(e for e in case.expect if e.operation == operation)
    # the runner's one loop: alternatives, BO-008 observation and all
    judgment, _ = judge(InProcessTarget({operation: impl}), case, expectation)
    return None if judgment.status == "pass" else judgment.message


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_reference_passes_and_never_mutates_the_input(case: Case) -> None:
    for expectation in case.expect:
        payload = copy.deepcopy(case.input)
        before = copy.deepcopy(payload)
        assert _verdict(OPERATIONS[expectation.operation], case, expectation.operation) is None
        with contextlib.suppress(TckError):
            OPERATIONS[expectation.operation](payload)
        assert payload == before  # BO-008


# --- an independent Messages serializer with switches for wrong behaviour ----------------------


class Refused(TckError):
    pass


def _refuse(why: str) -> Refused:
    return Refused("UNSUPPORTED_CONTENT", why)


@dataclass(frozen=True)
class Faux:
    """A second, deliberately simple Messages serializer. Defaults follow the rules."""

    input_blocks: str = "omit"        # omit | reject | flatten
    only_plugin_notices: bool = False  # omit only when the source is a plugin, else reject
    other_blocks: str = "reject"      # reject | ignore
    trim: bool = False
    empty_user: str = "skip"          # skip | keep
    empty_tool: str = "keep"          # keep | drop
    empty_text: str = "drop"          # drop | keep
    results_first: bool = True
    assistant_reasoning: str = "keep"  # keep | drop
    updates: str = "defer"            # defer | in-place | relocate | invent | into-system
    empty_update: str = "reject"      # reject | skip
    first_update: str = "reject"      # reject | into-system
    head_as_message: bool = False

    def __call__(self, payload: Any) -> Any:  # noqa: PLR0915 - one readable pass, like a real one
        model.parse_serialize_input(payload)  # INVALID_HISTORY as the reference does
        history = payload["history"]
        start = next((i for i, m in enumerate(history) if m["role"] != "system"), len(history))
        system = "".join(b["text"] for b in history[start - 1]["content"]) if start else ""
        messages: list[dict[str, Any]] = []
        if self.head_as_message and system:
            messages.append({"role": "system", "content": [{"type": "text", "text": system}]})
            system = ""
        pending: list[dict[str, Any]] = []

        def add(role: str, content: list[dict[str, Any]]) -> None:
            if messages and messages[-1]["role"] == role and content and messages[-1]["content"]:
                messages[-1]["content"] += content
            else:
                messages.append({"role": role, "content": content})

        def flush() -> None:
            nonlocal system
            if not pending:
                return
            if messages and messages[-1]["role"] == "user":
                messages.extend(pending)
            elif not messages:
                if self.first_update != "into-system":
                    raise _refuse("first")
                system = pending[-1]["content"][0]["text"]
            elif self.updates == "relocate":
                last = max(i for i, m in enumerate(messages) if m["role"] == "assistant")
                messages[last:last] = pending
            elif self.updates == "invent":
                messages.append({"role": "user", "content": [{"type": "text",
                                                              "text": "(continued)"}]})
                messages.extend(pending)
            elif self.updates == "into-system":
                system = pending[-1]["content"][0]["text"]
            else:
                raise _refuse("no user turn before the update")
            pending.clear()

        for message in history[start:]:
            role = message["role"]
            if role == "system":
                text = "".join(b["text"] for b in message["content"])
                if not text:
                    if self.empty_update == "skip":
                        continue
                    raise _refuse("empty update")
                update = {"role": "system", "content": [{"type": "text", "text": text}]}
                if self.updates == "in-place":
                    messages.append(update)
                else:
                    pending.append(update)
            elif role == "assistant":
                flush()
                add("assistant", self._assistant_content(message))
            elif role == "tool":
                content = self._blocks_of(message)
                if not content and self.empty_tool == "drop":
                    continue
                result = {"type": "tool_result", "tool_use_id": message["toolCallId"],
                          "content": content}
                if "isError" in message:
                    result["is_error"] = message["isError"]
                add("user", [result])
            else:
                content = self._blocks_of(message)
                if content:
                    add("user", content)
                elif self.empty_user == "keep":
                    messages.append({"role": "user", "content": []})
        flush()
        if self.results_first:
            for m in messages:
                if m["role"] == "user":
                    m["content"].sort(key=lambda b: b["type"] != "tool_result")
        body: dict[str, Any] = {"messages": messages}
        if system:
            body["system"] = system
        return body

    def _blocks_of(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        """The Anthropic blocks of a user or tool message's content."""
        out: list[dict[str, Any]] = []
        for block in message["content"]:
            kind = block["type"]
            if kind == "text":
                if block["text"] or self.empty_text == "keep":
                    text = block["text"].strip() if self.trim else block["text"]
                    out.append({"type": "text", "text": text})
            elif kind in ("reasoning", "tool-call"):
                source = message.get("source", {}).get("kind")
                if self.input_blocks == "reject" or (
                        self.only_plugin_notices and source != "plugin"):
                    raise _refuse("assistant block in input")
                if self.input_blocks == "flatten":
                    out.append({"type": "text",
                                "text": block.get("text") or block.get("arguments", "")})
            elif kind == "image":
                attachment = block["attachment"]
                out.append({"type": "image", "source": {
                    "type": "base64", "media_type": attachment["mediaType"],
                    "data": attachment["data"]}})
            elif self.other_blocks == "reject":
                raise _refuse(f"{kind} in input")
        return out

    def _assistant_content(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        """The Anthropic content of an assistant message."""
        content: list[dict[str, Any]] = []
        for block in message["content"]:
            if block["type"] == "text":
                content.append({"type": "text", "text": block["text"]})
            elif block["type"] == "reasoning" and self.assistant_reasoning == "keep":
                thinking = {"type": "thinking", "thinking": block["text"]}
                if "signature" in block:
                    thinking["signature"] = block["signature"]
                content.append(thinking)
            elif block["type"] == "tool-call":
                content.append({"type": "tool_use", "id": block["id"],
                                "name": block["name"],
                                "input": model.tool_input(block["arguments"])})
        return content


def _failing_rules(impl: Impl, operation: str) -> set[str]:
    failing: set[str] = set()
    for case in CASES:
        if any(e.operation == operation for e in case.expect) and _verdict(impl, case, operation):
            failing |= set(case.rules)
    return failing


def test_the_independent_serializer_passes_every_messages_case() -> None:
    assert _failing_rules(Faux(), "anthropic.serialize") == set()


MUTANTS = {
    "rejects-assistant-blocks-in-input": (
        Faux(input_blocks="reject"),
        {"BO-001", "BO-002", "BO-003", "BO-004", "BO-009", "BO-010", "BO-013", "BO-014"}),
    "flattens-into-user-text": (
        Faux(input_blocks="flatten"), {"BO-001", "BO-002", "BO-003", "BO-004", "BO-015"}),
    "decides-by-source": (Faux(only_plugin_notices=True), {"BO-009", "BO-010"}),
    "ignores-other-blocks": (Faux(other_blocks="ignore"), {"BO-005", "BO-006"}),
    "trims-text": (Faux(trim=True), {"BO-007"}),
    "keeps-empty-user-turns": (Faux(empty_user="keep"), {"BO-D001"}),
    "drops-empty-tool-results": (Faux(empty_tool="drop"), {"BO-D003", "IHU-004"}),
    "keeps-empty-text": (Faux(empty_text="keep"), {"BO-D008"}),
    "text-before-tool-results": (Faux(results_first=False), {"BO-D005"}),
    "drops-assistant-reasoning": (Faux(assistant_reasoning="drop"), {"BO-011"}),
    "relocates-update": (Faux(updates="relocate"), {"IHU-001", "IHU-002", "IHU-005"}),
    "invents-user-message": (Faux(updates="invent"), {"IHU-001", "IHU-002", "IHU-006"}),
    "update-into-system-prompt": (Faux(updates="into-system"), {"IHU-001", "IHU-002"}),
    "update-in-place": (Faux(updates="in-place"), {"IHU-D001", "IHU-003", "IHU-007"}),
    "head-as-message": (Faux(head_as_message=True), {"IHU-D005", "IHU-007"}),
}


#: Readings the notes leave open (the catalogue's decision reviews): each must pass every case.
ACCEPTED = {
    # IHU-D004: an empty update is left out instead of rejected (nothing is sent either way)
    "skips-empty-update": Faux(empty_update="skip"),
    # IHU-D003: the source runtime's reading, a system message before any wire message is the
    # top-level system prompt (serialize.ts: in-history only once messages.length > 0)
    "first-update-into-system": Faux(first_update="into-system"),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_each_accepted_reading_passes_every_case(name: str) -> None:
    assert _failing_rules(ACCEPTED[name], "anthropic.serialize") == set()


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_each_wrong_behaviour_fails_the_rules_it_breaks(name: str) -> None:
    impl, rules = MUTANTS[name]
    failing = _failing_rules(impl, "anthropic.serialize")
    assert rules <= failing, f"{name}: not caught on {sorted(rules - failing)}"


def test_a_mutant_fails_only_rules_it_touches() -> None:
    # precise verdicts: a text or omission fault is not blamed on in-history updates, and an
    # update-placement fault is not blamed on block omission
    assert all(r.startswith("BO-") for r in _failing_rules(Faux(trim=True),
                                                            "anthropic.serialize"))
    assert all(r.startswith("IHU-") for r in _failing_rules(Faux(updates="relocate"),
                                                             "anthropic.serialize"))
    assert _failing_rules(Faux(other_blocks="ignore"), "anthropic.serialize") == {
        "BO-005", "BO-006"}


# --- Chat Completions wrong behaviours (input rewrites around the reference) ---------------------


def _rewrite_input(rewrite: Callable[[dict[str, Any]], list[dict[str, Any]]]) -> Impl:
    def impl(payload: Any) -> Any:
        model.parse_serialize_input(payload)
        history = [dict(m, content=rewrite(m)) if m["role"] in ("user", "tool") else m
                   for m in payload["history"]]
        return OPERATIONS["openai.serialize"]({**payload, "history": history})
    return impl


def _flatten(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "text", "text": b.get("text") or b.get("arguments", "")}
            if b["type"] in ("reasoning", "tool-call") else b for b in message["content"]]


def _reject_other(message: dict[str, Any]) -> list[dict[str, Any]]:
    if any(b["type"] not in ("text", "reasoning", "tool-call", "image")
           for b in message["content"]):
        raise _refuse("other block")
    return message["content"]


def test_chat_completions_mutants_are_caught() -> None:
    assert _failing_rules(OPERATIONS["openai.serialize"], "openai.serialize") == set()
    assert {"BO-001", "BO-002", "BO-003", "BO-004", "BO-015"} <= _failing_rules(
        _rewrite_input(_flatten), "openai.serialize")
    assert _failing_rules(_rewrite_input(_reject_other), "openai.serialize") == {
        "BO-D004", "BO-D002"}


# --- provider-equivalent forms never fail ---------------------------------------------------------


def _anthropic_equivalent(body: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"model": "any", "max_tokens": 1024}
    if "system" in body:
        out["system"] = [{"type": "text", "text": body["system"],
                          "cache_control": {"type": "ephemeral"}}]
    messages = []
    for message in body["messages"]:
        blocks = []
        for original in message["content"]:
            block = dict(reversed(list(original.items())))
            if block["type"] == "tool_result":
                if block.get("is_error") is False:
                    del block["is_error"]
                if not block["content"]:
                    del block["content"]
                elif len(block["content"]) == 1 and block["content"][0]["type"] == "text":
                    block["content"] = block["content"][0]["text"]
            if block["type"] == "tool_use":
                block["input"] = json.dumps(block["input"], indent=1)
            blocks.append(block)
        if message["role"] in ("user", "assistant") and len(blocks) > 1:
            messages.extend({"content": [b], "role": message["role"]} for b in blocks)
        elif len(blocks) == 1 and blocks[0]["type"] == "text":
            messages.append({"content": blocks[0]["text"], "role": message["role"]})
        else:
            messages.append({"content": blocks, "role": message["role"]})
    out["messages"] = messages
    out["tools"] = body.get("tools", [])
    return out


def _openai_equivalent(body: dict[str, Any]) -> dict[str, Any]:
    messages = []
    for original in body["messages"]:
        message = {k: v for k, v in original.items() if k != "reasoning_content"}
        content = message.get("content")
        if message["role"] == "assistant":
            message["reasoning"] = "whatever reasoning form"
            if content is None:
                message["content"] = ""
            for call in message.get("tool_calls", []):
                call.pop("type", None)
                call["function"]["arguments"] = json.dumps(
                    json.loads(call["function"]["arguments"]), indent=2)
        if message["role"] == "user" and isinstance(content, list) and len(content) > 1:
            messages.extend({"role": "user", "content": [part]} for part in content)
            continue
        if isinstance(content, list) and len(content) == 1 and content[0]["type"] == "text":
            message["content"] = content[0]["text"]
        messages.append(message)
    return {"messages": messages, "model": "any", "tools": body.get("tools")}


def test_provider_equivalent_forms_never_fail() -> None:
    def wrap(operation: str, rewrite: Callable[[Any], Any]) -> Impl:
        return lambda payload: rewrite(copy.deepcopy(OPERATIONS[operation](payload)))

    assert _failing_rules(wrap("anthropic.serialize", _anthropic_equivalent),
                          "anthropic.serialize") == set()
    assert _failing_rules(wrap("openai.serialize", _openai_equivalent),
                          "openai.serialize") == set()


def test_faux_switches_are_independent() -> None:
    # guard against a mutant that silently equals the default (it would catch nothing)
    for name, (impl, _) in MUTANTS.items():
        assert impl != Faux(), name
        assert replace(impl) == impl
