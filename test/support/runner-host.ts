// A stand-in for the engine process, for checks that need secrets in the engine's *initial*
// environment (/proc/PID/environ shows what a process started with; setting process.env later does
// not change it). The test bundles this file, starts it with planted variables, and it runs one
// fixture under the named runner and prints the outcome as JSON on its last stdout line.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildTrialEnv, policeEnv } from '../../src/engine/env.js';
import { createTrialDirs, removeTrialDirs } from '../../src/world/trial-dirs.js';
import { FACTORIES } from './runner-factories.js';

const { factory, fixture, base, env } = JSON.parse(process.argv[2]!) as {
  factory: string;
  fixture: string;
  base: string;
  env?: Record<string, string>;
};
const runner = FACTORIES.find((f) => f.name === factory)!.make();
await runner.start();
const dirs = await createTrialDirs(base, 'environ');
await runner.prepare?.(dirs);
const view = runner.view(dirs);
copyFileSync(fixture, join(dirs.bin, 'fixture.sh'));
// The test may SIGKILL us mid-run (the engine killed); say when the harness is under way.
console.log('STARTED');
const outcome = await runner.run({
  trial_id: 'environ',
  dirs,
  command: ['/bin/sh', `${view.bin}/fixture.sh`],
  cwd: view.workspace,
  env: policeEnv({
    ...buildTrialEnv({
      view,
      endpoint: 'http://127.0.0.1:9',
      endpointHost: '127.0.0.1',
      adapterEnv: {},
      configEnv: {},
    }).env,
    ...(env ?? {}),
  }).env,
  timeout_ms: 20_000,
  read_only: [],
  endpoint_port: 0,
});
await runner.release?.(dirs);
await runner.stop();
await removeTrialDirs(dirs).catch(() => {});
console.log(JSON.stringify({ outcome, info: runner.info?.() }));
