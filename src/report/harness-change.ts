// What the report says about a pull request that bumps the harness: "harness X a.b.c → d.e.f" at the
// top with the releases in between, and, after a bisect, the first version where the regressed cases
// turn unsafe with the trials that show it. Types only from lower layers; baseline/bisect.ts fills them.
import { npmPageUrl } from '../adapters/registry.js';
import { escapeMarkdown } from './escape.js';

export type Probe = 'good' | 'bad' | 'skipped';

/** One version tried by the bisect. */
export interface VersionTry {
  version: string;
  probe: Probe;
  /** Why it was skipped (install or run failed, no valid trial, flaky), or how it was unsafe. */
  reason?: string;
  /** `case seed N` of the unsafe trials. */
  unsafe: string[];
  trials: number;
  /** Its result file (absent when it did not run, or for an end known from the gate). */
  result?: string;
}

export interface BisectView {
  cases: string[];
  seeds: number;
  tries: VersionTry[];
  /**
   * `fix`: the older end was unsafe and the newer safe, so the bisect narrowed to the first good version
   * (firstGood, lastBad); absent: a regression (firstBad, lastGood).
   */
  direction?: 'fix';
  /** The first version where the cases turn unsafe, when the tries pin it to one. */
  firstBad?: string;
  /** The last version tried safe below it. */
  lastGood?: string;
  /** A fix: the first version where the cases turn safe, when the tries pin it to one. */
  firstGood?: string;
  /** A fix: the last version tried unsafe below it. */
  lastBad?: string;
  /** Versions that may be the first changed one (more than one: skipped versions or a cap left them open). */
  suspects: string[];
  skipped: string[];
  /** Versions tried on the old side after the change (safe after unsafe, or for a fix unsafe after safe). */
  nonMonotone: string[];
  stop: 'converged' | 'version-cap' | 'trial-cap';
  /** Why no version was narrowed (the ends are not safe → unsafe). */
  nothing?: string;
  caps: { maxVersions: number; maxTrials: number };
}

export interface HarnessChange {
  package: string;
  from: string;
  to: string;
  /** Published versions strictly between; undefined when the registry could not be reached. */
  between?: string[];
  bisect?: BisectView;
}

const e = (v: unknown, max = 200) => escapeMarkdown(v, { max });
// npm names and versions are a small alphabet; anything else is not linked.
const LINKABLE = /^(@[a-z0-9._~-]+\/)?[a-z0-9._~-]+$/i;
const link = (pkg: string, v: string) =>
  LINKABLE.test(pkg) && /^[0-9A-Za-z.+-]+$/.test(v) ? `[${e(v, 60)}](${npmPageUrl(pkg, v)})` : e(v, 60);

export function betweenText(h: HarnessChange): string {
  if (!h.between) return 'versions in between unknown (the npm registry could not be reached)';
  if (!h.between.length) return 'no release in between';
  const shown = h.between.slice(0, 30).join(', ');
  return `${h.between.length} release(s) in between: ${shown}${h.between.length > 30 ? `, … ${h.between.length - 30} more` : ''}`;
}

/** The one-line fact for the check title. */
export function harnessChangeTitle(h: HarnessChange): string {
  const b = h.bisect;
  const bump = `harness ${h.package} ${h.from} → ${h.to}`;
  if (!b) return bump;
  if (b.firstBad) return `${bump}: first bad version ${b.firstBad}`;
  if (b.firstGood) return `${bump}: fixed, first good version ${b.firstGood}`;
  if (b.nothing) return `${bump}: ${b.nothing}`;
  return `${bump}: first ${b.direction === 'fix' ? 'good' : 'bad'} version not pinned down (one of ${b.suspects.join(', ')})`;
}

function capText(b: BisectView): string | undefined {
  if (b.stop === 'version-cap') return `stopped at the cap of ${b.caps.maxVersions} versions tried`;
  if (b.stop === 'trial-cap') return `stopped at the cap of ${b.caps.maxTrials} trials`;
  return undefined;
}

const PROBE_WORD: Record<Probe, string> = { good: '✅ safe', bad: '❌ unsafe', skipped: '⏭️ skipped' };

function bisectMarkdown(h: HarnessChange, b: BisectView): string[] {
  const out: string[] = [];
  const cases = b.cases.map((c) => e(c, 120)).join(', ');
  const fix = b.direction === 'fix';
  const first = fix ? b.firstGood : b.firstBad;
  const word = fix ? 'First good version' : 'First bad version';
  const last = fix ? `last unsafe: ${e(b.lastBad, 60)}` : `last safe: ${e(b.lastGood, 60)}`;
  out.push(
    b.nothing
      ? `**Not bisected**: ${e(b.nothing, 400)}.`
      : first
        ? `**${word}: ${link(h.package, first)}** (${last}), bisected on ${cases} with ${b.seeds} seed(s)${fix ? ': a fix, the cases turn safe here' : ''}.`
        : `**${word} not pinned down**: one of ${b.suspects.map((v) => e(v, 60)).join(', ') || 'none'} (${last}), bisected on ${cases}.`,
  );
  const cap = capText(b);
  if (cap) out.push(`Cost cap reached: ${cap}; the versions left untried are among the suspects above.`);
  if (b.skipped.length)
    out.push(
      `Skipped (failed to install or run, or not measured; never counted as safe): ${b.skipped.map((v) => e(v, 60)).join(', ')}.`,
    );
  if (b.nonMonotone.length)
    out.push(
      fix
        ? `Not monotone: ${b.nonMonotone.map((v) => e(v, 60)).join(', ')} tried unsafe after a safe version (flaky, or fixed and broken again).`
        : `Not monotone: ${b.nonMonotone.map((v) => e(v, 60)).join(', ')} tried safe after an unsafe version (flaky, or fixed and broken again).`,
    );
  const rows = b.tries.map(
    (t) =>
      `| ${e(t.version, 60)} | ${PROBE_WORD[t.probe]} | ${t.trials || '—'} | ${t.reason ? e(t.reason, 300) : ''} |`,
  );
  out.push(['| version | verdict | trials | evidence |', '|---|---|---|---|', ...rows].join('\n'));
  return out;
}

/** The report's section on the bump (escaped markdown). */
export function harnessChangeMarkdown(h: HarnessChange): string {
  const head = `**Harness ${e(h.package, 120)} ${link(h.package, h.from)} → ${link(h.package, h.to)}**: ${e(betweenText(h), 2000)}.`;
  return [head, ...(h.bisect ? bisectMarkdown(h, h.bisect) : [])].join('\n\n');
}
