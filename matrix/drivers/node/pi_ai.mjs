// Matrix driver: @mariozechner/pi-ai performs a scenario (docs/MATRIX.md), with a custom
// model pointing at the audit proxy: api "anthropic-messages" or "openai-completions".
// The history is pi-ai's own Context: replies are appended as complete() returns them, tool
// results as ToolResultMessages, which is how pi-ai's agents go on.
import { complete } from "@mariozechner/pi-ai";
import { env, readScenario, unsupported } from "./common.mjs";

const sc = readScenario();
const anthropic = sc.api === "anthropic";
const model = {
  id: sc.model ?? "mock-model", name: "agent-tck mock", provider: anthropic ? "anthropic" : "openai",
  api: anthropic ? "anthropic-messages" : "openai-completions",
  baseUrl: anthropic ? env("AGENT_TCK_ANTHROPIC_BASE_URL") : env("AGENT_TCK_OPENAI_BASE_URL"),
  reasoning: Boolean(sc.thinking), input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 200000, maxTokens: sc.max_tokens ?? 512,
};
const apiKey = anthropic ? env("ANTHROPIC_API_KEY", "placeholder") : env("OPENAI_API_KEY", "placeholder");
const tool = (t) => ({ name: t.name, description: t.description ?? "", parameters: t.parameters });
const now = 1767225600000; // a fixed timestamp: pi-ai stores one per message

function historyMessage(m) {
  if (m.role === "assistant") {
    return { role: "assistant", api: model.api, provider: model.provider, model: model.id,
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: m.content.some((p) => p.type === "tool_call") ? "toolUse" : "stop",
      timestamp: now,
      content: m.content.map((p) => p.type === "text" ? { type: "text", text: p.text }
        : p.type === "reasoning" ? { type: "thinking", thinking: p.text, thinkingSignature: p.signature }
        : { type: "toolCall", id: p.id, name: p.name, arguments: p.input }) };
  }
  const other = m.content.find((p) => p.type !== "text");
  if (other) unsupported(`a pi-ai ${m.role === "tool" ? "ToolResultMessage" : "UserMessage"} holds text and images only, not a ${other.type} part`);
  const content = m.content.map((p) => ({ type: "text", text: p.text }));
  return m.role === "tool"
    ? { role: "toolResult", toolCallId: m.tool_call_id, toolName: m.tool_name ?? "tool", content,
        isError: false, timestamp: now }
    : { role: "user", content, timestamp: now };
}

const context = { messages: [], tools: (sc.tools ?? []).map(tool) };
if (sc.system) context.systemPrompt = sc.system;
let last = null;
for (const step of sc.steps) {
  if (step.system !== undefined) unsupported("pi-ai's Context has one systemPrompt and no system messages in its history");
  if (step.resume) context.messages = JSON.parse(JSON.stringify(context.messages));
  for (const t of step.add_tools ?? []) context.tools.push(tool(t));
  for (const m of step.history ?? []) context.messages.push(historyMessage(m));
  if (step.tool_results) {
    last.content.filter((b) => b.type === "toolCall").forEach((c, i) => context.messages.push({
      role: "toolResult", toolCallId: c.id, toolName: c.name,
      content: [{ type: "text", text: step.tool_results[i] }], isError: false, timestamp: now }));
  }
  if (step.user !== undefined) context.messages.push({ role: "user", content: step.user, timestamp: now });
  const options = { apiKey, maxTokens: sc.max_tokens ?? 512 };
  if (sc.thinking) Object.assign(options, anthropic ? { thinkingEnabled: true, thinkingBudgetTokens: 256 }
    : { reasoningEffort: "low" });
  last = await complete(model, context, options);
  if (last.stopReason === "error") throw new Error(`pi-ai: ${last.errorMessage}`);
  context.messages.push(last);
}
