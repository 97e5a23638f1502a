// Gemini generateContent as a provider dialect: the request body built from a conversation (the model and
// streaming go in the URL, see providerPath in client.ts) and the provider's answer, JSON, SSE events or
// a JSON array of responses, read back. Pure, like translate.ts, whose shapes it shares.
import type { Conversation, Message } from '../conversation.js';
import { arr, isObj, num, type Obj, obj, str } from '../untyped.js';

export interface GeminiSettings {
  temperature?: number;
  max_tokens?: number;
}

export interface GeminiCall {
  id: string;
  name: string;
  args: unknown;
}

export interface GeminiAnswer {
  text: string;
  calls: GeminiCall[];
  usage: { input_tokens: number; output_tokens: number };
}

/** The generateContent body: contents, systemInstruction, function declarations, generationConfig. */
export function geminiRequest(
  conv: Conversation,
  tools: Conversation['tools'],
  schemaOf: (schema: unknown) => unknown,
  s: GeminiSettings,
): Obj {
  const config = {
    ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
    ...(s.max_tokens !== undefined ? { maxOutputTokens: s.max_tokens } : {}),
    ...(conv.outputSchema !== undefined
      ? { responseMimeType: 'application/json', responseJsonSchema: conv.outputSchema }
      : {}),
  };
  return {
    contents: geminiContents(conv.messages),
    ...(conv.system ? { systemInstruction: { parts: [{ text: conv.system }] } } : {}),
    ...(tools.length
      ? {
          tools: [
            {
              // parametersJsonSchema takes any JSON schema; `parameters` only an OpenAPI subset.
              functionDeclarations: tools.map((t) => ({
                name: t.name,
                description: t.description,
                parametersJsonSchema: schemaOf(t.schema),
              })),
            },
          ],
        }
      : {}),
    ...(Object.keys(config).length ? { generationConfig: config } : {}),
  };
}

/**
 * Turns as Gemini wants them: `model` for the assistant, results as functionResponse parts of a user
 * turn (named after the call they answer, which Gemini requires), consecutive turns of a role merged.
 */
function geminiContents(messages: Message[]): Obj[] {
  const out: { role: 'user' | 'model'; parts: Obj[] }[] = [];
  const names = new Map<string, string>();
  const add = (role: 'user' | 'model', parts: Obj[]) => {
    if (!parts.length) return;
    const last = out.at(-1);
    if (last && last.role === role) last.parts.push(...parts);
    else out.push({ role, parts });
  };
  for (const m of messages) {
    if (m.role === 'assistant') {
      for (const c of m.toolCalls) names.set(c.id, c.name);
      add('model', [
        ...(m.text ? [{ text: m.text }] : []),
        ...m.toolCalls.map((c) => ({
          functionCall: { ...(c.id ? { id: c.id } : {}), name: c.name, args: isObj(c.args) ? c.args : {} },
        })),
      ]);
    } else if (m.role === 'tool') {
      add(
        'user',
        m.toolResults.map((r) => ({
          functionResponse: {
            ...(r.callId ? { id: r.callId } : {}),
            name: names.get(r.callId) ?? '',
            response: r.isError ? { error: r.text } : { output: r.text },
          },
        })),
      );
    } else {
      add('user', m.text ? [{ text: m.text }] : []);
    }
  }
  return out;
}

/**
 * One answer out of Gemini responses: a single response (generateContent) or the stream's responses in
 * order (SSE events, or the JSON array without alt=sse). Text and calls add up; the last usage counts.
 */
export function fromGemini(responses: Obj[]): GeminiAnswer {
  let text = '';
  const calls: GeminiCall[] = [];
  let usage = { input_tokens: 0, output_tokens: 0 };
  for (const r of responses) {
    const parts = arr(obj(obj(arr(r.candidates)[0]).content).parts).map(obj);
    for (const p of parts) {
      // Thought summaries are the model's reasoning, not its answer.
      if (typeof p.text === 'string' && p.thought !== true) text += p.text;
      const fc = obj(p.functionCall);
      if (fc.name !== undefined) calls.push({ id: str(fc.id), name: str(fc.name), args: fc.args ?? {} });
    }
    if (isObj(r.usageMetadata)) {
      const u = r.usageMetadata;
      usage = {
        input_tokens: num(u.promptTokenCount),
        output_tokens: num(u.candidatesTokenCount) + num(u.thoughtsTokenCount),
      };
    }
  }
  return { text, calls, usage };
}
