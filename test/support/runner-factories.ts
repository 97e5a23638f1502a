// The runners the conformance suite checks (test/runner-conformance.test.ts). Adding a runner is one
// entry here. `contained: false` documents a runner that is expected to fail every containment item
// (its tests run as expected failures, so an "uncontained" runner that starts passing one is noticed).
import type { Limits } from '../../src/runner/contain/limits.js';
import { DockerRunner } from '../../src/runner/docker/runner.js';
import { ProcessRunner } from '../../src/runner/process.js';
import type { Runner } from '../../src/runner/types.js';
import { dockerSkipReason } from './docker.js';
import { bwrapSkipReason } from './requirements.js';

export interface RunnerFactory {
  name: string;
  contained: boolean;
  /**
   * Why `group` (this runner's tests) skips on this machine, or undefined when it can run here; throws
   * when the machine lacks what it needs and CI asked for it (test/support/requirements.ts).
   */
  unavailable(group: string): Promise<string | undefined>;
  make(limits?: Partial<Limits>): Runner;
}

export const FACTORIES: RunnerFactory[] = [
  {
    name: 'process-contained',
    contained: true,
    // Contained or skip, saying so (a failure with HR_REQUIRE_BWRAP=1, as in CI): a machine without bwrap
    // must not quietly pass the suite uncontained.
    unavailable: async (group) => bwrapSkipReason(group),
    make: (limits) => new ProcessRunner({ containment: 'required', ...(limits ? { limits } : {}) }),
  },
  {
    name: 'process-uncontained',
    contained: false,
    unavailable: async () => undefined,
    make: () => new ProcessRunner({ containment: 'off' }),
  },
  {
    name: 'docker',
    contained: true,
    unavailable: dockerSkipReason,
    make: (limits) =>
      new DockerRunner({
        runId: `conformance-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
        onWarning: () => {},
        ...(limits?.memory_bytes ? { memory: limits.memory_bytes } : {}),
        ...(limits?.pids ? { pids: limits.pids } : {}),
        ...(limits?.file_size_bytes ? { fileSize: limits.file_size_bytes } : {}),
        ...(limits?.disk_bytes ? { disk: limits.disk_bytes } : {}),
      }),
  },
];
