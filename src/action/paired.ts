// The action's `baseline: base`: which commit is the base, a stored baseline of exactly that commit from
// the Actions cache, the paired run itself (engine/base-head.ts), and the base result kept for re-runs.
import { restoreBaselineFromCache, saveBaselineToCache } from '../compare/baseline.js';
import { baseResultPath, type PairedOutcome, type StoredBaseline } from '../engine/base-head.js';
import type { RunOptions } from '../engine/options.js';
import { type ActionInputs, InputError } from '../front/inputs.js';
import { sanitizeText } from '../report/escape.js';
import { verifyResultFile } from '../result/integrity.js';
import { type ActionContext, baseOfEvent } from './context.js';
import type { RunDeps } from './run.js';

/** The base commit: a pull request's or merge queue group's base.sha, or the commit before a push. */
export function baseCommitOf(ctx: ActionContext): { sha: string; ref?: string } | undefined {
  const { sha, ref } = baseOfEvent(ctx);
  return sha ? { sha, ...(ref ? { ref } : {}) } : undefined;
}

export async function runPaired(
  deps: RunDeps,
  ctx: ActionContext,
  inputs: ActionInputs,
  run: RunOptions,
  resultPath: string,
): Promise<PairedOutcome> {
  const { core: io, cwd } = deps;
  const base = baseCommitOf(ctx);
  if (!base)
    throw new InputError(
      'baseline',
      `base needs the base commit of the event (a pull_request's or merge_group's base_sha, or a push's before), and this ${ctx.eventName || 'unknown'} event names none; use baseline: cache or file:PATH here`,
    );
  const baseOut = baseResultPath(resultPath);
  const keyParts = (sha: string) => ({
    adapter: run.adapter,
    config: run.config,
    ref: base.ref || ctx.defaultBranch || 'unknown',
    sha,
  });
  const stored = async (sha: string): Promise<StoredBaseline | undefined> => {
    const r = await restoreBaselineFromCache(deps.cache, keyParts(sha), cwd, true);
    return r.baseline?.result && r.key ? { result: r.baseline.result, source: `cache:${r.key}` } : undefined;
  };
  const outcome = await deps.paired({
    run,
    headDir: cwd,
    baseRef: base.sha,
    ...(inputs.build ? { build: inputs.build } : {}),
    ...(inputs.baseCases ? { baseCases: inputs.baseCases } : {}),
    baseOut,
    env: deps.env,
    stored,
    log: (line) => io.info(`  ${sanitizeText(line, 500)}`),
  });
  for (const b of outcome.builds) {
    // The whole tail in the log (the report has its last lines), behind a prefix: no workflow commands.
    io.error(`the ${b.tree} build \`${sanitizeText(b.command, 200)}\` failed`);
    for (const l of b.outcome.tail.split('\n')) io.info(`  ${b.tree} build | ${sanitizeText(l, 400)}`);
  }
  if (outcome.base) {
    verifyResultFile(baseOut, outcome.base);
    // Kept for a re-run of this pull request on the same base (the cache scopes it to this PR's ref).
    if (outcome.base.status === 'complete' && !inputs.shard) {
      const r = await saveBaselineToCache(deps.cache, baseOut, keyParts(outcome.baseSha), cwd);
      if (r.saved) io.info(`base result ${r.message.replace(/^baseline /, '')}`);
    }
  }
  return outcome;
}
