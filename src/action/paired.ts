// The action's `baseline: base`: which commit is the base (the event's), and the paired run through the
// base source (baseline/base.ts) with the Actions cache in front of it; the builds' output in the log.
import { runWithBase } from '../baseline/base.js';
import type { PairedOutcome } from '../baseline/base-head.js';
import type { RunOptions } from '../engine/options.js';
import { type ActionInputs, InputError } from '../front/inputs.js';
import { sanitizeText } from '../report/escape.js';
import { type ActionContext, baseOfEvent } from './context.js';
import type { RunDeps } from './deps.js';

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
): Promise<PairedOutcome> {
  const { core: io, cwd } = deps;
  const base = baseCommitOf(ctx);
  if (!base)
    throw new InputError(
      'baseline',
      `base needs the base commit of the event (a pull_request's or merge_group's base_sha, or a push's before), and this ${ctx.eventName || 'unknown'} event names none; use baseline: cache or file:PATH here`,
    );
  const outcome = await runWithBase({
    paired: deps.paired,
    run,
    headDir: cwd,
    baseRef: base.sha,
    ...(inputs.build ? { build: inputs.build } : {}),
    ...(inputs.baseCases ? { baseCases: inputs.baseCases } : {}),
    env: deps.env,
    log: (line) => io.info(`  ${sanitizeText(line, 500)}`),
    cache: {
      api: deps.cache,
      cwd,
      branch: base.ref || ctx.defaultBranch || '',
      save: !inputs.shard,
      onSaved: (message) => io.info(message),
    },
  });
  for (const b of outcome.builds) {
    // The whole tail in the log (the report has its last lines), behind a prefix: no workflow commands.
    io.error(`the ${b.tree} build \`${sanitizeText(b.command, 200)}\` failed`);
    for (const l of b.outcome.tail.split('\n')) io.info(`  ${b.tree} build | ${sanitizeText(l, 400)}`);
  }
  return outcome;
}
