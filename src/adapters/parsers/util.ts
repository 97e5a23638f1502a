// Shared helpers for harness output parsers. Harness output is hostile text: parsers never throw, cap
// every text they keep, and ignore lines they do not understand.
import type { HarnessEvent } from '../../evidence/types.js';

export const TEXT_CAP = 1000;

export function cap(text: unknown, max = TEXT_CAP): string {
  const s = typeof text === 'string' ? text : text === undefined || text === null ? '' : JSON.stringify(text);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** Every line of TEXT that parses as a JSON object. */
export function jsonLines(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('{')) continue;
    try {
      const v = JSON.parse(line);
      if (v && typeof v === 'object' && !Array.isArray(v)) out.push(v as Record<string, unknown>);
    } catch {
      // a partial line (the runner keeps the tail of the stream) or plain text
    }
  }
  return out;
}

const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Text of a tool result content (string, or a list of {type:text,text} blocks). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return arr(content)
    .map((b) => str(obj(b).text) ?? '')
    .filter(Boolean)
    .join('\n');
}

/** Drops exact duplicates (same kind, tool and text), keeping the first. */
export function dedupe(events: HarnessEvent[]): HarnessEvent[] {
  const seen = new Set<string>();
  return events.filter((e) => {
    const k = `${e.kind}\u0000${e.tool ?? ''}\u0000${e.text}\u0000${e.call_id ?? ''}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/**
 * The last top-level JSON object of TEXT (a harness printing logs, then a pretty-printed summary): the
 * first line starting with `{` from which the rest of the text parses as one JSON object.
 */
export function lastDocument(text: string): Record<string, unknown> | undefined {
  for (let i = text.search(/^\{/m); i >= 0; ) {
    try {
      const v = JSON.parse(text.slice(i));
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
      return undefined;
    } catch {
      // not from here: try the next line that starts with `{`
    }
    const next = text.indexOf('\n{', i + 1);
    i = next < 0 ? -1 : next + 1;
  }
  return undefined;
}
