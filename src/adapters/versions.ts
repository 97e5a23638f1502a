// Version order of npm packages (semver 2.0 precedence, no dependency): which published releases lie
// between two pins, in release order. Used by the bump report and the bisect (baseline/bisect.ts).

export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  pre: (string | number)[];
  raw: string;
}

const SEMVER = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

export function parseSemVer(v: string): SemVer | undefined {
  const m = SEMVER.exec(v.trim());
  if (!m) return undefined;
  const pre = m[4] ? m[4].split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p)) : [];
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), pre, raw: v.trim() };
}

function comparePre(a: (string | number)[], b: (string | number)[]): number {
  // A release sorts after its pre-releases.
  if (!a.length || !b.length) return b.length - a.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

export function compareSemVer(a: SemVer, b: SemVer): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch || comparePre(a.pre, b.pre);
}

/** A version out of a range or pin as written in package.json (`^1.2.3`, `~1.2.3`, `=1.2.3`, `1.2.3`). */
export function pinOf(spec: string): string | undefined {
  const m = /^\s*(?:[\^~=v]|>=)?\s*(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)\s*$/.exec(spec);
  return m ? m[1] : undefined;
}

/**
 * The published versions strictly between `from` and `to`, in release order. Pre-releases are left out
 * unless an end is one (a bump between releases is measured on releases). Unparseable versions are left out.
 */
export function versionsBetween(published: string[], from: string, to: string): string[] {
  const lo = parseSemVer(from);
  const hi = parseSemVer(to);
  if (!lo || !hi) return [];
  const [a, b] = compareSemVer(lo, hi) <= 0 ? [lo, hi] : [hi, lo];
  const withPre = a.pre.length > 0 || b.pre.length > 0;
  return published
    .map(parseSemVer)
    .filter((v): v is SemVer => !!v && (withPre || v.pre.length === 0))
    .filter((v) => compareSemVer(v, a) > 0 && compareSemVer(v, b) < 0)
    .sort(compareSemVer)
    .map((v) => v.raw);
}
