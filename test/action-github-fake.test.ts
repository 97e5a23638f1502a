// The fake GitHub the end-to-end test talks to must reject what the real API rejects, or the e2e test
// proves nothing. These checks drive it with raw HTTP.
import { getOctokit } from '@actions/github';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertStickyComment } from '../src/report/comment.js';
import { octokitApi } from '../src/report/github.js';
import { type FakeGitHub, startFakeGitHub } from './support/github-fake.js';

const SHA = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';
let gh: FakeGitHub;

beforeAll(async () => {
  gh = await startFakeGitHub({ repos: ['Codertocat/Hello-World'], issues: [2], commits: [SHA] });
});
afterAll(() => gh.close());

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${gh.url}${path}`, {
    method,
    headers: { authorization: 'token t', 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined, headers: res.headers };
}

const R = '/repos/Codertocat/Hello-World';
const annotation = { path: 'a.yaml', start_line: 1, end_line: 1, annotation_level: 'failure', message: 'm' };

describe('fake GitHub validates against the OpenAPI description', () => {
  it('accepts valid requests and answers with schema-valid bodies', async () => {
    gh.reset();
    const c = await call('POST', `${R}/issues/2/comments`, { body: 'hello' });
    expect(c.status).toBe(201);
    expect((await call('PATCH', `${R}/issues/comments/${c.json.id}`, { body: 'edited' })).status).toBe(200);
    const list = await call('GET', `${R}/issues/2/comments?per_page=100`);
    expect(list.json.map((x: { body: string }) => x.body)).toEqual(['edited']);
    const run = await call('POST', `${R}/check-runs`, {
      name: 'x',
      head_sha: SHA,
      status: 'completed',
      conclusion: 'success',
      completed_at: '2025-01-01T00:00:00Z',
      output: { title: 't', summary: 's', annotations: [annotation] },
    });
    expect(run.status).toBe(201);
    expect(
      (
        await call('PATCH', `${R}/check-runs/${run.json.id}`, {
          output: { title: 't', summary: 's', annotations: [annotation] },
        })
      ).status,
    ).toBe(200);
    expect((await call('DELETE', `${R}/issues/comments/${c.json.id}`)).status).toBe(204);
    expect(gh.violations).toEqual([]);
    expect(gh.responseViolations).toEqual([]);
    expect(gh.checkRuns[0]!.annotationRequests).toEqual([1, 1]);
  });

  it.each([
    ['unknown path', 'GET', '/repos/Codertocat/Hello-World/nonsense/1', undefined, 404],
    ['undefined method', 'PUT', `${R}/check-runs`, { name: 'x', head_sha: SHA }, 404],
    ['comment without body', 'POST', `${R}/issues/2/comments`, {}, 422],
    ['comment body not a string', 'POST', `${R}/issues/2/comments`, { body: 5 }, 422],
    ['comment too long', 'POST', `${R}/issues/2/comments`, { body: 'x'.repeat(65_537) }, 422],
    ['bad JSON', 'POST', `${R}/issues/2/comments`, '{"body": ', 400],
    ['non-integer issue number', 'GET', `${R}/issues/two/comments`, undefined, 404],
    ['unknown issue', 'GET', `${R}/issues/3/comments`, undefined, 404],
    ['unknown repository', 'GET', '/repos/someone/else/issues/2/comments', undefined, 404],
    ['per_page over 100', 'GET', `${R}/issues/2/comments?per_page=500`, undefined, 422],
    ['check run without head_sha', 'POST', `${R}/check-runs`, { name: 'x' }, 422],
    ['unknown commit', 'POST', `${R}/check-runs`, { name: 'x', head_sha: 'f'.repeat(40) }, 422],
    ['bad conclusion', 'POST', `${R}/check-runs`, { name: 'x', head_sha: SHA, conclusion: 'passed' }, 422],
    [
      'completed without conclusion',
      'POST',
      `${R}/check-runs`,
      { name: 'x', head_sha: SHA, status: 'completed' },
      422,
    ],
    [
      '51 annotations',
      'POST',
      `${R}/check-runs`,
      {
        name: 'x',
        head_sha: SHA,
        conclusion: 'failure',
        output: { title: 't', summary: 's', annotations: Array(51).fill(annotation) },
      },
      422,
    ],
    [
      'annotation without message',
      'POST',
      `${R}/check-runs`,
      {
        name: 'x',
        head_sha: SHA,
        conclusion: 'failure',
        output: { title: 't', summary: 's', annotations: [{ ...annotation, message: undefined }] },
      },
      422,
    ],
    [
      'annotation level error',
      'POST',
      `${R}/check-runs`,
      {
        name: 'x',
        head_sha: SHA,
        conclusion: 'failure',
        output: { title: 't', summary: 's', annotations: [{ ...annotation, annotation_level: 'error' }] },
      },
      422,
    ],
    [
      'summary over 65535',
      'POST',
      `${R}/check-runs`,
      {
        name: 'x',
        head_sha: SHA,
        conclusion: 'failure',
        output: { title: 't', summary: 's'.repeat(65_536) },
      },
      422,
    ],
    [
      'bad completed_at',
      'POST',
      `${R}/check-runs`,
      { name: 'x', head_sha: SHA, conclusion: 'success', completed_at: 'yesterday' },
      422,
    ],
    [
      'update of a missing check run',
      'PATCH',
      `${R}/check-runs/42`,
      { output: { title: 't', summary: 's' } },
      404,
    ],
    [
      'output without title',
      'POST',
      `${R}/check-runs`,
      { name: 'x', head_sha: SHA, conclusion: 'success', output: { summary: 's' } },
      422,
    ],
  ])('rejects %s', async (_name, method, path, body, status) => {
    gh.reset();
    const r = await call(method, path, body);
    expect(r.status).toBe(status);
    expect(gh.violations).toHaveLength(1);
  });

  it('rejects unauthenticated requests', async () => {
    gh.reset();
    const r = await fetch(`${gh.url}${R}/issues/2/comments`);
    expect(r.status).toBe(401);
    expect(gh.violations).toHaveLength(1);
  });

  it('paginates with Link headers', async () => {
    gh.reset();
    for (let i = 0; i < 5; i++) await call('POST', `${R}/issues/2/comments`, { body: `c${i}` });
    const p1 = await call('GET', `${R}/issues/2/comments?per_page=2`);
    expect(p1.json).toHaveLength(2);
    expect(p1.headers.get('link')).toMatch(/per_page=2&page=2>; rel="next"/);
    const p3 = await call('GET', `${R}/issues/2/comments?per_page=2&page=3`);
    expect(p3.json.map((c: { body: string }) => c.body)).toEqual(['c4']);
    expect(p3.headers.get('link')).toBeNull();
  });

  it('answers 403 to writes with a read-only token, like a fork PR', async () => {
    const ro = await startFakeGitHub({
      repos: ['Codertocat/Hello-World'],
      issues: [2],
      commits: [SHA],
      readOnly: true,
    });
    try {
      const r = await fetch(`${ro.url}${R}/issues/2/comments`, {
        method: 'POST',
        headers: { authorization: 'token t', 'content-type': 'application/json' },
        body: '{"body":"x"}',
      });
      expect(r.status).toBe(403);
      expect((await r.json()).message).toBe('Resource not accessible by integration');
      expect(ro.violations).toEqual([]);
    } finally {
      await ro.close();
    }
  });
});

describe('the real Octokit client against the fake', () => {
  it('finds the sticky comment on a later page and updates it (150 comments before it)', async () => {
    gh.reset();
    for (let i = 0; i < 150; i++) await call('POST', `${R}/issues/2/comments`, { body: `chatter ${i}` });
    const marker = '<!-- harness-risk-action:reference:guarded -->';
    await call('POST', `${R}/issues/2/comments`, { body: `${marker}\nold` });
    const api = octokitApi(getOctokit('t0ken', { baseUrl: gh.url }));
    const r = await upsertStickyComment(api, {
      owner: 'Codertocat',
      repo: 'Hello-World',
      issue_number: 2,
      marker,
      body: `${marker}\nnew`,
    });
    expect(r.action).toBe('updated');
    expect(gh.comments.filter((c) => c.body.startsWith(marker)).map((c) => c.body)).toEqual([
      `${marker}\nnew`,
    ]);
    const pages = gh.requests.filter((q) => q.method === 'GET').length;
    expect(pages).toBe(2); // per_page=100: 151 comments on two pages
    expect(gh.violations).toEqual([]);
  });
});
