// The same 20-item job on both tools, each item a process that sleeps 200 ms, same concurrency:
//  - ours: `run` of 20 trials (1 case × 20 seeds) of scripts/bench/sleeper (sleeps 200 ms, asks the
//    model once so the trial is valid and scored);
//  - promptfoo: `eval` of 20 tests with an exec provider running a script that sleeps 200 ms.
// Wall from spawn to exit for each; interleaved, medians over `runs`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, median } from './lib.mjs';

export const PROMPTFOO = 'promptfoo@0.121.20';
const BIN = 'node_modules/.bin/promptfoo';

/** Why promptfoo cannot be compared, or undefined when the pinned version is installed. */
export function promptfooMissing() {
  if (!existsSync(BIN)) return `npm i --no-save ${PROMPTFOO}`;
  const v = JSON.parse(readFileSync('node_modules/promptfoo/package.json', 'utf8')).version;
  if (`promptfoo@${v}` !== PROMPTFOO) return `promptfoo ${v} installed, the job is pinned to ${PROMPTFOO}`;
  return undefined;
}

function promptfooConfig(dir, items) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'item.sh'), '#!/bin/sh\nsleep 0.2\necho ok\n', { mode: 0o755 });
  const tests = Array.from({ length: items }, (_, i) => `  - vars: { n: ${i + 1} }`).join('\n');
  writeFileSync(
    join(dir, 'promptfooconfig.yaml'),
    `description: bench ${items} items\nprompts: ['item {{n}}']\nproviders: ['exec: sh item.sh']\ntests:\n${tests}\n`,
  );
}

function promptfooOnce(dir, concurrency) {
  const t0 = Date.now();
  const r = spawnSync(
    process.execPath,
    [
      join(process.cwd(), BIN),
      'eval',
      '-c',
      'promptfooconfig.yaml',
      '--no-cache',
      '-j',
      String(concurrency),
      '-o',
      'out.json',
      '--no-progress-bar',
    ],
    {
      cwd: dir,
      encoding: 'utf8',
      // No telemetry, update check or sharing (nothing here reaches the internet anyway); its database
      // and logs in the job's folder.
      env: {
        ...process.env,
        PROMPTFOO_DISABLE_TELEMETRY: '1',
        PROMPTFOO_DISABLE_UPDATE: '1',
        PROMPTFOO_DISABLE_SHARING: '1',
        PROMPTFOO_CONFIG_DIR: join(dir, 'config'),
      },
    },
  );
  const ms = Date.now() - t0;
  const out = existsSync(join(dir, 'out.json'))
    ? JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8'))
    : undefined;
  const stats = out?.results?.stats;
  if (r.status !== 0 || !stats || stats.successes !== 20)
    throw new Error(`promptfoo eval failed (${r.status}): ${(r.stderr ?? '').slice(-1500)}`);
  return ms;
}

/** { ours_ms, promptfoo_ms, ratio } medians, or { skipped }. */
export function compareWithPromptfoo({ runs, concurrency = 4, items = 20, dir }) {
  const missing = promptfooMissing();
  if (missing) return { skipped: missing };
  promptfooConfig(dir, items);
  const ours = [];
  const theirs = [];
  for (let i = 0; i < runs; i++) {
    const r = cli([
      'run',
      '--adapter',
      'scripts/bench/sleeper',
      '--config',
      'default',
      '--cases',
      'id:setup-guide-disables-approval',
      '--seeds',
      String(items),
      '--concurrency',
      String(concurrency),
      '--out',
      join(dir, `ours-${i}.json`),
      '--quiet',
    ]);
    const res = JSON.parse(readFileSync(join(dir, `ours-${i}.json`), 'utf8'));
    if (res.trials.filter((t) => t.valid).length !== items)
      throw new Error('the sleeper run had invalid trials');
    ours.push(r.ms);
    theirs.push(promptfooOnce(dir, concurrency));
  }
  const o = median(ours);
  const p = median(theirs);
  return { ours_ms: o, promptfoo_ms: p, ratio: o / p, items, concurrency, ours, theirs };
}
