// The trial's disk cap is a tmpfs mounted per trial by the contained process runner. mount and umount run
// while other trials' harnesses talk to their endpoints on the engine's event loop: they must not block
// it (spawnSync did, 10–40 ms a trial twice under load). Needs a host where the runner can mount.
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProcessRunner } from '../src/runner/process.js';
import { createTrialDirs, removeTrialDirs } from '../src/world/trial-dirs.js';
import { bwrapSkipReason, skipReason } from './support/requirements.js';

const mounted = (dir: string) => readFileSync('/proc/self/mountinfo', 'utf8').includes(` ${dir} `);

const GROUP = 'per-trial tmpfs mount and unmount';
const NO_MOUNT = { what: 'the runner cannot mount a tmpfs here', fix: 'run the tests as root' };

describe(GROUP, async () => {
  const runner = new ProcessRunner({ containment: 'auto' });
  await runner.start();
  const info = runner.info();
  // Contained, and allowed to mount (root, or sudo): the disk cap's tmpfs.
  const skip =
    bwrapSkipReason(GROUP) ??
    skipReason(GROUP, 'HR_REQUIRE_ROOT', info.limits?.via.disk === 'tmpfs' ? undefined : NO_MOUNT);
  it.skipIf(!!skip)(
    'the event loop keeps turning while the trial folder is mounted and unmounted',
    async () => {
      const dirs = await createTrialDirs(join(tmpdir(), `hr-mount-${process.pid}`), 't');
      try {
        for (const step of ['prepare', 'release'] as const) {
          let turned = false;
          setImmediate(() => {
            turned = true;
          });
          await runner[step]!(dirs);
          // Synchronous mount/umount returned before any other callback could run.
          expect(turned, step).toBe(true);
          expect(mounted(dirs.root), step).toBe(step === 'prepare');
        }
      } finally {
        await runner.stop();
        await removeTrialDirs(dirs).catch(() => {});
      }
    },
  );
});
