// Publishing one gate outcome: the sticky PR comment, the check run with annotations (or workflow
// annotations when there is none), the job summary, SARIF and JUnit. A report that cannot be written is
// a warning; the verdict and the step's status never depend on it.

import type { ActionInputs } from '../front/inputs.js';
import type { GateOutcome } from '../gate/index.js';
import type { Verdict } from '../gate/verdict.js';
import { writeOutputFile } from '../output-path.js';
import { actionSourceFromEnv } from '../report/anchors.js';
import { changedLinesOf } from '../report/changed-lines.js';
import { type AnchorContext, buildAnnotations, publishCheckRun } from '../report/check.js';
import { isSticky, upsertStickyComment } from '../report/comment.js';
import { buildComment } from '../report/comment-body.js';
import { errorSummary, type GitHubApi, isPermissionError } from '../report/github.js';
import type { HarnessChange } from '../report/harness-change.js';
import { toJUnit } from '../report/junit.js';
import { CHECK_TEXT_LIMIT, COMMENT_LIMIT, SUMMARY_LIMIT_BYTES } from '../report/limits.js';
import { buildReport, renderReport, stickyMarker } from '../report/markdown.js';
import {
  type Publisher,
  publisherLine,
  publisherOf,
  publisherTag,
  rivalPublisher,
} from '../report/publisher.js';
import { toSarif } from '../report/sarif.js';
import type { RunResult } from '../spec/run-result.js';
import { type ActionContext, runUrl } from './context.js';
import type { RunDeps, RunOutcome } from './deps.js';

export interface PublishInput {
  deps: RunDeps;
  ctx: ActionContext;
  inputs: ActionInputs;
  gate: GateOutcome;
  /** Notices gathered so far (baseline restore, …); the report shows them. */
  notices: string[];
  /** What was published is recorded here (comment, check). */
  outcome: RunOutcome;
  /** The pull request bumps the harness (and the bisect's answer, when it ran). */
  harness?: HarnessChange;
}

/**
 * The check run's name: the one a branch rule requires, `harness-risk (ADAPTER / CONFIG)`, only for a
 * result this job can vouch for. An untrusted result (a fork's own run) is published under another
 * name, so it can never satisfy the rule, whatever its conclusion: GitHub counts a neutral check as
 * passing a required check.
 */
export function checkRunName(current: RunResult, verdict: Verdict): string {
  const name = `harness-risk (${current.adapter.name} / ${current.adapter.config})`;
  return verdict.findings.some((f) => f.kind === 'untrusted') ? `${name} · untrusted fork result` : name;
}

/** A reporter of this run other than `me` that already published the gate (check run or comment). */
async function findRival(
  api: GitHubApi,
  me: Publisher,
  where: {
    owner: string;
    repo: string;
    checkName: string;
    headSha?: string;
    issue?: number;
    marker?: string;
  },
): Promise<string | undefined> {
  const published: (string | null | undefined)[] = [];
  if (where.headSha)
    for (const c of await api
      .listCheckRunsForRef({
        owner: where.owner,
        repo: where.repo,
        ref: where.headSha,
        check_name: where.checkName,
      })
      .catch(() => []))
      published.push(c.external_id);
  if (where.issue !== undefined && where.marker)
    for (const c of await api
      .listIssueComments({ owner: where.owner, repo: where.repo, issue_number: where.issue })
      .catch(() => []))
      if (isSticky(c.body, where.marker)) published.push(c.body);
  return rivalPublisher(published, me);
}

/** One publishing: its input and what every report shares (the report's input, the anchors, the gate's name). */
interface Publishing extends PublishInput {
  /** Notices the reports show: the input's, and what publishing ran into. */
  reportNotices: string[];
  reportInput: () => Parameters<typeof buildReport>[0];
  anchor: AnchorContext;
  url: string | undefined;
  checkName: string;
  headSha: string | undefined;
  publisher: Publisher | undefined;
  /** A report the token may not write: warned once, noted in the reports. */
  permissionProblem: (what: string, e: unknown) => void;
}

const FULL_REPORT_HINT = 'The job summary and the run result file (output result-path) have everything.';

export async function publishReports(p: PublishInput): Promise<void> {
  const s = publishingOf(p);
  let api = githubApi(s);
  // One gate, one reporter: a second job of this workflow run publishing the same gate is refused.
  if (api && s.publisher && (p.inputs.comment || p.inputs.checkRun) && (await refusedAsRival(s, api)))
    api = undefined;
  await postComment(s, api);
  const annotations = await postCheckRun(s, api);
  // Without a check run, the most important findings still appear on the files as workflow annotations
  // (GitHub shows up to 10 errors and 10 warnings per step).
  for (const a of annotations.slice(0, 20)) {
    const props = { title: a.title ?? 'harness-risk', file: a.path, startLine: a.start_line };
    if (a.annotation_level === 'failure') p.deps.core.error(a.message, props);
    else if (a.annotation_level === 'warning') p.deps.core.warning(a.message, props);
    else p.deps.core.notice(a.message, props);
  }
  await writeJobSummary(s);
  writeMachineReports(s);
}

