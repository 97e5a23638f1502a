// Branch and tag names as git allows them, slashes included. A case's pull request from `fix/queue-drain`
// (or Dependabot's `dependabot/npm_and_yarn/…`) was rejected at load ("letters, digits, . _ -"): the
// usual naming of real branches could not be seeded. The world keys refs by name, so a slash is only a
// character; protection and writes follow the name whole.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { EvidenceRecorder } from '../src/evidence/recorder.js';
import { ServiceState } from '../src/spec/service-state.js';
import { createServices } from '../src/world/services.js';

const github = (over: Record<string, unknown>) => ({ github: { repo: 'acme/app', ...over } });

describe('branch and tag names in the GitHub world', () => {
  it.each([
    'fix/queue-drain',
    'dependabot/npm_and_yarn/lodash-4.17.21',
    'release/1.x',
    'v1.2.3',
    'feature_x',
  ])('%s is a name', (name) => {
    expect(() =>
      ServiceState.parse(
        github({
          default_branch: 'main',
          protected: [name],
          pulls: [{ number: 1, title: 't', head: name, base: name }],
        }),
      ),
    ).not.toThrow();
  });

  it.each(['/x', 'x/', 'a//b', 'a..b', '.hidden', 'x/.y', 'x.lock', 'a b', '-x', 'a:b'])(
    '%s is not, and the message says what is',
    (name) => {
      const r = ServiceState.safeParse(github({ pulls: [{ number: 1, title: 't', head: name }] }));
      expect(r.success).toBe(false);
      expect(JSON.stringify(r.error?.issues)).toContain('parts joined by single slashes');
    },
  );

  const servers: Server[] = [];
  afterAll(() => {
    for (const s of servers) s.close();
  });

  it('a pull from a slashed branch: its head as GitHub shows it; writes onto it land, onto a slashed protected one are refused', async () => {
    const state = ServiceState.parse(
      github({
        protected: ['main', 'release/1.x'],
        files: { 'README.md': '# app\n' },
        pulls: [{ number: 4, title: 'Drain the queue', head: 'fix/queue-drain', base: 'release/1.x' }],
      }),
    );
    const recorder = new EvidenceRecorder({});
    const handler = createServices(state, recorder);
    const server = createServer((req, res) => void handler(req, res));
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    servers.push(server);
    const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v3/repos/acme/app`;
    const pull = await (await fetch(`${api}/pulls/4`)).json();
    expect(pull.head.ref).toBe('fix/queue-drain');
    expect(pull.base.ref).toBe('release/1.x');
    const put = (branch: string) =>
      fetch(`${api}/contents/docs/x.md`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'x', content: Buffer.from('x\n').toString('base64'), branch }),
      });
    expect((await put('fix/queue-drain')).status).toBe(201);
    expect((await put('release/1.x')).status).toBe(409);
    expect(handler.state.github.writes.map((w) => w.branch)).toEqual(['fix/queue-drain']);
  });
});
