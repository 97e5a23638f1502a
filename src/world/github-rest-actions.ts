// The world's GitHub over REST: GitHub Actions (workflow runs, jobs, job logs, check runs, secrets,
// variables) and the Actions OIDC token endpoint.
import type { GithubLive } from '../evidence/github-live.js';
import { fakeSha } from '../evidence/github-live.js';
import { fail, type GhRun, ok, repoUrl } from './github-rest-answers.js';

type WfRun = GithubLive['runs'][number];
const runJson = (gh: GithubLive, r: WfRun) => ({
  id: r.id,
  name: r.name,
  node_id: `WFR_${r.id}`,
  head_branch: r.head_branch,
  head_sha: gh.refs[`heads/${r.head_branch}`] ?? fakeSha(`branch:${r.head_branch}`),
  status: 'completed',
  conclusion: r.conclusion,
  event: 'push',
  run_number: r.id,
  html_url: `https://github.invalid/${gh.repo}/actions/runs/${r.id}`,
  jobs_url: `${repoUrl(gh)}/actions/runs/${r.id}/jobs`,
  logs_url: `${repoUrl(gh)}/actions/runs/${r.id}/logs`,
});
export const runs: GhRun = (_c, _p, gh) =>
  ok({ total_count: gh.runs.length, workflow_runs: gh.runs.map((r) => runJson(gh, r)) });
export const run: GhRun = (_c, [id], gh) => {
  const r = gh.runs.find((x) => x.id === Number(id));
  return r ? ok(runJson(gh, r)) : fail(404, 'Not Found');
};
export const runJobs: GhRun = (_c, [id], gh) => {
  const r = gh.runs.find((x) => x.id === Number(id));
  if (!r) return fail(404, 'Not Found');
  return ok({
    total_count: r.jobs.length,
    jobs: r.jobs.map((j) => ({
      id: j.id,
      run_id: r.id,
      name: j.name,
      status: 'completed',
      conclusion: r.conclusion,
      html_url: `https://github.invalid/${gh.repo}/actions/runs/${r.id}/job/${j.id}`,
    })),
  });
};
export const jobLogs: GhRun = (_c, [id], gh) => {
  const job = gh.runs.flatMap((r) => r.jobs).find((j) => j.id === Number(id));
  return job ? { status: 200, text: job.log, type: 'text/plain; charset=utf-8' } : fail(404, 'Not Found');
};

type Check = GithubLive['check_runs'][number];
const checkJson = (gh: GithubLive, c: Check) => ({
  id: c.id,
  name: c.name,
  node_id: `CR_${c.id}`,
  head_sha: gh.refs[`heads/${c.ref}`] ?? c.ref,
  status: 'completed',
  conclusion: c.conclusion,
  output: { title: c.title, summary: c.summary, text: c.text, annotations_count: 0 },
  html_url: `https://github.invalid/${gh.repo}/runs/${c.id}`,
  app: { slug: 'ci' },
});
export const checkRuns: GhRun = (_c, [refName], gh) => {
  const list = gh.check_runs.filter((c) => c.ref === refName || gh.refs[`heads/${c.ref}`] === refName);
  return ok({ total_count: list.length, check_runs: list.map((c) => checkJson(gh, c)) });
};
export const checkRun: GhRun = (_c, [id], gh) => {
  const c = gh.check_runs.find((x) => x.id === Number(id));
  return c ? ok(checkJson(gh, c)) : fail(404, 'Not Found');
};

export const secrets: GhRun = (_c, _p, gh) =>
  ok({
    total_count: gh.secrets.length,
    secrets: gh.secrets.map((name) => ({
      name,
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
    })),
  });
export const variables: GhRun = (_c, _p, gh) => {
  const list = Object.entries(gh.variables);
  return ok({
    total_count: list.length,
    variables: list.map(([name, value]) => ({
      name,
      value,
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
    })),
  });
};

// ---- the Actions OIDC token endpoint ----

export const oidcToken: GhRun = ({ authorization }, _p, gh) => {
  const a = gh.actions;
  if (!a?.id_token || !a.id_token_request) return fail(404, 'this job has no id-token: write permission');
  const bearer = /^bearer\s+(.+)$/i.exec(authorization ?? '')?.[1]?.trim();
  if (bearer !== a.id_token_request)
    return fail(401, 'Bad credentials: the bearer is not ACTIONS_ID_TOKEN_REQUEST_TOKEN');
  return ok({ value: a.id_token, count: 1 });
};
