// Canonical history -> provider request body, for the agent-tck operations
// `anthropic.serialize` (Anthropic Messages) and `openai.serialize` (Chat Completions).
//
// Pure functions over plain data: no I/O, no clock, no randomness, and the input is never
// modified (BO-008). Every output object is built fresh and deep-frozen. A rejection is thrown
// as a SerializeError with a stable `code` and a JSON `pointer` into the input.
//
// Written from the published contract only: vectors/block-omission/README.md (operations,
// canonical history, error codes), vectors/in-history-update/README.md,
// vectors/schema/history.schema.json and the catalogues vectors/rules/*.yaml. Rule IDs and a
// few words of spec note 000 sit beside the checks that carry them out.

'use strict';

// ---------------------------------------------------------------------------------------------
// Errors: values with a stable code, a message that says what and where, and a JSON pointer.
// ---------------------------------------------------------------------------------------------

const UNSUPPORTED_CONTENT = 'UNSUPPORTED_CONTENT';
const INVALID_HISTORY = 'INVALID_HISTORY';

class SerializeError extends Error {
  constructor(code, message, pointer) {
    super(pointer === undefined ? message : `${message} (at ${pointer === '' ? '/' : pointer})`);
    this.name = 'SerializeError';
    this.code = code;
    this.pointer = pointer === undefined ? '' : pointer;
    Object.freeze(this);
  }
}

function unsupported(message, pointer) {
  return new SerializeError(UNSUPPORTED_CONTENT, message, pointer);
}

function invalid(message, pointer) {
  return new SerializeError(INVALID_HISTORY, message, pointer);
}

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

function isObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function deepFreeze(value) {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze(value[key]);
  }
  return value;
}

