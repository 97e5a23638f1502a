// Finds many literal strings in a long text in one pass: the secret mask looks for hundreds of secrets,
// each in a dozen encodings (thousands of strings), in 64 KiB stderr tails and multi-megabyte result
// files. One `includes` per string would scan the text thousands of times; this index hashes every
// window of KEY characters once (a rolling hash) and compares only where a string's first KEY characters
// hash the same.

/** Every indexed string is at least this long (the mask's shortest secret). */
export const KEY = 6;
const BASE = 0x01000193;
/** BASE^(KEY-1) mod 2^32, to drop the leaving character from the rolling hash. */
const DROP = (() => {
  let p = 1;
  for (let i = 1; i < KEY; i++) p = Math.imul(p, BASE);
  return p;
})();
const FILTER_BITS = 20;
const FILTER_MASK = (1 << FILTER_BITS) - 1;

/** A half-open range [start, end) of a text. */
export interface Span {
  start: number;
  end: number;
}

function hashAt(s: string, at: number): number {
  let h = 0;
  for (let i = at; i < at + KEY; i++) h = (Math.imul(h, BASE) + s.charCodeAt(i)) | 0;
  return h;
}

export class LiteralIndex {
  private readonly buckets = new Map<number, string[]>();
  /** One byte per hash bucket: most windows of a text are rejected here without a Map lookup. */
  private readonly filter = new Uint8Array(1 << FILTER_BITS);
  readonly count: number;

  /** Strings shorter than KEY are ignored (callers never index them). */
  constructor(strings: Iterable<string>) {
    let n = 0;
    for (const s of new Set(strings)) {
      if (s.length < KEY) continue;
      const h = hashAt(s, 0);
      const b = this.buckets.get(h);
      if (b) b.push(s);
      else this.buckets.set(h, [s]);
      this.filter[h & FILTER_MASK] = 1;
      n++;
    }
    this.count = n;
  }

  /** Every occurrence of every indexed string in `text`, appended to `out`. */
  find(text: string, out: Span[]): void {
    if (this.count === 0 || text.length < KEY) return;
    let h = hashAt(text, 0);
    for (let i = 0; ; i++) {
      if (this.filter[h & FILTER_MASK]) {
        for (const s of this.buckets.get(h) ?? [])
          if (text.startsWith(s, i)) out.push({ start: i, end: i + s.length });
      }
      const next = i + KEY;
      if (next >= text.length) return;
      h = (Math.imul(h - Math.imul(text.charCodeAt(i), DROP), BASE) + text.charCodeAt(next)) | 0;
    }
  }

  /**
   * Where `text` up to `end` is the beginning (at least `min` characters) of an indexed string: a string
   * an earlier truncation cut at `end`. The longest such beginning, if any.
   */
  cutAt(text: string, end: number, min: number, longest: number): Span | undefined {
    for (let start = Math.max(0, end - longest); start <= end - Math.max(min, KEY); start++) {
      const b = this.buckets.get(hashAt(text, start));
      if (b?.some((s) => s.length > end - start && s.startsWith(text.slice(start, end))))
        return { start, end };
    }
    return undefined;
  }
}

/** Sorted, overlapping or touching spans merged. */
export function mergeSpans(spans: Span[]): Span[] {
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Span[] = [];
  for (const s of spans) {
    const last = out.at(-1);
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}
