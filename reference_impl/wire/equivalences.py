"""Every equivalence of the wire model, listed once, each with its reason.

Two request bodies that a provider treats as the same request must compare equal (a false
failure is as bad as a false pass), and anything a rule constrains must survive. The normal
form (:mod:`reference_impl.wire.normal_form`) applies exactly the rows below, marking the
code that applies each with ``# EQ <key>``; a test holds the table and the marks equal both ways.
It is used for two purposes:

* ``compare``: vector comparison (``harness.run.compare``: the implementation's request against the
  expected one; modes ``anthropic-messages`` and ``openai-chat``);
* ``track``: the audit's conversation tracker (is request N+1 the continuation of request N?),
  WA-D006..WA-D009.

A row applies to both purposes unless it says otherwise, and then it says why.

Never equal (a rule constrains them): an omitted block present, an empty user turn or empty
text block, a system update in another position or folded into ``system``, updates in another
order, ``tool_result`` blocks after other blocks, several text blocks versus one joined text on
the Messages wire, text changed in any way, a message's presence, order or role.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

MESSAGES: Final = "messages"  # Anthropic Messages
CHAT: Final = "chat"  # OpenAI Chat Completions
BOTH: Final = (MESSAGES, CHAT)


@dataclass(frozen=True)
class Equivalence:
    key: str
    wires: tuple[str, ...]
    equal: str  # what compares equal
    reason: str
    purposes: tuple[str, ...] = ("compare", "track")


EQUIVALENCES: Final[tuple[Equivalence, ...]] = (
    Equivalence(
        "key-order", BOTH, "objects whose members come in another order",
        "JSON objects are unordered; providers parse the body."),
    Equivalence(
        "null-member", BOTH, "a member whose value is null and the member left out",
        "the providers' schemas make these members optional; SDKs echo response objects with "
        "nulls (refusal, citations...)."),
    Equivalence(
        "cache-control", BOTH, "cache_control present or absent, anywhere",
        "a caching hint, not input; agents move the breakpoint forward every turn (WA-D009)."),
    Equivalence(
        "string-content", BOTH,
        "a string content and a list holding one text block (part) with that string; on the "
        "Messages wire \"\" and no blocks",
        "the providers define the string form as that shorthand."),
    Equivalence(
        "system-forms", (MESSAGES,),
        "top-level system as a string, as a list of text blocks, or absent when empty (empty "
        "text blocks of system dropped)",
        "the Messages API reads all three as the same system prompt."),
    Equivalence(
        "merge-turns", BOTH,
        "consecutive user, assistant or mid-conversation system turns (Messages) or user "
        "messages (Chat Completions) and one turn holding their blocks in order; never merging "
        "away an empty turn or a message with other members",
        "the provider combines consecutive turns of one role before the model sees them; "
        "IHU-D001 pins only the order and place of system updates."),
    Equivalence(
        "tool-arguments-json", BOTH,
        "a tool_use input given as JSON text and as its value; a tool call's "
        "function.arguments compared as parsed JSON ({\"path\": \".\"} = {\"path\":\".\"})",
        "on the Messages wire input is a JSON object; Chat Completions providers parse "
        "arguments to render their chat template, and agents re-serialize parsed arguments. "
        "Text that is not JSON is compared as text."),
    Equivalence(
        "tool-result-defaults", (MESSAGES,),
        "a tool_result's content absent, \"\" and []; its is_error absent and false",
        "the provider's defaults."),
    Equivalence(
        "tool-defaults", BOTH,
        "tools absent and []; a tool's defer_loading false and absent (Messages); a tool's and "
        "a tool call's type absent and \"function\", tool_calls absent and [] (Chat Completions)",
        "the provider's defaults."),
    Equivalence(
        "assistant-empty-content", (CHAT,),
        "an assistant message's content null, \"\", [] and absent; a tool message's content "
        "\"\" and []",
        "an assistant message that only calls tools has no content, sent in any of these forms."),
    Equivalence(
        "image-detail-auto", (CHAT,), "an image_url part's detail absent and \"auto\"",
        "\"auto\" is the provider's default."),
    Equivalence(
        "text-part-joins", (CHAT,),
        "a run of consecutive non-empty text parts and one text part holding their texts joined "
        "by \"\", \"\\n\" or \"\\n\\n\" (BO-007: the characters still compare exactly)",
        "no rule pins the representation and many endpoints take string content only. It needs "
        "both sides (align_openai_chat), so the tracker, which fingerprints one request at a "
        "time, does not apply it: an agent switching forms mid-conversation is reported.",
        ("compare",)),
    Equivalence(
        "assistant-reasoning-chat", (CHAT,),
        "assistant reasoning in any form (reasoning_content, reasoning, reasoning_details, "
        "thinking members; reasoning or thinking parts) and none; reasoning in user or tool "
        "messages is compared",
        "no rule governs how assistant reasoning travels on Chat Completions input, and the "
        "source runtime does not pin it either: its Chat Completions route hands history to "
        "pi-ai (packages/llm/llm-pi-ai/src/context.ts, toPiAssistant), which decides."),
    Equivalence(
        "assistant-reasoning-messages", (MESSAGES,),
        "thinking and redacted_thinking blocks of assistant turns and none (tracking only)",
        "tracking: providers define what happens to prior-turn reasoning (the Messages API "
        "strips thinking of earlier turns from the context) and agents drop or keep it as "
        "advised (WA-D009). Vector comparison does NOT apply it: a thinking block is compared, "
        "text and signature, and so is an unsigned one (signature absent): BO-011 keeps "
        "assistant reasoning, and the source runtime sends reasoning without replay metadata "
        "as a thinking block without signature (packages/llm/llm-deepseek/src/serialize.ts, "
        "assistant()), which DeepSeek's Messages endpoint accepts; dropping it is a BO-011 "
        "failure, not an equivalent request.",
        ("track",)),
    Equivalence(
        "assistant-echo-members", BOTH,
        "members of an assistant text or tool_use block other than type, text, id, name, input; "
        "members of a Chat Completions assistant message other than role, content, tool_calls, "
        "name (refusal, annotations, audio...); a tool call's index (tracking only)",
        "an agent echoing a reply object sends response-only members back; the model sees the "
        "same turn. Vector comparison does not apply it: the expected request comes from the "
        "serializer, which writes no such members, so an extra one is a real difference.",
        ("track",)),
    Equivalence(
        "other-top-level", BOTH,
        "top-level members other than system, messages and tools (model, max_tokens, stream...)",
        "vectors: not part of a serializer's output; tracking: WA-D007 covers system and tools "
        "only (the head), other settings may change between turns."),
)

BY_KEY: Final = {e.key: e for e in EQUIVALENCES}


def applies(key: str, purpose: str) -> bool:
    return purpose in BY_KEY[key].purposes
