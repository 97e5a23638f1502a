// The job's secrets never reach a report. A harness under test may read the job's environment (the
// uncontained process runner lets it read /proc/$PPID/environ) and print it; its stderr tail, tool
// arguments and evidence excerpts are then rendered into the PR comment, the check run, the job summary,
// SARIF, JUnit and the log. Containment is the first defence; this mask is the second, and must hold
// without it.
//
// What is secret: secret-rule.ts (the environment) and world/credential-values.ts (credential files).
// The forms each secret is looked for in (hex, base64 at every alignment, spaced, reversed, URL- and
// JSON-encoded, across wrapped lines, cut at a `…`): mask-forms.ts; found in one pass: literal-index.ts.
//
// One mask, applied in one place: `sanitizeText` (escape.ts), the first stage of every escape function
// every renderer uses, masks with the mask of the current report scope (`withSecretMask`), before
// truncation or escaping can cut or rewrite a secret. The action also masks what it hands to @actions/core
// and to the GitHub API (maskedCore, maskedGitHub), so a string that skipped the escape path is caught too.

import { AsyncLocalStorage } from 'node:async_hooks';
import { SECRET_SHAPES } from '../spec/secret-shapes.js';

import { LiteralIndex, mergeSpans, type Span } from './literal-index.js';
import { encodedForms, MIN_SECRET, spacedRuns } from './mask-forms.js';
import { environmentSecrets } from './secret-rule.js';

export const MASK = '***';

/**
 * Token shapes secret scanners look for (GitHub, Stripe, Anthropic, OpenAI, AWS, Slack, JWT). Canary
 * values have these shapes on purpose; printed whole, they trip secret scanning on the PR (and a real one
 * would be a leak). The prefix stays, so a reader still sees which kind of value it was.
 */
const TOKEN_SHAPES = SECRET_SHAPES;

/**
 * Canary values with any prefix (`tw-`, `AIza`, `lf_live_`…): a run of 24 or more letters and digits that
 * mixes upper case, lower case and digits, as random base62 does (canaries.ts: 32 of them). Hex digests,
 * case ids and paths do not look like this.
 */
const CANARY_SHAPE = /(?<![A-Za-z0-9])((?:[A-Za-z0-9]+[-_])*)([A-Za-z0-9]{24,})(?![A-Za-z0-9])/g;

function canaryLike(body: string): boolean {
  const count = (re: RegExp) => body.match(re)?.length ?? 0;
  return count(/[A-Z]/g) >= 2 && count(/[a-z]/g) >= 2 && count(/[0-9]/g) >= 2 && new Set(body).size >= 12;
}

/**
 * A token-shaped value as a reader may see it: its first characters (the prefix that says which kind of
 * value it was) and its length, so `ghp_…(40 chars)` still tells a reviewer what leaked, while a secret
 * scanner finds no token and nothing of the random part is published.
 */
function maskedToken(whole: string, keep: string): string {
  return `${keep}…(${whole.length} chars)`;
}

/** A form cut by an earlier truncation (text that ends in `…`) is masked when this much of it is left. */
const MIN_CUT = 8;

/** `text` with its line breaks removed (a base64 or hex blob wrapped at 76 columns is one string again), and the way back to `text`'s positions. */
function joinedLines(text: string): { text: string; back: (s: Span) => Span } {
  if (!/[\r\n]/.test(text)) return { text, back: (s) => s };
  const parts: string[] = [];
  /** For each run of line breaks: where it sits in the joined text, and how many characters were dropped up to it. */
  const at: number[] = [];
  const dropped: number[] = [];
  let last = 0;
  let gone = 0;
  for (const m of text.matchAll(/[\r\n]+/g)) {
    parts.push(text.slice(last, m.index));
    at.push(m.index - gone);
    gone += m[0].length;
    dropped.push(gone);
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  const toText = (v: number) => {
    let lo = 0;
    let hi = at.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (at[mid]! <= v) lo = mid + 1;
      else hi = mid;
    }
    return v + (lo ? dropped[lo - 1]! : 0);
  };
  return { text: parts.join(''), back: (s) => ({ start: toText(s.start), end: toText(s.end - 1) + 1 }) };
}

export class SecretMask {
  private secretList?: string[];
  private compiled?: { forms: LiteralIndex; whole: LiteralIndex; longest: number };

  /**
   * `values` is read on first use (a thunk may read files: a CLI command that prints nothing pays
   * nothing). `escapes`: renderers' escapers (markdown, XML, JSON) whose output of each form is masked
   * too, for masking finished output (see outputMask). `shapes: false` only to compute what a secret
   * looks like once escaped.
   */
  constructor(
    private readonly values: Iterable<string | undefined> | (() => Iterable<string | undefined>),
    private readonly opts: { shapes: boolean } = { shapes: true },
    private readonly escapes: readonly ((form: string) => string)[] = [],
  ) {}

  private get secrets(): string[] {
    if (!this.secretList) {
      const set = new Set<string>();
      const values = typeof this.values === 'function' ? this.values() : this.values;
      for (const v of values) if (v && v.trim().length >= MIN_SECRET) set.add(v);
      this.secretList = [...set];
    }
    return this.secretList;
  }

