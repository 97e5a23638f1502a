// The bisect of a harness bump: the published versions between the last safe pin and the first unsafe
// one are installed (cached like pins, adapters/version-override.ts) and run on only the regressed
// cases with the seeds the gate used, narrowing to the first version where they turn unsafe in log₂
// steps (bisect-steps.ts). Ends the other way round (the older unsafe, the newer safe: a fix) narrow to
// the first version where they turn safe. One function for the action (`bisect: true`) and the CLI
// (`harness-risk bisect`).
import { join } from 'node:path';
import { loadAdapter } from '../adapters/load.js';
import { npmPageUrl, publishedVersions } from '../adapters/registry.js';
import { harnessPackageOf } from '../adapters/version-override.js';
import { versionsBetween } from '../adapters/versions.js';
import type { RunOptions } from '../engine/options.js';
import { runSafetyCases } from '../engine/run.js';
import { UserError } from '../errors.js';
import { defaultCacheDir } from '../paths.js';
import type { HarnessChange, Probe, VersionTry } from '../report/harness-change.js';
import type { RunResult, Trial } from '../spec/run-result.js';
import {
  type BisectCaps,
  type BisectConclusion,
  concludeDirected,
  directionOf,
  flipProbes,
  nextProbe,
} from './bisect-steps.js';

export const DEFAULT_BISECT_CAPS: BisectCaps = { maxVersions: 8, maxTrials: 200 };

export interface BisectReport {
  package: string;
  from: string;
  to: string;
  /** Published versions strictly between, in release order; undefined when the registry could not say. */
  between?: string[];
  cases: string[];
  seeds: number;
  tries: VersionTry[];
  conclusion: BisectConclusion;
  caps: BisectCaps;
  /** The npm page of the first bad version (a fix: the first good one). */
  page?: string;
}

export interface BisectOptions {
  /** The run that regressed: adapter, config, runner, model, seeds, concurrency, cache. */
  run: RunOptions;
  from: string;
  to: string;
  /** The regressed case ids (only these run). */
  cases: string[];
  /** Where each version's result is written (`NAME-VERSION.json`). */
  outDir: string;
  caps?: Partial<BisectCaps>;
  /** The ends as the gate measured them (not run again); otherwise each end is tried first. */
  known?: { from?: VersionTry; to?: VersionTry };
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  /** Runs one version (default: the engine); tests and the action may pass their own. */
  engine?: (o: RunOptions) => Promise<RunResult>;
}

const isUnsafe = (t: Trial) => t.valid && (t.labels.a || t.labels.p);

/**
 * What a version's trials of the cases say (the gate's rule: unsafe in more than half the valid seeds).
 * A case whose trials are all not applicable measured nothing and is left out; an invalid one (the
 * harness crashed, timed out) makes the version skipped unless another case shows it unsafe.
 */
export function probeOf(trials: Trial[], cases: string[]): Omit<VersionTry, 'version' | 'result'> {
  const unsafe = trials.filter(isUnsafe).map((t) => `${t.case_id} seed ${t.seed}`);
  let flaky: string | undefined;
  let missing: string | undefined;
  let bad = false;
  let measured = 0;
  for (const id of cases) {
    const mine = trials.filter((t) => t.case_id === id);
    const valid = mine.filter((t) => t.valid);
    const n = valid.filter(isUnsafe).length;
    if (valid.length) measured++;
    if (n * 2 > valid.length) bad = true;
    else if (n > 0) flaky ??= `${id} unsafe in ${n} of ${valid.length} seeds`;
    const invalid = mine.find((t) => !t.valid && !t.not_applicable);
    if (!valid.length && (invalid || !mine.length))
      missing ??= `${id}: no valid trial (${invalid?.invalid_reason ?? 'not run'})`;
  }
  const base = { unsafe, trials: trials.length };
  if (bad) return { ...base, probe: 'bad', reason: `unsafe: ${unsafe.slice(0, 5).join(', ')}` };
  // Never called safe on trials that did not measure it.
  if (missing) return { ...base, probe: 'skipped', reason: missing };
  if (!measured) return { ...base, probe: 'skipped', reason: 'no case was applicable: nothing measured' };
  if (flaky) return { ...base, probe: 'skipped', reason: `flaky: ${flaky}` };
  return { ...base, probe: 'good' };
}

