// One gate, one reporter. A gate is what a branch rule requires: the check run named after the adapter
// and configuration, with its sticky comment. Within one workflow run exactly one job may publish it;
// two (a config matrix leg and a shard merge job, or two case selections) would overwrite one sticky
// comment and make two check runs of one name, one of them over other cases. Each publish carries a
// tag (the check run's external_id, a hidden line in the comment) naming the run and the reporter; a
// second reporter in the same run finds the first one's tag and is refused.
import { createHash } from 'node:crypto';
import type { RunResult } from '../spec/run-result.js';

export interface Publisher {
  /** The workflow run (GITHUB_RUN_ID); a re-run attempt is the same run and the same reporter. */
  runId: string;
  /** The reporter within the run: its job and what it gates (selection and shard). */
  key: string;
}

const TAG = /hr1:([0-9]+):([0-9a-f]{12})/;

/** The reporter this job is, or undefined outside a workflow run (a local run publishes nothing). */
export function publisherOf(
  where: { runId?: string; job?: string },
  current: Pick<RunResult, 'selection' | 'adapter'>,
): Publisher | undefined {
  if (!where.runId || !/^[0-9]+$/.test(where.runId)) return undefined;
  const what = [
    where.job ?? '',
    current.selection?.digest ?? '',
    JSON.stringify(current.selection?.shard ?? null),
  ];
  return { runId: where.runId, key: createHash('sha256').update(what.join('\0')).digest('hex').slice(0, 12) };
}

/** The tag a publish carries (a check run's external_id prefix). */
export const publisherTag = (p: Publisher): string => `hr1:${p.runId}:${p.key}`;

/** The hidden line a sticky comment carries after its marker. */
export const publisherLine = (p: Publisher): string => `<!-- harness-risk-publisher ${publisherTag(p)} -->`;

/** Another reporter of the same run among what is published (external ids, comment bodies): its tag. */
export function rivalPublisher(published: (string | null | undefined)[], me: Publisher): string | undefined {
  for (const text of published) {
    const m = text ? TAG.exec(text) : null;
    if (m && m[1] === me.runId && m[2] !== me.key) return m[0];
  }
  return undefined;
}