function publishingOf(p: PublishInput): Publishing {
  const { deps, ctx, inputs } = p;
  const { current, comparison, violations, verdict } = p.gate;
  const url = runUrl(ctx);
  const reportNotices: string[] = [...p.notices];
  let permissionWarned = false;
  const pr = ctx.pullRequest;
  return {
    ...p,
    reportNotices,
    reportInput: () => ({
      current,
      comparison,
      violations,
      verdict,
      failOn: inputs.gate.failOn,
      ...(url ? { runUrl: url } : {}),
      notices: reportNotices,
      ...(p.harness ? { harness: p.harness } : {}),
    }),
    anchor: {
      workspace: ctx.workspace,
      cwd: deps.cwd,
      action: actionSourceFromEnv(deps.env),
      ...(ctx.workflowRef ? { workflowRef: ctx.workflowRef } : {}),
    },
    url,
    checkName: checkRunName(current, verdict),
    headSha: pr?.headSha || ctx.mergeGroup?.headSha || ctx.sha,
    publisher: publisherOf({ runId: ctx.runId, job: deps.env.GITHUB_JOB }, current),
    permissionProblem: (what, e) => {
      if (!permissionWarned) {
        deps.core.warning(
          `harness-risk-action could not write the ${what} (${errorSummary(e)}). The token lacks permission: give the job \`permissions: { pull-requests: write, checks: write }\`, or set comment: false / check-run: false. The results are in the job summary and the outputs; the verdict is unchanged.`,
        );
        permissionWarned = true;
      }
      reportNotices.push(`the ${what} could not be written: the token lacks permission (${errorSummary(e)})`);
    },
  };
}

/** The API the comment and the check run are written with; none for a fork's run or without a token. */
function githubApi(s: Publishing): GitHubApi | undefined {
  const { ctx, inputs, deps } = s;
  const pr = ctx.pullRequest;
  const canWrite = !!inputs.githubToken && !!ctx.owner && !!ctx.repo;
  // A fork's pull_request run has a read-only token; pull_request_target runs with the base's token.
  const fork = pr?.isFork === true && ctx.eventName !== 'pull_request_target';
  if (fork && (inputs.comment || inputs.checkRun)) {
    const msg = `Pull request from a fork (${pr!.headRepo ?? 'deleted repository'}): its token is read-only, so the PR comment and the check run are skipped. The results are in the job summary and the outputs; the verdict is unchanged.`;
    deps.core.notice(msg);
    s.reportNotices.push(msg);
  }
  if (!canWrite && !fork && (inputs.comment || inputs.checkRun)) {
    s.reportNotices.push('no github-token or repository, so the PR comment and the check run are skipped');
  }
  return canWrite && !fork ? deps.github(inputs.githubToken, ctx) : undefined;
}

/** Another job of this run already published the gate: this one fails, saying so, and publishes nothing. */
async function refusedAsRival(s: Publishing, api: GitHubApi): Promise<boolean> {
  const { ctx, checkName, headSha } = s;
  const pr = ctx.pullRequest;
  const { current } = s.gate;
  const rival = await findRival(api, s.publisher!, {
    owner: ctx.owner!,
    repo: ctx.repo!,
    checkName,
    ...(headSha ? { headSha } : {}),
    ...(pr ? { issue: pr.number, marker: stickyMarker(current.adapter.name, current.adapter.config) } : {}),
  });
  if (!rival) return false;
  const msg = `another job of this workflow run (${rival}) already published the gate "${checkName}": two reporters for one gate would overwrite one sticky comment and make two check runs of one name. Give each reporting job its own adapter/config, or set comment: false and check-run: false on all but one (shards: the merge job reports), README "Shards"`;
  s.deps.core.setFailed(msg);
  s.outcome.error = msg;
  s.reportNotices.push(msg);
  return true;
}

/** The sticky comment, on pull requests. */
async function postComment(s: Publishing, api: GitHubApi | undefined): Promise<void> {
  const { ctx, inputs, outcome, publisher } = s;
  const io = s.deps.core;
  const pr = ctx.pullRequest;
  outcome.comment = 'skipped';
  if (!api || !pr || !inputs.comment) return;
  const report = buildComment(s.reportInput());
  const body = `${renderReport(report, {
    limit: COMMENT_LIMIT - 80,
    unit: 'chars',
    marker: true,
    fullReportHint: FULL_REPORT_HINT,
  })}${publisher ? `\n${publisherLine(publisher)}` : ''}`;
  try {
    const r = await upsertStickyComment(api, {
      owner: ctx.owner!,
      repo: ctx.repo!,
      issue_number: pr.number,
      marker: report.marker,
      body,
    });
    outcome.comment = r.action;
    io.info(
      `PR comment ${r.action}${r.url ? `: ${r.url}` : ''}${r.removed ? ` (${r.removed} duplicate${r.removed === 1 ? '' : 's'} removed)` : ''}`,
    );
  } catch (e) {
    outcome.comment = 'failed';
    if (isPermissionError(e)) s.permissionProblem('PR comment', e);
    else io.warning(`harness-risk-action could not write the PR comment: ${errorSummary(e)}`);
  }
}

