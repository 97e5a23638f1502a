// Translation between the harness's request (parsed into one Conversation, whatever its dialect) and a
// provider's wire format: the request body for the provider's dialect, and the provider's answer (JSON
// or SSE) back to one Output the endpoint encodes in the harness's dialect. Pure: no I/O here.
//
// Hosted tools (web_search, code interpreter) are never forwarded: a provider would run them outside the
// trial's sandbox, where nothing is recorded.
import { sseDataTexts } from '../../sse.js';
import type { Conversation, Dialect, Message } from '../conversation.js';
import { parseArgs } from '../conversation.js';
import { arr, isObj, num, type Obj, obj, str } from '../untyped.js';
import { fromGemini, geminiRequest } from './gemini.js';

export interface ProviderCall {
  id: string;
  /** Qualified tool name as the Conversation names it (`ns__inner` for namespaced tools). */
  name: string;
  args: unknown;
}

export type ProviderOutput =
  | { kind: 'tool_calls'; calls: ProviderCall[]; text?: string }
  | { kind: 'text'; text: string };

export interface ProviderAnswer {
  output: ProviderOutput;
  usage: { input_tokens: number; output_tokens: number };
}

export interface RequestSettings {
  model: string;
  temperature?: number;
  max_tokens?: number;
  stream: boolean;
}

const argsText = (args: unknown): string => (typeof args === 'string' ? args : JSON.stringify(args ?? {}));

/** Anthropic requires max_tokens; the other dialects get it only when set. */
export const DEFAULT_MAX_TOKENS = 4096;

/** The provider request body for `target`, built from the harness's conversation. */
export function providerRequest(conv: Conversation, target: Dialect, s: RequestSettings): Obj {
  const tools = conv.tools.filter((t) => t.callable);
  const opt = {
    ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
  };
  switch (target) {
    case 'anthropic-messages':
      return {
        model: s.model,
        max_tokens: s.max_tokens ?? DEFAULT_MAX_TOKENS,
        ...opt,
        ...(conv.system ? { system: conv.system } : {}),
        messages: anthropicMessages(conv.messages),
        ...(tools.length
          ? {
              tools: tools.map((t) => ({
                name: t.name,
                description: t.description,
                input_schema: schemaOf(t.schema),
              })),
            }
          : {}),
        ...(conv.outputSchema !== undefined
          ? { output_format: { type: 'json_schema', schema: conv.outputSchema } }
          : {}),
        stream: s.stream,
      };
    case 'openai-chat':
      return {
        model: s.model,
        ...opt,
        ...(s.max_tokens !== undefined ? { max_tokens: s.max_tokens } : {}),
        messages: [
          ...(conv.system ? [{ role: 'system', content: conv.system }] : []),
          ...chatMessages(conv.messages),
        ],
        ...(tools.length
          ? {
              tools: tools.map((t) => ({
                type: 'function',
                function: { name: t.name, description: t.description, parameters: schemaOf(t.schema) },
              })),
            }
          : {}),
        ...(conv.outputSchema !== undefined
          ? {
              response_format: {
                type: 'json_schema',
                json_schema: { name: 'answer', schema: conv.outputSchema },
              },
            }
          : {}),
        stream: s.stream,
        ...(s.stream ? { stream_options: { include_usage: true } } : {}),
      };
    case 'openai-responses':
      return {
        model: s.model,
        ...opt,
        ...(s.max_tokens !== undefined ? { max_output_tokens: s.max_tokens } : {}),
        ...(conv.system ? { instructions: conv.system } : {}),
        input: responsesInput(conv.messages),
        ...(tools.length
          ? {
              tools: tools.map((t) => ({
                type: 'function',
                name: t.name,
                description: t.description,
                parameters: schemaOf(t.schema),
              })),
            }
          : {}),
        ...(conv.outputSchema !== undefined
          ? { text: { format: { type: 'json_schema', name: 'answer', schema: conv.outputSchema } } }
          : {}),
        store: false,
        stream: s.stream,
      };
    case 'gemini':
      return geminiRequest(conv, tools, schemaOf, s);
  }
}

/** A tool without a schema still needs an object schema on every provider. */
const schemaOf = (schema: unknown): unknown =>
  isObj(schema) && Object.keys(schema).length ? schema : { type: 'object', properties: {} };

