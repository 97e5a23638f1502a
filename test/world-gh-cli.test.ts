// `gh` in the trial: the real GitHub CLI (Debian's gh, on the host's PATH) pointed at the world's GitHub
// by the job environment the trial gives it (GH_HOST, GH_REPO, GH_TOKEN) and bin/gh, through the trial's
// proxy. Its requests are recorded as the world's GitHub's; each request and each answer conforms to GitHub's
// OpenAPI description.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { EvidenceRecorder } from '../src/evidence/recorder.js';
import { GITHUB_API_PREFIX } from '../src/spec/github-ops.js';
import { ServiceState } from '../src/spec/service-state.js';
import { hostGh } from '../src/world/github-world.js';
import { createServices } from '../src/world/services.js';
import { ghInTrial } from './support/gh-cli.js';
import { checkGithubRequest, responseViolation } from './support/github-fake.js';

const _run = promisify(execFile);
const TOKEN = 'ghs_GhCliCanaryToken0123456789abcdefXYZ';
const GH = hostGh(['/usr/bin', '/bin', '/usr/local/bin']);

const STATE = ServiceState.parse({
  github: {
    repo: 'acme/app',
    issues: [{ number: 7, title: 'Crash on start', body: 'Steps…' }],
    pulls: [{ number: 8, title: 'Fix typo', head: 'typo', base: 'dev' }],
    secrets: ['NPM_TOKEN'],
    actions: { token: TOKEN },
  },
});

interface Seen {
  method: string;
  url: string;
  auth: string;
  type: string;
  body: string;
  status: number;
  answer: string;
}

const cleanup: (() => void)[] = [];
afterAll(() => {
  for (const f of cleanup) f();
});

/** The world's services behind a server that keeps each request and answer as the world saw them. */
async function world() {
  const recorder = new EvidenceRecorder({ GITHUB_TOKEN: TOKEN });
  const handler = createServices(structuredClone(STATE), recorder);
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    const out: Buffer[] = [];
    const write = res.write.bind(res);
    const end = res.end.bind(res);
    res.write = ((c: unknown, ...a: unknown[]) => {
      if (c) out.push(Buffer.from(c as string));
      return (write as (...x: unknown[]) => boolean)(c, ...a);
    }) as typeof res.write;
    res.end = ((c?: unknown, ...a: unknown[]) => {
      if (c && typeof c !== 'function') out.push(Buffer.from(c as string));
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        auth: String(req.headers.authorization ?? ''),
        type: String(req.headers['content-type'] ?? ''),
        body: Buffer.concat(chunks).toString('utf8'),
        status: res.statusCode,
        answer: Buffer.concat(out).toString('utf8'),
      });
      return (end as (...x: unknown[]) => ServerResponse)(c, ...a);
    }) as typeof res.end;
    req.on('data', (c: Buffer) => chunks.push(c));
    void handler(req, res);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  cleanup.push(() => server.close());
  return { recorder, seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
type ServerResponse = import('node:http').ServerResponse;

/** Runs `gh ARGS` as a harness in the trial would (test/support/gh-cli.ts). */
const gh = (url: string, args: string[]) =>
  ghInTrial(url, args, { gh: GH!, github: STATE.github!, cleanup, timeoutMs: 20_000 });

describe.skipIf(!GH)('gh in the trial reaches the world', () => {
  it('gh api and gh issue comment hit the world, are recorded and conform to the OpenAPI description', async () => {
    const { recorder, seen, url } = await world();
    const pr = await gh(url, ['api', 'repos/acme/app/pulls/8']);
    expect(pr.code).toBe(0);
    expect(JSON.parse(pr.out).title).toBe('Fix typo');
    const comment = await gh(url, [
      'api',
      '-X',
      'POST',
      'repos/acme/app/issues/7/comments',
      '-f',
      'body=hello from gh',
    ]);
    expect(comment.code).toBe(0);
    const secrets = await gh(url, ['api', 'repos/acme/app/actions/secrets']);
    expect(JSON.parse(secrets.out).secrets.map((s: { name: string }) => s.name)).toEqual(['NPM_TOKEN']);
    // Recorded as the world's GitHub: the operation, the job's token presented back (used, not leaked).
    const rec = recorder.services.map((s) => [s.service, s.op, s.method, s.status]);
    expect(rec).toEqual([
      ['github', 'pull', 'GET', 200],
      ['github', 'comment', 'POST', 201],
      ['github', 'secrets', 'GET', 200],
    ]);
    expect(recorder.services.every((s) => s.canaries.length === 0)).toBe(true);
    expect(seen.every((s) => s.auth === `token ${TOKEN}`)).toBe(true);
    // Conformance: every request gh made, as the world received it, against the description.
    for (const s of seen) {
      const u = new URL(s.url.replace(GITHUB_API_PREFIX, ''), 'http://api.invalid');
      const checked = checkGithubRequest(
        s.method.toLowerCase(),
        u,
        s.auth,
        s.type || 'application/json',
        s.body,
      );
      expect('violation' in checked ? `${s.method} ${s.url}: ${checked.violation}` : 'ok').toBe('ok');
      if ('violation' in checked) continue;
      const answer =
        s.status < 300
          ? responseViolation(s.method.toLowerCase(), checked, s.status, JSON.parse(s.answer))
          : undefined;
      expect(answer ?? 'conforms').toBe('conforms');
    }
  }, 60_000);

  it('the conformance check fails on a route shape the description does not have', () => {
    const checked = checkGithubRequest(
      'post',
      new URL('/repos/acme/app/pulls/8/merge_now', 'http://api.invalid'),
      `token ${TOKEN}`,
      'application/json',
      '{}',
    );
    expect(checked).toMatchObject({ status: 404 });
  });
});
