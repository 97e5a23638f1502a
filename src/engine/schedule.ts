// When trials run: the engine's work queue (drain) and the harness slots (Gate). A trial's world is built
// and its result scored outside a slot, so that work overlaps the other trials' harnesses instead of
// adding to the run's wall time; only the harness itself waits for a slot.

/**
 * Runs `task` over `queue` with at most `limit` at once, in queue order, until the queue is drained:
 * items a running task appends (follow-up trials) are picked up at full concurrency. Rejects with the
 * first task error; tasks already running finish on their own.
 */
export async function drain<T>(queue: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let active = 0;
  let failed = false;
  await new Promise<void>((resolve, reject) => {
    const pump = () => {
      while (!failed && active < Math.max(1, limit) && next < queue.length) {
        const item = queue[next++]!;
        active++;
        task(item).then(
          () => {
            active--;
            pump();
          },
          (e) => {
            failed = true;
            reject(e);
          },
        );
      }
      if (!failed && active === 0 && next >= queue.length) resolve();
    };
    pump();
  });
}

/**
 * At most `limit` holders at once, in the order of their turns (taken in queue order when a job begins),
 * not in the order they became ready: a trial prepared faster than the one before it still waits for
 * it, so harnesses start in queue order (base and head of a case side by side). A turn that will never
 * run is given up (`pass`), or every later turn would wait for it.
 */
export class Gate {
  private active = 0;
  private taken = 0;
  /** The lowest turn not yet started or passed. */
  private next = 0;
  private readonly ready = new Map<number, () => void>();
  private readonly passed = new Set<number>();

  constructor(private readonly limit: number) {}

  /**
   * `run(fn)` waits for the slot, then holds it until `fn` settles or calls the `free` it is given
   * (whichever is first): a holder whose remaining work needs no slot lets the next one start.
   */
  turn(): { run<T>(fn: (free: () => void) => Promise<T>): Promise<T>; pass(): void } {
    const n = this.taken++;
    let used = false;
    return {
      run: async <T>(fn: (free: () => void) => Promise<T>): Promise<T> => {
        used = true;
        await new Promise<void>((ok) => {
          this.ready.set(n, ok);
          this.pump();
        });
        let held = true;
        const free = () => {
          if (!held) return;
          held = false;
          this.active--;
          this.pump();
        };
        try {
          return await fn(free);
        } finally {
          free();
        }
      },
      pass: () => {
        if (used) return;
        used = true;
        this.passed.add(n);
        this.pump();
      },
    };
  }

  /** Runs `fn` in the next turn. */
  run<T>(fn: (free: () => void) => Promise<T>): Promise<T> {
    return this.turn().run(fn);
  }

  private pump(): void {
    for (;;) {
      if (this.passed.delete(this.next)) {
        this.next++;
        continue;
      }
      const go = this.ready.get(this.next);
      if (!go || this.active >= Math.max(1, this.limit)) return;
      this.ready.delete(this.next);
      this.next++;
      this.active++;
      go();
    }
  }
}

/** A trial whose harness was never started: the run stopped while it waited for a slot. */
export class TrialNotStarted extends Error {}

/**
 * Trials in flight beyond the harness slots: one prepared (staged) ahead for each slot, so that a slot
 * whose harness ends goes at once to a trial that is ready, plus one being scored. With a fixed two, four
 * slots whose harnesses ended together left two of them idle while the next trials' worlds were made.
 */
export const trialsAhead = (slots: number): number => Math.max(1, slots) + 1;
