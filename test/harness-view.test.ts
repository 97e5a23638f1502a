// What a harness can read beyond its trial (src/engine/harness-view.ts): never the checkout's
// credentials, never anything that names its case. First the view as data (which paths are hidden),
// then a hostile harness (test/fixtures/adapters/case-seeker) under every contained runner, through the
// engine: it reads the credential files of a checkout-shaped repository and searches everything it can
// read for its case; it must find neither, so its labels equal the reference harness's.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { harnessView } from '../src/engine/harness-view.js';
import { runSafetyCases } from '../src/engine/run.js';
import type { RunResult } from '../src/spec/run-result.js';
import { dockerSkipReason, IMAGE } from './support/docker.js';
import { freshOut, scriptedRun, trialEvidence, useTempDir } from './support/engine-run.js';
import { bwrapSkipReason } from './support/requirements.js';

const ROOT = join(import.meta.dirname, '..');
const SEEKER = join(ROOT, 'test/fixtures/adapters/case-seeker');
const TOKEN = 'ghs_PLANTEDcheckoutToken0123456789';
const SMOKE = [
  'action/invoice-mail-changes-payee.yaml',
  'configuration/setup-guide-disables-approval.yaml',
  'extension/skill-requires-companion-install.yaml',
  'persistence/poisoned-memory-bashrc-hook.yaml',
  'recovery/failed-deploy-log-wipes-data.yaml',
  'runtime/it-support-mail-asks-for-aws-keys.yaml',
];

/** A repository as a workflow leaves it after actions/checkout, a cloud-auth action and a team's .env. */
function checkoutShapedRepo(base: string): string {
  const repo = join(base, 'repo');
  const put = (rel: string, text: string) => {
    mkdirSync(join(repo, rel, '..'), { recursive: true });
    writeFileSync(join(repo, rel), text);
  };
  const basic = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
  put('.git/config', `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${basic} PLANTED\n`);
  put('.git/modules/sub/config', `[http]\n\textraheader = AUTHORIZATION: basic ${basic} PLANTED\n`);
  put('.git/HEAD', 'ref: refs/heads/main\n');
  put('gha-creds-5c1f2b.json', '{"type":"service_account","private_key":"PLANTED-key"}\n');
  put('.env', 'DB_CONN=postgres://app:PLANTEDpw@db/prod\n');
  put('app/.env.local', 'STRIPE=PLANTED\n');
  put('package.json', '{"name":"my-harness","version":"1.2.3"}\n');
  put('src/index.js', 'console.log("my harness")\n');
  return repo;
}

describe('harnessView', () => {
  const base = mkdtempSync(join(tmpdir(), 'hr-view-'));
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  const action = join(base, 'action');
  for (const f of [
    'cli.js',
    'index.js',
    'cases-index.json',
    'reference-harness.js',
    'svc.js',
    'mcp-stdio.js',
  ]) {
    mkdirSync(join(action, 'dist'), { recursive: true });
    writeFileSync(join(action, 'dist', f), '');
  }
  mkdirSync(join(action, 'cases', 'runtime'), { recursive: true });
  const repo = checkoutShapedRepo(base);
  mkdirSync(join(repo, 'safety', 'cases'), { recursive: true });
  const packCase = join(repo, 'safety', 'cases', 'team-case.yaml');
  writeFileSync(packCase, 'id: team-case\n');
  const rootCase = join(repo, 'one-case.yaml');
  writeFileSync(rootCase, 'id: one-case\n');
  const input = {
    actionRoot: action,
    adapterDir: join(base, 'adapter'),
    cacheDir: join(base, 'cache'),
    repoDirs: [repo],
    caseFiles: [packCase, rootCase, join(action, 'cases', 'runtime', 'x.yaml')],
    libraryDir: join(action, 'cases'),
    engineOutputs: [join(base, 'runs')],
    expose: [] as string[],
  };

  it('hides the credentials, the case sources, the engine files and outputs; keeps the harness bundles', () => {
    const v = harnessView(input);
    const rel = (p: string) => p.slice(base.length + 1);
    expect(v.readOnly).toEqual([
      [
        join(action, 'dist/reference-harness.js'),
        join(action, 'dist/svc.js'),
        join(action, 'dist/mcp-stdio.js'),
        input.adapterDir,
        input.cacheDir,
        repo,
      ],
    ]);
    expect(v.hide.map(rel).sort()).toEqual(
      [
        'repo/.env',
        'repo/.git/config',
        'repo/.git/modules/sub/config',
        'repo/app/.env.local',
        'repo/gha-creds-5c1f2b.json',
        // A case in the repository's root: the root holds the build, so only the file is hidden.
        'repo/one-case.yaml',
        // A pack's folder, not its files: the mount table shows no case id.
        'repo/safety/cases',
        'runs',
      ].sort(),
    );
    expect(v.credentials).toEqual([
      '.env',
      '.git/config',
      '.git/modules/sub/config',
      'app/.env.local',
      'gha-creds-5c1f2b.json',
    ]);
    expect(v.exposed).toEqual([]);
  });

  it('a tree under test that holds the action: its dist/ shows only the harness bundles', () => {
    const v = harnessView({ ...input, repoDirs: [action] });
    expect(v.hide.filter((p) => p.includes('/dist/')).map((p) => p.slice(action.length + 1))).toEqual([
      'dist/cases-index.json',
      'dist/cli.js',
      'dist/index.js',
    ]);
    // The library under the tree is hidden as a folder.
    expect(v.hide).toContain(join(action, 'cases'));
  });

  it('an adapter can expose a credential file on purpose; it is listed apart', () => {
    const v = harnessView({ ...input, expose: ['app/.env.local'] });
    expect(v.hide.some((p) => p.endsWith('.env.local'))).toBe(false);
    expect(v.exposed).toEqual(['app/.env.local']);
  });
});

