"""Matrix driver: ``litellm`` performs a scenario (docs/MATRIX.md).

litellm takes OpenAI-format messages and translates them for the provider: model
``anthropic/<id>`` speaks the Messages API, ``openai/<id>`` Chat Completions. The replies are
appended as litellm returns them (its ``Message``, thinking blocks included), which is its
documented way to go on. Environment: AGENT_TCK_API (anthropic|openai), the base URLs, keys.
Exit 0 when done, 3 (``unsupported: why``) when the scenario cannot be expressed.
"""

import json
import os
import sys

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # never fetch the price list

import litellm


def tool(t):
    return {"type": "function", "function": {"name": t["name"],
                                             "description": t.get("description", ""),
                                             "parameters": t["parameters"]}}


def history_message(m):
    """OpenAI format has no reasoning or tool-call parts in user or tool content; the
    ``reasoning_content`` and ``tool_calls`` members carry them, as in the openai driver."""
    text = "".join(p["text"] for p in m["content"] if p["type"] == "text")
    reasoning = "".join(p["text"] for p in m["content"] if p["type"] == "reasoning")
    calls = [{"id": p["id"], "type": "function",
              "function": {"name": p["name"], "arguments": json.dumps(p["input"])}}
             for p in m["content"] if p["type"] == "tool_call"]
    out = {"role": m["role"], "content": text}
    if m["role"] == "tool":
        out["tool_call_id"] = m["tool_call_id"]
    if reasoning and m["role"] != "assistant":
        out["reasoning_content"] = reasoning
    if calls:
        out["tool_calls"] = calls
    return out


def as_dict(message):
    return json.loads(message.model_dump_json(exclude_none=True))


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        sc = json.load(f)
    api = sc["api"]
    # litellm checks parameters (thinking) against its model table: a model id it knows as
    # Claude with reasoning; the mock answers any id
    model = "anthropic/claude-sonnet-4-5" if api == "anthropic" else \
        f"openai/{sc.get('model', 'mock-model')}"
    base = os.environ["AGENT_TCK_ANTHROPIC_BASE_URL"] if api == "anthropic" else \
        os.environ["AGENT_TCK_OPENAI_BASE_URL"]
    key = os.environ.get("ANTHROPIC_API_KEY" if api == "anthropic" else "OPENAI_API_KEY",
                         "placeholder")
    tools = [tool(t) for t in sc.get("tools", [])]
    messages = [{"role": "system", "content": sc["system"]}] if sc.get("system") else []
    last = None
    for step in sc["steps"]:
        if step.get("resume"):
            messages = json.loads(json.dumps([m if isinstance(m, dict) else as_dict(m)
                                              for m in messages]))
        tools += [tool(t) for t in step.get("add_tools", [])]
        messages += [history_message(m) for m in step.get("history", [])]
        if "tool_results" in step:
            for call, text in zip(last.tool_calls or [], step["tool_results"], strict=False):
                messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
        if "user" in step:
            messages.append({"role": "user", "content": step["user"]})
        if "system" in step:
            messages.append({"role": "system", "content": step["system"]})
        kwargs = {"model": model, "messages": messages, "api_base": base, "api_key": key,
                  "max_tokens": sc.get("max_tokens", 512), "num_retries": 0, "timeout": 30}
        if tools:
            kwargs["tools"] = list(tools)
        if sc.get("thinking") and api == "anthropic":
            kwargs["thinking"] = {"type": "enabled", "budget_tokens": 256}
        elif sc.get("thinking"):
            kwargs["reasoning_effort"] = "low"
        if sc.get("stream"):
            chunks = list(litellm.completion(**kwargs, stream=True))
            response = litellm.stream_chunk_builder(chunks, messages=messages)
        else:
            response = litellm.completion(**kwargs)
        last = response.choices[0].message
        messages.append(last)


if __name__ == "__main__":
    main()
