// OpenAI Chat Completions client: streaming (SSE) with tool-call deltas, and plain JSON responses.

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export interface ToolSchema {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ModelTurn {
  text: string;
  calls: { id: string; name: string; arguments: string }[];
  finish_reason?: string;
}

/** A model or protocol failure: the harness exits 2 with this message. */
export class ModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelError';
  }
}

export interface ModelOptions {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs?: number;
  /** Attempts for network errors, 429 and 5xx. */
  attempts?: number;
}

export async function complete(
  opts: ModelOptions,
  messages: ChatMessage[],
  tools: ToolSchema[],
): Promise<ModelTurn> {
  const url = `${opts.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const body = JSON.stringify({
    model: opts.model,
    messages,
    ...(tools.length ? { tools, tool_choice: 'auto' } : {}),
    stream: true,
  });
  const attempts = opts.attempts ?? 2;
  let lastError = '';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream, application/json',
          authorization: `Bearer ${opts.apiKey}`,
        },
        body,
        signal: AbortSignal.timeout(opts.timeoutMs ?? 120_000),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      lastError = `cannot reach the model at ${url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`;
      if (attempt < attempts) await sleep(300 * attempt);
      continue;
    }
    if (!res.ok) {
      const text = await res.text().catch(() => '');
      lastError = `the model at ${url} answered HTTP ${res.status} ${res.statusText}${text ? `: ${text.slice(0, 500)}` : ''}`;
      if ((res.status === 429 || res.status >= 500) && attempt < attempts) {
        await sleep(300 * attempt);
        continue;
      }
      throw new ModelError(lastError);
    }
    const type = res.headers.get('content-type') ?? '';
    if (type.includes('text/event-stream')) return readStream(res, url);
    const text = await res.text();
    return parseJson(text, url);
  }
  throw new ModelError(lastError);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function parseJson(text: string, url: string): ModelTurn {
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ModelError(
      `the model at ${url} sent a response that is neither SSE nor JSON: ${text.slice(0, 200)}`,
    );
  }
  if (json?.error)
    throw new ModelError(
      `the model at ${url} returned an error: ${JSON.stringify(json.error).slice(0, 500)}`,
    );
  const choice = json?.choices?.[0];
  if (!choice?.message)
    throw new ModelError(`the model at ${url} sent a response without choices[0].message`);
  const msg = choice.message;
  return {
    text: typeof msg.content === 'string' ? msg.content : '',
    calls: (msg.tool_calls ?? []).map((c: any, i: number) => ({
      id: String(c.id ?? `call_${i}`),
      name: String(c.function?.name ?? ''),
      arguments:
        typeof c.function?.arguments === 'string'
          ? c.function.arguments
          : JSON.stringify(c.function?.arguments ?? {}),
    })),
    finish_reason: choice.finish_reason,
  };
}

async function readStream(res: Response, url: string): Promise<ModelTurn> {
  if (!res.body) throw new ModelError(`the model at ${url} sent an empty stream`);
  const decoder = new TextDecoder();
  let buffer = '';
  let text = '';
  let finish: string | undefined;
  let done = false;
  let sawChunk = false;
  const calls = new Map<number, { id: string; name: string; arguments: string }>();

  const handle = (event: string) => {
    const data = event
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).replace(/^ /, ''))
      .join('\n');
    if (!data) return;
    if (data.trim() === '[DONE]') {
      done = true;
      return;
    }
    let chunk: any;
    try {
      chunk = JSON.parse(data);
    } catch {
      throw new ModelError(`the model at ${url} sent an SSE event that is not JSON: ${data.slice(0, 200)}`);
    }
    if (chunk.error)
      throw new ModelError(
        `the model at ${url} returned an error: ${JSON.stringify(chunk.error).slice(0, 500)}`,
      );
    sawChunk = true;
    for (const choice of chunk.choices ?? []) {
      const delta = choice.delta ?? choice.message ?? {};
      if (typeof delta.content === 'string') text += delta.content;
      for (const [k, tc] of (delta.tool_calls ?? []).entries()) {
        const index = typeof tc.index === 'number' ? tc.index : k;
        const entry = calls.get(index) ?? { id: '', name: '', arguments: '' };
        if (tc.id) entry.id = tc.id;
        if (tc.function?.name) entry.name += tc.function.name;
        if (tc.function?.arguments !== undefined) {
          entry.arguments +=
            typeof tc.function.arguments === 'string'
              ? tc.function.arguments
              : JSON.stringify(tc.function.arguments);
        }
        calls.set(index, entry);
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  };

  const reader = res.body.getReader();
  try {
    while (!done) {
      const { value, done: end } = await reader.read();
      if (end) break;
      buffer += decoder.decode(value, { stream: true });
      for (let m = /\r?\n\r?\n/.exec(buffer); !done && m; m = /\r?\n\r?\n/.exec(buffer)) {
        const event = buffer.slice(0, m.index);
        buffer = buffer.slice(m.index + m[0].length);
        handle(event);
      }
    }
    if (!done && buffer.trim()) handle(buffer);
  } catch (err) {
    if (err instanceof ModelError) throw err;
    throw new ModelError(`the stream from the model at ${url} broke: ${(err as Error).message}`);
  } finally {
    reader.cancel().catch(() => {});
  }
  if (!sawChunk) throw new ModelError(`the model at ${url} sent a stream without any completion chunk`);
  const list = [...calls.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([i, c]) => ({ ...c, id: c.id || `call_${i}` }));
  for (const c of list) {
    if (!c.name) throw new ModelError(`the model at ${url} streamed a tool call without a function name`);
  }
  return { text, calls: list, finish_reason: finish };
}
