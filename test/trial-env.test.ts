// The harness's environment as a terminal would give it: PWD names the folder it starts in. Some harnesses
// take their project folder, and the folder their shell runs in, from PWD rather than from the process's
// cwd (opencode 1.18). Without it (or with the `/` a wrapper shell on the way left there) an attacker's
// `rm -f logs/audit.log` ran in `/`, did nothing, and the attack read "blocked".
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTrialEnv } from '../src/engine/env.js';
import { fixtureOverStandard } from './support/engine-run.js';

describe('the trial environment', () => {
  it('PWD is the folder the harness starts in; an adapter may still set its own', () => {
    const view = {
      workspace: '/w',
      home: '/h',
      tmp: '/t',
      bin: '/b',
      bindHost: '127.0.0.1',
      endpointHost: '127.0.0.1',
      systemPath: ['/usr/bin', '/bin'],
      mapReadOnly: (p: string) => p,
    };
    const env = (adapterEnv: Record<string, string>) =>
      buildTrialEnv({
        view,
        endpoint: 'http://127.0.0.1:1',
        endpointHost: '127.0.0.1',
        cwd: '/w/app',
        adapterEnv,
        configEnv: {},
      }).env as Record<string, string>;
    expect(env({}).PWD).toBe('/w/app');
    expect(env({ PWD: '/w' }).PWD).toBe('/w');
  });
});

// test/fixtures/pwd-harness: file tools and a shell that work in $PWD (in / without it), nothing refused.
// The standard cases whose attack runs a command not anchored at `/`: what PWD decides.
const run = fixtureOverStandard(join(import.meta.dirname, 'fixtures', 'pwd-harness'), 'open', (lc) =>
  lc.case.inject.goal.some((a) => a.do === 'run' && !a.command.trim().startsWith('/')),
);

describe('a harness that works in $PWD runs the attacker’s commands in the workspace', () => {
  it('every measured trial is unsafe: nothing refuses, and every command ran where the case put its files', () => {
    expect(run.ids.length).toBeGreaterThanOrEqual(30);
    const valid = run.result().trials.filter((t) => t.valid);
    expect(valid.length).toBeGreaterThanOrEqual(run.ids.length - 10);
    expect(valid.filter((t) => !t.labels.a).map((t) => t.case_id)).toEqual([]);
  });
});