/** Per trial: validity and labels (what a harness that knew its case would change). */
const labelsOf = (r: RunResult) =>
  Object.fromEntries(r.trials.map((t) => [t.id, { valid: t.valid, labels: t.labels }]));

const dockerReason = await dockerSkipReason('harness-view');
const RUNNERS = [
  // The process runner hides the credentials only when contained.
  { runner: 'process' as const, skip: bwrapSkipReason('harness-view (process runner)') },
  { runner: 'docker' as const, skip: dockerReason },
];

describe.each(RUNNERS)(
  'a harness looking for its case and the checkout’s token ($runner runner)',
  ({ runner, skip }) => {
    const dir = useTempDir(`hr-seek-${runner}-`);
    it.skipIf(!!skip)(
      'reads no credential, finds nothing that names its case, and its labels are the reference harness’s',
      async () => {
        const repo = checkoutShapedRepo(dir());
        // The smoke cases as a team's case pack inside the repository under test (where a workflow keeps
        // its own cases), under ids of their own.
        const pack = join(repo, '.github', 'harness-risk', 'cases');
        mkdirSync(pack, { recursive: true });
        for (const f of SMOKE) {
          const src = readFileSync(join(ROOT, 'cases', f), 'utf8');
          const id = `team-${f.split('/')[1]!.replace(/\.yaml$/, '')}`;
          writeFileSync(join(pack, `${id}.yaml`), src.replace(/^id: .*$/m, `id: ${id}`));
        }
        // The docker runner's user must read the tree (a checkout on a runner is world-readable).
        for (const d of [dir(), repo]) chmodSync(d, 0o755);
        const common = {
          cases: [pack],
          runner,
          ...(runner === 'docker' ? { image: IMAGE } : {}),
          repo_dir: repo,
          keep_evidence: true,
        };
        const seeker = await runSafetyCases(
          scriptedRun({ ...common, adapter: SEEKER, out: freshOut(dir()) }),
        );
        const plain = await runSafetyCases(scriptedRun({ ...common, out: freshOut(dir()) }));
        expect(seeker.trials.length).toBeGreaterThan(5);
        const ids = seeker.cases.map((c) => c.id);
        for (const t of seeker.trials) {
          const ev = await trialEvidence(dir(), seeker, t.id);
          const seen = ev.process.stderr
            .split('\n')
            .filter((l) => l.startsWith('SEEK '))
            .join('\n');
          // It did look: it knew its case's text and walked what it can read.
          const [, entries, needles] = /SEARCHED (\d+) entries, (\d+) needles/.exec(seen) ?? [];
          expect(Number(needles), t.id).toBeGreaterThan(0);
          expect(Number(entries), t.id).toBeGreaterThan(100);
          expect(seen, t.id).toContain('FOUND nothing');
          expect(seen, t.id).not.toMatch(/READ|PLANTED/);
          // The trial's own path (cwd, HOME) names no case.
          for (const l of seen.split('\n').filter((x) => /^SEEK (CWD|HOME) /.test(x)))
            for (const id of ids) expect(l, t.id).not.toContain(id);
        }
        expect(labelsOf(seeker)).toEqual(labelsOf(plain));
        // The result says what was hidden from the harness.
        expect(seeker.view?.credentials_hidden).toEqual([
          '.env',
          '.git/config',
          '.git/modules/sub/config',
          'app/.env.local',
          'gha-creds-5c1f2b.json',
        ]);
      },
      600_000,
    );
  },
);
