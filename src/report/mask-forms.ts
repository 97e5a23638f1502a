// The forms a secret can take in a harness's output once it applied an encoding anyone can type
// (`xxd -p`, `base64`, `rev`, `sed 's/./& /g'`, `encodeURIComponent`, JSON.stringify), so the mask
// (mask.ts) can look for each of them literally, and the one form that is not a fixed string, the
// spaced one (characters with a separator between them, possibly across line breaks), as a view of the
// text in which those separators are gone.

/** The mask's shortest secret: shorter values are never masked (`true`, `open`, a port). */
export const MIN_SECRET = 6;

const b64url = (s: string) => s.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/**
 * The base64 characters that depend on the secret's bytes alone, at each of the 3 alignments the secret
 * can have inside a longer encoded blob (`Basic base64(user:token)`, `env | base64`): characters that
 * mix in a byte before or after the secret differ from blob to blob and are left out.
 */
export function base64Slices(bytes: Buffer): string[] {
  const out: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const b64 = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const first = Math.ceil((offset * 8) / 6);
    const last = Math.floor(((offset + bytes.length) * 8) / 6);
    out.push(b64.slice(first, last));
  }
  return out;
}

/** `encodeURIComponent` also with `!'()*` encoded (RFC 3986, Python's quote(safe='')), `/` kept, `+` for space, lower-case hex. */
function urlForms(s: string): string[] {
  const component = encodeURIComponent(s);
  const strict = component.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const forms = [component, strict, strict.replace(/%2F/g, '/'), component.replace(/%20/g, '+')];
  return forms.flatMap((f) => [f, f.replace(/%[0-9A-F]{2}/g, (x) => x.toLowerCase())]);
}

/**
 * Every literal form of `secret` the mask looks for: itself, each line of a multi-line secret, reversed,
 * hex (lower, upper), base64 (standard and URL-safe; whole, and at each alignment inside a longer blob),
 * URL-encoded (the common variants) and JSON-escaped. Forms shorter than MIN_SECRET are left out.
 */
export function encodedForms(secret: string): string[] {
  if (secret.length < MIN_SECRET) return [];
  const bytes = Buffer.from(secret);
  const hex = bytes.toString('hex');
  const b64 = bytes.toString('base64');
  const slices = base64Slices(bytes);
  // Each line of a multi-line secret (a PEM body) is a secret of its own, in every form too.
  const lines = secret
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== secret && l.length >= MIN_SECRET);
  const forms = [
    secret,
    ...lines.flatMap(encodedForms),
    [...secret].reverse().join(''),
    hex,
    hex.toUpperCase(),
    b64,
    b64.replace(/=+$/, ''),
    b64url(b64),
    ...slices,
    ...slices.map(b64url),
    ...urlForms(secret),
    JSON.stringify(secret).slice(1, -1),
  ];
  return [...new Set(forms)].filter((f) => f.length >= MIN_SECRET);
}

/** A stretch of text read as spaced characters: the characters, and where each one is in the text. */
export interface SpacedRun {
  chars: string;
  at: number[];
}

// Character codes: this runs once per character of every masked text, so no strings and no regular
// expressions on the common path.
const SP = 32;
const TAB = 9;
const LF = 10;
const CR = 13;
const isSpace = (k: number) => k === SP || k === TAB || k === CR || k === LF;
/** A letter or digit (ASCII by range; others by Unicode class). */
function isWordChar(text: string, i: number): boolean {
  const k = text.charCodeAt(i);
  if (k < 128) return (k >= 48 && k <= 57) || (k >= 65 && k <= 90) || (k >= 97 && k <= 122);
  return /[\p{L}\p{N}]/u.test(text[i]!);
}

/** Where the separator starting at `i` ends: one space, tab or punctuation mark, or a line break with at most one space or tab on each side; -1 when there is none. */
function separatorEnd(text: string, i: number): number {
  if (i >= text.length) return -1;
  let j = i;
  const k = text.charCodeAt(j);
  if (k === SP || k === TAB) j++;
  const lineBreak =
    text.charCodeAt(j) === CR && text.charCodeAt(j + 1) === LF ? 2 : text.charCodeAt(j) === LF ? 1 : 0;
  if (lineBreak) {
    j += lineBreak;
    const after = text.charCodeAt(j);
    if (after === SP || after === TAB) j++;
    return j;
  }
  if (j > i) return j;
  return isSpace(k) || isWordChar(text, j) ? -1 : j + 1;
}

/** Whether the space at `i` can be a spaced character: a separator and a non-space follow it. */
function spaceChar(text: string, i: number): boolean {
  const after = text.charCodeAt(i) === SP ? separatorEnd(text, i + 1) : -1;
  return after > 0 && after < text.length && !isSpace(text.charCodeAt(after));
}

/** Where the spaced character after the one ending at `j` is, or -1. */
function nextSpaced(text: string, j: number): number {
  let next = separatorEnd(text, j);
  if (next < 0 || next >= text.length) return -1;
  // A space is a character of the secret when a separator follows it (`e   a`, `e- -a`); after a line
  // break, the space the separator took may be that character (`e\n  a`).
  if (isSpace(text.charCodeAt(next)) && !spaceChar(text, next)) {
    if (text.charCodeAt(next - 1) === SP && next - 1 > j && spaceChar(text, next - 1)) next--;
    else return -1;
  }
  return next;
}

/**
 * Every stretch of `text` of at least MIN_SECRET characters with exactly one separator between each two
 * (`s e c r e t`, `s-e-c-r-e-t`, `s e c\nr e t`): the mask looks for whole secrets in their characters.
 */
export function spacedRuns(text: string): SpacedRun[] {
  const runs: SpacedRun[] = [];
  for (let i = 0; i < text.length; ) {
    // Most characters are followed by a letter or digit: no run starts there.
    if (isSpace(text.charCodeAt(i)) || i + 1 >= text.length || isWordChar(text, i + 1)) {
      i++;
      continue;
    }
    let n = 1;
    let j = i + 1;
    for (let next = nextSpaced(text, j); next >= 0; next = nextSpaced(text, j)) {
      n++;
      j = next + 1;
    }
    if (n < MIN_SECRET) {
      i++;
      continue;
    }
    const at = [i];
    for (let k = i + 1, next = nextSpaced(text, k); next >= 0 && next < j; next = nextSpaced(text, k)) {
      at.push(next);
      k = next + 1;
    }
    runs.push({ chars: at.map((p) => text[p]).join(''), at });
    i = j;
  }
  return runs;
}