  /** The job's secrets in an environment (secret-rule.ts), plus explicit values (the github-token). */
  static fromEnv(env: Record<string, string | undefined>, explicit: (string | undefined)[] = []): SecretMask {
    return new SecretMask([...environmentSecrets(env), ...explicit]);
  }

  /** This mask and more secrets (e.g. the values of the workspace's credential files), read on first use. */
  with(values: () => Iterable<string | undefined>): SecretMask {
    return new SecretMask(() => [...this.secrets, ...values()], this.opts, this.escapes);
  }

  /** This mask plus other forms of each secret (as a renderer escaped it), for masking finished output. */
  withForms(...escapes: ((form: string) => string)[]): SecretMask {
    return new SecretMask(() => this.secrets, this.opts, [...this.escapes, ...escapes]);
  }

  /** How many secrets it masks. */
  get size(): number {
    return this.secrets.length;
  }

  /** Built on first use: a CLI command that prints nothing pays nothing. */
  private index() {
    if (!this.compiled) {
      const forms = this.secrets.flatMap(encodedForms);
      const all = [...forms, ...forms.flatMap((f) => this.escapes.map((e) => e(f)))]
        // Looked for in the text with its line breaks removed (joinedLines), so without them too.
        .map((f) => f.replace(/[\r\n]/g, ''))
        .filter((f) => f.length >= MIN_SECRET);
      const whole = this.secrets.flatMap((s) => [
        s.replace(/[\r\n]/g, ''),
        ...s.split(/\r?\n/).map((l) => l.trim()),
      ]);
      this.compiled = {
        forms: new LiteralIndex(all),
        whole: new LiteralIndex(whole.filter((s) => s.length >= MIN_SECRET)),
        longest: Math.max(0, ...all.map((f) => f.length)),
      };
    }
    return this.compiled;
  }

  /** Where `text` holds a secret: any literal form, spaced, or a form cut at a `…`. */
  private secretSpans(text: string): Span[] {
    const { forms, whole, longest } = this.index();
    const spans: Span[] = [];
    const joined = joinedLines(text);
    const found: Span[] = [];
    forms.find(joined.text, found);
    for (const s of found) spans.push(joined.back(s));
    for (const run of spacedRuns(text)) {
      const inRun: Span[] = [];
      whole.find(run.chars, inRun);
      // A spaced secret an earlier truncation cut: the run ends at a `…`.
      const end = run.at.at(-1)! + 1;
      const cut =
        (text.startsWith('…', end) || text.startsWith(' …', end)) &&
        whole.cutAt(run.chars, run.chars.length, MIN_CUT, longest);
      if (cut) inRun.push(cut);
      for (const s of inRun) spans.push({ start: run.at[s.start]!, end: run.at[s.end - 1]! + 1 });
    }
    for (let i = text.indexOf('…'); i >= 0; i = text.indexOf('…', i + 1)) {
      const cut = forms.cutAt(text, i, MIN_CUT, longest);
      if (cut) spans.push(cut);
    }
    return spans;
  }

  /** `text` with every secret (in every form) replaced by `***` and every token-shaped value cut to its prefix and length. */
  text(text: string): string {
    let out = text;
    if (this.secrets.length && text.length >= MIN_SECRET) {
      const spans = mergeSpans(this.secretSpans(text));
      if (spans.length) {
        out = '';
        let at = 0;
        for (const s of spans) {
          out += text.slice(at, s.start) + MASK;
          at = s.end;
        }
        out += text.slice(at);
      }
    }
    if (!this.opts.shapes) return out;
    for (const shape of TOKEN_SHAPES) out = out.replace(shape, (m, prefix: string) => maskedToken(m, prefix));
    return out.replace(CANARY_SHAPE, (m, prefix: string | undefined, body: string) =>
      canaryLike(body) ? maskedToken(m, prefix || body.slice(0, 4)) : m,
    );
  }

  /** A deep copy of `value` with every string masked (for objects handed to an API or written out). */
  deep<T>(value: T): T {
    if (typeof value === 'string') return this.text(value) as T;
    if (Array.isArray(value)) return value.map((v) => this.deep(v)) as T;
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.deep(v)])) as T;
    }
    return value;
  }
}

/** With no scope, only token shapes are cut: nothing is known to be secret, yet scanners must not fire. */
const SHAPES_ONLY = new SecretMask([]);
/** Masks nothing: for computing the escaped forms of the secrets themselves. */
export const NO_MASK = new SecretMask([], { shapes: false });
const scope = new AsyncLocalStorage<SecretMask>();

/** Runs `fn` with `mask` applied by every escape function called inside it (also after awaits). */
export function withSecretMask<T>(mask: SecretMask, fn: () => T): T {
  return scope.run(mask, fn);
}

/** The mask of the current report scope. */
export function currentMask(): SecretMask {
  return scope.getStore() ?? SHAPES_ONLY;
}
