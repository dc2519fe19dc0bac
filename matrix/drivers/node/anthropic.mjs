// Matrix driver: @anthropic-ai/sdk performs a scenario (docs/MATRIX.md).
// node anthropic.mjs SCENARIO.json; AGENT_TCK_ANTHROPIC_BASE_URL is the audit proxy.
import Anthropic from "@anthropic-ai/sdk";
import { env, readScenario } from "./common.mjs";

const sc = readScenario();
const newClient = () => new Anthropic({ baseURL: env("AGENT_TCK_ANTHROPIC_BASE_URL"),
  apiKey: env("ANTHROPIC_API_KEY", "placeholder"), maxRetries: 0, timeout: 30000 });
const tool = (t) => ({ name: t.name, description: t.description ?? "", input_schema: t.parameters });
const part = (p) => p.type === "text" ? { type: "text", text: p.text }
  : p.type === "reasoning" ? { type: "thinking", thinking: p.text, signature: p.signature ?? "" }
  : { type: "tool_use", id: p.id, name: p.name, input: p.input };
const historyMessage = (m) => m.role === "tool"
  ? { role: "user", content: [{ type: "tool_result", tool_use_id: m.tool_call_id,
      content: m.content.map(part) }] }
  : { role: m.role, content: m.content.map(part) };

let client = newClient();
const tools = (sc.tools ?? []).map(tool);
let messages = [];
let last = null;
for (const step of sc.steps) {
  if (step.resume) { messages = JSON.parse(JSON.stringify(messages)); client = newClient(); }
  for (const t of step.add_tools ?? []) tools.push(tool(t));
  for (const m of step.history ?? []) messages.push(historyMessage(m));
  if (step.tool_results) {
    const calls = last.content.filter((b) => b.type === "tool_use");
    messages.push({ role: "user", content: calls.map((c, i) => ({ type: "tool_result",
      tool_use_id: c.id, content: step.tool_results[i] })) });
  }
  if (step.user !== undefined) messages.push({ role: "user", content: step.user });
  if (step.system !== undefined) messages.push({ role: "system", content: step.system });
  const params = { model: sc.model ?? "mock-model", max_tokens: sc.max_tokens ?? 512, messages };
  if (sc.system) params.system = sc.system;
  if (tools.length) params.tools = tools;
  if (sc.thinking) params.thinking = { type: "enabled", budget_tokens: 256 };
  last = sc.stream ? await client.messages.stream(params).finalMessage()
    : await client.messages.create(params);
  messages.push({ role: "assistant", content: last.content });
}