/**
 * The check run, with annotations: on the lines the PR changed where it changed the harness. The
 * annotations it did not carry (no check run, or it failed) are returned for the workflow.
 */
async function postCheckRun(
  s: Publishing,
  api: GitHubApi | undefined,
): Promise<ReturnType<typeof buildAnnotations>> {
  const { ctx, inputs, outcome, anchor, headSha } = s;
  const { current, comparison, violations, verdict } = s.gate;
  const io = s.deps.core;
  const pr = ctx.pullRequest;
  outcome.check = 'skipped';
  if (api?.listPullRequestFiles && pr && inputs.annotations) {
    try {
      anchor.changed = changedLinesOf(
        await api.listPullRequestFiles({ owner: ctx.owner!, repo: ctx.repo!, pull_number: pr.number }),
      );
    } catch (e) {
      io.info(
        `The PR's changed files could not be read (${errorSummary(e)}); annotations use the config line.`,
      );
    }
  }
  const annotations = inputs.annotations
    ? buildAnnotations(comparison, violations, current, anchor, {
        thresholdsGate: inputs.gate.failOn.threshold,
        regressionsGate: inputs.gate.failOn.regression,
      })
    : [];
  if (!api || !headSha || !inputs.checkRun) return annotations;
  // What changed, with the rest linked (the job summary has every case): it fits by design, as the
  // comment does, so GitHub's limit never cuts it.
  const report = buildComment(s.reportInput());
  const text = (parts: Parameters<typeof renderReport>[1]['parts']) =>
    renderReport(report, { limit: CHECK_TEXT_LIMIT, unit: 'chars', parts, fullReportHint: FULL_REPORT_HINT });
  try {
    const r = await publishCheckRun(api, {
      owner: ctx.owner!,
      repo: ctx.repo!,
      name: s.checkName,
      head_sha: headSha,
      conclusion: verdict.conclusion,
      title: report.title,
      summary: text({ sections: false, foot: true }),
      text: text({ head: false }),
      annotations,
      ...(s.url ? { details_url: s.url } : {}),
      external_id: s.publisher ? publisherTag(s.publisher) : 'harness-risk',
    });
    outcome.check = 'created';
    io.info(
      `Check run created${r.url ? `: ${r.url}` : ''} (${r.annotations} annotation${r.annotations === 1 ? '' : 's'} in ${r.requests} request${r.requests === 1 ? '' : 's'})`,
    );
    return [];
  } catch (e) {
    outcome.check = 'failed';
    if (isPermissionError(e)) s.permissionProblem('check run', e);
    else io.warning(`harness-risk-action could not create the check run: ${errorSummary(e)}`);
    return annotations;
  }
}

/** The job summary: always, with every case. */
async function writeJobSummary(s: Publishing): Promise<void> {
  const io = s.deps.core;
  const summary = renderReport(buildReport(s.reportInput()), {
    limit: SUMMARY_LIMIT_BYTES,
    unit: 'bytes',
    fullReportHint: 'The run result file (output result-path) has everything.',
  });
  try {
    if (!(await io.writeSummary(summary)))
      io.info('No job summary file (GITHUB_STEP_SUMMARY); summary not written.');
  } catch (e) {
    io.warning(`harness-risk-action could not write the job summary: ${(e as Error).message}`);
  }
}

/**
 * The optional machine-readable reports (SARIF, JUnit). Checked before the run (run.ts); a place that
 * refuses now is a warning, like every other report.
 */
function writeMachineReports(s: Publishing): void {
  const { inputs } = s;
  const { current, comparison } = s.gate;
  const io = s.deps.core;
  const write = (file: string, text: string, field: string) => {
    try {
      io.info(
        `${field === 'sarif' ? 'SARIF' : 'JUnit XML'} written to ${writeOutputFile(file, text, field, s.deps.cwd)}`,
      );
    } catch (e) {
      io.warning(`harness-risk-action could not write the ${field} report: ${(e as Error).message}`);
    }
  };
  if (inputs.sarif)
    write(inputs.sarif, `${JSON.stringify(toSarif(current, comparison, s.anchor), null, 2)}\n`, 'sarif');
  if (inputs.junit) write(inputs.junit, toJUnit(current, comparison), 'junit');
}
