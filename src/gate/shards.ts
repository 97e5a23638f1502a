// Merged shards prove they are complete: every result records its shard (i/n) and the digest of the
// selection it was cut from, so a merge can name the shard that is missing or given twice instead of
// reporting on part of the cases as if it were all of them.
import type { RunResult } from '../spec/run-result.js';

export interface NamedResult {
  result: RunResult;
  /** File name (or a label) for messages. */
  name: string;
}

export interface ShardCheck {
  /** What is missing or doubled: each one fails the gate (unless fail-on: never). */
  problems: string[];
  /** What cannot be proven (results of versions that did not record their selection). */
  notes: string[];
}

const short = (d: string) => d.slice(0, 12);

/**
 * Checks that `heads` are exactly the shards of one selection: one digest, one shard count, every index
 * 1..n exactly once (or one unsharded result), and together all the selection's cases.
 */
export function checkShards(heads: NamedResult[]): ShardCheck {
  const problems: string[] = [];
  const notes: string[] = [];
  const recorded = heads.filter((h) => h.result.selection);
  const unrecorded = heads.filter((h) => !h.result.selection);
  if (unrecorded.length) {
    notes.push(
      `${unrecorded.map((h) => h.name).join(', ')} record${unrecorded.length === 1 ? 's' : ''} no selection (written by an older version), so whether every shard is here cannot be checked`,
    );
  }
  if (recorded.length === 0) return { problems, notes };

  const digests = new Map<string, string[]>();
  for (const h of recorded) {
    const d = h.result.selection!.digest;
    digests.set(d, [...(digests.get(d) ?? []), h.name]);
  }
  if (digests.size > 1) {
    problems.push(
      `the results come from different case selections (${[...digests].map(([d, names]) => `${short(d)}: ${names.join(', ')}`).join('; ')}); merge the shards of one run only`,
    );
    return { problems, notes };
  }
  const [digest] = [...digests.keys()] as [string];
  const unsharded = recorded.filter((h) => !h.result.selection!.shard);
  const sharded = recorded.filter((h) => h.result.selection!.shard);
  if (unsharded.length > 1) {
    problems.push(
      `the whole selection ${short(digest)} is given ${unsharded.length} times (${unsharded.map((h) => h.name).join(', ')}); give each result once`,
    );
  }
  if (unsharded.length && sharded.length) {
    problems.push(
      `${unsharded.map((h) => h.name).join(', ')} hold${unsharded.length === 1 ? 's' : ''} the whole selection but ${sharded.map((h) => h.name).join(', ')} ${sharded.length === 1 ? 'is a shard' : 'are shards'} of it; merge either the shards or the whole run`,
    );
  }
  if (sharded.length) {
    const totals = new Set(sharded.map((h) => h.result.selection!.shard!.total));
    if (totals.size > 1) {
      problems.push(
        `the shards were cut ${[...totals].sort().join(' and ')} ways (${sharded.map((h) => `${h.name}: ${h.result.selection!.shard!.index}/${h.result.selection!.shard!.total}`).join(', ')}); merge the shards of one matrix`,
      );
    } else {
      const [total] = [...totals] as [number];
      const byIndex = new Map<number, string[]>();
      for (const h of sharded) {
        const i = h.result.selection!.shard!.index;
        byIndex.set(i, [...(byIndex.get(i) ?? []), h.name]);
      }
      const missing = Array.from({ length: total }, (_, k) => k + 1).filter((i) => !byIndex.has(i));
      for (const i of missing)
        problems.push(
          `shard ${i}/${total} of selection ${short(digest)} is missing: its job failed, was cancelled or its result was not downloaded; re-run it or merge all ${total} shards`,
        );
      for (const [i, names] of byIndex)
        if (names.length > 1)
          problems.push(
            `shard ${i}/${total} is given ${names.length} times (${names.join(', ')}); give each shard once`,
          );
    }
  }
  // Whatever the bookkeeping says, the cases themselves must add up to the selection.
  const expected = recorded[0]!.result.selection!.cases;
  const ids = new Set(heads.flatMap((h) => h.result.cases.map((c) => c.id)));
  // A base tree that ran base-cases holds a subset on purpose (selection.subset).
  const subset = recorded.every((h) => h.result.selection!.subset);
  if (problems.length === 0 && ids.size < expected && !subset) {
    problems.push(`the results hold ${ids.size} of the selection's ${expected} cases`);
  }
  return { problems, notes };
}

/** Base-tree results (source.tree = base: a paired run's baseline half) and the heads, apart. */
export function splitTrees<T extends { result: RunResult }>(all: T[]): { base: T[]; head: T[] } {
  return {
    base: all.filter((x) => x.result.source.tree === 'base'),
    head: all.filter((x) => x.result.source.tree !== 'base'),
  };
}