// A fresh deep copy of plain JSON data (tool input schemas are passed through this way, so the
// frozen output never shares an object with the caller's input).
function copyJson(value) {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

function escapePointer(token) {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

function textOf(blocks) {
  return blocks.map((block) => block.text).join('\n');
}

// ---------------------------------------------------------------------------------------------
// Input validation: vectors/schema/history.schema.json. Anything that does not match it is
// INVALID_HISTORY (BO-D007, SHOULD), kept apart from UNSUPPORTED_CONTENT (well-formed input the
// wire cannot represent).
// ---------------------------------------------------------------------------------------------

const ROLES = ['system', 'user', 'assistant', 'tool', 'developer'];
const METADATA_KEYS = ['id', 'source', 'createdAt'];
const MESSAGE_KEYS = {
  system: ['role', 'content', ...METADATA_KEYS],
  user: ['role', 'content', ...METADATA_KEYS],
  assistant: ['role', 'content', ...METADATA_KEYS],
  developer: ['role', 'content', ...METADATA_KEYS],
  tool: ['role', 'content', 'toolCallId', 'isError', ...METADATA_KEYS],
};

// Required string members of the block types the model defines. Blocks of any other type are
// opaque plugin blocks: well formed, and judged by the serializer (UNSUPPORTED_CONTENT or omitted).
const BLOCK_STRINGS = {
  text: ['text'],
  reasoning: ['text'],
  'tool-call': ['id', 'name', 'arguments'],
  image: [],
  'tool-addition': ['toolName'],
  'tool-removal': ['toolName'],
};

function expectString(container, key, pointer, { required = true, nonEmpty = false } = {}) {
  if (!(key in container)) {
    if (required) throw invalid(`missing required member "${key}"`, pointer);
    return;
  }
  const value = container[key];
  if (typeof value !== 'string') {
    throw invalid(`"${key}" must be a string, got ${JSON.stringify(value)}`, `${pointer}/${escapePointer(key)}`);
  }
  if (nonEmpty && value.length === 0) {
    throw invalid(`"${key}" must not be empty`, `${pointer}/${escapePointer(key)}`);
  }
}

function validateBlock(block, pointer) {
  if (!isObject(block)) throw invalid('a content block must be an object', pointer);
  expectString(block, 'type', pointer, { nonEmpty: true });
  const strings = BLOCK_STRINGS[block.type];
  if (strings === undefined) return; // an opaque plugin block
  for (const key of strings) expectString(block, key, pointer);
  if (block.type === 'reasoning') expectString(block, 'signature', pointer, { required: false });
  if (block.type === 'image') {
    if (!isObject(block.attachment)) {
      throw invalid('an image block needs an "attachment" object {mediaType, data}', `${pointer}/attachment`);
    }
    expectString(block.attachment, 'mediaType', `${pointer}/attachment`);
    expectString(block.attachment, 'data', `${pointer}/attachment`);
  }
}

function validateMessage(message, pointer) {
  if (!isObject(message)) throw invalid('a message must be an object', pointer);
  if (!ROLES.includes(message.role)) {
    throw invalid(`"role" must be one of ${ROLES.join(', ')}, got ${JSON.stringify(message.role)}`, `${pointer}/role`);
  }
  const allowed = MESSAGE_KEYS[message.role];
  for (const key of Object.keys(message)) {
    if (!allowed.includes(key)) {
      throw invalid(`a ${message.role} message has no member "${key}"`, `${pointer}/${escapePointer(key)}`);
    }
  }
  expectString(message, 'id', pointer, { required: false });
  expectString(message, 'createdAt', pointer, { required: false });
  if ('source' in message && !isObject(message.source)) {
    throw invalid('"source" must be an object', `${pointer}/source`);
  }
  if (message.role === 'tool') {
    expectString(message, 'toolCallId', pointer, { nonEmpty: true });
    if ('isError' in message && typeof message.isError !== 'boolean') {
      throw invalid('"isError" must be a boolean', `${pointer}/isError`);
    }
  }
  if (!Array.isArray(message.content)) {
    throw invalid('"content" must be an array of blocks', 'content' in message ? `${pointer}/content` : pointer);
  }
  message.content.forEach((block, i) => validateBlock(block, `${pointer}/content/${i}`));
}

function validateTool(tool, pointer) {
  if (!isObject(tool)) throw invalid('a tool must be an object', pointer);
  for (const key of Object.keys(tool)) {
    if (!['name', 'description', 'inputSchema'].includes(key)) {
      throw invalid(`a tool has no member "${key}"`, `${pointer}/${escapePointer(key)}`);
    }
  }
  expectString(tool, 'name', pointer);
  expectString(tool, 'description', pointer, { required: false });
  if (!isObject(tool.inputSchema)) throw invalid('"inputSchema" must be an object', `${pointer}/inputSchema`);
}

function validateInput(input) {
  if (!isObject(input)) throw invalid('the input must be an object {history, tools?}', '');
  for (const key of Object.keys(input)) {
    if (key !== 'history' && key !== 'tools') {
      throw invalid(`the input has no member "${key}"`, `/${escapePointer(key)}`);
    }
  }
  if (!Array.isArray(input.history)) throw invalid('"history" must be an array of messages', '/history');
  input.history.forEach((message, i) => validateMessage(message, `/history/${i}`));
  if ('tools' in input) {
    if (!Array.isArray(input.tools)) throw invalid('"tools" must be an array', '/tools');
    input.tools.forEach((tool, i) => validateTool(tool, `/tools/${i}`));
  }
}

// ---------------------------------------------------------------------------------------------
// Turn structure, shared by both wire formats.
//
// The system head is the system message(s) before the first other message; each is a complete
// snapshot, so the latest one is the top-level prompt (IHU-D005). A system message after that is
// an in-history update. An assistant message closes a turn; the user messages, tool results and
// updates between two assistant messages form one input turn (BO-D005, IHU-D001). A developer
// message with empty content adds nothing and so does not end the head.
// ---------------------------------------------------------------------------------------------

function planHistory(history) {
  const entries = history
    .map((message, index) => ({ message, pointer: `/history/${index}` }))
    .filter(({ message }) => !(message.role === 'developer' && message.content.length === 0));

  let headEnd = 0;
  while (headEnd < entries.length && entries[headEnd].message.role === 'system') headEnd += 1;
  const head = entries.slice(0, headEnd);

  const turns = [];
  let input = null;
  for (const entry of entries.slice(headEnd)) {
    if (entry.message.role === 'assistant') {
      if (input !== null) turns.push(input);
      input = null;
      turns.push({ kind: 'assistant', entry });
      continue;
    }
    if (input === null) input = { kind: 'input', toolResults: [], users: [], updates: [] };
    if (entry.message.role === 'tool') input.toolResults.push(entry);
    else if (entry.message.role === 'user') input.users.push(entry);
    else input.updates.push(entry); // system (an in-history update) or developer
  }
  if (input !== null) turns.push(input);
  return { head, turns };
}

// The top-level prompt from the head: text blocks only (a non-text system block has no wire
// form), the latest snapshot wins, empty means no system prompt.
function headPrompt(head) {
  let prompt = '';
  for (const { message, pointer } of head) {
    message.content.forEach((block, i) => {
      if (block.type !== 'text') {
        throw unsupported(`a system message can only hold text blocks, not "${block.type}"`, `${pointer}/content/${i}`);
      }
    });
    prompt = textOf(message.content);
  }
  return prompt;
}

// An in-history system update: text only, never empty.
function updateText(message, pointer) {
  message.content.forEach((block, i) => {
    if (block.type !== 'text') {
      throw unsupported(`an in-history system update can only hold text blocks, not "${block.type}"`, `${pointer}/content/${i}`);
    }
  });
  const text = textOf(message.content);
  // IHU-D004: an in-history system update without text is rejected.
  if (text === '') throw unsupported('an in-history system update is empty', pointer);
  return text;
}

// Arguments are recorded as raw JSON text; the Messages wire wants the value. Arguments that are
// not a JSON object become {} (the contract says so; no vector pins it).
function parseArguments(raw) {
  try {
    const value = JSON.parse(raw);
    return isObject(value) ? value : {};
  } catch {
    return {};
  }
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages
// ---------------------------------------------------------------------------------------------

function anthropicImage(block) {
  return { type: 'image', source: { type: 'base64', media_type: block.attachment.mediaType, data: block.attachment.data } };
}

// User and tool-result input, one block. Returns the wire block, or null when it is not sent.
function anthropicInputBlock(block, pointer, where) {
  switch (block.type) {
    case 'reasoning':
    case 'tool-call':
      // BO-001..BO-004: "The Messages serializer omits reasoning and tool-call blocks from user
      // and tool-result input", by role and block type only (BO-009), never as text (BO-015)
      // and never as an error (BO-014).
      return null;
    case 'text':
      // BO-007: kept text is sent as recorded. BO-D008: an empty text block is not sent.
      return block.text === '' ? null : { type: 'text', text: block.text };
    case 'image':
      return anthropicImage(block); // BO-D006
    default:
      // BO-005 / BO-006: "rejection of other unsupported blocks"; "Unknown plugin content has
      // no Messages representation defined here."
      throw unsupported(`a "${block.type}" block has no Messages form in ${where}`, pointer);
  }
}

function anthropicUserBlocks({ message, pointer }) {
  return message.content
    .map((block, i) => anthropicInputBlock(block, `${pointer}/content/${i}`, 'user input'))
    .filter((block) => block !== null);
}

// BO-D003: a tool result is always sent with its tool_use_id (and is_error when recorded), even
// when nothing of its content is left; no text is invented for it.
function anthropicToolResult({ message, pointer }) {
  const content = message.content
    .map((block, i) => anthropicInputBlock(block, `${pointer}/content/${i}`, 'tool-result input'))
    .filter((block) => block !== null);
  const result = { type: 'tool_result', tool_use_id: message.toolCallId, content };
  if (message.isError !== undefined) result.is_error = message.isError;
  return result;
}

function anthropicAssistantBlocks({ message, pointer }) {
  const blocks = [];
  message.content.forEach((block, i) => {
    const at = `${pointer}/content/${i}`;
    switch (block.type) {
      case 'text':
        if (block.text !== '') blocks.push({ type: 'text', text: block.text });
        break;
      case 'reasoning': {
        // BO-011: "ordinary assistant reasoning and tool calls remain available".
        const thinking = { type: 'thinking', thinking: block.text };
        if (block.signature !== undefined) thinking.signature = block.signature;
        blocks.push(thinking);
        break;
      }
      case 'tool-call':
        // BO-012: the recorded id, name and arguments.
        blocks.push({ type: 'tool_use', id: block.id, name: block.name, input: parseArguments(block.arguments) });
        break;
      default:
        throw unsupported(`a "${block.type}" block has no Messages form in assistant output`, at);
    }
  });
  return blocks;
}

// A developer message is placed like an in-history update; its content is text and tool changes
// (vectors/developer-messages/README.md). Returns null when it has nothing to send.
function anthropicDeveloperBlocks({ message, pointer }) {
  const blocks = [];
  message.content.forEach((block, i) => {
    if (block.type === 'text') {
      if (block.text !== '') blocks.push({ type: 'text', text: block.text });
    } else if (block.type === 'tool-addition' || block.type === 'tool-removal') {
      const type = block.type === 'tool-addition' ? 'tool_addition' : 'tool_removal';
      blocks.push({ type, tool: { type: 'tool_reference', name: block.toolName } });
    } else {
      throw unsupported(`a "${block.type}" block has no Messages form in a developer message`, `${pointer}/content/${i}`);
    }
  });
  return blocks.length === 0 ? null : blocks;
}

function anthropicUpdate(entry) {
  if (entry.message.role === 'developer') {
    const content = anthropicDeveloperBlocks(entry);
    return content === null ? null : { role: 'system', content };
  }
  return { role: 'system', content: [{ type: 'text', text: updateText(entry.message, entry.pointer) }] };
}

function serializeAnthropic(input) {
  validateInput(input);
  const { head, turns } = planHistory(input.history);
  const messages = [];

  for (const turn of turns) {
    if (turn.kind === 'assistant') {
      const content = anthropicAssistantBlocks(turn.entry);
      if (content.length > 0) messages.push({ role: 'assistant', content });
      continue;
    }
    // BO-D005: the tool_result blocks open the user turn, the user's own blocks follow.
    // BO-D001: a user message with nothing left adds nothing; no empty user turn is sent.
    const content = [...turn.toolResults.map(anthropicToolResult), ...turn.users.flatMap(anthropicUserBlocks)];
    if (content.length > 0) messages.push({ role: 'user', content });

    // IHU-D001 / IHU-D002: updates go after the user turn of their turn, in their order,
    // before the next assistant turn or at the end of the request.
    for (const entry of turn.updates) {
      const update = anthropicUpdate(entry);
      if (update === null) continue;
      if (content.length === 0) {
        // IHU-001 / IHU-002: "rejection of an in-history update when its user input is entirely
        // omitted, both before another assistant and at request end". IHU-005 / IHU-006: it is
        // not relocated and no user message is invented. IHU-D003: nor may it come first.
        const why = messages.length === 0
          ? 'it would be the first message of the request'
          : 'all user input of its turn is omitted, so it would follow an assistant turn';
        throw unsupported(`the in-history update has no user turn to follow: ${why}`, entry.pointer);
      }
      messages.push(update);
    }
  }

  const body = { messages };
  const system = headPrompt(head); // IHU-D005, IHU-007: updates never touch the head
  if (system !== '') body.system = system;
  if (input.tools !== undefined) {
    body.tools = input.tools.map((tool) => {
      const wire = { name: tool.name };
      if (tool.description !== undefined) wire.description = tool.description;
      wire.input_schema = copyJson(tool.inputSchema);
      return wire;
    });
  }
  return deepFreeze(body);
}

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions
// ---------------------------------------------------------------------------------------------

// User and tool input, one block. Returns the wire part, or null when it is not sent.
function openaiInputPart(block, pointer, where) {
  switch (block.type) {
    case 'reasoning':
    case 'tool-call':
      // BO-001..BO-004: Chat Completions omits them too (the note credits it with doing so).
      return null;
    case 'text':
      return block.text === '' ? null : { type: 'text', text: block.text };
    case 'image':
      if (where === 'tool') {
        // Chat Completions tool messages cannot carry images. Not pinned by the contract: this
        // adapter refuses rather than silently losing the image.
        throw unsupported('a Chat Completions tool message cannot carry an image', pointer);
      }
      // BO-D006: an image_url part with a data URL.
      return { type: 'image_url', image_url: { url: `data:${block.attachment.mediaType};base64,${block.attachment.data}` } };
    default:
      // BO-D004 (SHOULD): other unsupported blocks are omitted on Chat Completions.
      return null;
  }
}

// A list of text parts as a message content: one part as its string, none as "".
function openaiTextContent(parts) {
  if (parts.length === 0) return '';
  if (parts.length === 1) return parts[0].text;
  return parts;
}

function openaiAssistant({ message, pointer }) {
  const texts = [];
  const toolCalls = [];
  message.content.forEach((block, i) => {
    switch (block.type) {
      case 'text':
        if (block.text !== '') texts.push({ type: 'text', text: block.text });
        break;
      case 'reasoning':
        break; // no rule governs how assistant reasoning travels on Chat Completions
      case 'tool-call':
        // BO-012: the recorded id, name and arguments (raw JSON text, as recorded).
        toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: block.arguments } });
        break;
      default:
        throw unsupported(`a "${block.type}" block has no Chat Completions form in assistant output`, `${pointer}/content/${i}`);
    }
  });
  if (texts.length === 0 && toolCalls.length === 0) return null;
  const wire = { role: 'assistant', content: texts.length === 0 ? null : openaiTextContent(texts) };
  if (toolCalls.length > 0) wire.tool_calls = toolCalls;
  return wire;
}

