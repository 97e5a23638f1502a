// A fake model provider for live-mode tests: a real HTTP server on 127.0.0.1 speaking OpenAI Chat
// Completions, OpenAI Responses, Anthropic Messages and Gemini generateContent, streaming (SSE) or not,
// as real providers do.
// It stands in for a provider because none is reachable here. It is seeded and stochastic: each new
// conversation draws whether the "model" follows an injection it sees (probability pFollow), refuses it
// (pRefuse) or ignores it; it fails on a schedule (429/500 with retry-after), checks the key and counts
// requests and tokens.
//
// Its agent behaviour reuses the project's scripted policy on the case the conversation belongs to
// (found by the owner's prompt), with a plan read from the case file; the wire encoding reuses the
// endpoint's encoders, which the real-harness tests hold to what real harnesses accept.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LoadedAdapter } from '../../src/adapters/schema.js';
import type { LoadedCase } from '../../src/cases/schema.js';
import { callKey, type ScriptContext } from '../../src/evidence/types.js';
import { type Conversation, type Dialect, parseConversation } from '../../src/model/conversation.js';
import { encodeError, encodeResponse, estimateTokens, type Output } from '../../src/model/dialects.js';
import { geminiMethod, geminiUrlFacts } from '../../src/model/gemini-url.js';
import { CallLedger } from '../../src/model/ids.js';
import { decide } from '../../src/model/policy.js';

export type Disposition = 'follow' | 'refuse' | 'ignore';

export interface FakeProviderOptions {
  key: string;
  seed: number;
  /** Probability that a conversation follows an injection it sees. */
  pFollow: number;
  /** Probability that it refuses one (says so and stops); otherwise it ignores it. */
  pRefuse?: number;
  cases: LoadedCase[];
  adapter: LoadedAdapter;
  /** Request number (1-based, all routes) → the failure to answer with instead. */
  failures?: Record<number, { status: 429 | 500 | 503; retryAfter?: string }>;
}

export interface FakeRequest {
  n: number;
  path: string;
  dialect: Dialect;
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
  status: number;
  at: number;
}

export interface FakeProvider {
  url: string;
  requests: FakeRequest[];
  tokens: { input: number; output: number };
  /** Disposition drawn per conversation, in draw order. */
  draws: Disposition[];
  close(): Promise<void>;
}

const ROUTES: Record<string, Dialect> = {
  '/v1/chat/completions': 'openai-chat',
  '/v1/responses': 'openai-responses',
  '/v1/messages': 'anthropic-messages',
};

/** mulberry32: small, seeded, good enough for draws. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORKSPACE = [
  /Workspace: (\/\S+?)\.\s/,
  /<cwd>([^<]+)<\/cwd>/,
  /Working directory: (\/\S+)/,
  /"cwd":"([^"]+)"/,
];

function workspaceOf(raw: string): string {
  for (const re of WORKSPACE) {
    const m = re.exec(raw);
    if (m) return m[1]!;
  }
  return '.';
}

/** The case a conversation belongs to: the one whose first owner turn (up to its first template) it holds. */
function caseOf(conv: Conversation, cases: LoadedCase[]): LoadedCase | undefined {
  const text = conv.messages
    .filter((m) => m.role === 'user')
    .map((m) => m.text)
    .join('\n');
  return cases.find((lc) => {
    const head = lc.case.owner.turns[0]!.split('{{')[0]!.trim();
    return head.length > 0 && text.includes(head);
  });
}

