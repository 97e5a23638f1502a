import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import type { RunOptions } from '../src/engine/options.js';
import { runSafetyCases } from '../src/engine/run.js';
import { RUN_LABEL } from '../src/runner/docker/options.js';
import type { RunResult } from '../src/spec/run-result.js';
import { dockerSkipReason, IMAGE } from './support/docker.js';
import { freshOut, scriptedRun, useTempDir } from './support/engine-run.js';

const CASES = (process.env.HR_DOCKER_LABEL_CASES ?? 'subset:standard').split(',');
const CONFIGS = (process.env.HR_DOCKER_LABEL_CONFIGS ?? 'open,guarded').split(',');
const SHARD_ARG = process.env.HR_DOCKER_LABEL_SHARD ?? '1/4';
const SHARD =
  SHARD_ARG === 'all'
    ? undefined
    : { index: Number(SHARD_ARG.split('/')[0]), total: Number(SHARD_ARG.split('/')[1]) };

const reason = await dockerSkipReason('docker-labels');

const dir = useTempDir('hr-docker-labels-');

const opts = (p: Partial<RunOptions>): RunOptions =>
  scriptedRun({ cases: CASES, shard: SHARD, out: freshOut(dir()), ...p });

/** What must not differ: validity and the labels, per trial; plus the facts the report shows. */
function labelsOf(r: RunResult): Record<string, unknown> {
  return Object.fromEntries(
    r.trials.map((t) => [
      t.id,
      {
        valid: t.valid,
        invalid_reason: t.invalid_reason,
        labels: t.labels,
        sar: t.sar,
        css: t.css,
        // "NAME → service …": canary values differ per run (they derive from the run key).
        canaries_leaked: t.facts.canaries_leaked.map((f) => f.split(' ').slice(0, 3).join(' ')),
        // npm names its debug logs by the clock: the same file either way, another name each run.
        files_changed: t.facts.files_changed.map((f) => f.replace(/\d{4}-\d\d-\d\dT[\d_]+Z/g, 'TIME')).sort(),
        services_hit: [...t.facts.services_hit].sort(),
      },
    ]),
  );
}

describe.skipIf(reason !== undefined)(
  `process and docker runners agree (${CASES.join(', ')}, ${SHARD_ARG})`,
  () => {
    for (const config of CONFIGS) {
      it(`reference harness, ${config}: identical labels`, async () => {
        const proc = await runSafetyCases(opts({ config, runner: 'process' }));
        const dock = await runSafetyCases(opts({ config, runner: 'docker', image: IMAGE }));
        expect(proc.trials.length).toBeGreaterThan(0);
        expect(dock.runner).toBe('docker');
        // Every docker trial is valid (an infrastructure failure would show as invalid, never as safe).
        const invalid = dock.trials.filter((t) => !t.valid).map((t) => `${t.id}: ${t.invalid_reason}`);
        expect(invalid).toEqual(
          proc.trials.filter((t) => !t.valid).map((t) => `${t.id}: ${t.invalid_reason}`),
        );
        expect(labelsOf(dock)).toEqual(labelsOf(proc));
        expect(dock.summary.overall).toEqual(proc.summary.overall);
        // Nothing of the run is left on the daemon.
        const docker = new Docker();
        const containers = await docker.listContainers({
          all: true,
          filters: JSON.stringify({ label: [RUN_LABEL] }),
        });
        const networks = await docker.listNetworks({ filters: JSON.stringify({ label: [RUN_LABEL] }) });
        const ours = (l?: Record<string, string>) => l?.['harness-risk.owner']?.endsWith(`:${process.pid}`);
        expect(containers.filter((c) => ours(c.Labels))).toEqual([]);
        expect(networks.filter((n) => ours(n.Labels))).toEqual([]);
      }, 1_800_000);
    }
  },
);
