"""Matrix driver: the Python ``anthropic`` SDK performs a scenario (docs/MATRIX.md).

Usage: ``python anthropic_driver.py SCENARIO.json``. Environment: AGENT_TCK_ANTHROPIC_BASE_URL
(the audit proxy), ANTHROPIC_API_KEY (a placeholder). Exit 0 when done, 3 (with a line
``unsupported: why``) when the client cannot express the scenario; anything else is a crash.
"""

import json
import os
import sys

import anthropic


def tool(t):
    return {"name": t["name"], "description": t.get("description", ""),
            "input_schema": t["parameters"]}


def part(p):
    if p["type"] == "text":
        return {"type": "text", "text": p["text"]}
    if p["type"] == "reasoning":  # ThinkingBlockParam is allowed in any MessageParam
        return {"type": "thinking", "thinking": p["text"], "signature": p.get("signature", "")}
    return {"type": "tool_use", "id": p["id"], "name": p["name"], "input": p["input"]}


def history_message(m):
    if m["role"] == "tool":
        result = {"type": "tool_result", "tool_use_id": m["tool_call_id"],
                  "content": [part(p) for p in m["content"]]}
        return {"role": "user", "content": [result]}
    return {"role": m["role"], "content": [part(p) for p in m["content"]]}


def new_client():
    return anthropic.Anthropic(base_url=os.environ["AGENT_TCK_ANTHROPIC_BASE_URL"],
                               api_key=os.environ.get("ANTHROPIC_API_KEY", "placeholder"),
                               max_retries=0, timeout=30)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        sc = json.load(f)
    client = new_client()
    tools = [tool(t) for t in sc.get("tools", [])]
    messages = []
    last = None
    for step in sc["steps"]:
        if step.get("resume"):  # save as JSON, start over from the saved text
            saved = json.dumps([m if isinstance(m["content"], str) else
                                {**m, "content": [b if isinstance(b, dict)
                                                  else b.model_dump(mode="json", exclude_none=True)
                                                  for b in m["content"]]} for m in messages])
            client.close()
            client = new_client()
            messages = json.loads(saved)
        tools += [tool(t) for t in step.get("add_tools", [])]
        messages += [history_message(m) for m in step.get("history", [])]
        if "tool_results" in step:
            calls = [b for b in last.content if b.type == "tool_use"]
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": c.id, "content": text}
                for c, text in zip(calls, step["tool_results"], strict=False)]})
        if "user" in step:
            messages.append({"role": "user", "content": step["user"]})
        if "system" in step:  # the Messages API's in-history system message
            messages.append({"role": "system", "content": step["system"]})
        kwargs = {"model": sc.get("model", "mock-model"), "max_tokens": sc.get("max_tokens", 512),
                  "messages": messages}
        if sc.get("system"):
            kwargs["system"] = sc["system"]
        if tools:
            kwargs["tools"] = tools
        if sc.get("thinking"):
            kwargs["thinking"] = {"type": "enabled", "budget_tokens": 256}
        if sc.get("stream"):
            with client.messages.stream(**kwargs) as stream:
                last = stream.get_final_message()
        else:
            last = client.messages.create(**kwargs)
        messages.append({"role": "assistant", "content": last.content})
    client.close()


if __name__ == "__main__":
    main()
