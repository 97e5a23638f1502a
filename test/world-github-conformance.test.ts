// The world's GitHub answers as GitHub's OpenAPI description says it answers: for every REST op of the
// catalog, a request that conforms to the description (checked first) gets an answer that validates against
// the description's response schema for that operation and status. The table is the catalog's: an op added
// without a sample here fails the first test.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { githubShapes, SHAPES_FILE } from '../scripts/github-shapes.js';
import { EvidenceRecorder } from '../src/evidence/recorder.js';
import { GITHUB_API_PREFIX, GITHUB_OPS } from '../src/spec/github-ops.js';
import { ServiceState } from '../src/spec/service-state.js';
import { complete } from '../src/world/github-rest-conform.js';
import { createServices } from '../src/world/services.js';
import { checkGithubRequest, responseViolation } from './support/github-fake.js';

const TOKEN = 'ghs_ConformanceCanaryToken0123456789abcd';

const STATE = ServiceState.parse({
  github: {
    repo: 'acme/app',
    files: { 'README.md': '# app\n' },
    issues: [{ number: 7, title: 'Crash', body: 'Steps', labels: ['bug'], comments: [{ body: 'me too' }] }],
    pulls: [
      {
        number: 8,
        title: 'Fix typo',
        fork: true,
        head: 'typo',
        base: 'dev',
        files: [{ filename: 'docs/a.md', patch: '+hello', content: 'hello\n' }],
        commits: [{ message: 'fix typo' }],
        comments: [{ body: 'lgtm' }],
        review_comments: [{ body: 'nit', path: 'docs/a.md', line: 1 }],
      },
    ],
    releases: [{ tag: 'v1.0.0', body: 'First release' }],
    runs: [{ id: 11, name: 'CI', jobs: [{ id: 21, name: 'test', log: 'npm test\n' }] }],
    check_runs: [{ id: 31, name: 'lint', ref: 'typo', title: 'lint failed', summary: '2 errors' }],
    secrets: ['NPM_TOKEN'],
    variables: { REGION: 'eu' },
    collaborators: [{ login: 'maintainer', permission: 'admin' }],
    actions: { token: TOKEN },
  },
});

const SHA = 'ab'.repeat(20);
/** Per op: path parameters after OWNER/REPO, and a body GitHub's description accepts. */
const SAMPLES: Record<string, { params: string[]; body?: Record<string, unknown>; query?: string }> = {
  issues: { params: [] },
  issue: { params: ['7'] },
  issue_comments: { params: ['7'] },
  comment: { params: ['7'], body: { body: 'hello' } },
  edit_issue: { params: ['7'], body: { title: 'New title', state: 'closed' } },
  add_labels: { params: ['7'], body: { labels: ['triage'] } },
  create_issue: { params: [], body: { title: 'Flaky test', body: 'It fails on Fridays' } },
  pulls: { params: [] },
  pull: { params: ['8'] },
  pull_files: { params: ['8'] },
  pull_commits: { params: ['8'] },
  review_comments: { params: ['8'] },
  review: { params: ['8'], body: { event: 'APPROVE', body: 'ok' } },
  merge: { params: ['8'], body: { merge_method: 'squash' } },
  contents: { params: ['README.md'] },
  put_contents: {
    params: ['docs/b.md'],
    body: { message: 'add b', content: Buffer.from('b\n').toString('base64'), branch: 'typo' },
  },
  ref: { params: ['heads/typo'] },
  create_ref: { params: [], body: { ref: 'refs/heads/topic', sha: SHA } },
  update_ref: { params: ['heads/typo'], body: { sha: SHA, force: true } },
  tags: { params: [] },
  releases: { params: [] },
  release_by_tag: { params: ['v1.0.0'] },
  create_release: { params: [], body: { tag_name: 'v2.0.0', name: 'v2', body: 'notes' } },
  runs: { params: [] },
  run: { params: ['11'] },
  run_jobs: { params: ['11'] },
  job_logs: { params: ['21'] },
  check_runs: { params: ['typo'] },
  check_run: { params: ['31'] },
  commit: { params: ['typo'] },
  secrets: { params: [] },
  variables: { params: [] },
  collaborators: { params: [] },
  add_collaborator: { params: ['mallory'], body: { permission: 'push' } },
};

const restOps = Object.entries(GITHUB_OPS).filter(([, s]) => s.path.startsWith(`${GITHUB_API_PREFIX}/`));

const servers: Server[] = [];
afterAll(() => {
  for (const s of servers) s.close();
});

async function world() {
  const handler = createServices(structuredClone(STATE), new EvidenceRecorder({ GITHUB_TOKEN: TOKEN }));
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The op's path with OWNER/REPO and the sample's parameters filled in. */
function pathOf(template: string, params: string[]): string {
  const values = ['acme', 'app', ...params];
  let i = 0;
  return template.replace(/:[a-z_]+\+?/g, () => values[i++]!);
}

describe("the world's GitHub answers in the shapes GitHub's OpenAPI description gives", () => {
  it('the shapes the world completes with are what the description gives (npx tsx scripts/github-shapes.ts)', () => {
    expect(JSON.parse(readFileSync(SHAPES_FILE, 'utf8'))).toEqual(githubShapes());
  });

  it('completion keeps what the route answered and fills only what is missing', () => {
    const shape = {
      o: {
        url: { v: '', r: 1 as const },
        comments_url: { v: '', r: 1 as const },
        closed_at: { v: null, r: 1 as const, n: 1 as const },
        user: { o: { login: { v: '', r: 1 as const }, avatar_url: { v: '', r: 1 as const } } },
      },
    };
    expect(complete({ url: 'http://x/issues/7', user: { login: 'octo' } }, shape)).toEqual({
      url: 'http://x/issues/7',
      comments_url: 'http://x/issues/7/comments',
      closed_at: null,
      user: { login: 'octo', avatar_url: '' },
    });
  });

  it('every REST op has a sample request', () => {
    expect(restOps.map(([op]) => op).filter((op) => !SAMPLES[op])).toEqual([]);
  });

  it.each(restOps)('%s: the answer validates against the response schema', async (op, spec) => {
    const url = await world();
    const sample = SAMPLES[op]!;
    const path = pathOf(spec.path, sample.params);
    const body = sample.body ? JSON.stringify(sample.body) : '';
    const checked = checkGithubRequest(
      spec.method.toLowerCase(),
      new URL(path.replace(GITHUB_API_PREFIX, ''), 'http://api.invalid'),
      `token ${TOKEN}`,
      'application/json',
      body,
    );
    if ('violation' in checked) throw new Error(`sample request does not conform: ${checked.violation}`);
    const res = await fetch(`${url}${path}`, {
      method: spec.method,
      headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
      ...(body ? { body } : {}),
    });
    expect(res.status).toBeLessThan(300);
    const text = await res.text();
    const json = res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
    expect(responseViolation(spec.method.toLowerCase(), checked, res.status, json) ?? 'conforms').toBe(
      'conforms',
    );
  });
});
