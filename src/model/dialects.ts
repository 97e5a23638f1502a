// Encoding the model's answer on the wire, in the shapes real harnesses accept (see HARNESSES.md):
// Anthropic Messages SSE, OpenAI Responses SSE, OpenAI Chat Completions SSE, Gemini generateContent (SSE or
// one JSON array when streamed), and plain JSON when a request did not ask to stream. Everything here is
// deterministic: ids and timestamps come from the caller, so the same answer always gives the same bytes.
// Attack and owner calls go through the same code with the same fields in the same order: nothing but the
// call's name and arguments differs.
import type { Conversation, Dialect } from './conversation.js';
import type { ResponseIds } from './ids.js';

export interface WireCall {
  id: string;
  /** The Responses API's function_call item id (`fc_…`); other dialects have none. */
  itemId?: string;
  name: string;
  /** Responses: the namespace of a namespaced tool (then `name` is the inner tool's). */
  namespace?: string;
  args: unknown;
}

export type Output = { kind: 'tool_calls'; calls: WireCall[] } | { kind: 'text'; text: string };

export interface Encoded {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface EncodeMeta {
  /** This response's ids, already in the dialect's format (see CallLedger.responseIds). */
  ids: ResponseIds;
  /** Unix seconds shown as the creation time. */
  created: number;
  /** Plausible token counts for the usage fields. */
  inputTokens: number;
  outputTokens: number;
}

const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };
const JSON_HEADERS = { 'content-type': 'application/json' };

/** One SSE event; `event:` lines only where the dialect uses them (not in Chat Completions). */
export function sseEvent(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
}

/** Arguments on the wire are a JSON object text; a raw string stays as it is. */
const argsText = (args: unknown): string => (typeof args === 'string' ? args : JSON.stringify(args ?? {}));

/** Rough token estimate (4 characters a token), never zero. */
export const estimateTokens = (text: string): number => Math.max(1, Math.ceil(text.length / 4));

export function encodeResponse(conv: Conversation, out: Output, meta: EncodeMeta): Encoded {
  const stream = conv.stream;
  switch (conv.dialect) {
    case 'anthropic-messages':
      return stream ? sse(anthropicEvents(conv, out, meta)) : json(anthropicMessage(conv, out, meta, true));
    case 'openai-responses':
      return stream
        ? sse(responsesEvents(conv, out, meta))
        : json(responsesObject(conv, out, meta, 'completed'));
    case 'openai-chat':
      return stream ? sse(chatChunks(conv, out, meta)) : json(chatCompletion(conv, out, meta));
    case 'gemini': {
      // The whole answer in one chunk, as Gemini sends a short answer: SSE, or a one-element JSON array.
      const response = geminiResponse(conv, out, meta);
      if (!stream) return json(response);
      return conv.streamAs === 'json-array' ? json([response]) : sse(sseEvent(response));
    }
  }
}

const sse = (body: string): Encoded => ({ status: 200, headers: SSE_HEADERS, body });
const json = (value: unknown, status = 200): Encoded => ({
  status,
  headers: JSON_HEADERS,
  body: JSON.stringify(value),
});

// ---- Anthropic Messages ----

function anthropicUsage(meta: EncodeMeta, output: number) {
  return {
    input_tokens: meta.inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: output,
  };
}

const anthropicStop = (out: Output): string => (out.kind === 'tool_calls' ? 'tool_use' : 'end_turn');

function anthropicMessage(conv: Conversation, out: Output, meta: EncodeMeta, complete: boolean) {
  const content =
    out.kind === 'text'
      ? [{ type: 'text', text: out.text }]
      : out.calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.args ?? {} }));
  return {
    id: meta.ids.response,
    type: 'message',
    role: 'assistant',
    model: conv.model,
    content: complete ? content : [],
    stop_reason: complete ? anthropicStop(out) : null,
    stop_sequence: null,
    usage: anthropicUsage(meta, complete ? meta.outputTokens : 1),
  };
}