function anthropicMessages(messages: Message[]): Obj[] {
  const out: { role: 'user' | 'assistant'; content: Obj[] }[] = [];
  const add = (role: 'user' | 'assistant', blocks: Obj[]) => {
    if (!blocks.length) return;
    const last = out.at(-1);
    // Anthropic wants alternating turns: a tool turn and the user text after it are one user turn.
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === 'assistant') {
      add('assistant', [
        ...(m.text ? [{ type: 'text', text: m.text }] : []),
        ...m.toolCalls.map((c) => ({
          type: 'tool_use',
          id: c.id,
          name: c.name,
          input: isObj(c.args) ? c.args : {},
        })),
      ]);
    } else if (m.role === 'tool') {
      add(
        'user',
        m.toolResults.map((r) => ({
          type: 'tool_result',
          tool_use_id: r.callId,
          content: r.text,
          ...(r.isError ? { is_error: true } : {}),
        })),
      );
    } else {
      add('user', m.text ? [{ type: 'text', text: m.text }] : []);
    }
  }
  return out;
}

function chatMessages(messages: Message[]): Obj[] {
  const out: Obj[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') {
      out.push({
        role: 'assistant',
        content: m.text || null,
        ...(m.toolCalls.length
          ? {
              tool_calls: m.toolCalls.map((c) => ({
                id: c.id,
                type: 'function',
                function: { name: c.name, arguments: argsText(c.args) },
              })),
            }
          : {}),
      });
    } else if (m.role === 'tool') {
      for (const r of m.toolResults) out.push({ role: 'tool', tool_call_id: r.callId, content: r.text });
    } else if (m.text) {
      out.push({ role: 'user', content: m.text });
    }
  }
  return out;
}

function responsesInput(messages: Message[]): Obj[] {
  const out: Obj[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') {
      if (m.text)
        out.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: m.text }] });
      for (const c of m.toolCalls)
        out.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: argsText(c.args) });
    } else if (m.role === 'tool') {
      for (const r of m.toolResults)
        out.push({ type: 'function_call_output', call_id: r.callId, output: r.text });
    } else if (m.text) {
      out.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text: m.text }] });
    }
  }
  return out;
}

// ---- the provider's answer ----

export class AnswerError extends Error {}

/** The provider's answer body (JSON, or SSE when `sse`) in its dialect, as one Output. */
export function parseProviderAnswer(dialect: Dialect, body: string, sse: boolean): ProviderAnswer {
  if (sse) return parseStream(dialect, sseData(body));
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (e) {
    throw new AnswerError(`provider answered with malformed JSON: ${(e as Error).message}`);
  }
  switch (dialect) {
    case 'anthropic-messages':
      return fromAnthropic(obj(value));
    case 'openai-chat':
      return fromChat(obj(value));
    case 'openai-responses':
      return fromResponses(obj(value));
    case 'gemini':
      // streamGenerateContent without alt=sse answers one JSON array of responses.
      return geminiAnswer(Array.isArray(value) ? value.map(obj) : [obj(value)]);
  }
}

function geminiAnswer(responses: Obj[]): ProviderAnswer {
  const { text, calls, usage } = fromGemini(responses);
  return { output: output(text, calls), usage };
}

function output(text: string, calls: ProviderCall[]): ProviderOutput {
  return calls.length ? { kind: 'tool_calls', calls, ...(text ? { text } : {}) } : { kind: 'text', text };
}

function fromAnthropic(msg: Obj): ProviderAnswer {
  const blocks = arr(msg.content).map(obj);
  const text = blocks
    .filter((b) => b.type === 'text')
    .map((b) => str(b.text))
    .join('');
  const calls = blocks
    .filter((b) => b.type === 'tool_use')
    .map((b) => ({ id: str(b.id), name: str(b.name), args: b.input ?? {} }));
  const u = obj(msg.usage);
  return {
    output: output(text, calls),
    usage: { input_tokens: num(u.input_tokens), output_tokens: num(u.output_tokens) },
  };
}

function fromChat(completion: Obj): ProviderAnswer {
  const message = obj(obj(arr(completion.choices)[0]).message);
  const calls = arr(message.tool_calls)
    .map(obj)
    .map((c) => ({
      id: str(c.id),
      name: str(obj(c.function).name),
      args: parseArgs(obj(c.function).arguments),
    }));
  const u = obj(completion.usage);
  return {
    output: output(str(message.content), calls),
    usage: { input_tokens: num(u.prompt_tokens), output_tokens: num(u.completion_tokens) },
  };
}

