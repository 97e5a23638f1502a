// One normalized view of a model request, whatever wire dialect the harness speaks. The scripted model
// is stateless: everything it decides comes from this view, so parsing is liberal (harnesses differ in
// how they shape content, and an unknown part must never make a trial fail) and loses nothing the policy
// needs: the system text, every turn's text, every tool call and tool result, and the tools offered.
import type { ModelExchange } from '../evidence/types.js';
import { arr, isObj, type Obj, obj, str } from './untyped.js';

export type Dialect = ModelExchange['dialect'];

export interface ToolCall {
  id: string;
  name: string;
  /** Parsed JSON arguments; the raw string when they are not JSON. */
  args: unknown;
}

export interface ToolResult {
  callId: string;
  text: string;
  /** Only Anthropic carries an error flag on the wire; the OpenAI dialects always give false. */
  isError: boolean;
}

export interface Message {
  role: 'user' | 'assistant' | 'tool';
  text: string;
  /**
   * Everything the harness sent in this turn as JSON text (every field, not only text parts), where an
   * injection counts as seen. Absent for the model's own turns.
   */
  seen?: string;
  toolCalls: ToolCall[];
  toolResults: ToolResult[];
}

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON schema of the arguments ({} when the tool has none). */
  schema: unknown;
  /** False for hosted or free-form tools (web_search, custom grammar tools) that take no JSON arguments. */
  callable: boolean;
  /**
   * Responses `namespace` tools (Codex groups each MCP server's tools in one): `name` is qualified
   * (`mcp__team__lookup`); on the wire the call names the inner tool and its namespace.
   */
  namespace?: string;
  /**
   * Offered only because a tool search of this session found it (discovery.ts, loadedTools): the routes
   * of a step are computed without it, so they stay the same before and after the search.
   */
  loaded?: boolean;
}

export interface Conversation {
  dialect: Dialect;
  /** The model name the harness asked for; echoed in the response. */
  model: string;
  system: string;
  /**
   * The request outside its turns as JSON text: tool definitions (names, descriptions, schemas), metadata
   * and any other field. An injection there (an MCP tool's description) is visible to the model.
   */
  exposed?: string;
  messages: Message[];
  tools: ToolSpec[];
  stream: boolean;
  /** Gemini's streamGenerateContent without `alt=sse` streams one JSON array of responses, not SSE. */
  streamAs?: 'json-array';
  /** JSON schema the harness asked the answer to follow (structured output), if any. */
  outputSchema?: unknown;
}

export const DEFAULT_MODEL = 'harness-risk-scripted';

