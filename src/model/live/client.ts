// One provider request over fetch, with retries: 429 and 5xx (and network errors) are retried with
// exponential backoff, waiting at least what `retry-after` (or `retry-after-ms`) asks. Any other status,
// or the last failed attempt, is a ProviderError carrying the provider's own message. The key goes into
// a header here and nowhere else.
import type { Conversation, Dialect } from '../conversation.js';
import { type Budget, BudgetExhausted } from './budget.js';
import {
  AnswerError,
  type ProviderAnswer,
  parseProviderAnswer,
  providerErrorMessage,
  providerRequest,
} from './translate.js';

export const PROVIDERS = ['openai-compatible', 'anthropic', 'gemini'] as const;
export type ProviderKind = (typeof PROVIDERS)[number];

export interface ProviderConfig {
  provider: ProviderKind;
  /**
   * Base URL including the version path (`https://api.openai.com/v1`, `https://api.anthropic.com/v1`,
   * `https://generativelanguage.googleapis.com/v1beta`).
   */
  base_url: string;
  model: string;
  key: string;
  temperature?: number;
  max_tokens?: number;
  /** Attempts per request (first + retries). */
  attempts?: number;
  /** First backoff in ms (doubles each retry, capped at 30 s). */
  backoff_ms?: number;
  /** Per-attempt timeout in ms. */
  timeout_ms?: number;
}

export class ProviderError extends Error {
  constructor(
    message: string,
    readonly attempts: number,
  ) {
    super(message);
  }
}

export interface ProviderResult extends ProviderAnswer {
  attempts: number;
}

/**
 * The provider dialect a request goes out in: Anthropic for `anthropic`, Gemini for `gemini`; for an
 * OpenAI-compatible provider the harness's own OpenAI dialect, and chat completions (the widest
 * supported) for a harness speaking Anthropic or Gemini.
 */
export function targetDialect(provider: ProviderKind, harness: Dialect): Dialect {
  if (provider === 'anthropic') return 'anthropic-messages';
  if (provider === 'gemini') return 'gemini';
  return harness === 'openai-responses' ? 'openai-responses' : 'openai-chat';
}

/** The path under the base URL; Gemini names the model and streaming in it. */
export function providerPath(dialect: Dialect, model: string, stream: boolean): string {
  switch (dialect) {
    case 'anthropic-messages':
      return '/messages';
    case 'openai-chat':
      return '/chat/completions';
    case 'openai-responses':
      return '/responses';
    case 'gemini':
      return `/models/${encodeURIComponent(model)}:${
        stream ? 'streamGenerateContent?alt=sse' : 'generateContent'
      }`;
  }
}

function headers(cfg: ProviderConfig): Record<string, string> {
  const json = { 'content-type': 'application/json' };
  switch (cfg.provider) {
    case 'anthropic':
      return { 'x-api-key': cfg.key, 'anthropic-version': '2023-06-01', ...json };
    case 'gemini':
      return { 'x-goog-api-key': cfg.key, ...json };
    case 'openai-compatible':
      return { authorization: `Bearer ${cfg.key}`, ...json };
  }
}

/** Milliseconds a 429/5xx asks us to wait (`retry-after-ms`, `retry-after` seconds or HTTP date). */
export function retryAfterMs(h: { get(name: string): string | null }, now = Date.now()): number | undefined {
  const ms = Number(h.get('retry-after-ms'));
  if (h.get('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const ra = h.get('retry-after');
  if (!ra) return undefined;
  const s = Number(ra);
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  const at = Date.parse(ra);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const scrub = (text: string, key: string) => (key ? text.split(key).join('***') : text);
const MAX_WAIT_MS = 120_000;
const retryable = (status: number) => status === 429 || status === 408 || status >= 500;
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((ok) => {
    const t = setTimeout(ok, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        ok();
      },
      { once: true },
    );
  });

/** Sends the conversation to the provider; every attempt is taken from the budget first. */
export async function callProvider(
  conv: Conversation,
  cfg: ProviderConfig,
  budget: Budget,
  signal?: AbortSignal,
): Promise<ProviderResult> {
  const dialect = targetDialect(cfg.provider, conv.dialect);
  const body = JSON.stringify(
    providerRequest(conv, dialect, {
      model: cfg.model,
      temperature: cfg.temperature,
      max_tokens: cfg.max_tokens,
      stream: conv.stream,
    }),
  );
  const url = `${cfg.base_url.replace(/\/+$/, '')}${providerPath(dialect, cfg.model, conv.stream)}`;
  const attempts = cfg.attempts ?? 5;
  let backoff = cfg.backoff_ms ?? 1000;
  let last = '';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    budget.take();
    let wait: number | undefined;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: headers(cfg),
        body,
        signal: AbortSignal.any([
          AbortSignal.timeout(cfg.timeout_ms ?? 300_000),
          ...(signal ? [signal] : []),
        ]),
      });
      const text = await res.text();
      if (res.ok) {
        const sse = (res.headers.get('content-type') ?? '').includes('text/event-stream');
        const answer = parseProviderAnswer(dialect, text, sse);
        budget.spend(answer.usage.input_tokens + answer.usage.output_tokens);
        return { ...answer, attempts: attempt };
      }
      // Some providers quote the key they were given in the error: it never goes further.
      last = `${res.status}: ${scrub(providerErrorMessage(text), cfg.key)}`;
      if (!retryable(res.status)) throw new ProviderError(`provider answered ${last}`, attempt);
      wait = retryAfterMs(res.headers);
    } catch (e) {
      if (e instanceof ProviderError || e instanceof BudgetExhausted) throw e;
      if (e instanceof AnswerError) throw new ProviderError(e.message, attempt);
      if (signal?.aborted) throw new ProviderError('request aborted (the trial ended)', attempt);
      last = `request failed: ${(e as Error).message}`;
    }
    if (attempt < attempts) {
      // retry-after is the provider's word; without it, exponential backoff.
      await sleep(Math.min(wait ?? backoff, MAX_WAIT_MS), signal);
      backoff = Math.min(backoff * 2, 30_000);
    }
  }
  throw new ProviderError(`provider failed after ${attempts} attempts: ${last}`, attempts);
}