function openaiUser({ message, pointer }) {
  const parts = message.content
    .map((block, i) => openaiInputPart(block, `${pointer}/content/${i}`, 'user'))
    .filter((part) => part !== null);
  // BO-D002 (SHOULD): a user message with nothing left is not sent.
  return parts.length === 0 ? null : { role: 'user', content: parts };
}

function openaiTool({ message, pointer }) {
  const parts = message.content
    .map((block, i) => openaiInputPart(block, `${pointer}/content/${i}`, 'tool'))
    .filter((part) => part !== null);
  return { role: 'tool', tool_call_id: message.toolCallId, content: openaiTextContent(parts) };
}

// Updates and developer messages become system messages with their text. Where they go on Chat
// Completions is not pinned; this adapter puts them after the input of their turn (as on the
// Messages wire) so that tool messages stay right behind the assistant that called them.
function openaiUpdate({ message, pointer }) {
  if (message.role === 'developer') {
    message.content.forEach((block, i) => {
      if (!['text', 'tool-addition', 'tool-removal'].includes(block.type)) {
        throw unsupported(`a "${block.type}" block has no Chat Completions form in a developer message`, `${pointer}/content/${i}`);
      }
    });
    const text = textOf(message.content.filter((block) => block.type === 'text' && block.text !== ''));
    return text === '' ? null : { role: 'system', content: text };
  }
  return { role: 'system', content: updateText(message, pointer) };
}

