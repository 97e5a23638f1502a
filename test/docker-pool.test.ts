// The warm pool keeps one set of containers per tree: base and head trials alternate trial by trial
// (engine/run.ts runs a case's base and head side by side), and each must find a container started ahead
// for its own read-only mounts instead of throwing the other tree's away. No daemon needed: the pool is
// given a fake create/discard.
import { describe, expect, it } from 'vitest';
import type { RoSet } from '../src/runner/docker/mounts.js';
import { type Slot, WarmPool } from '../src/runner/docker/pool.js';

function pool(sets: number | undefined, size = 1) {
  const made: string[] = [];
  const discarded: string[] = [];
  let n = 0;
  const p = new WarmPool(
    size,
    async (ro: RoSet) => {
      const id = `${ro.key}#${++n}`;
      made.push(id);
      return { key: ro.key, dir: id } as unknown as Slot;
    },
    (s) => discarded.push(s.dir),
    () => {},
    () => false,
    ...(sets === undefined ? [] : [sets]),
  );
  return { p, made, discarded };
}
const set = (key: string): RoSet => ({ key, mounts: [] });
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('warm pool', () => {
  it('two trees alternating: every trial after the first of each gets a container made ahead, none discarded', async () => {
    const { p, made, discarded } = pool(2);
    p.refill(set('base'));
    p.refill(set('head'));
    const got: string[] = [];
    for (let i = 0; i < 6; i++) got.push((await p.take(set(i % 2 ? 'head' : 'base'))).dir);
    await settle();
    expect(discarded).toEqual([]);
    // Each trial took the container made before it was asked for; one spare per tree is warm at the end.
    expect(got).toEqual(['base#1', 'head#2', 'base#3', 'head#4', 'base#5', 'head#6']);
    expect(made).toHaveLength(8);
    expect(new Set(got).size).toBe(got.length); // never one container for two trials
  });

  it('one set (the default): another set replaces it, and its warm containers are discarded', async () => {
    const { p, discarded } = pool(undefined);
    p.refill(set('a'));
    await p.take(set('b'));
    await settle();
    expect(discarded).toEqual(['a#1']);
  });

  it('beyond `sets`, the least recently used set goes', async () => {
    const { p, discarded } = pool(2);
    await p.take(set('a'));
    await p.take(set('b'));
    await p.take(set('a')); // a is now the most recent
    await p.take(set('c')); // b goes, a stays
    await settle();
    expect(discarded.filter((d) => d.startsWith('b'))).toHaveLength(1);
    expect(discarded.some((d) => d.startsWith('a'))).toBe(false);
  });
});
