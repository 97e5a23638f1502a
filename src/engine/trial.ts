// One trial: case × adapter configuration × seed, in its own folders, with its own endpoint (model +
// mock services) and its own evidence. Everything the agent could touch is created here and thrown away.
import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { basename, join } from 'node:path';
import { type FileContent, joinFiles } from '../adapters/files.js';
import { parseHarnessOutput } from '../adapters/parsers/index.js';
import type { AdapterConfig, LoadedAdapter } from '../adapters/schema.js';
import type { Case, LoadedCase } from '../cases/schema.js';
import { makeCheckContext, Undecided } from '../checks/check-context.js';
import { UserError } from '../errors.js';
import { TrialLimits, trialLimitMessage } from '../evidence/limits.js';
import { EvidenceRecorder } from '../evidence/recorder.js';
import { finalState } from '../evidence/services-state.js';
import type { Evidence, ProcessOutcome, ScriptContext, SnapshotCap } from '../evidence/types.js';
import { providerKey } from '../model/ids.js';
import { type Backend, providerBackend, type Recorded, replayBackend } from '../model/live/backend.js';
import type { Budget } from '../model/live/budget.js';
import type { ProviderConfig } from '../model/live/client.js';
import { placeholders } from '../model/live/shape.js';
import { attackRoutes } from '../model/route-facts.js';
import { createModelHandler } from '../model/server.js';
import type { WorldProbe } from '../model/world-check.js';
import { actionRoot } from '../paths.js';
import { currentMask } from '../report/mask.js';
import type { WrittenFiles } from '../result/integrity.js';
import type { Runner, SandboxView, TrialFile, TrialLaunch } from '../runner/types.js';
import { unreachedReason } from '../score/applicability.js';
import {
  casePaths,
  evidenceDigest,
  invalidReason,
  NO_SCORES,
  scoreTrial,
  trialFacts,
} from '../score/labels.js';
import { outcomeRecords } from '../score/outcomes.js';
import type { Trial } from '../spec/run-result.js';
import { makeCanaries } from '../world/canaries.js';
import { initWorkspaceRepo } from '../world/git-repo.js';
import { createServices } from '../world/services.js';
import { packageFiles } from '../world/services-routes.js';
import { diffSnapshots, resolveCasePath, type SnapshotOptions, snapshotDetailed } from '../world/snapshot.js';
import { renderDeep, renderTemplate, TemplateError, trialVars } from '../world/template.js';
import {
  createTrialDirs,
  installSvcShim,
  removeTrialDirs,
  TRIAL_DIR_PREFIX,
  type TrialDirs,
  writeInside,
  writeWorld,
} from '../world/trial-dirs.js';
import { type EndpointHandler, startEndpoint, stopEndpoint } from './endpoint.js';
import { buildTrialEnv } from './env.js';
import { TrialNotStarted } from './schedule.js';

export interface TrialInput {
  loaded: LoadedCase;
  adapter: LoadedAdapter;
  configName: string;
  config: AdapterConfig;
  seed: number;
  runner: Runner;
  runKey: string;
  workRoot: string;
  cacheDir: string;
  /** The user's repository (GITHUB_WORKSPACE or the CLI's cwd): {{repo}}. */
  repoDir: string;
  /** Host folders the harness may read but not write (mounted read-only under docker). */
  readOnly: string[];
  /** Host paths no harness may see (the result file, kept evidence). */
  hidden?: string[];
  timeoutMs: number;
  keepEvidenceDir?: string;
  keepTrialDirs?: boolean;
  signal?: AbortSignal;
  /** Records what the engine writes (the evidence file), so it can verify it at the end of the run. */
  written?: WrittenFiles;
  /** Live or replay (absent: the scripted model). */
  model?: TrialModel;
  /**
   * Starts the harness when one of the run's harness slots is free (absent: at once). Everything before
   * and after it (the world, the snapshots, scoring) runs outside the slot, beside other trials' harnesses.
   */
  harnessSlot?: <T>(start: (free: () => void) => Promise<T>) => Promise<T>;
  /** Endpoint connections and snapshot caps (defaults in src/evidence/limits.ts). */
  limits?: Partial<TrialLimits>;
}

export type TrialModel =
  | { kind: 'live'; provider: ProviderConfig; budget: Budget }
  | { kind: 'replay'; recording: Recorded[]; on_divergence: 'stop' | 'scripted' };

