// The runners the conformance suite checks (test/runner-conformance.test.ts). Adding a runner is one
// entry here. `contained: false` documents a runner that is expected to fail every containment item
// (its tests run as expected failures, so an "uncontained" runner that starts passing one is noticed).
import { spawnSync } from 'node:child_process';
import type { Limits } from '../../src/runner/contain/limits.js';
import { DockerRunner } from '../../src/runner/docker/runner.js';
import { ProcessRunner } from '../../src/runner/process.js';
import type { Runner } from '../../src/runner/types.js';

export interface RunnerFactory {
  name: string;
  contained: boolean;
  /** A reason to skip this runner on this machine, or undefined when it can run here. */
  unavailable(): string | undefined;
  make(limits?: Partial<Limits>): Runner;
}

/** Docker runs when the daemon answers, and must run (fail, not skip) with HR_REQUIRE_DOCKER=1. */
export function dockerUnavailable(): string | undefined {
  if (process.env.HR_REQUIRE_DOCKER === '1') return undefined;
  const r = spawnSync('docker', ['version', '--format', '{{.Server.Version}}'], { timeout: 5000 });
  return r.status === 0
    ? undefined
    : 'the Docker daemon does not answer (HR_REQUIRE_DOCKER=1 makes this a failure)';
}

export const FACTORIES: RunnerFactory[] = [
  {
    name: 'process-contained',
    contained: true,
    // Contained or fail: a machine without bwrap must not quietly pass the suite uncontained.
    unavailable: () => undefined,
    make: (limits) => new ProcessRunner({ containment: 'required', ...(limits ? { limits } : {}) }),
  },
  {
    name: 'process-uncontained',
    contained: false,
    unavailable: () => undefined,
    make: () => new ProcessRunner({ containment: 'off' }),
  },
  {
    name: 'docker',
    contained: true,
    unavailable: dockerUnavailable,
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