/** Text of a content value: a string, a part with `text`, or an array of those (images etc. give ''). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(textOf).filter(Boolean).join('\n');
  if (!isObj(content)) return '';
  if (typeof content.text === 'string') return content.text;
  // Anthropic's tool search answers with references to the tools it loaded: their names are the result.
  if (content.type === 'tool_reference' && typeof content.tool_name === 'string') return content.tool_name;
  // Nested content (Anthropic tool_result blocks inside arrays, Responses output arrays).
  if (content.content !== undefined) return textOf(content.content);
  return '';
}

/** Tool arguments arrive as a JSON string in the OpenAI dialects; keep the raw string if it is not JSON. */
export function parseArgs(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? {};
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

const emptyMessage = (role: Message['role']): Message => ({ role, text: '', toolCalls: [], toolResults: [] });

/** Appends a message, merging it into the previous one of the same role (harnesses split turns freely). */
function push(messages: Message[], next: Message): void {
  if (!next.text && !next.seen && next.toolCalls.length === 0 && next.toolResults.length === 0) return;
  const last = messages[messages.length - 1];
  if (last && last.role === next.role) {
    last.text = [last.text, next.text].filter(Boolean).join('\n');
    if (next.seen) last.seen = [last.seen, next.seen].filter(Boolean).join('\n');
    last.toolCalls.push(...next.toolCalls);
    last.toolResults.push(...next.toolResults);
    return;
  }
  messages.push(next);
}

const joinText = (...parts: string[]): string => parts.filter(Boolean).join('\n\n');

export class RequestError extends Error {}

/**
 * What the request's URL says rather than its body: Gemini names the model and whether to stream in the
 * path (`/v1beta/models/{model}:streamGenerateContent?alt=sse`); gemini-url.ts reads it.
 */
export interface UrlFacts {
  model: string;
  stream: boolean;
  streamAs?: 'json-array';
}

/** Parses a request body of the given dialect. Throws RequestError only when the body is not an object. */
export function parseConversation(dialect: Dialect, body: unknown, url?: UrlFacts): Conversation {
  if (!isObj(body)) throw new RequestError('request body must be a JSON object');
  const base = url
    ? { dialect, ...url, model: url.model || DEFAULT_MODEL }
    : { dialect, model: str(body.model) || DEFAULT_MODEL, stream: body.stream === true };
  // Everything outside the turns (tools, system, metadata, unknown fields) is where an injection can sit.
  const { messages: _m, input: _i, ...outside } = body;
  if (dialect === 'gemini') delete outside.contents;
  const exposed = JSON.stringify(outside);
  const parsed =
    dialect === 'anthropic-messages'
      ? parseAnthropic(body)
      : dialect === 'openai-responses'
        ? parseResponses(body)
        : dialect === 'gemini'
          ? parseGemini(body)
          : parseChat(body);
  const { systemTurns, ...rest } = parsed;
  return { ...base, exposed: joinText(exposed, systemTurns ?? ''), ...rest };
}

/** The raw turn as JSON text, for trigger detection across every field the harness filled in. */
const seenOf = (item: unknown): string => JSON.stringify(item);

type Parsed = Pick<Conversation, 'system' | 'messages' | 'tools' | 'outputSchema'> & {
  /** System/developer turns as raw JSON (every field, not only their text). */
  systemTurns?: string;
};

// ---- Anthropic Messages ----

function parseAnthropic(body: Obj): Parsed {
  const messages: Message[] = [];
  for (const m of arr(body.messages).map(obj)) {
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const seen = role === 'user' ? seenOf(m) : undefined;
    if (typeof m.content === 'string') {
      push(messages, { ...emptyMessage(role), text: m.content, ...(seen ? { seen } : {}) });
      continue;
    }
    const blocks = arr(m.content).map(obj);
    const text = blocks
      .filter((b) => b.type === 'text')
      .map((b) => str(b.text))
      .join('\n');
    if (role === 'assistant') {
      const toolCalls = blocks
        .filter((b) => b.type === 'tool_use' || b.type === 'server_tool_use')
        .map((b) => ({ id: str(b.id), name: str(b.name), args: b.input ?? {} }));
      push(messages, { ...emptyMessage('assistant'), text, toolCalls });
      continue;
    }
    // Tool results must come first in an Anthropic user turn; any text after them is a new user turn.
    const toolResults = blocks
      .filter((b) => b.type === 'tool_result')
      .map((b) => ({ callId: str(b.tool_use_id), text: textOf(b.content), isError: b.is_error === true }));
    // The whole raw turn is seen with the results when it has any, else with its text.
    push(messages, { ...emptyMessage('tool'), toolResults, ...(toolResults.length ? { seen } : {}) });
    push(messages, { ...emptyMessage('user'), text, ...(toolResults.length ? {} : { seen }) });
  }
  const tools = arr(body.tools)
    .map(obj)
    .map((t) => ({
      name: str(t.name),
      description: str(t.description),
      schema: t.input_schema ?? {},
      // Server tools (web_search_20250305 …) carry a versioned type and no input schema.
      callable: t.input_schema !== undefined || t.type === undefined || t.type === 'custom',
    }))
    .filter((t) => t.name);
  const format = obj(body.output_format);
  return {
    system: textOf(body.system),
    messages,
    tools,
    outputSchema: format.type === 'json_schema' ? (format.schema ?? {}) : undefined,
  };
}

// ---- OpenAI Responses ----

function parseResponses(body: Obj): Parsed {
  const messages: Message[] = [];
  const exposedTurns: string[] = [];
  let system = str(body.instructions);
  const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : arr(body.input);
  for (const item of input.map(obj)) {
    const type = item.type ?? (item.role ? 'message' : undefined);
    switch (type) {
      case 'message': {
        const text = textOf(item.content);
        if (item.role === 'system' || item.role === 'developer') {
          system = joinText(system, text);
          exposedTurns.push(seenOf(item));
        } else if (item.role === 'assistant') push(messages, { ...emptyMessage('assistant'), text });
        else push(messages, { ...emptyMessage('user'), text, seen: seenOf(item) });
        break;
      }
      case 'function_call':
      case 'custom_tool_call': {
        const id = str(item.call_id) || str(item.id);
        const args = type === 'function_call' ? parseArgs(item.arguments) : item.input;
        const name = item.namespace ? `${str(item.namespace)}__${str(item.name)}` : str(item.name);
        push(messages, { ...emptyMessage('assistant'), toolCalls: [{ id, name, args }] });
        break;
      }
      case 'local_shell_call': {
        const id = str(item.call_id) || str(item.id);
        const call = { id, name: 'local_shell', args: item.action ?? {} };
        push(messages, { ...emptyMessage('assistant'), toolCalls: [call] });
        break;
      }
      case 'function_call_output':
      case 'custom_tool_call_output':
      case 'local_shell_call_output': {
        const result = { callId: str(item.call_id), text: textOf(item.output), isError: false };
        push(messages, { ...emptyMessage('tool'), toolResults: [result], seen: seenOf(item) });
        break;
      }
      default:
        // reasoning, web_search_call, item_reference…: nothing the policy reads.
        break;
    }
  }
  const tools = arr(body.tools)
    .map(obj)
    // Codex groups an MCP server's tools in a `namespace` tool; each nested function is callable by its
    // qualified name (mcp__server + __ + tool), as the harness's tool router resolves it.
    .flatMap((t) =>
      t.type === 'namespace'
        ? arr(t.tools)
            .map(obj)
            .map((n) => ({ ...n, name: `${str(t.name)}__${str(n.name)}`, namespace: str(t.name) }))
        : [t],
    )
    .map((t) => ({
      name: str(t.name) || str(t.type),
      description: str(t.description),
      schema: t.parameters ?? {},
      callable: t.type === 'function',
      ...(t.namespace ? { namespace: str(t.namespace) } : {}),
    }))
    .filter((t) => t.name);
  const format = obj(obj(body.text).format);
  return {
    system,
    systemTurns: exposedTurns.join('\n'),
    messages,
    tools,
    outputSchema: structuredSchema(format, format.schema),
  };
}

// ---- OpenAI Chat Completions ----

function parseChat(body: Obj): Parsed {
  const messages: Message[] = [];
  const systemTurns: string[] = [];
  let system = '';
  for (const m of arr(body.messages).map(obj)) {
    const text = textOf(m.content);
    switch (m.role) {
      case 'system':
      case 'developer':
        system = joinText(system, text);
        systemTurns.push(seenOf(m));
        break;
      case 'assistant': {
        const toolCalls = arr(m.tool_calls)
          .map(obj)
          .map((c) => {
            const fn = obj(c.function);
            return { id: str(c.id), name: str(fn.name), args: parseArgs(fn.arguments) };
          });
        const legacy = obj(m.function_call);
        if (legacy.name)
          toolCalls.push({ id: '', name: str(legacy.name), args: parseArgs(legacy.arguments) });
        push(messages, { ...emptyMessage('assistant'), text, toolCalls });
        break;
      }
      case 'tool':
      case 'function': {
        const result = { callId: str(m.tool_call_id), text, isError: false };
        push(messages, { ...emptyMessage('tool'), toolResults: [result], seen: seenOf(m) });
        break;
      }
      default:
        push(messages, { ...emptyMessage('user'), text, seen: seenOf(m) });
    }
  }
  const fromTools = arr(body.tools)
    .map(obj)
    .map((t) => ({ type: t.type, fn: obj(t.function) }));
  const fromFunctions = arr(body.functions)
    .map(obj)
    .map((fn) => ({ type: 'function', fn }));
  const tools = [...fromTools, ...fromFunctions]
    .map(({ type, fn }) => ({
      name: str(fn.name) || str(type),
      description: str(fn.description),
      schema: fn.parameters ?? {},
      callable: type === 'function',
    }))
    .filter((t) => t.name);
  const format = obj(body.response_format);
  return {
    system,
    systemTurns: systemTurns.join('\n'),
    messages,
    tools,
    outputSchema: structuredSchema(format, obj(format.json_schema).schema),
  };
}

// ---- Gemini generateContent ----

/** The id prefix of a Gemini call the harness sent without an id (see withIssuedIds in ids.ts). */
export const UNNAMED_CALL = 'gemini-call-';

/** A field REST clients spell either way (`functionCall` in the SDKs, `function_call` in curl examples). */
const field = (o: Obj, camel: string): unknown =>
  o[camel] ?? o[camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];

/** A functionResponse's `response` as the text the model reads: its output (or error), else its JSON. */
function geminiResultText(response: unknown): string {
  if (typeof response === 'string') return response;
  const r = obj(response);
  const v = r.output ?? r.result ?? r.content ?? r.error;
  if (typeof v === 'string') return v;
  if (v !== undefined) return textOf(v) || JSON.stringify(v);
  return JSON.stringify(response ?? {});
}

/**
 * Gemini's functionCall may carry an id and its functionResponse echo it; a harness that echoes names
 * only gets its results paired with the earliest unanswered call of that name (the API's own rule: the
 * responses follow the calls in order), so the policy finds the call each result answers.
 */
function parseGemini(body: Obj): Parsed {
  const messages: Message[] = [];
  // Calls not answered yet; `named` when the harness gave the id (a result without an id answers a
  // call without one first).
  const pending: { id: string; name: string; named: boolean }[] = [];
  let calls = 0;
  const pairedId = (id: string, name: string): string => {
    const first = (ok: (c: (typeof pending)[number]) => boolean) => pending.findIndex(ok);
    const at = id
      ? first((c) => c.id === id)
      : [first((c) => c.name === name && !c.named), first((c) => c.name === name), 0].find((i) => i >= 0)!;
    const call = at >= 0 ? pending.splice(at, 1)[0] : undefined;
    return id || call?.id || `${UNNAMED_CALL}${calls++}`;
  };
  for (const c of arr(body.contents).map(obj)) {
    const parts = arr(c.parts).map(obj);
    const text = parts
      .filter((p) => typeof p.text === 'string' && p.thought !== true)
      .map((p) => str(p.text))
      .join('\n');
    if (c.role === 'model') {
      // A call without an id gets one of its own (unknown to the ledger, like any id a harness made up),
      // so its result stays paired with it and a provider of another dialect gets a call id.
      const fns = parts.map((p) => obj(field(p, 'functionCall'))).filter((f) => f.name !== undefined);
      const toolCalls = fns.map((f) => ({
        id: str(f.id) || `${UNNAMED_CALL}${calls++}`,
        name: str(f.name),
        args: f.args ?? {},
      }));
      pending.push(...toolCalls.map((c, i) => ({ id: c.id, name: c.name, named: Boolean(fns[i]!.id) })));
      push(messages, { ...emptyMessage('assistant'), text, toolCalls });
      continue;
    }
    const seen = seenOf(c);
    const toolResults = parts
      .map((p) => obj(field(p, 'functionResponse')))
      .filter((f) => f.name !== undefined)
      .map((f) => ({
        callId: pairedId(str(f.id), str(f.name)),
        text: geminiResultText(f.response),
        isError: isObj(f.response) && f.response.error !== undefined && f.response.output === undefined,
      }));
    push(messages, { ...emptyMessage('tool'), toolResults, ...(toolResults.length ? { seen } : {}) });
    push(messages, { ...emptyMessage('user'), text, ...(toolResults.length ? {} : { seen }) });
  }
  const tools = arr(body.tools)
    .map(obj)
    .flatMap((t) => {
      const fns = arr(field(t, 'functionDeclarations')).map(obj);
      // googleSearch, codeExecution, urlContext…: hosted tools, named by their key, never callable.
      const hosted = Object.keys(t).filter(
        (k) => k !== 'functionDeclarations' && k !== 'function_declarations',
      );
      return [
        ...fns.map((f) => ({
          name: str(f.name),
          description: str(f.description),
          schema: field(f, 'parametersJsonSchema') ?? f.parameters ?? {},
          callable: true,
        })),
        ...hosted.map((name) => ({ name, description: '', schema: {}, callable: false })),
      ];
    })
    .filter((t) => t.name);
  const instruction = field(body, 'systemInstruction');
  const config = obj(field(body, 'generationConfig'));
  const schema = field(config, 'responseJsonSchema') ?? field(config, 'responseSchema');
  const json = field(config, 'responseMimeType') === 'application/json';
  return {
    system: textOf(isObj(instruction) ? arr(instruction.parts) : instruction),
    messages,
    tools,
    outputSchema: json || schema !== undefined ? (schema ?? { type: 'object' }) : undefined,
  };
}

/** json_schema formats give their schema; json_object gives an open object schema. */
function structuredSchema(format: Obj, schema: unknown): unknown {
  if (format.type === 'json_schema') return schema ?? {};
  if (format.type === 'json_object') return { type: 'object' };
  return undefined;
}
