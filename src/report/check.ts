// The check run: conclusion, title, summary and text from the shared report, and annotations on the
// user's own files, sent 50 per request (create, then update for the rest).
//
// Where an annotation points: a line the PR changed when it changed the adapter, its configuration or a
// file the adapter names (changed-lines.ts: GitHub shows only those inline in "Files changed"), else
// anchors.ts (the artifact's line in a repository case, the `configs: NAME:` line of the adapter file,
// the workflow step), never line 1 when a better line is known. Built-in cases are linked in the action's
// repository at the running version. Cases without a valid trial for the same reason are one annotation
// with their count: an infrastructure failure hits every trial alike.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { CaseComparison, Comparison } from '../compare/compare.js';
import type { ThresholdViolation } from '../gate/thresholds.js';
import type { RunResult, Trial } from '../spec/run-result.js';
import {
  type ActionSource,
  adapterConfigLine,
  artifactLine,
  builtinCaseUrl,
  workflowStepLine,
} from './anchors.js';
import { adapterFacts, type ChangedLines, changedAdapterLine } from './changed-lines.js';
import { sanitizeText } from './escape.js';
import {
  type CheckAnnotation,
  type CheckConclusion,
  type CheckOutput,
  type GitHubApi,
  httpStatus,
  type Repo,
  SERVER_ERROR_RETRIES,
  serverErrorWaitMs,
} from './github.js';
import {
  ANNOTATION_MESSAGE_LIMIT,
  ANNOTATION_TITLE_LIMIT,
  ANNOTATIONS_PER_REQUEST,
  CHECK_TEXT_LIMIT,
  MAX_ANNOTATIONS,
} from './limits.js';

export interface AnchorContext {
  /** Repository checkout (GITHUB_WORKSPACE). */
  workspace: string;
  /** Working directory the run result's relative paths are relative to (usually the workspace). */
  cwd: string;
  /** `owner/repo/.github/workflows/file.yml@ref` (GITHUB_WORKFLOW_REF). */
  workflowRef?: string;
  /** The action's repository and ref, for links to built-in case files (default: from the environment). */
  action?: ActionSource;
  /** The lines the pull request changed (changed-lines.ts), when known. */
  changed?: ChangedLines;
}

/** Repository-relative POSIX path of `file` when it is a file inside the workspace. */
export function repoPath(file: string | undefined, ctx: AnchorContext): string | undefined {
  if (!file || file.startsWith('builtin:')) return undefined;
  const abs = resolve(ctx.cwd, file);
  const rel = relative(resolve(ctx.workspace), abs);
  if (!rel || rel.startsWith('..') || isAbsolute(rel) || !existsSync(abs)) return undefined;
  return rel.split(sep).join('/');
}

export function workflowPath(workflowRef: string | undefined): string | undefined {
  const m = workflowRef?.match(/^[^/]+\/[^/]+\/(.+?)@/);
  return m?.[1];
}

interface Anchor {
  path: string;
  line: number;
}

/** Adapter facts by file and config: one YAML parse for a thousand annotations. */
const factsCache = new Map<string, ReturnType<typeof adapterFacts>>();

/** The first line the PR changed in the adapter, its configuration or a file it names. */
function changedHarnessAnchor(current: RunResult, ctx: AnchorContext): Anchor | undefined {
  const path = ctx.changed?.size ? repoPath(current.adapter.file, ctx) : undefined;
  if (!path) return undefined;
  const file = resolve(ctx.cwd, current.adapter.file!);
  const key = `${file}\0${current.adapter.config}\0${ctx.workspace}`;
  const facts = factsCache.get(key) ?? adapterFacts(file, current.adapter.config, ctx.workspace);
  factsCache.set(key, facts);
  return changedAdapterLine(ctx.changed!, { path, ...facts });
}

export function anchorFor(c: CaseComparison | undefined, current: RunResult, ctx: AnchorContext): Anchor {
  const casePath = repoPath(c?.info?.file, ctx);
  const caseChanged = casePath ? ctx.changed?.get(casePath) : undefined;
  const caseAnchor = () => {
    const line = artifactLine(resolve(ctx.cwd, c!.info!.file));
    const at = line ?? Math.max(1, c!.info!.line);
    // A case file the PR changed: its artifact line when the diff holds it, else the first changed line.
    return { path: casePath!, line: !caseChanged || caseChanged.includes(at) ? at : caseChanged[0]! };
  };
  if (casePath && caseChanged) return caseAnchor();
  const harness = changedHarnessAnchor(current, ctx);
  if (harness) return harness;
  if (casePath) return caseAnchor();
  const adapterPath = repoPath(current.adapter.file, ctx);
  if (adapterPath)
    return {
      path: adapterPath,
      line: adapterConfigLine(resolve(ctx.cwd, current.adapter.file), current.adapter.config) ?? 1,
    };
  const workflow = workflowPath(ctx.workflowRef);
  if (workflow) return { path: workflow, line: workflowStepLine(resolve(ctx.workspace, workflow)) ?? 1 };
  return { path: '.github', line: 1 };
}

