// Gemini names the model and the method in the URL, not the body: `POST /v1beta/models/{model}:
// generateContent`, `…:streamGenerateContent?alt=sse` (SSE; without `alt=sse` it streams one JSON array)
// and `…:countTokens`. The API key may come as `?key=`: it is never checked, and never recorded.
import type { UrlFacts } from './conversation.js';

export type GeminiMethod = 'generateContent' | 'streamGenerateContent' | 'countTokens';

/** /v1beta/models/gemini-2.5-pro:generateContent (also /v1/ and /v1alpha/). */
const GEMINI_PATH =
  /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

/** The Gemini method a pathname calls and its model, or undefined when it is no Gemini route. */
export function geminiMethod(pathname: string): { model: string; method: GeminiMethod } | undefined {
  const m = GEMINI_PATH.exec(pathname);
  if (!m) return undefined;
  return { model: decodeURIComponent(m[1]!), method: m[2] as GeminiMethod };
}

/** What a Gemini request URL (path and query) says about the conversation: model and streaming. */
export function geminiUrlFacts(url: string): UrlFacts {
  const u = new URL(url, 'http://model.invalid');
  const route = geminiMethod(u.pathname.replace(/\/+$/, ''));
  const stream = route?.method === 'streamGenerateContent';
  return {
    model: route?.model ?? '',
    stream,
    ...(stream && u.searchParams.get('alt') !== 'sse' ? { streamAs: 'json-array' as const } : {}),
  };
}

/** The request URL as evidence records it: a `key` query parameter (the harness's API key) left out. */
export function withoutKey(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  if (!params.has('key')) return url;
  params.delete('key');
  const rest = params.toString();
  return rest ? `${url.slice(0, q)}?${rest}` : url.slice(0, q);
}
