// Publishing one gate outcome: the sticky PR comment, the check run with annotations (or workflow
// annotations when there is none), the job summary, SARIF and JUnit. A report that cannot be written is
// a warning; the verdict and the step's status never depend on it.
import type { GateOutcome } from '../gate/index.js';
import type { Verdict } from '../gate/verdict.js';
import { writeOutputFile } from '../output-path.js';
import { actionSourceFromEnv } from '../report/anchors.js';
import { changedLinesOf } from '../report/changed-lines.js';
import { type AnchorContext, buildAnnotations, publishCheckRun } from '../report/check.js';
import { isSticky, upsertStickyComment } from '../report/comment.js';
import { buildComment } from '../report/comment-body.js';
import { errorSummary, type GitHubApi, isPermissionError } from '../report/github.js';
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
import type { RunResult } from '../result/schema.js';
import { type ActionContext, runUrl } from './context.js';
import type { RunDeps, RunOutcome } from './deps.js';
import type { ActionInputs } from './inputs.js';

export interface PublishInput {
  deps: RunDeps;
  ctx: ActionContext;
  inputs: ActionInputs;
  gate: GateOutcome;
  /** Notices gathered so far (baseline restore, …); the report shows them. */
  notices: string[];
  /** What was published is recorded here (comment, check). */
  outcome: RunOutcome;
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

export async function publishReports(p: PublishInput): Promise<void> {
  const { deps, ctx, inputs, notices, outcome } = p;
  const { current, comparison, violations, verdict } = p.gate;
  const { core: io, cwd } = deps;
  const pr = ctx.pullRequest;
  const url = runUrl(ctx);
  const anchor: AnchorContext = {
    workspace: ctx.workspace,
    cwd,
    action: actionSourceFromEnv(deps.env),
    ...(ctx.workflowRef ? { workflowRef: ctx.workflowRef } : {}),
  };
  const reportNotices: string[] = [...notices];
  const reportInput = () => ({
    current,
    comparison,
    violations,
    verdict,
    failOn: inputs.gate.failOn,
    ...(url ? { runUrl: url } : {}),
    notices: reportNotices,
  });
  // The job summary keeps every case; the PR comment and the check run show what changed (comment-body.ts).
  const doc = () => buildReport(reportInput());
  const hint = 'The job summary and the run result file (output result-path) have everything.';

  let permissionWarned = false;
  const permissionProblem = (what: string, e: unknown) => {
    if (!permissionWarned) {
      io.warning(
        `harness-risk-action could not write the ${what} (${errorSummary(e)}). The token lacks permission: give the job \`permissions: { pull-requests: write, checks: write }\`, or set comment: false / check-run: false. The results are in the job summary and the outputs; the verdict is unchanged.`,
      );
      permissionWarned = true;
    }
    reportNotices.push(`the ${what} could not be written: the token lacks permission (${errorSummary(e)})`);
  };

  const canWrite = !!inputs.githubToken && !!ctx.owner && !!ctx.repo;
  // A fork's pull_request run has a read-only token; pull_request_target runs with the base's token.
  const fork = pr?.isFork === true && ctx.eventName !== 'pull_request_target';
  if (fork && (inputs.comment || inputs.checkRun)) {
    const msg = `Pull request from a fork (${pr!.headRepo ?? 'deleted repository'}): its token is read-only, so the PR comment and the check run are skipped. The results are in the job summary and the outputs; the verdict is unchanged.`;
    io.notice(msg);
    reportNotices.push(msg);
  }
  if (!canWrite && !fork && (inputs.comment || inputs.checkRun)) {
    reportNotices.push('no github-token or repository, so the PR comment and the check run are skipped');
  }
  let api: GitHubApi | undefined;
  if (canWrite && !fork) api = deps.github(inputs.githubToken, ctx);
  const checkName = checkRunName(current, verdict);
  const headSha = pr?.headSha || ctx.mergeGroup?.headSha || ctx.sha;

  // One gate, one reporter: a second job of this workflow run publishing the same gate is refused.
  const publisher = publisherOf({ runId: ctx.runId, job: deps.env.GITHUB_JOB }, current);
  if (api && publisher && (inputs.comment || inputs.checkRun)) {
    const rival = await findRival(api, publisher, {
      owner: ctx.owner!,
      repo: ctx.repo!,
      checkName,
      ...(headSha ? { headSha } : {}),
      ...(pr ? { issue: pr.number, marker: stickyMarker(current.adapter.name, current.adapter.config) } : {}),
    });
    if (rival) {
      const msg = `another job of this workflow run (${rival}) already published the gate "${checkName}": two reporters for one gate would overwrite one sticky comment and make two check runs of one name. Give each reporting job its own adapter/config, or set comment: false and check-run: false on all but one (shards: the merge job reports), README "Shards"`;
      io.setFailed(msg);
      outcome.error = msg;
      reportNotices.push(msg);
      api = undefined;
    }
  }

  // The sticky comment, on pull requests.
  outcome.comment = 'skipped';
  if (api && pr && inputs.comment) {
    const report = buildComment(reportInput());
    const body = `${renderReport(report, {
      limit: COMMENT_LIMIT - 80,
      unit: 'chars',
      marker: true,
      fullReportHint: hint,
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
      if (isPermissionError(e)) permissionProblem('PR comment', e);
      else io.warning(`harness-risk-action could not write the PR comment: ${errorSummary(e)}`);
    }
  }

  // The check run, with annotations: on the lines the PR changed where it changed the harness.
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
  let annotations = inputs.annotations
    ? buildAnnotations(comparison, violations, current, anchor, {
        thresholdsGate: inputs.gate.failOn.threshold,
        regressionsGate: inputs.gate.failOn.regression,
      })
    : [];
  if (api && headSha && inputs.checkRun) {
    // What changed, with the rest linked (the job summary has every case): it fits by design, as the
    // comment does, so GitHub's limit never cuts it.
    const report = buildComment(reportInput());
    try {
      const r = await publishCheckRun(api, {
        owner: ctx.owner!,
        repo: ctx.repo!,
        name: checkName,
        head_sha: headSha,
        conclusion: verdict.conclusion,
        title: report.title,
        summary: renderReport(report, {
          limit: CHECK_TEXT_LIMIT,
          unit: 'chars',
          parts: { sections: false, foot: true },
          fullReportHint: hint,
        }),
        text: renderReport(report, {
          limit: CHECK_TEXT_LIMIT,
          unit: 'chars',
          parts: { head: false },
          fullReportHint: hint,
        }),
        annotations,
        ...(url ? { details_url: url } : {}),
        external_id: publisher ? publisherTag(publisher) : 'harness-risk',
      });
      outcome.check = 'created';
      annotations = [];
      io.info(
        `Check run created${r.url ? `: ${r.url}` : ''} (${r.annotations} annotation${r.annotations === 1 ? '' : 's'} in ${r.requests} request${r.requests === 1 ? '' : 's'})`,
      );
    } catch (e) {
      outcome.check = 'failed';
      if (isPermissionError(e)) permissionProblem('check run', e);
      else io.warning(`harness-risk-action could not create the check run: ${errorSummary(e)}`);
    }
  }
  // Without a check run, the most important findings still appear on the files as workflow annotations
  // (GitHub shows up to 10 errors and 10 warnings per step).
  if (annotations.length) {
    for (const a of annotations.slice(0, 20)) {
      const props = { title: a.title ?? 'harness-risk', file: a.path, startLine: a.start_line };
      if (a.annotation_level === 'failure') io.error(a.message, props);
      else if (a.annotation_level === 'warning') io.warning(a.message, props);
      else io.notice(a.message, props);
    }
  }

  // The job summary: always.
  const summary = renderReport(doc(), {
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

  // 7. Optional machine-readable reports.
  // Checked before the run (run.ts); a place that refuses now is a warning, like every other report.
  const write = (file: string, text: string, field: string) => {
    try {
      io.info(
        `${field === 'sarif' ? 'SARIF' : 'JUnit XML'} written to ${writeOutputFile(file, text, field, cwd)}`,
      );
    } catch (e) {
      io.warning(`harness-risk-action could not write the ${field} report: ${(e as Error).message}`);
    }
  };
  if (inputs.sarif)
    write(inputs.sarif, `${JSON.stringify(toSarif(current, comparison, anchor), null, 2)}\n`, 'sarif');
  if (inputs.junit) write(inputs.junit, toJUnit(current, comparison), 'junit');
}