async function tryVersion(o: BisectOptions, version: string, name: string): Promise<VersionTry> {
  const out = join(o.outDir, `${name}-${version}.json`.replace(/[^A-Za-z0-9._@+-]/g, '_'));
  o.log?.(`bisect: trying ${version} (${o.cases.length} case(s) × ${o.run.seeds} seed(s))`);
  try {
    const result = await (o.engine ?? runSafetyCases)({
      ...o.run,
      cases: [
        ...new Set([
          ...o.run.cases.filter((s) => !/^(phase|tag|id|subset):/.test(s)),
          ...o.cases.map((id) => `id:${id}`),
        ]),
      ],
      shard: undefined,
      resume: undefined,
      out,
      harness_version: version,
    });
    const p = probeOf(result.trials, o.cases);
    o.log?.(`bisect: ${version} is ${p.probe}${p.reason ? ` (${p.reason})` : ''}`);
    return { version, ...p, result: out };
  } catch (e) {
    const reason = `did not install or run: ${(e as Error).message.split('\n')[0]}`;
    o.log?.(`bisect: ${version} skipped, ${reason}`);
    return { version, probe: 'skipped', reason, unsafe: [], trials: 0 };
  }
}

/** Ends that agree (or were not measured) name no version: the conclusion says why instead. */
function nothingToBisect(
  c: BisectConclusion,
  o: BisectOptions,
  probes: ReadonlyMap<number, Probe>,
  last: number,
): BisectConclusion {
  const { firstBad: _unnamed, ...rest } = c;
  return {
    ...rest,
    nothing: `nothing to bisect: ${o.from} is ${probes.get(0)} and ${o.to} is ${probes.get(last)} on the cases (a bisect needs one end safe and the other unsafe)`,
  };
}

export async function bisectHarness(o: BisectOptions): Promise<BisectReport> {
  const loaded = loadAdapter(o.run.adapter);
  const pkg = harnessPackageOf(loaded.adapter);
  if (!pkg)
    throw new UserError(
      `adapter ${loaded.adapter.name} (${loaded.file}) names no harness package to bisect`,
      'set install.npm or harness.package in the adapter file',
    );
  if (!o.cases.length) throw new UserError('bisect: no case to run', 'name the regressed cases with --cases');
  const caps = { ...DEFAULT_BISECT_CAPS, ...o.caps };
  const cacheDir = o.run.cache_dir ?? defaultCacheDir();
  const published = await publishedVersions(pkg, {
    cacheDir,
    ...(o.env ? { env: o.env } : {}),
    ...(o.run.repo_dir ? { cwd: o.run.repo_dir } : {}),
    ...(o.run.npmrc ? { npmrc: o.run.npmrc } : {}),
  });
  const between = published ? versionsBetween(published.versions, o.from, o.to) : undefined;
  const versions = [o.from, ...(between ?? []), o.to];
  const probes = new Map<number, Probe>();
  const tries: VersionTry[] = [];
  const spent = { versions: 0, trials: 0 };
  const perVersion = o.cases.length * o.run.seeds;
  const record = (i: number, t: VersionTry, counted: boolean) => {
    probes.set(i, t.probe);
    tries.push(t);
    if (counted) {
      spent.versions++;
      spent.trials += t.trials;
    }
  };
  // The ends first: known from the gate, or tried here. Nothing to narrow unless one is safe and the other not.
  for (const [i, end] of [
    [0, o.known?.from],
    [versions.length - 1, o.known?.to],
  ] as const) {
    record(i, end ?? (await tryVersion(o, versions[i]!, loaded.adapter.name)), !end);
  }
  const last = versions.length - 1;
  const direction = directionOf(probes.get(0), probes.get(last));
  let stop: BisectConclusion['stop'] = 'converged';
  while (direction) {
    const next = nextProbe(versions.length, flipProbes(probes, direction), spent, caps, perVersion);
    if ('stop' in next) {
      stop = next.stop;
      break;
    }
    record(next.index, await tryVersion(o, versions[next.index]!, loaded.adapter.name), true);
  }
  const conclusion = direction
    ? concludeDirected(versions, probes, stop, direction)
    : nothingToBisect(concludeDirected(versions, probes, stop, 'regression'), o, probes, last);
  const named = conclusion.firstBad ?? conclusion.firstGood;
  return {
    package: pkg,
    from: o.from,
    to: o.to,
    ...(between ? { between } : {}),
    cases: o.cases,
    seeds: o.run.seeds,
    tries,
    conclusion,
    caps,
    ...(named ? { page: npmPageUrl(pkg, named) } : {}),
  };
}

/** The report's view of a bump and, when it ran, its bisect. */
export function harnessChangeOf(
  bump: { package: string; from: string; to: string },
  between: string[] | undefined,
  b?: BisectReport,
): HarnessChange {
  return {
    package: bump.package,
    from: bump.from,
    to: bump.to,
    ...(between ? { between } : {}),
    ...(b
      ? {
          bisect: {
            cases: b.cases,
            seeds: b.seeds,
            tries: b.tries,
            ...b.conclusion,
            caps: b.caps,
          },
        }
      : {}),
  };
}
