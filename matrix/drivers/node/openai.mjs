// Matrix driver: the openai npm package (Chat Completions) performs a scenario.
// node openai.mjs SCENARIO.json; AGENT_TCK_OPENAI_BASE_URL is the audit proxy (.../v1).
import OpenAI from "openai";
import { env, readScenario } from "./common.mjs";

const sc = readScenario();
const newClient = () => new OpenAI({ baseURL: env("AGENT_TCK_OPENAI_BASE_URL"),
  apiKey: env("OPENAI_API_KEY", "placeholder"), maxRetries: 0, timeout: 30000 });
const tool = (t) => ({ type: "function", function: { name: t.name,
  description: t.description ?? "", parameters: t.parameters } });
// no reasoning or tool-call parts in user/tool content: the DeepSeek-style reasoning_content
// member and a tool_calls member carry them (the SDK sends unknown members as they are)
function historyMessage(m) {
  const text = m.content.filter((p) => p.type === "text").map((p) => p.text).join("");
  const reasoning = m.content.filter((p) => p.type === "reasoning").map((p) => p.text).join("");
  const calls = m.content.filter((p) => p.type === "tool_call").map((p) => ({ id: p.id,
    type: "function", function: { name: p.name, arguments: JSON.stringify(p.input) } }));
  const out = { role: m.role, content: text || null };
  if (m.role === "tool") out.tool_call_id = m.tool_call_id;
  if (reasoning && m.role !== "assistant") out.reasoning_content = reasoning;
  if (calls.length) out.tool_calls = calls;
  return out;
}

async function streamed(client, params) {
  let content = "";
  const calls = [];
  const stream = await client.chat.completions.create({ ...params, stream: true });
  for await (const chunk of stream) {
    const delta = chunk.choices?.[0]?.delta;
    if (!delta) continue;
    content += delta.content ?? "";
    for (const tc of delta.tool_calls ?? []) {
      const slot = (calls[tc.index] ??= { id: "", type: "function", function: { name: "", arguments: "" } });
      if (tc.id) slot.id = tc.id;
      if (tc.function?.name) slot.function.name = tc.function.name;
      slot.function.arguments += tc.function?.arguments ?? "";
    }
  }
  const message = { role: "assistant", content: content || null };
  if (calls.length) message.tool_calls = calls.filter(Boolean);
  return message;
}

let client = newClient();
const tools = (sc.tools ?? []).map(tool);
let messages = sc.system ? [{ role: "system", content: sc.system }] : [];
let last = null;
for (const step of sc.steps) {
  if (step.resume) { messages = JSON.parse(JSON.stringify(messages)); client = newClient(); }
  for (const t of step.add_tools ?? []) tools.push(tool(t));
  for (const m of step.history ?? []) messages.push(historyMessage(m));
  if (step.tool_results) {
    (last.tool_calls ?? []).forEach((c, i) => messages.push({ role: "tool", tool_call_id: c.id,
      content: step.tool_results[i] }));
  }
  if (step.user !== undefined) messages.push({ role: "user", content: step.user });
  if (step.system !== undefined) messages.push({ role: "system", content: step.system });
  const params = { model: sc.model ?? "mock-model", messages,
    max_completion_tokens: sc.max_tokens ?? 512 };
  if (tools.length) params.tools = tools;
  if (sc.thinking) params.reasoning_effort = "low";
  last = sc.stream ? await streamed(client, params)
    : (await client.chat.completions.create(params)).choices[0].message;
  messages.push(last);
}
