// drain(): the engine's work queue. In order, never more than `limit` at once, and items a running task
// appends (a paired run's follow-up base trials) run at full concurrency, even after the other slots
// found the queue empty.
import { describe, expect, it } from 'vitest';
import { drain } from '../src/engine/run.js';

const tick = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

describe('drain', () => {
  it.each([1, 2, 3])('limit %i: queue order, at most limit at once', async (limit) => {
    const started: number[] = [];
    let active = 0;
    let most = 0;
    await drain([0, 1, 2, 3, 4, 5], limit, async (n) => {
      started.push(n);
      most = Math.max(most, ++active);
      await tick(3);
      active--;
    });
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    expect(most).toBe(limit);
  });

  it('items appended late by a slow task run side by side, not on its slot alone', async () => {
    const queue = ['quick', 'slow'];
    let active = 0;
    let mostLate = 0;
    await drain(queue, 2, async (item) => {
      active++;
      if (item.startsWith('late')) mostLate = Math.max(mostLate, active);
      // The quick one ends first and finds the queue empty; the slow one then appends two.
      await tick(item === 'slow' ? 30 : item === 'quick' ? 1 : 10);
      if (item === 'slow') queue.push('late-1', 'late-2');
      active--;
    });
    expect(queue).toHaveLength(4);
    expect(mostLate).toBe(2);
  });

  it('an empty queue resolves; the first error rejects', async () => {
    await expect(drain([], 2, async () => {})).resolves.toBeUndefined();
    await expect(
      drain([1, 2, 3], 2, async (n) => {
        if (n === 2) throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
  });
});