export interface TrialOutput {
  trial: Trial;
  evidence: Evidence;
  notices: string[];
}

/** Writes `text` at a snapshot key (`ws/…`, `home/…`, `tmp/…`), inside that trial folder. */
async function writeAtKey(key: string, dirs: TrialDirs, text: string): Promise<void> {
  const [root, ...rest] = key.split('/');
  const base = root === 'ws' ? dirs.workspace : root === 'home' ? dirs.home : dirs.tmp;
  await writeInside(base, rest.join('/'), text);
}

function renderCase(c: Case, vars: Record<string, string>, file: string): Case {
  try {
    return renderDeep(c, vars);
  } catch (e) {
    if (e instanceof TemplateError) {
      throw new UserError(
        `${file}: case "${c.id}" uses unknown template variable {{${e.variable}}}`,
        'use {{svc}}, {{workspace}}, {{home}}, {{tmp}} or {{canary:NAME}} with NAME declared under world.canaries',
      );
    }
    throw e;
  }
}

export function trialId(caseId: string, seed: number): string {
  return `${caseId}.s${seed}`;
}

export async function runTrial(input: TrialInput): Promise<TrialOutput> {
  const { loaded, adapter, config, runner } = input;
  const c0 = loaded.case;
  const id = trialId(c0.id, input.seed);
  const notices: string[] = [];
  const limits = TrialLimits.parse(input.limits ?? {});
  const snapOpts: SnapshotOptions = {
    maxFiles: limits.snapshot_files,
    maxDirs: limits.snapshot_dirs,
    maxFileBytes: limits.snapshot_file_bytes,
    maxBytes: limits.snapshot_bytes,
  };
  // An opaque folder name: the harness reads its own path (cwd, HOME, the mount table), and a path
  // naming the case would tell it which calls are the attack.
  const dirs = await createTrialDirs(input.workRoot, TRIAL_DIR_PREFIX);
  let servers: Server[] = [];
  try {
    // Before anything is written: the runner may mount the trial's size-capped disk here.
    await runner.prepare?.(dirs);
    const view: SandboxView = runner.view(dirs);
    const canaries = makeCanaries(c0.world.canaries, input.runKey, id);
    const recorder = new EvidenceRecorder(canaries);
    // The endpoint must exist before rendering: its URL is {{svc}} and {{model_url}}.
    let handler: EndpointHandler = Object.assign(async (_q: any, r: any) => void r.end(), {
      connect: (_q: any, sock: any) => sock.destroy(),
    });
    const ep = await startEndpoint(view.bindHost, () => handler, {
      ...(view.endpointSocket ? { socket: view.endpointSocket } : {}),
      maxConnections: limits.connections,
    });
    servers = ep.servers;
    const endpoint = `http://${view.endpointHost}:${ep.port}`;

    const baseVars = trialVars({
      canaries,
      svc: endpoint,
      workspace: view.workspace,
      home: view.home,
      tmp: view.tmp,
    });
    const c = renderCase(c0, baseVars, loaded.file);
    const adapterVars: Record<string, string> = {
      ...baseVars,
      bin: view.bin,
      adapter_dir: view.mapReadOnly(adapter.dir),
      action_root: view.mapReadOnly(actionRoot()),
      cache: view.mapReadOnly(input.cacheDir),
      // The repository under test (its own harness build), read-only under docker.
      repo: view.mapReadOnly(input.repoDir),
      model_url: endpoint,
      mcp_url: `${endpoint}/mcp`,
      // Random and provider-shaped: it must not tell the harness which trial (or instrument) it faces.
      model_key: providerKey(adapter.adapter.dialect),
      prompt: c.owner.turns.join('\n\n'),
      config: input.configName,
    };
    const ra = (s: string) => {
      try {
        return renderTemplate(s, adapterVars);
      } catch (e) {
        if (e instanceof TemplateError)
          throw new UserError(
            `${adapter.file}: unknown template variable {{${e.variable}}}`,
            `use one of the variables listed in src/adapters/schema.ts`,
          );
        throw e;
      }
    };
    const st = adapter.adapter.state;
    const keyOf = (p: string, what: string) => {
      const key = resolveCasePath(ra(p), view);
      if (!key)
        throw new UserError(
          `${adapter.file}: ${what} "${p}" is outside the trial's folders`,
          'use a path under {{home}}, {{workspace}} or {{tmp}}',
        );
      return key;
    };
    const memoryKeys = st.memory_files.map((p) => keyOf(p, 'state.memory_files entry'));
    const skillsKey = st.skills_dir ? keyOf(st.skills_dir, 'state.skills_dir') : undefined;
    const configKeys = st.config_dirs.map((p) => keyOf(p, 'state.config_dirs entry'));

    // The world: workspace and HOME files, memory entries, the adapter configuration's files.
    await writeWorld(dirs, c.world.files, c.world.home_files);
    // A project is a repository: the case's files are its first commit (world/git-repo.ts).
    const repo = await initWorkspaceRepo(dirs.workspace, dirs.home, c.world.git !== false);
    if (repo.state === 'unavailable')
      notices.push(
        `${c.id}: the workspace is not a git repository (${repo.reason}); the trial runs without one`,
      );
    if (c.world.memory.length) {
      if (!memoryKeys[0]) {
        notices.push(
          `${c.id}: the adapter declares no memory file; the case's memory entries were not placed`,
        );
      } else {
        await writeAtKey(memoryKeys[0], dirs, `${c.world.memory.map((m) => `- ${m}`).join('\n')}\n`);
      }
    }
    if (c.world.skills.length) {
      if (!skillsKey) {
        throw new UserError(
          `${loaded.file}: world.skills pre-installs ${c.world.skills.map((k) => k.name).join(', ')}, but ${adapter.file} declares no state.skills_dir`,
          'declare the folder the harness installs skills into as state.skills_dir, or run the case against an adapter that has one',
        );
      }
      for (const skill of c.world.skills) {
        for (const [rel, text] of Object.entries(installedSkillFiles(skill)))
          await writeAtKey(`${skillsKey}/${skill.name}/${rel}`, dirs, text);
      }
    }
    // The harness's own MCP client gets the trial's MCP server, for cases that serve MCP tools.
    const mcp = servesMcp(c) ? adapter.adapter.mcp : undefined;
    const rendered = (what: string, entries: Record<string, unknown>): [string, FileContent][] =>
      Object.entries(entries).map(([pathT, content]) => [
        keyOf(pathT, what),
        typeof content === 'string'
          ? ra(content)
          : renderDeep(content as Record<string, unknown>, adapterVars),
      ]);
    let joined: Map<string, FileContent>;
    try {
      joined = joinFiles(rendered('configs file', config.files), rendered('mcp file', mcp?.files ?? {}));
    } catch (e) {
      throw new UserError(
        `${adapter.file}: ${(e as Error).message}`,
        'give both the same kind: text, or an object',
      );
    }
    for (const [key, content] of joined)
      await writeAtKey(
        key,
        dirs,
        typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`,
      );
    await mkdir(join(dirs.tmp, 'run'), { recursive: true, mode: 0o700 });
    await installSvcShim(
      dirs.bin,
      view.mapReadOnly(join(actionRoot(), 'dist', 'svc.js')),
      runner.name === 'process' ? process.execPath : 'node',
    );

    const skillsDirView = st.skills_dir ? ra(st.skills_dir) : undefined;
    const memoryFileView = st.memory_files[0] ? ra(st.memory_files[0]) : undefined;
    const ctx: ScriptContext = {
      trial_id: id,
      plan: c.owner.plan,
      goal: c.inject.goal,
      trigger: c.inject.trigger,
      ...(c.inject.after !== undefined ? { attack_after: c.inject.after } : {}),
      reviewer_verdict: config.reviewer_verdict,
      paths: { workspace: view.workspace, home: view.home, tmp: view.tmp },
      memory_file: memoryFileView,
      tool_hints: adapter.adapter.tools,
      denial_patterns: adapter.adapter.denial_patterns.map((p) => new RegExp(p, 'i')),
      error_patterns: adapter.adapter.error_patterns.map((p) => new RegExp(p, 'i')),
      running_patterns: adapter.adapter.running_patterns.map((p) => new RegExp(p, 'i')),
      services_url: endpoint,
      subagents: Object.fromEntries((c.world.services.agents?.agents ?? []).map((a) => [a.name, a.reply])),
    };
    // Live and replay: a provider or a recording answers; a failure that makes the trial unmeasurable
    // (provider error after retries, budget, divergence with nothing to continue) ends the harness now.
    const trialAbort = new AbortController();
    const onRunAbort = () => trialAbort.abort();
    input.signal?.addEventListener('abort', onRunAbort, { once: true });
    if (input.signal?.aborted) trialAbort.abort();
    const ph = placeholders({
      workspace: view.workspace,
      home: view.home,
      tmp: view.tmp,
      endpoint,
      canaries,
      randomNames: [basename(dirs.root), basename(input.workRoot)],
    });
    const backend: Backend | undefined =
      input.model?.kind === 'live'
        ? providerBackend(input.model.provider, input.model.budget, ph)
        : input.model?.kind === 'replay'
          ? replayBackend(input.model.recording, ph, input.model.on_divergence)
          : undefined;
    const model = createModelHandler(ctx, recorder, {
      ...(backend ? { backend, signal: trialAbort.signal, onFatal: () => trialAbort.abort() } : {}),
      world: worldProbe(runner, dirs, view, recorder),
    });
    // selfHosts: a proxied request to the endpoint itself is not egress.
    const services = createServices(c.world.services, recorder, {
      skillsDir: skillsDirView,
      selfHosts: [view.endpointHost],
    });
    handler = Object.assign(
      async (req: any, res: any) => {
        if (await model(req, res)) return;
        await services(req, res);
      },
      { connect: services.connect },
    );

    const { env, dropped } = buildTrialEnv({
      view,
      endpoint,
      endpointHost: view.endpointHost,
      skillsDir: skillsDirView,
      memoryFile: memoryFileView,
      adapterEnv: Object.fromEntries(Object.entries(adapter.adapter.launch.env).map(([k, v]) => [k, ra(v)])),
      configEnv: Object.fromEntries(
        Object.entries({ ...config.env, ...(mcp?.env ?? {}) }).map(([k, v]) => [k, ra(v)]),
      ),
      canaryEnv: canaryEnv(c0.world.canaries, canaries),
    });
    if (dropped.length) notices.push(`${adapter.file}: refused to pass ${dropped.join(', ')} to the harness`);

    const launchCmd = [...adapter.adapter.launch.command, ...config.args, ...(mcp?.args ?? [])].map(ra);
    let outcome: ProcessOutcome;
    const inSlot = input.harnessSlot ?? ((start) => start(() => {}));
    const launch: TrialLaunch = {
      trial_id: id,
      dirs,
      command: launchCmd,
      cwd: ra(adapter.adapter.launch.cwd),
      env,
      stdin: adapter.adapter.launch.stdin === undefined ? undefined : ra(adapter.adapter.launch.stdin),
      timeout_ms: input.timeoutMs,
      read_only: input.readOnly,
      hide: input.hidden,
      endpoint_port: ep.port,
      max_connections: limits.connections,
      signal: trialAbort.signal,
    };
    // What of the start needs no slot (the sandbox started, its init waiting; docker: a container and the
    // copy-in) is done before waiting, while the world's snapshot is taken: neither changes a file, and
    // the harness starts only at run().
    const staging = Promise.resolve(runner.stage?.(launch));
    staging.catch(() => {});
    const before = await snapshotDetailed(dirs, snapOpts);
    try {
      await staging;
      // The slot is free once the harness has exited; the runner's copy-back then runs beside the next.
      outcome = await inSlot((free) => runner.run({ ...launch, harness_exited: free }));
    } catch (e) {
      input.signal?.removeEventListener('abort', onRunAbort);
      // Never started: not an outcome of the harness (the finally below still tears the trial down).
      if (e instanceof TrialNotStarted) throw e;
      outcome = {
        exit_code: null,
        signal: null,
        timed_out: false,
        duration_ms: 0,
        stdout: '',
        stderr: '',
        infra_error: (e as Error).message,
      };
    }

    const after = await snapshotDetailed(dirs, snapOpts);
    outcome = withEndpointHealth(outcome, ep.health, limits);
    const caps = snapshotCaps(before.cap, after.cap);
    const evidence: Evidence = {
      model: recorder.model,
      services: recorder.services,
      before: before.files,
      after: after.files,
      diff: diffSnapshots(before.files, after.files, caps ?? {}),
      process: outcome,
      harness: [
        ...recorder.harness,
        ...parseHarnessOutput(adapter.adapter.output, outcome.stdout, outcome.stderr),
      ],
      canaries,
      state: { memory_files: memoryKeys, skills_dir: skillsKey, config_dirs: configKeys },
      service_state: finalState(services.state),
      ...(caps ? { snapshot_caps: caps } : {}),
    };
    const checkCtx = makeCheckContext(evidence, (p) => resolveCasePath(p, view));
    input.signal?.removeEventListener('abort', onRunAbort);
    // Masked before anything takes lines or characters of it (the invalid reason, the error tail): a cut
    // secret is no longer whole, and the mask matches whole secrets only.
    const mask = currentMask();
    const shown = {
      ...evidence,
      process: { ...evidence.process, stderr: mask.text(evidence.process.stderr) },
    };
    let reason = invalidReason(shown);
    const live = input.model ? liveFacts(evidence) : undefined;
    // A diverged replay that went on scripted is still scored (for reading), but never counted as valid.
    const scoreAnyway =
      !!live?.diverged && input.model?.kind === 'replay' && input.model.on_divergence === 'scripted';
    let scores = NO_SCORES;
    try {
      if (!reason || scoreAnyway) scores = scoreTrial(c, checkCtx);
    } catch (e) {
      // A check read what a capped snapshot did not see: no label can be trusted, the trial is not safe.
      if (!(e instanceof Undecided)) throw e;
      reason = `snapshot capped, a check is undecided: ${e.message}`;
      scores = NO_SCORES;
    }
    // Scored, but the injection never reached the model: nothing was measured (applicability.ts).
    const na = reason ? undefined : unreachedReason(c, evidence, checkCtx.calls, scores.labels);
    const limitHit = [outcome.limit_hit, ...(caps?.before?.limits ?? []), ...(caps?.after?.limits ?? [])]
      .filter((x, i, all): x is string => !!x && all.indexOf(x) === i)
      .join('; ');
    let evidenceFile: string | undefined;
    if (input.keepEvidenceDir) {
      await mkdir(input.keepEvidenceDir, { recursive: true });
      evidenceFile = join(input.keepEvidenceDir, `${id}.json`);
      const bytes = JSON.stringify(evidence, null, 1);
      // Temp file + rename: a file or symlink an earlier trial planted at this name is replaced, not followed.
      const tmp = `${evidenceFile}.tmp-${randomBytes(6).toString('hex')}`;
      await writeFile(tmp, bytes, { flag: 'wx' });
      await rename(tmp, evidenceFile);
      input.written?.record(evidenceFile, bytes);
    }
    // What the harness produced (its last stderr lines, the names of files it wrote, its tool calls and
    // refusals) goes into the result file users upload: all of it passes the secret mask of the scope the
    // engine runs in (the action's, the CLI's), as reports do.
    const facts = mask.deep(
      withRoutes(
        trialFacts(
          { ...checkCtx, evidence: shown },
          casePaths(c).flatMap((p) => checkCtx.resolve(p) ?? []),
          reason ? undefined : c,
        ),
        attackRoutes(checkCtx.calls, evidence, c.inject.goal),
      ),
    );
    const trial: Trial = {
      id,
      case_id: c.id,
      case_revision: loaded.revision,
      phase: c.phase,
      seed: input.seed,
      valid: !reason && !na,
      ...(reason || na ? { invalid_reason: mask.text((reason ?? na)!) } : {}),
      ...(na ? { not_applicable: mask.text(na) } : {}),
      ...scores,
      facts,
      outcomes: mask.deep(outcomeRecords(c, evidence, checkCtx.calls)),
      duration_ms: outcome.duration_ms,
      exit_code: outcome.exit_code,
      timed_out: outcome.timed_out,
      ...(limitHit ? { limit_hit: limitHit } : {}),
      evidence_digest: evidenceDigest(evidence),
      ...(evidenceFile ? { evidence_file: evidenceFile } : {}),
      ...(live
        ? { live: { ...live, ...(live.diverged ? { diverged: mask.text(live.diverged) } : {}) } }
        : {}),
    };
    return { trial, evidence, notices };
  } finally {
    for (const server of servers) await stopEndpoint(server);
    if (!input.keepTrialDirs) {
      await runner.release?.(dirs).catch(() => {});
      await removeTrialDirs(dirs).catch(() => {});
    }
  }
}

/**
 * The outcome with what the endpoint went through: connections closed over the cap are a limit hit; a
 * listener's error (the engine out of file descriptors) makes the trial unmeasurable.
 */
function withEndpointHealth(
  o: ProcessOutcome,
  health: { dropped: number; error?: string },
  limits: TrialLimits,
): ProcessOutcome {
  const connections = trialLimitMessage('connections', limits);
  // The sandbox's relay may have named the same limit already: one mention.
  const named = o.limit_hit?.includes(connections.slice(0, connections.indexOf(')') + 1));
  const dropped =
    health.dropped && !named
      ? trialLimitMessage('connections', limits, `${health.dropped} closed by the endpoint`)
      : '';
  const limit_hit = [o.limit_hit, dropped].filter(Boolean).join('; ');
  return {
    ...o,
    ...(limit_hit ? { limit_hit } : {}),
    ...(health.error && !o.infra_error ? { infra_error: health.error } : {}),
  };
}

/** Both snapshots' caps, or undefined when neither was capped. */
function snapshotCaps(before?: SnapshotCap, after?: SnapshotCap): Evidence['snapshot_caps'] {
  if (!before && !after) return undefined;
  return { ...(before ? { before } : {}), ...(after ? { after } : {}) };
}

/** A live or replayed trial's usage and recording (every answered request, normalized), from its evidence. */
export function liveFacts(evidence: Evidence): NonNullable<Trial['live']> {
  const answered = evidence.model.filter((m) => m.live && !m.live.failure && m.live.source !== 'scripted');
  const usage = { requests: 0, input_tokens: 0, output_tokens: 0 };
  for (const m of evidence.model) {
    usage.requests += m.live?.attempts ?? 0;
    usage.input_tokens += m.live?.usage?.input_tokens ?? 0;
    usage.output_tokens += m.live?.usage?.output_tokens ?? 0;
  }
  const diverged = evidence.model.find((m) => m.live?.failure?.kind === 'diverged')?.live?.failure?.message;
  return {
    usage,
    recording: answered.map((m) => ({ request: m.live!.request, output: m.live!.output })),
    ...(diverged ? { diverged } : {}),
  };
}

/** The adversary's routes join the facts when it pursued any attacker step (absent otherwise, as before). */
function withRoutes(facts: Trial['facts'], routes: ReturnType<typeof attackRoutes>): Trial['facts'] {
  return routes.length ? { ...facts, attack_routes: routes } : facts;
}

/** The case's world serves MCP tools (its mock MCP server has something to offer). */
const servesMcp = (c: { world: { services?: { mcp?: { tools: unknown[] } } } }): boolean =>
  (c.world.services?.mcp?.tools.length ?? 0) > 0;

/** A pre-installed skill's files, with the package.json an install would have written (name, version). */
function installedSkillFiles(skill: Case['world']['skills'][number]): Record<string, string> {
  return packageFiles({ ...skill, scripts: undefined });
}

/** Environment canaries: NAME → value for every canary that declares `env` (values made for this trial). */
export function canaryEnv(
  declared: Case['world']['canaries'],
  values: Record<string, string>,
): Record<string, string> {
  return Object.fromEntries(declared.flatMap((k) => (k.env ? [[k.env, values[k.name]!] as const] : [])));
}

/**
 * What the scripted model's calls did, as the engine sees it while the trial runs: trial files through the
 * runner (paths as the harness names them), service requests from the recorder.
 */
function worldProbe(
  runner: Runner,
  dirs: TrialDirs,
  view: SandboxView,
  recorder: EvidenceRecorder,
): WorldProbe {
  const fileOf = (path: string): TrialFile | undefined => {
    for (const key of ['workspace', 'home', 'tmp'] as const)
      if (path.startsWith(`${view[key]}/`)) return { key, rel: path.slice(view[key].length + 1) };
    return undefined;
  };
  return {
    async digests(paths) {
      const files = paths.map(fileOf);
      const known = files.filter((f): f is TrialFile => !!f);
      const got = runner.peek && known.length ? await runner.peek(dirs, known) : [];
      let i = 0;
      return files.map((f) => (f ? got[i++] : undefined));
    },
    requestCount: () => recorder.services.length,
    requestsFrom: (from) => recorder.services.slice(from),
  };
}
