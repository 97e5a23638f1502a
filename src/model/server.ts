// The model endpoint of a trial: the routes under /v1/ (and Gemini's /v1beta/) of the per-trial server. It
// parses the request of whichever dialect the harness speaks, lets the scripted policy decide, answers on
// the wire and records the exchange (tools offered, results received, trigger visibility, the answer) as
// evidence. `answerRequest` is the pure core; the handler only does the HTTP.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EvidenceRecorder } from '../evidence/recorder.js';
import { callKey, type ModelExchange, type ScriptContext, type ToolCallRecord } from '../evidence/types.js';
import {
  type Conversation,
  DEFAULT_MODEL,
  type Dialect,
  parseConversation,
  RequestError,
} from './conversation.js';
import {
  type Encoded,
  encodeError,
  encodeModel,
  encodeModels,
  encodeResponse,
  estimateTokens,
  type Output,
} from './dialects.js';
import { geminiMethod, geminiUrlFacts, withoutKey } from './gemini-url.js';
import { CallLedger, withIssuedIds } from './ids.js';
import type { Backend } from './live/backend.js';
import { type Answer, type Decision, decide } from './policy.js';
import { structuredText } from './structured-answer.js';
import { properties } from './tool-schema.js';
import { type WorldProbe, worldAfter, worldBefore } from './world-check.js';

export interface ModelHandlerOptions {
  /** Model ids GET /v1/models lists (requests for any other model are served all the same). */
  models?: string[];
  /** Unix seconds shown as creation time. Fixed by default so two runs give byte-identical responses. */
  created?: number;
  /** Larger request bodies get a 413. */
  maxBodyBytes?: number;
  /** The trial's ledger (ids issued → moves); a fresh one with a random secret by default. */
  ledger?: CallLedger;
  /** Live or replay: where answers come from instead of the scripted policy (src/model/live/). */
  backend?: Backend;
  /** Called once when the backend says the trial cannot be measured (provider failed, budget ran out). */
  onFatal?: (message: string) => void;
  /** Aborts the backend's provider request when the trial ends. */
  signal?: AbortSignal;
  /**
   * What the engine can see of the trial's world while it runs: with it, a scripted call whose effect
   * the engine can see (a write, a service request) counts as executed only when that effect happened.
   */
  world?: WorldProbe;
}

export type ModelHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
export type ExchangeEntry = Omit<ModelExchange, 'seq' | 'at'>;

/** 2026-01-01T00:00:00Z. */
export const FIXED_CREATED = 1_767_225_600;
const MAX_BODY = 64 * 1024 * 1024;

const ROUTES: Record<string, Dialect> = {
  '/v1/messages': 'anthropic-messages',
  '/v1/responses': 'openai-responses',
  '/v1/chat/completions': 'openai-chat',
};

/** The dialect a model route speaks; Gemini's routes carry the model in the path. */
const dialectOf = (pathname: string): Dialect | undefined =>
  ROUTES[pathname] ?? (geminiMethod(pathname) ? 'gemini' : undefined);

/**
 * The request body as a conversation. Gemini's model and streaming come from the URL (`path`), and its
 * calls echoed without ids get the ids the ledger sent them with.
 */
function conversationOf(dialect: Dialect, path: string, rawBody: string, ledger: CallLedger): Conversation {
  const body = JSON.parse(rawBody);
  if (dialect !== 'gemini') return parseConversation(dialect, body);
  return withIssuedIds(parseConversation(dialect, body, geminiUrlFacts(path)), ledger);
}

function toOutput(answer: Answer, conv: Conversation, ledger: CallLedger): Output {
  const dialect = conv.dialect;
  if (answer.kind === 'tool_calls') {
    const itemId = () => (dialect === 'openai-responses' ? { itemId: ledger.itemId() } : {});
    // A namespaced tool is called by its inner name within its namespace (Codex's MCP tools).
    const named = (tool: string) => {
      const ns = conv.tools.find((t) => t.name === tool)?.namespace;
      return ns ? { name: tool.slice(ns.length + 2), namespace: ns } : { name: tool };
    };
    return {
      kind: 'tool_calls',
      calls: answer.calls.map((c) => ({ id: c.id, ...itemId(), ...named(c.tool), args: c.args })),
    };
  }
  // A reviewer's answer is already its schema's JSON; any other text goes out as the request's schema
  // asks (structured-answer.ts). The evidence keeps the text itself (recorded below).
  return { kind: 'text', text: answer.kind === 'review' ? answer.text : structuredText(conv, answer.text) };
}

function recorded(answer: Answer): ModelExchange['response'] {
  return answer.kind === 'tool_calls'
    ? { kind: 'tool_calls', calls: answer.calls }
    : { kind: 'text', text: answer.text };
}

const failed = (dialect: Dialect, path: string, status: number, error: string) => ({
  encoded: encodeError(dialect, status, error),
  entry: {
    dialect,
    path,
    tools: [],
    injection_visible: false,
    results: [],
    response: { kind: 'text', text: '' },
    error,
  } satisfies ExchangeEntry,
});

