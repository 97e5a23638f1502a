// Targets of one run that pin other versions of the adapter's pinned harness (a bump's base and head): each
// target's trials launch its own version, installed from npm into the cache like the pin; a version that
// does not install leaves only that target's trials invalid, naming it. A real npm install from a local
// registry on 127.0.0.1 of a package whose policy pays without approval from 1.3.0 on.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { runTargets } from '../src/engine/run.js';
import type { RunResult } from '../src/spec/run-result.js';
import { ensureBundle, ROOT } from './support/action-bundle.js';
import { GUARDED } from './support/git-harness-repo.js';
import { type LocalRegistry, startLocalRegistry } from './support/npm-registry.js';

const PKG = 'tree-pin-agent';
const CASE = 'invoice-mail-changes-payee';

function release(version: string): Record<string, string> {
  const policy = GUARDED();
  if (version !== '1.0.0') policy.approval = policy.approval.filter((x: string) => x !== 'pay');
  return {
    'harness.js': readFileSync(join(ROOT, 'dist/reference-harness.js'), 'utf8'),
    'policy.json': JSON.stringify(policy, null, 2),
  };
}

function adapterYaml(): string {
  const ref = parseYaml(readFileSync(join(ROOT, 'adapters/reference/adapter.yaml'), 'utf8'));
  const dir = `{{cache}}/${PKG}-1.0.0/node_modules/${PKG}`;
  return stringify({
    ...ref,
    name: PKG,
    install: { npm: { package: PKG, version: '1.0.0' } },
    launch: {
      ...ref.launch,
      command: ['node', `${dir}/harness.js`, '--policy', `${dir}/policy.json`, '--prompt', '{{prompt}}'],
    },
    configs: { default: { description: 'The policy the package ships.' } },
  });
}

let registry: LocalRegistry;
beforeAll(async () => {
  ensureBundle();
  registry = await startLocalRegistry({ [PKG]: { '1.0.0': release('1.0.0'), '1.3.0': release('1.3.0') } });
}, 120_000);
afterAll(async () => registry?.close());

describe('targets that pin another version of the harness', () => {
  it("run each target's version; one that does not install leaves only that target's trials invalid", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hr-tree-pin-'));
    chmodSync(dir, 0o755);
    const repo = join(dir, 'repo');
    mkdirSync(repo);
    // npm finds the registry through the project's .npmrc, as a team configures it.
    writeFileSync(join(repo, '.npmrc'), `registry=${registry.url}\n`);
    writeFileSync(join(repo, 'package.json'), JSON.stringify({ name: 'app', private: true }));
    writeFileSync(join(dir, 'adapter.yaml'), adapterYaml());
    const cache = join(dir, 'cache');
    mkdirSync(cache);
    const out = (n: string) => join(dir, 'runs', `${n}.json`);
    const [pin, bumped, missing] = await runTargets(
      {
        adapter: join(dir, 'adapter.yaml'),
        config: 'default',
        cases: [`id:${CASE}`],
        runner: 'process',
        concurrency: 1,
        seeds: 1,
        model: 'scripted',
        out: out('pin'),
        keep_evidence: false,
        cache_dir: cache,
        repo_dir: repo,
      },
      [
        { repoDir: repo, out: out('pin') },
        { repoDir: repo, out: out('bumped'), harness_version: '1.3.0' },
        { repoDir: repo, out: out('missing'), harness_version: '9.9.9' },
      ],
    );
    const only = (r: RunResult | undefined) => r!.trials[0]!;
    expect(pin!.harness).toMatchObject({ package: PKG, version: '1.0.0' });
    expect(only(pin)).toMatchObject({ valid: true, labels: { a: false } });
    expect(bumped!.harness).toMatchObject({ package: PKG, version: '1.3.0' });
    expect(only(bumped)).toMatchObject({ valid: true, labels: { a: true } });
    expect(only(missing).valid).toBe(false);
    expect(JSON.stringify(only(missing))).toContain(`${PKG}@9.9.9, which this tree pins, did not install`);
    expect(existsSync(join(cache, `${PKG}-1.3.0`, '.harness-risk-installed.json'))).toBe(true);
  }, 300_000);
});