function fromResponses(response: Obj): ProviderAnswer {
  const items = arr(response.output).map(obj);
  const text = items
    .filter((i) => i.type === 'message')
    .flatMap((i) => arr(i.content).map(obj))
    .filter((p) => p.type === 'output_text')
    .map((p) => str(p.text))
    .join('');
  const calls = items
    .filter((i) => i.type === 'function_call')
    .map((i) => ({
      id: str(i.call_id) || str(i.id),
      name: i.namespace ? `${str(i.namespace)}__${str(i.name)}` : str(i.name),
      args: parseArgs(i.arguments),
    }));
  const u = obj(response.usage);
  return {
    output: output(text, calls),
    usage: { input_tokens: num(u.input_tokens), output_tokens: num(u.output_tokens) },
  };
}

/** The `data:` payloads of an SSE body, parsed (`[DONE]` and non-JSON lines dropped). */
export function sseData(body: string): Obj[] {
  const out: Obj[] = [];
  for (const data of sseDataTexts(body)) {
    if (!data || data === '[DONE]') continue;
    try {
      const v = JSON.parse(data);
      if (isObj(v)) out.push(v);
    } catch {
      // A keep-alive or comment line: nothing to read.
    }
  }
  return out;
}

function parseStream(dialect: Dialect, events: Obj[]): ProviderAnswer {
  const streamError = events.find((e) => e.type === 'error' || (isObj(e.error) && !e.choices));
  if (streamError)
    throw new AnswerError(
      `provider stream error: ${str(obj(streamError.error).message) || JSON.stringify(streamError)}`,
    );
  switch (dialect) {
    case 'anthropic-messages':
      return anthropicStream(events);
    case 'openai-chat':
      return chatStream(events);
    case 'openai-responses': {
      // The completed event carries the whole response; the deltas before it say nothing more.
      const done = events.find((e) => e.type === 'response.completed');
      if (!done) throw new AnswerError('provider stream ended without response.completed');
      return fromResponses(obj(done.response));
    }
    case 'gemini':
      return geminiAnswer(events);
  }
}

function anthropicStream(events: Obj[]): ProviderAnswer {
  const blocks: { type: string; text: string; id: string; name: string; json: string }[] = [];
  let input = 0;
  let outputTokens = 0;
  for (const e of events) {
    if (e.type === 'message_start') input = num(obj(obj(e.message).usage).input_tokens);
    else if (e.type === 'content_block_start') {
      const b = obj(e.content_block);
      blocks[num(e.index)] = {
        type: str(b.type),
        text: str(b.text),
        id: str(b.id),
        name: str(b.name),
        json: '',
      };
    } else if (e.type === 'content_block_delta') {
      const b = blocks[num(e.index)];
      const d = obj(e.delta);
      if (!b) continue;
      if (d.type === 'text_delta') b.text += str(d.text);
      if (d.type === 'input_json_delta') b.json += str(d.partial_json);
    } else if (e.type === 'message_delta') outputTokens = num(obj(e.usage).output_tokens);
  }
  const text = blocks
    .filter((b) => b?.type === 'text')
    .map((b) => b.text)
    .join('');
  const calls = blocks
    .filter((b) => b?.type === 'tool_use')
    .map((b) => ({ id: b.id, name: b.name, args: parseArgs(b.json) }));
  return { output: output(text, calls), usage: { input_tokens: input, output_tokens: outputTokens } };
}

function chatStream(events: Obj[]): ProviderAnswer {
  let text = '';
  const calls: { id: string; name: string; args: string }[] = [];
  let usage = { input_tokens: 0, output_tokens: 0 };
  for (const chunk of events) {
    const delta = obj(obj(arr(chunk.choices)[0]).delta);
    text += str(delta.content);
    for (const tc of arr(delta.tool_calls).map(obj)) {
      const i = num(tc.index);
      calls[i] ??= { id: '', name: '', args: '' };
      const fn = obj(tc.function);
      if (tc.id) calls[i].id = str(tc.id);
      calls[i].name += str(fn.name);
      calls[i].args += str(fn.arguments);
    }
    if (isObj(chunk.usage))
      usage = {
        input_tokens: num(chunk.usage.prompt_tokens),
        output_tokens: num(chunk.usage.completion_tokens),
      };
  }
  return {
    output: output(
      text,
      calls.filter(Boolean).map((c) => ({ id: c.id, name: c.name, args: parseArgs(c.args) })),
    ),
    usage,
  };
}

/** The provider's error message out of its error body (any of the four shapes), else the body's head. */
export function providerErrorMessage(body: string): string {
  try {
    const v = obj(JSON.parse(body));
    const e = v.error;
    if (typeof e === 'string') return e;
    const m = str(obj(e).message) || str(v.message);
    if (m) return m;
  } catch {
    // Not JSON: the text itself says it.
  }
  return body.trim().slice(0, 300) || '(empty body)';
}