/** The request as a conversation, or the 400 answer that says why it is none. */
function parseRequest(
  dialect: Dialect,
  path: string,
  rawBody: string,
  ledger: CallLedger,
): { conv: Conversation } | ReturnType<typeof failed> {
  try {
    return { conv: conversationOf(dialect, path, rawBody, ledger) };
  } catch (err) {
    const why = err instanceof RequestError ? err.message : `malformed JSON: ${(err as Error).message}`;
    return failed(dialect, path, 400, why);
  }
}

/**
 * Parses, decides and encodes one model request. Deterministic given the ledger's secret and history: the
 * same requests in the same order give the same bytes.
 */
export function answerRequest(
  dialect: Dialect,
  path: string,
  rawBody: string,
  ctx: ScriptContext,
  ledger: CallLedger,
  created = FIXED_CREATED,
): { encoded: Encoded; entry: ExchangeEntry; effect?: Decision['effect'] } {
  const parsed = parseRequest(dialect, path, rawBody, ledger);
  if ('encoded' in parsed) return parsed;
  const conv = parsed.conv;
  const { answer, observed, effect } = decide(conv, ctx, ledger);
  const output = toOutput(answer, conv, ledger);
  if (answer.kind === 'tool_calls') for (const c of answer.calls) ledger.sentAs(c.id, c.tool, c.args);
  const meta = {
    ids: ledger.responseIds(dialect),
    created,
    inputTokens: estimateTokens(rawBody),
    outputTokens: estimateTokens(JSON.stringify(output)),
  };
  const entry: ExchangeEntry = {
    dialect,
    path,
    ...offered(conv),
    ...(answer.kind === 'review' ? { review: { verdict: answer.verdict } } : {}),
    injection_visible: observed.injection_visible,
    results: observed.results,
    response: recorded(answer),
    ...(observed.unmapped.length ? { unmapped: observed.unmapped } : {}),
  };
  return { encoded: encodeResponse(conv, output, meta), entry, ...(effect ? { effect } : {}) };
}

/** The tools a request offered, and the argument names each one's schema declares (doctor checks hints by them). */
function offered(conv: Conversation): Pick<ExchangeEntry, 'tools' | 'tool_args'> {
  const withArgs = conv.tools.filter((t) => t.callable);
  return {
    tools: conv.tools.map((t) => t.name),
    ...(withArgs.length
      ? { tool_args: Object.fromEntries(withArgs.map((t) => [t.name, Object.keys(properties(t))])) }
      : {}),
  };
}

/** The abstract action a live call carries out, read from the adapter's tool names (`send.mail` → send). */
function actionOf(tool: string, ctx: ScriptContext): ToolCallRecord['action'] {
  const key = Object.entries(ctx.tool_hints).find(([, h]) => h.name === tool)?.[0];
  return key ? (key.split('.')[0] as ToolCallRecord['action']) : undefined;
}

/**
 * Live and replay: parses the request, asks the backend, encodes its answer in the harness's dialect and
 * records what the scripted path records (tools, results, trigger visibility) plus the live block. The
 * scripted policy still observes the request (never answers it, unless the backend hands over to it).
 */
export async function answerLive(
  dialect: Dialect,
  path: string,
  rawBody: string,
  ctx: ScriptContext,
  ledger: CallLedger,
  backend: Backend,
  created = FIXED_CREATED,
  signal?: AbortSignal,
): Promise<{ encoded: Encoded; entry: ExchangeEntry; fatal?: string }> {
  const parsed = parseRequest(dialect, path, rawBody, ledger);
  if ('encoded' in parsed) return parsed;
  const conv = parsed.conv;
  const got = await backend(conv, ledger, signal);
  if (got.kind === 'scripted') {
    const scripted = answerRequest(dialect, path, rawBody, ctx, ledger, created);
    const response = scripted.entry.response;
    const output =
      response.kind === 'text'
        ? response
        : {
            kind: 'tool_calls' as const,
            calls: response.calls.map(({ id, tool, args }) => ({ id, tool, args })),
          };
    return { ...scripted, entry: { ...scripted.entry, live: { ...got.live, output } } };
  }
  // What the scripted model would have observed: trigger visibility and the results that came back.
  const { observed } = decide(conv, ctx, new CallLedger());
  const base = {
    dialect,
    path,
    ...offered(conv),
    injection_visible: observed.injection_visible,
    results: observed.results,
  };
  if (got.kind === 'error') {
    return {
      encoded: encodeError(dialect, got.status, got.message),
      entry: { ...base, response: { kind: 'text', text: '' }, error: got.message, live: got.live },
      fatal: got.message,
    };
  }
  const out = got.output;
  const response: ModelExchange['response'] =
    out.kind === 'text'
      ? out
      : { kind: 'tool_calls', calls: out.calls.map((c) => ({ ...c, ...withAction(actionOf(c.tool, ctx)) })) };
  const answer: Answer = out.kind === 'text' ? out : { kind: 'tool_calls', calls: out.calls };
  const output = toOutput(answer, conv, ledger);
  if (out.kind === 'tool_calls') for (const c of out.calls) ledger.sentAs(c.id, c.tool, c.args);
  const meta = {
    ids: ledger.responseIds(dialect),
    created,
    inputTokens: got.live.usage?.input_tokens || estimateTokens(rawBody),
    outputTokens: got.live.usage?.output_tokens || estimateTokens(JSON.stringify(output)),
  };
  return {
    encoded: encodeResponse(conv, output, meta),
    entry: { ...base, response, live: got.live },
  };
}

