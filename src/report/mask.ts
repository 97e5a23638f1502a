// The job's secrets never reach a report. A harness under test may read the job's environment (the
// uncontained process runner lets it read /proc/$PPID/environ) and print it; its stderr tail, tool
// arguments and evidence excerpts are then rendered into the PR comment, the check run, the job summary,
// SARIF, JUnit and the log. Containment is the first defence; this mask is the second, and must hold
// without it.
//
// One mask, applied in one place: `sanitizeText` (escape.ts), the first stage of every escape function
// every renderer uses, masks with the mask of the current report scope (`withSecretMask`), before
// truncation or escaping can cut or rewrite a secret. The action also masks what it hands to @actions/core
// and to the GitHub API (maskedCore, maskedGitHub), so a string that skipped the escape path is caught too.
import { AsyncLocalStorage } from 'node:async_hooks';

export const MASK = '***';

/**
 * Variables whose value is a secret by their name, whatever it looks like (provider keys, tokens…). A `-`
 * counts as a separator too: the runner passes the `model-key` input as INPUT_MODEL-KEY.
 */
const SECRET_NAME =
  /TOKEN|SECRET|PASSW(OR)?D|(^|[_-])(API_?)?KEY($|_)|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|AUTH|(^|_)PAT($|_)/i;
/** The runner's own variables: any of them that looks like a credential is masked (inputs may be secrets). */
const JOB_VARIABLE = /^(INPUT_|ACTIONS_|RUNNER_)/i;
/** Shorter values are not masked: masking `true` or `open` would blank the report and protect nothing. */
const MIN_SECRET = 6;

/** A value that looks like a credential: long, one word, letters and digits, many different characters. */
function credentialLike(value: string): boolean {
  // A path input (`results/run-2026-11.json`) is not a credential; base64 with a `/` has `+` or `=` too.
  const path = value.includes('/') && !/[+=]/.test(value);
  return (
    !path &&
    value.length >= 16 &&
    !/\s/.test(value) &&
    /[A-Za-z]/.test(value) &&
    /\d/.test(value) &&
    new Set(value).size >= 10
  );
}

/**
 * Token shapes secret scanners look for (GitHub, Stripe, Anthropic, OpenAI, AWS, Slack, JWT). Canary
 * values have these shapes on purpose; printed whole, they trip secret scanning on the PR (and a real one
 * would be a leak). The prefix stays, so a reader still sees which kind of value it was.
 */
const TOKEN_SHAPES: RegExp[] = [
  /\b(gh[pousr]_)[A-Za-z0-9]{16,}/g,
  /\b(github_pat_)[A-Za-z0-9_]{20,}/g,
  /\b([sr]k_(?:live|test)_)[A-Za-z0-9]{10,}/g,
  /\b(sk-ant-)[A-Za-z0-9_-]{16,}/g,
  /\b(sk-(?:proj-)?)[A-Za-z0-9_-]{20,}/g,
  /\b(AKIA)[A-Z0-9]{16}\b/g,
  /\b(xox[abposr]-)[A-Za-z0-9-]{10,}/g,
  /\b(eyJ)[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*/g,
];

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

export class SecretMask {
  /** Longest first, so a secret that contains another is replaced whole. */
  private readonly values: string[];

  /** `shapes: false` only to compute what a secret looks like once escaped (see outputMask). */
  constructor(
    values: Iterable<string | undefined>,
    private readonly opts: { shapes: boolean } = { shapes: true },
  ) {
    const set = new Set<string>();
    for (const v of values) {
      if (!v || v.length < MIN_SECRET) continue;
      set.add(v);
      // The forms a harness's output may carry it in: each line of a multi-line secret, URL- and
      // base64-encoded (git credential helpers and Basic auth headers print it so).
      for (const line of v.split(/\r?\n/)) if (line.trim().length >= MIN_SECRET) set.add(line.trim());
      const url = encodeURIComponent(v);
      if (url !== v) set.add(url);
      set.add(Buffer.from(v).toString('base64').replace(/=+$/, ''));
    }
    this.values = [...set].sort((a, b) => b.length - a.length);
  }

  /**
   * The job's secrets from an environment: variables secret by name, and the runner's INPUT_*, ACTIONS_*
   * and RUNNER_* variables whose value looks like a credential; plus explicit values (the github-token).
   */
  static fromEnv(env: Record<string, string | undefined>, explicit: (string | undefined)[] = []): SecretMask {
    const found: string[] = [];
    for (const [name, value] of Object.entries(env)) {
      if (!value) continue;
      if (SECRET_NAME.test(name) || (JOB_VARIABLE.test(name) && credentialLike(value))) found.push(value);
    }
    return new SecretMask([...found, ...explicit]);
  }

  /** This mask plus other forms of each secret (as a renderer escaped it), for masking finished output. */
  withForms(...forms: ((secret: string) => string)[]): SecretMask {
    return new SecretMask(this.values.flatMap((v) => [v, ...forms.map((f) => f(v))]));
  }

  get size(): number {
    return this.values.length;
  }

  /** `text` with every secret replaced by `***` and every token-shaped value cut to its prefix and length. */
  text(text: string): string {
    let out = text;
    for (const v of this.values) if (out.includes(v)) out = out.split(v).join(MASK);
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