/** message_start → one block per call or text (start, one delta, stop) → message_delta → message_stop. */
function anthropicEvents(conv: Conversation, out: Output, meta: EncodeMeta): string {
  const events: [string, unknown][] = [
    ['message_start', { type: 'message_start', message: anthropicMessage(conv, out, meta, false) }],
  ];
  const blocks: [unknown, unknown][] =
    out.kind === 'text'
      ? [
          [
            { type: 'text', text: '' },
            { type: 'text_delta', text: out.text },
          ],
        ]
      : out.calls.map((c) => [
          { type: 'tool_use', id: c.id, name: c.name, input: {} },
          { type: 'input_json_delta', partial_json: argsText(c.args) },
        ]);
  blocks.forEach(([block, delta], index) => {
    events.push(['content_block_start', { type: 'content_block_start', index, content_block: block }]);
    events.push(['content_block_delta', { type: 'content_block_delta', index, delta }]);
    events.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  events.push([
    'message_delta',
    {
      type: 'message_delta',
      delta: { stop_reason: anthropicStop(out), stop_sequence: null },
      usage: { output_tokens: meta.outputTokens },
    },
  ]);
  events.push(['message_stop', { type: 'message_stop' }]);
  return events.map(([name, data]) => sseEvent(data, name)).join('');
}

// ---- OpenAI Responses ----

type ResponseItem = Record<string, unknown>;

function responsesItems(out: Output, meta: EncodeMeta): ResponseItem[] {
  if (out.kind === 'text') {
    return [
      {
        id: meta.ids.message,
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: out.text, annotations: [] }],
      },
    ];
  }
  return out.calls.map((c) => ({
    id: c.itemId ?? c.id,
    type: 'function_call',
    status: 'completed',
    arguments: argsText(c.args),
    call_id: c.id,
    name: c.name,
    ...(c.namespace ? { namespace: c.namespace } : {}),
  }));
}

function responsesObject(
  conv: Conversation,
  out: Output,
  meta: EncodeMeta,
  status: 'in_progress' | 'completed',
) {
  const done = status === 'completed';
  return {
    id: meta.ids.response,
    object: 'response',
    created_at: meta.created,
    status,
    error: null,
    incomplete_details: null,
    model: conv.model,
    output: done ? responsesItems(out, meta) : [],
    parallel_tool_calls: false,
    tool_choice: 'auto',
    tools: [],
    usage: done
      ? {
          input_tokens: meta.inputTokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: meta.outputTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: meta.inputTokens + meta.outputTokens,
        }
      : null,
  };
}

/** The item's own events between output_item.added and output_item.done, as the real API streams them. */
function itemEvents(item: ResponseItem, output_index: number): Record<string, unknown>[] {
  const item_id = item.id;
  if (item.type === 'function_call') {
    return [
      { type: 'response.function_call_arguments.delta', item_id, output_index, delta: item.arguments },
      { type: 'response.function_call_arguments.done', item_id, output_index, arguments: item.arguments },
    ];
  }
  const part = (item.content as { text: string }[])[0];
  const at = { item_id, output_index, content_index: 0 };
  return [
    { type: 'response.content_part.added', ...at, part: { type: 'output_text', text: '', annotations: [] } },
    { type: 'response.output_text.delta', ...at, delta: part.text },
    { type: 'response.output_text.done', ...at, text: part.text },
    { type: 'response.content_part.done', ...at, part },
  ];
}

/** created → in_progress → per item (added, its deltas, done) → completed with the whole response. */
function responsesEvents(conv: Conversation, out: Output, meta: EncodeMeta): string {
  const events: Record<string, unknown>[] = [
    { type: 'response.created', response: responsesObject(conv, out, meta, 'in_progress') },
    { type: 'response.in_progress', response: responsesObject(conv, out, meta, 'in_progress') },
  ];
  responsesItems(out, meta).forEach((item, output_index) => {
    const started =
      item.type === 'function_call'
        ? { ...item, status: 'in_progress', arguments: '' }
        : { ...item, status: 'in_progress', content: [] };
    events.push({ type: 'response.output_item.added', output_index, item: started });
    events.push(...itemEvents(item, output_index));
    events.push({ type: 'response.output_item.done', output_index, item });
  });
  events.push({ type: 'response.completed', response: responsesObject(conv, out, meta, 'completed') });
  return events.map((e, sequence_number) => sseEvent({ ...e, sequence_number }, e.type as string)).join('');
}