/** Judges the effect of every awaited call whose result this request carries (world-check.ts). */
async function settleEffects(
  dialect: Dialect,
  path: string,
  rawBody: string,
  ledger: CallLedger,
  world: WorldProbe,
) {
  const waiting = new Map(ledger.awaiting());
  if (!waiting.size) return;
  let conv: Conversation;
  try {
    conv = conversationOf(dialect, path, rawBody, ledger);
  } catch {
    return; // answerRequest answers the malformed request
  }
  for (const m of conv.messages)
    for (const r of m.toolResults) {
      const key = callKey(r.callId);
      const before = waiting.get(key);
      if (!before) continue;
      waiting.delete(key);
      const verdict = await worldAfter(before, world);
      if (verdict) ledger.settle(key, verdict);
    }
}

const withAction = (action: ToolCallRecord['action']) => (action ? { action } : {});

class BodyTooLarge extends Error {}

async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    // Keep draining so the client sees our answer instead of a reset connection.
    if (size <= limit) chunks.push(chunk as Buffer);
  }
  if (size > limit) throw new BodyTooLarge(`request body larger than ${limit} bytes`);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, encoded: Encoded): void {
  res.writeHead(encoded.status, { ...encoded.headers, 'content-length': Buffer.byteLength(encoded.body) });
  res.end(encoded.body);
}

/**
 * The handler for the trial endpoint. Resolves true when it answered the request, false when the path
 * is not a model route (the caller then routes it to the mock services); it never reads the body then.
 */
export function createModelHandler(
  ctx: ScriptContext,
  recorder: EvidenceRecorder,
  options: ModelHandlerOptions = {},
): ModelHandler {
  const created = options.created ?? FIXED_CREATED;
  const models = options.models ?? [DEFAULT_MODEL];
  const limit = options.maxBodyBytes ?? MAX_BODY;
  // One per handler, i.e. per trial: ids never repeat or link across trials.
  const ledger = options.ledger ?? new CallLedger();
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://model.invalid');
    const pathname = url.pathname.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    if (pathname === '/v1/models' && method === 'GET') {
      send(res, encodeModels(models, created));
      return true;
    }
    if (pathname.startsWith('/v1/models/') && method === 'GET') {
      send(res, encodeModel(decodeURIComponent(pathname.slice('/v1/models/'.length)), created));
      return true;
    }
    if (
      (pathname === '/v1/messages/count_tokens' || geminiMethod(pathname)?.method === 'countTokens') &&
      method === 'POST'
    ) {
      const body = await readBody(req, limit).catch(() => '');
      const tokens = estimateTokens(body);
      send(res, {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(
          pathname.endsWith(':countTokens') ? { totalTokens: tokens } : { input_tokens: tokens },
        ),
      });
      return true;
    }
    const dialect = dialectOf(pathname);
    if (!dialect) return false;
    if (method !== 'POST') {
      send(res, encodeError(dialect, 405, `${method} not allowed on ${pathname}; use POST`));
      return true;
    }
    // A Gemini harness may send its key as ?key=: the record keeps the route, not the key.
    const path = withoutKey(req.url ?? pathname);
    let result: { encoded: Encoded; entry: ExchangeEntry; fatal?: string; effect?: Decision['effect'] };
    try {
      const body = await readBody(req, limit);
      if (options.world && !options.backend) {
        // What the calls answered in this request did in the world, before the model reads their results.
        await settleEffects(dialect, path, body, ledger, options.world);
        result = answerRequest(dialect, path, body, ctx, ledger, created);
        const e = result.effect;
        const before = e ? await worldBefore(e.effect, options.world) : undefined;
        if (e && before) ledger.expect(e.callId, before);
      } else
        result = options.backend
          ? await answerLive(dialect, path, body, ctx, ledger, options.backend, created, options.signal)
          : answerRequest(dialect, path, body, ctx, ledger, created);
    } catch (err) {
      // A bug here must not look like a harness failure: answer 500 in the dialect's shape and record it.
      const status = err instanceof BodyTooLarge ? 413 : 500;
      result = failed(dialect, path, status, (err as Error).message);
    }
    recorder.addModel(result.entry);
    send(res, result.encoded);
    if (result.fatal) options.onFatal?.(result.fatal);
    return true;
  };
}
