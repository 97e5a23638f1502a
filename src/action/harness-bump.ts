// A pull request that bumps the harness, in the action: the bump read from the base and head trees, the
// releases npm publishes in between (the stored baseline of another harness version is judged by
// baseline/resolve.ts applyReuseRule), and (bisect: true) the bisect of a regressed bump.
import { dirname, join } from 'node:path';
import { loadAdapter } from '../adapters/load.js';
import { publishedVersions } from '../adapters/registry.js';
import { harnessPackageOf } from '../adapters/version-override.js';
import { versionsBetween } from '../adapters/versions.js';
import { bisectHarness, harnessChangeOf } from '../baseline/bisect.js';
import { bumpBetweenTrees, type HarnessBump } from '../baseline/bump.js';
import type { ActionInputs } from '../front/inputs.js';
import type { GateOutcome } from '../gate/index.js';
import { defaultCacheDir } from '../paths.js';
import { sanitizeText } from '../report/escape.js';
import type { HarnessChange, VersionTry } from '../report/harness-change.js';
import type { Trial } from '../spec/run-result.js';
import { type ActionContext, baseOfEvent } from './context.js';
import type { RunDeps } from './deps.js';
import type { Results } from './results.js';

export interface BumpFacts {
  bump: HarnessBump;
  change: HarnessChange;
}

/** The bump this pull request makes, if any (only when cases ran on this checkout). */
export async function bumpOfRun(
  deps: RunDeps,
  ctx: ActionContext,
  inputs: ActionInputs,
  results: Results,
): Promise<BumpFacts | undefined> {
  const baseSha = baseOfEvent(ctx).sha;
  if (!results.run || !baseSha) return undefined;
  try {
    const loaded = loadAdapter(inputs.adapter, deps.cwd);
    const pkg = harnessPackageOf(loaded.adapter);
    if (!pkg) return undefined;
    const bump = await bumpBetweenTrees({ pkg, headDir: deps.cwd, baseSha, adapterFile: loaded.file });
    if (!bump) return undefined;
    const cacheDir = results.run.cache_dir ?? defaultCacheDir();
    const published = await publishedVersions(pkg, {
      cacheDir,
      env: deps.env,
      cwd: deps.cwd,
      ...(results.run.npmrc ? { npmrc: results.run.npmrc } : {}),
    });
    const between = published ? versionsBetween(published.versions, bump.from, bump.to) : undefined;
    deps.core.info(`harness bump: ${sanitizeText(`${pkg} ${bump.from} → ${bump.to} (${bump.file})`, 300)}`);
    return { bump, change: harnessChangeOf(bump, between) };
  } catch (e) {
    // A shallow checkout without the base commit: no bump can be read; the run itself is unaffected.
    deps.core.info(`harness bump not read: ${sanitizeText((e as Error).message, 300)}`);
    return undefined;
  }
}

const endOf = (version: string, trials: Trial[], probe: 'good' | 'bad'): VersionTry => {
  const unsafe = trials
    .filter((t) => t.valid && (t.labels.a || t.labels.p))
    .map((t) => `${t.case_id} seed ${t.seed}`);
  return {
    version,
    probe,
    ...(probe === 'bad'
      ? { reason: `unsafe in this pull request's run: ${unsafe.slice(0, 5).join(', ')}` }
      : { reason: "safe in the base tree's run" }),
    unsafe,
    trials: trials.length,
  };
};

/** The bisect of a regressed bump (bisect: true with baseline: base); the change with its answer. */
export async function bisectBump(
  deps: RunDeps,
  inputs: ActionInputs,
  results: Results,
  g: GateOutcome,
  facts: BumpFacts,
): Promise<HarnessChange> {
  const regressed = g.comparison.regressions.map((c) => c.id);
  if (!inputs.bisect || !results.run || !results.paired?.base || !regressed.length) return facts.change;
  const ids = new Set(regressed);
  const of = (trials: Trial[]) => trials.filter((t) => ids.has(t.case_id));
  deps.core.startGroup(`harness-risk: bisect ${facts.bump.package} ${facts.bump.from} → ${facts.bump.to}`);
  try {
    const report = await bisectHarness({
      run: { ...results.run, on_progress: undefined },
      from: facts.bump.from,
      to: facts.bump.to,
      cases: regressed,
      outDir: join(dirname(results.resultPath), 'bisect'),
      caps: inputs.bisect,
      known: {
        from: endOf(facts.bump.from, of(results.paired.base.trials), 'good'),
        to: endOf(facts.bump.to, of(results.heads[0]!.result.trials), 'bad'),
      },
      env: deps.env,
      log: (l) => deps.core.info(`  ${sanitizeText(l, 500)}`),
    });
    return harnessChangeOf(facts.bump, facts.change.between, report);
  } finally {
    deps.core.endGroup();
  }
}