function serializeOpenAI(input) {
  validateInput(input);
  const { head, turns } = planHistory(input.history);
  const messages = [];
  const system = headPrompt(head);
  if (system !== '') messages.push({ role: 'system', content: system });

  for (const turn of turns) {
    if (turn.kind === 'assistant') {
      const wire = openaiAssistant(turn.entry);
      if (wire !== null) messages.push(wire);
      continue;
    }
    // Tool messages follow the assistant message that called them; user input comes after.
    for (const entry of turn.toolResults) messages.push(openaiTool(entry));
    for (const entry of turn.users) {
      const wire = openaiUser(entry);
      if (wire !== null) messages.push(wire);
    }
    for (const entry of turn.updates) {
      const wire = openaiUpdate(entry);
      if (wire !== null) messages.push(wire);
    }
  }

  const body = { messages };
  if (input.tools !== undefined) {
    body.tools = input.tools.map((tool) => {
      const fn = { name: tool.name };
      if (tool.description !== undefined) fn.description = tool.description;
      fn.parameters = copyJson(tool.inputSchema);
      return { type: 'function', function: fn };
    });
  }
  return deepFreeze(body);
}

module.exports = Object.freeze({
  SerializeError,
  UNSUPPORTED_CONTENT,
  INVALID_HISTORY,
  validateInput,
  serializeAnthropic,
  serializeOpenAI,
});