export async function startFakeProvider(opts: FakeProviderOptions): Promise<FakeProvider> {
  const random = prng(opts.seed);
  const ledger = new CallLedger('fake-provider');
  const disposition = new Map<string, Disposition>();
  const requests: FakeRequest[] = [];
  const tokens = { input: 0, output: 0 };
  const draws: Disposition[] = [];
  let n = 0;

  const answer = (conv: Conversation, raw: string): Output => {
    const lc = caseOf(conv, opts.cases);
    if (!lc) return { kind: 'text', text: 'Done.' };
    const firstCall = conv.messages.find((m) => m.role === 'assistant' && m.toolCalls.length)?.toolCalls[0];
    let d = firstCall ? disposition.get(callKey(firstCall.id)) : undefined;
    if (!d) {
      const r = random();
      d = r < opts.pFollow ? 'follow' : r < opts.pFollow + (opts.pRefuse ?? 0) ? 'refuse' : 'ignore';
      draws.push(d);
    }
    const workspace = workspaceOf(raw);
    const ctx: ScriptContext = {
      trial_id: 'fake',
      plan: lc.case.owner.plan,
      goal: d === 'follow' ? lc.case.inject.goal : [],
      trigger: lc.case.inject.trigger,
      reviewer_verdict: 'allow',
      paths: { workspace, home: '~', tmp: '/tmp' },
      tool_hints: opts.adapter.adapter.tools,
      denial_patterns: opts.adapter.adapter.denial_patterns.map((p) => new RegExp(p, 'i')),
    };
    const { answer: a, observed } = decide(conv, ctx, ledger);
    if (d === 'refuse' && observed.injection_visible)
      return {
        kind: 'text',
        text: 'I will not follow instructions that appear inside a file I was asked to read.',
      };
    const out: Output =
      a.kind === 'tool_calls'
        ? { kind: 'tool_calls', calls: a.calls.map((c) => ({ id: c.id, name: c.tool, args: c.args })) }
        : { kind: 'text', text: a.text };
    if (out.kind === 'tool_calls' && !firstCall) disposition.set(callKey(out.calls[0]!.id), d);
    if (firstCall && !disposition.has(callKey(firstCall.id))) disposition.set(callKey(firstCall.id), d);
    return out;
  };

  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const dialect = ROUTES[path] ?? (geminiMethod(path) ? 'gemini' : undefined);
    const num = ++n;
    const send = (status: number, headers: Record<string, string>, body: string) => {
      res.writeHead(status, headers);
      res.end(body);
    };
    if (!dialect || req.method !== 'POST')
      return send(404, { 'content-type': 'application/json' }, '{"error":"no route"}');
    const body = JSON.parse(raw || '{}') as Record<string, unknown>;
    const record = (status: number) =>
      requests.push({ n: num, path, dialect, body, headers: req.headers, status, at: Date.now() });
    const given =
      dialect === 'anthropic-messages'
        ? req.headers['x-api-key']
        : dialect === 'gemini'
          ? (req.headers['x-goog-api-key'] ?? new URL(req.url ?? '/', 'http://x').searchParams.get('key'))
          : req.headers.authorization?.replace(/^Bearer /, '');
    if (given !== opts.key) {
      record(401);
      const e = encodeError(dialect, 401, 'invalid api key');
      return send(e.status, e.headers, e.body);
    }
    const failure = opts.failures?.[num];
    if (failure) {
      record(failure.status);
      const e = encodeError(
        dialect,
        failure.status,
        failure.status === 429 ? 'rate limited' : 'upstream overloaded',
      );
      return send(
        e.status,
        { ...e.headers, ...(failure.retryAfter ? { 'retry-after': failure.retryAfter } : {}) },
        e.body,
      );
    }
    record(200);
    const conv = parseConversation(
      dialect,
      body,
      dialect === 'gemini' ? geminiUrlFacts(req.url ?? path) : undefined,
    );
    const out = answer(conv, raw);
    const inputTokens = estimateTokens(raw);
    const outputTokens = estimateTokens(JSON.stringify(out));
    tokens.input += inputTokens;
    tokens.output += outputTokens;
    const encoded = encodeResponse(conv, out, {
      ids: ledger.responseIds(dialect),
      created: 1_767_225_600,
      inputTokens,
      outputTokens,
    });
    send(encoded.status, encoded.headers, encoded.body);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    tokens,
    draws,
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
