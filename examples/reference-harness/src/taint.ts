// Provenance tracking: secret values the agent has seen (from secret-looking files or secret-shaped strings
// in any tool result) and all untrusted text (tool results, loaded memory and skills, MCP descriptions), so
// the policy can refuse to send secrets out and refuse to persist targets an attacker supplied.
import { secretShapedStrings } from '../../../src/spec/secret-shapes.js';

/** Secrets by assignment (`token = …`): group 1 is the value. Token shapes: src/spec/secret-shapes.ts. */
const ASSIGNED_SECRET = /(?:key|token|secret|password|passwd)["']?\s*[=:]\s*["']?([A-Za-z0-9_\-+/.]{16,})/gi;
const PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g;

/** Secret-shaped substrings of `text`. */
export function findSecretStrings(text: string): string[] {
  const out: string[] = secretShapedStrings(text);
  for (const m of text.matchAll(ASSIGNED_SECRET)) out.push(m[1]!);
  for (const m of text.matchAll(PRIVATE_KEY)) {
    for (const line of m[0].split('\n')) {
      const t = line.trim();
      if (t.length >= 16 && !t.startsWith('-----')) out.push(t);
    }
  }
  return out;
}

/** Values worth protecting in a file that looks secret: assignment values and long token-like words. */
export function secretFileValues(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const assign = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*[=:]\s*(.*)$/.exec(line);
    if (assign) {
      const value = assign[2].trim().replace(/^["']|["']$/g, '');
      // A value is secret when its key says so or when it looks random (plain settings stay usable).
      const secretKey =
        /key|token|secret|pass|pwd|credential|auth|private|cert|dsn|session|cookie|salt/i.test(assign[1]);
      if (value.length >= 6 && (secretKey || looksRandom(value))) out.push(value);
      continue;
    }
    for (const word of line.split(/[\s"'`,;=:()[\]{}<>]+/)) {
      if (word.length >= 16 || (word.length >= 8 && /[A-Za-z]/.test(word) && /\d/.test(word))) out.push(word);
    }
  }
  return out;
}

function looksRandom(value: string): boolean {
  return value.length >= 20 || (value.length >= 10 && /[A-Za-z]/.test(value) && /\d/.test(value));
}

const MAX_CORPUS = 4 * 1024 * 1024;

export class Provenance {
  readonly secrets = new Set<string>();
  /** Untrusted text, NFKC and lower-cased, capped (the harness's own confirmations are not in it). */
  private corpus = '';

  /** Records a tool result: secret-shaped strings always; every value when it came from a secret source. */
  observe(text: string, secretSource: boolean): void {
    for (const s of findSecretStrings(text)) this.secrets.add(s);
    if (secretSource) for (const v of secretFileValues(text)) this.secrets.add(v);
    if (this.corpus.length < MAX_CORPUS) this.corpus += `\n${text.normalize('NFKC').toLowerCase()}`;
  }

  /** Names of things made from untrusted content (a file written from it): untrusted from now on. */
  derive(names: string[]): void {
    if (this.corpus.length < MAX_CORPUS)
      this.corpus += `\n${names.join('\n').normalize('NFKC').toLowerCase()}`;
  }

  /** True when untrusted content held `s` (lower-case). */
  seen(s: string): boolean {
    return s !== '' && this.corpus.includes(s);
  }

  /** The tainted secret value carried by `text` (plain, base64, hex or URL-encoded), if any. */
  secretIn(text: string): string | undefined {
    const lower = text.toLowerCase();
    for (const s of this.secrets) {
      if (text.includes(s)) return s;
      const b64 = Buffer.from(s).toString('base64').replace(/=+$/, '');
      const b64url = Buffer.from(s).toString('base64url');
      const hex = Buffer.from(s).toString('hex');
      if (text.includes(b64) || text.includes(b64url) || lower.includes(hex)) return s;
      if (text.includes(encodeURIComponent(s))) return s;
    }
    const direct = findSecretStrings(text);
    return direct[0];
  }
}
