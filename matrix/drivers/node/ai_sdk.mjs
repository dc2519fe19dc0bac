// Matrix driver: the `ai` package (Vercel AI SDK) with @ai-sdk/anthropic (Messages) or
// @ai-sdk/openai's chat model (Chat Completions) performs a scenario (docs/MATRIX.md).
// The history is kept as the SDK's own ModelMessages: the replies are appended as
// `response.messages` hands them back, which is the SDK's documented way to go on.
import { generateText, jsonSchema, streamText, tool } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { env, readScenario, unsupported } from "./common.mjs";

const sc = readScenario();
const model = sc.api === "anthropic"
  ? createAnthropic({ baseURL: env("AGENT_TCK_ANTHROPIC_BASE_URL") + "/v1",
      apiKey: env("ANTHROPIC_API_KEY", "placeholder") })(sc.model ?? "mock-model")
  : createOpenAI({ baseURL: env("AGENT_TCK_OPENAI_BASE_URL"),
      apiKey: env("OPENAI_API_KEY", "placeholder") }).chat(sc.model ?? "mock-model");

const tools = {};
const addTool = (t) => { tools[t.name] = tool({ description: t.description ?? "",
  inputSchema: jsonSchema(t.parameters) }); };

// ModelMessage user content is text, image or file parts; tool results hold output only
function historyMessage(m) {
  if (m.role === "assistant") {
    return { role: "assistant", content: m.content.map((p) => p.type === "text"
      ? { type: "text", text: p.text }
      : p.type === "reasoning" ? { type: "reasoning", text: p.text }
      : { type: "tool-call", toolCallId: p.id, toolName: p.name, input: p.input }) };
  }
  const other = m.content.find((p) => p.type !== "text");
  if (other) unsupported(`a ${m.role} message cannot hold a ${other.type} part in ModelMessage`);
  const text = m.content.map((p) => p.text).join("");
  return m.role === "tool"
    ? { role: "tool", content: [{ type: "tool-result", toolCallId: m.tool_call_id,
        toolName: m.tool_name ?? "tool", output: { type: "text", value: text } }] }
    : { role: "user", content: [{ type: "text", text }] };
}

for (const t of sc.tools ?? []) addTool(t);
let messages = [];
let pendingCalls = [];
for (const step of sc.steps) {
  if (step.resume) messages = JSON.parse(JSON.stringify(messages));
  for (const t of step.add_tools ?? []) addTool(t);
  for (const m of step.history ?? []) messages.push(historyMessage(m));
  if (step.tool_results) {
    messages.push({ role: "tool", content: pendingCalls.map((c, i) => ({ type: "tool-result",
      toolCallId: c.toolCallId, toolName: c.toolName,
      output: { type: "text", value: step.tool_results[i] } })) });
  }
  if (step.user !== undefined) messages.push({ role: "user", content: step.user });
  if (step.system !== undefined) messages.push({ role: "system", content: step.system });
  const options = { model, messages, maxRetries: 0, maxOutputTokens: sc.max_tokens ?? 512,
    allowSystemInMessages: true };
  if (sc.system) options.instructions = sc.system;
  if (Object.keys(tools).length) options.tools = { ...tools };
  if (sc.thinking) {
    options.providerOptions = sc.api === "anthropic"
      ? { anthropic: { thinking: { type: "enabled", budgetTokens: 256 } } }
      : { openai: { reasoningEffort: "low" } };
  }
  let response, toolCalls;
  if (sc.stream) {
    const result = streamText({ ...options, onError: ({ error }) => { throw error; } });
    await result.consumeStream();
    response = await result.response;
    toolCalls = await result.toolCalls;
  } else {
    const result = await generateText(options);
    response = result.response;
    toolCalls = result.toolCalls;
  }
  messages.push(...response.messages);
  pendingCalls = toolCalls;
}