// ---- OpenAI Chat Completions ----

const chatFinish = (out: Output): string => (out.kind === 'tool_calls' ? 'tool_calls' : 'stop');

function chatUsage(meta: EncodeMeta) {
  return {
    prompt_tokens: meta.inputTokens,
    completion_tokens: meta.outputTokens,
    total_tokens: meta.inputTokens + meta.outputTokens,
  };
}

const chatToolCalls = (calls: WireCall[]) =>
  calls.map((c, index) => ({
    index,
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: argsText(c.args) },
  }));

/**
 * One chunk with the whole answer (OpenClaw and pi accept a tool call in a single chunk), one with the
 * finish reason and usage, then [DONE].
 */
function chatChunks(conv: Conversation, out: Output, meta: EncodeMeta): string {
  const head = {
    id: meta.ids.response,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: conv.model,
  };
  const delta =
    out.kind === 'text'
      ? { role: 'assistant', content: out.text }
      : { role: 'assistant', tool_calls: chatToolCalls(out.calls) };
  const chunks = [
    { ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: null }] },
    {
      ...head,
      choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: chatFinish(out) }],
      usage: chatUsage(meta),
    },
  ];
  return `${chunks.map((c) => sseEvent(c)).join('')}data: [DONE]\n\n`;
}

function chatCompletion(conv: Conversation, out: Output, meta: EncodeMeta) {
  const message =
    out.kind === 'text'
      ? { role: 'assistant', content: out.text }
      : {
          role: 'assistant',
          content: null,
          tool_calls: chatToolCalls(out.calls).map(({ index, ...c }) => c),
        };
  return {
    id: meta.ids.response,
    object: 'chat.completion',
    created: meta.created,
    model: conv.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: chatFinish(out) }],
    usage: chatUsage(meta),
  };
}

// ---- Gemini generateContent ----

/** Gemini ends a turn with STOP whether it answered in text or with function calls. */
function geminiResponse(conv: Conversation, out: Output, meta: EncodeMeta) {
  const parts =
    out.kind === 'text'
      ? [{ text: out.text }]
      : out.calls.map((c) => ({ functionCall: { id: c.id, name: c.name, args: c.args ?? {} } }));
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: {
      promptTokenCount: meta.inputTokens,
      candidatesTokenCount: meta.outputTokens,
      totalTokenCount: meta.inputTokens + meta.outputTokens,
    },
    modelVersion: conv.model,
    responseId: meta.ids.response,
  };
}

/** google.rpc status names of the HTTP statuses the endpoint answers with. */
const GEMINI_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'INVALID_ARGUMENT',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  503: 'UNAVAILABLE',
};

// ---- errors and the model list ----

/** An error in the dialect's own error shape, so the harness reports it instead of choking on it. */
export function encodeError(dialect: Dialect, status: number, message: string): Encoded {
  if (dialect === 'anthropic-messages') {
    return json({ type: 'error', error: { type: 'invalid_request_error', message } }, status);
  }
  if (dialect === 'gemini') {
    const name = GEMINI_STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');
    return json({ error: { code: status, message, status: name } }, status);
  }
  return json({ error: { message, type: 'invalid_request_error', param: null, code: null } }, status);
}

/** GET /v1/models in a shape both OpenAI clients (object/owned_by) and Anthropic clients (type/display_name) read. */
export function encodeModels(ids: string[], created: number): Encoded {
  const data = ids.map(modelEntry(created));
  return json({
    object: 'list',
    data,
    has_more: false,
    first_id: ids[0] ?? null,
    last_id: ids.at(-1) ?? null,
  });
}

export function encodeModel(id: string, created: number): Encoded {
  return json(modelEntry(created)(id));
}

const modelEntry = (created: number) => (id: string) => ({
  id,
  object: 'model',
  type: 'model',
  display_name: id,
  created,
  created_at: new Date(created * 1000).toISOString(),
  owned_by: 'harness-risk',
});
