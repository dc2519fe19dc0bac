"""Matrix driver: the Python ``openai`` SDK (Chat Completions) performs a scenario.

Usage: ``python openai_driver.py SCENARIO.json``. Environment: AGENT_TCK_OPENAI_BASE_URL (the
audit proxy, ending in /v1), OPENAI_API_KEY (a placeholder). Exit 0 when done, 3 (with a line
``unsupported: why``) when the client cannot express the scenario; anything else is a crash.
"""

import json
import os
import sys

import openai


def tool(t):
    return {"type": "function", "function": {"name": t["name"],
                                             "description": t.get("description", ""),
                                             "parameters": t["parameters"]}}


def history_message(m):
    """Chat Completions has no reasoning or tool-call parts in user or tool content; the
    DeepSeek-style ``reasoning_content`` member and a ``tool_calls`` member carry them (the SDK
    sends members its types do not declare as they are)."""
    text = "".join(p["text"] for p in m["content"] if p["type"] == "text")
    reasoning = "".join(p["text"] for p in m["content"] if p["type"] == "reasoning")
    calls = [{"id": p["id"], "type": "function",
              "function": {"name": p["name"], "arguments": json.dumps(p["input"])}}
             for p in m["content"] if p["type"] == "tool_call"]
    out = {"role": m["role"], "content": text or None}
    if m["role"] == "tool":
        out["tool_call_id"] = m["tool_call_id"]
    if reasoning and m["role"] != "assistant":
        out["reasoning_content"] = reasoning
    if calls:
        out["tool_calls"] = calls
    return out


def new_client():
    return openai.OpenAI(base_url=os.environ["AGENT_TCK_OPENAI_BASE_URL"],
                         api_key=os.environ.get("OPENAI_API_KEY", "placeholder"),
                         max_retries=0, timeout=30)


def streamed(client, kwargs):
    content, calls = "", {}
    for chunk in client.chat.completions.create(**kwargs, stream=True):
        delta = chunk.choices[0].delta if chunk.choices else None
        if delta is None:
            continue
        content += delta.content or ""
        for tc in delta.tool_calls or ():
            slot = calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
            slot["id"] = tc.id or slot["id"]
            if tc.function is not None:
                slot["name"] = tc.function.name or slot["name"]
                slot["arguments"] += tc.function.arguments or ""
    message = {"role": "assistant", "content": content or None}
    if calls:
        message["tool_calls"] = [{"id": c["id"], "type": "function",
                                  "function": {"name": c["name"], "arguments": c["arguments"]}}
                                 for _, c in sorted(calls.items())]
    return message


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        sc = json.load(f)
    client = new_client()
    tools = [tool(t) for t in sc.get("tools", [])]
    messages = [{"role": "system", "content": sc["system"]}] if sc.get("system") else []
    last = None
    for step in sc["steps"]:
        if step.get("resume"):
            saved = json.dumps(messages)
            client.close()
            client = new_client()
            messages = json.loads(saved)
        tools += [tool(t) for t in step.get("add_tools", [])]
        messages += [history_message(m) for m in step.get("history", [])]
        if "tool_results" in step:
            for call, text in zip(last.get("tool_calls") or [], step["tool_results"],
                                  strict=False):
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
        if "user" in step:
            messages.append({"role": "user", "content": step["user"]})
        if "system" in step:
            messages.append({"role": "system", "content": step["system"]})
        kwargs = {"model": sc.get("model", "mock-model"), "messages": messages,
                  "max_completion_tokens": sc.get("max_tokens", 512)}
        if tools:
            kwargs["tools"] = tools
        if sc.get("thinking"):
            kwargs["reasoning_effort"] = "low"
        if sc.get("stream"):
            last = streamed(client, kwargs)
        else:
            reply = client.chat.completions.create(**kwargs).choices[0].message
            last = reply.model_dump(mode="json", exclude_none=True)
        messages.append(last)
    client.close()


if __name__ == "__main__":
    main()