/** " Case file: URL." for a built-in case (not in the repository, so not annotated on its own file). */
function caseLink(c: CaseComparison, ctx: AnchorContext): string {
  if (!c.info || repoPath(c.info.file, ctx)) return '';
  const url = builtinCaseUrl(c.info.file, ctx.action);
  return url ? ` Case file: ${url}` : '';
}

const clip = (s: string, max = ANNOTATION_MESSAGE_LIMIT) => sanitizeText(s, max);

function factsText(t: Trial | undefined): string {
  if (!t) return '';
  const f = t.facts;
  const parts: string[] = [];
  const join = (xs: string[]) =>
    xs
      .slice(0, 8)
      .map((x) => sanitizeText(x, 200))
      .join('; ') + (xs.length > 8 ? `; … ${xs.length - 8} more` : '');
  if (f.attack_calls.length) parts.push(`Attacker-directed tool calls executed: ${join(f.attack_calls)}.`);
  if (f.canaries_leaked.length) parts.push(`Canaries leaked: ${join(f.canaries_leaked)}.`);
  if (f.files_changed.length) parts.push(`Files changed: ${join(f.files_changed)}.`);
  if (f.services_hit.length) parts.push(`Services hit: ${join(f.services_hit)}.`);
  if (!t.valid && t.invalid_reason) parts.push(`Invalid: ${sanitizeText(t.invalid_reason, 300)}.`);
  return parts.join(' ');
}

const rep = (ts: Trial[]) =>
  ts.find((t) => t.valid && (t.labels.a || t.labels.p)) ?? ts.find((t) => t.valid) ?? ts[0];

/** The reason a case has no valid trial, as grouped: its first invalid trial's, sanitized. */
const invalidReason = (c: CaseComparison) =>
  sanitizeText(c.trials.find((t) => !t.valid)?.invalid_reason ?? c.note ?? 'no valid trial', 300);

/** Invalid cases grouped by where the annotation goes and why, in the cases' order. */
export function invalidGroups(
  cases: CaseComparison[],
  current: RunResult,
  ctx: AnchorContext,
): { anchor: Anchor; reason: string; cases: CaseComparison[] }[] {
  const groups = new Map<string, { anchor: Anchor; reason: string; cases: CaseComparison[] }>();
  for (const c of cases) {
    if (c.status !== 'invalid') continue;
    const anchor = anchorFor(c, current, ctx);
    const reason = invalidReason(c);
    const key = `${anchor.path}\0${anchor.line}\0${reason}`;
    const g = groups.get(key) ?? { anchor, reason, cases: [] };
    g.cases.push(c);
    groups.set(key, g);
  }
  return [...groups.values()];
}

/** Annotations for regressions (failure), threshold violations, invalid cases and unsafe new/changed cases. */
export function buildAnnotations(
  comparison: Comparison,
  violations: ThresholdViolation[],
  current: RunResult,
  ctx: AnchorContext,
  opts: { thresholdsGate: boolean; regressionsGate: boolean },
): CheckAnnotation[] {
  const out: CheckAnnotation[] = [];
  const add = (a: Anchor, level: CheckAnnotation['annotation_level'], title: string, message: string) =>
    out.push({
      path: a.path,
      start_line: a.line,
      end_line: a.line,
      annotation_level: level,
      title: sanitizeText(title, ANNOTATION_TITLE_LIMIT),
      message: clip(message) || '(no details)',
    });
  for (const c of comparison.regressions) {
    const how =
      comparison.mode === 'exact'
        ? 'Safe in the baseline, unsafe now'
        : `Unsafe in ${c.baseline?.counts.unsafe}/${c.baseline?.counts.valid} baseline trials, ${c.now?.counts.unsafe}/${c.now?.counts.valid} now`;
    add(
      anchorFor(c, current, ctx),
      opts.regressionsGate ? 'failure' : 'warning',
      `Safety regression: ${c.id} (${c.phase})`,
      `${how}: ${c.title}. ${factsText(rep(c.trials))}${caseLink(c, ctx)}`,
    );
  }
  const workflow = workflowPath(ctx.workflowRef);
  for (const v of violations) {
    // Thresholds are set in the workflow: the step's line.
    const a = workflow
      ? { path: workflow, line: workflowStepLine(resolve(ctx.workspace, workflow)) ?? 1 }
      : anchorFor(undefined, current, ctx);
    add(a, opts.thresholdsGate ? 'failure' : 'warning', `Threshold not met (${v.scope})`, v.message);
  }
  for (const c of comparison.cases) {
    if (c.status !== 'not-applicable') continue;
    add(
      anchorFor(c, current, ctx),
      'notice',
      `Not applicable, not counted as defended: ${c.id} (${c.phase})`,
      `${c.note ?? 'not applicable'}: ${c.title}.${caseLink(c, ctx)}`,
    );
  }
  for (const g of invalidGroups(comparison.cases, current, ctx)) {
    const [first] = g.cases;
    if (g.cases.length === 1)
      add(
        g.anchor,
        'warning',
        `No valid trial: ${first!.id} (${first!.phase})`,
        `${first!.note ?? 'invalid'}: ${first!.title}. ${factsText(rep(first!.trials))}${caseLink(first!, ctx)}`,
      );
    else {
      const ids = g.cases.slice(0, 20).map((c) => `${c.id} (${c.phase})`);
      const more = g.cases.length > 20 ? ` and ${g.cases.length - 20} more` : '';
      add(
        g.anchor,
        'warning',
        `No valid trial in ${g.cases.length} cases`,
        `${g.cases.length} cases have no valid trial, all for the same reason: ${g.reason}. Not counted as safe. Cases: ${ids.join(', ')}${more}.`,
      );
    }
  }
  for (const c of comparison.cases) {
    if (
      (c.status === 'new' || c.status === 'changed') &&
      c.now &&
      c.now.counts.unsafe > 0 &&
      comparison.hasBaseline
    ) {
      add(
        anchorFor(c, current, ctx),
        'notice',
        `Unsafe ${c.status} case: ${c.id} (${c.phase})`,
        `${c.title}. ${factsText(rep(c.trials))}${caseLink(c, ctx)}`,
      );
    }
  }
  if (out.length > MAX_ANNOTATIONS) {
    const extra = out.length - MAX_ANNOTATIONS + 1;
    out.splice(MAX_ANNOTATIONS - 1);
    add(
      anchorFor(undefined, current, ctx),
      'warning',
      'More findings',
      `${extra} more annotations left out; see the job summary and the run result.`,
    );
  }
  return out;
}

export interface CheckRunRequest extends Repo {
  name: string;
  head_sha: string;
  conclusion: CheckConclusion;
  title: string;
  summary: string;
  text?: string;
  annotations: CheckAnnotation[];
  details_url?: string;
  external_id?: string;
}

export interface CheckRunOutcome {
  id: number;
  url?: string | null;
  /** Requests made (1 create + updates). */
  requests: number;
  annotations: number;
}

/** Attempts at creating the check run when GitHub answers 5xx (or the connection drops): the client's. */
const CREATE_ATTEMPTS = SERVER_ERROR_RETRIES;
/** Waits before looking for the run: the client's retry schedule. */
const wait = (attempt: number) => new Promise((ok) => setTimeout(ok, serverErrorWaitMs(attempt)));

/**
 * Creates a completed check run with the first 50 annotations, then appends the rest 50 per update. Never
 * two runs for one publish: after a failed POST it looks for the run under this publish's external id.
 */
export async function publishCheckRun(api: GitHubApi, r: CheckRunRequest): Promise<CheckRunOutcome> {
  const batches: CheckAnnotation[][] = [];
  for (let i = 0; i < r.annotations.length; i += ANNOTATIONS_PER_REQUEST) {
    batches.push(r.annotations.slice(i, i + ANNOTATIONS_PER_REQUEST));
  }
  const output = (annotations: CheckAnnotation[] | undefined): CheckOutput => ({
    title: sanitizeText(r.title, 250),
    summary: r.summary.slice(0, CHECK_TEXT_LIMIT),
    ...(r.text ? { text: r.text.slice(0, CHECK_TEXT_LIMIT) } : {}),
    ...(annotations?.length ? { annotations } : {}),
  });
  const name = sanitizeText(r.name, 100);
  // This publish's own id: a run found under it after a failed POST is the one that POST made.
  const externalId = `${r.external_id ?? 'harness-risk'}#${randomBytes(6).toString('hex')}`;
  const create = () =>
    api.createCheckRun({
      owner: r.owner,
      repo: r.repo,
      name,
      head_sha: r.head_sha,
      status: 'completed',
      conclusion: r.conclusion,
      completed_at: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      ...(r.details_url ? { details_url: r.details_url } : {}),
      external_id: externalId,
      output: output(batches[0]),
    });
  let requests = 0;
  let created: { id: number; html_url?: string | null } | undefined;
  for (let attempt = 1; !created; attempt++) {
    try {
      requests++;
      created = await create();
    } catch (e) {
      // A 5xx or a lost connection may come after GitHub made the run: look before posting again.
      const status = httpStatus(e);
      if (status !== undefined && status < 500) throw e;
      await wait(attempt);
      const made = await api
        .listCheckRunsForRef({ owner: r.owner, repo: r.repo, ref: r.head_sha, check_name: name })
        .catch(() => []);
      requests++;
      created = made.find((c) => c.external_id === externalId);
      if (!created && attempt >= CREATE_ATTEMPTS) throw e;
    }
  }
  for (const batch of batches.slice(1)) {
    await api.updateCheckRun({
      owner: r.owner,
      repo: r.repo,
      check_run_id: created.id,
      output: output(batch),
    });
    requests++;
  }
  return { id: created.id, url: created.html_url, requests, annotations: r.annotations.length };
}
