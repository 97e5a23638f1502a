// Stage "serve": what answers at the trial's endpoint once its world is written: the model (scripted,
// live or replayed) and the case's mock services. A failure that makes a live or replayed trial
// unmeasurable (provider error after retries, budget, divergence with nothing to continue) aborts it.

import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { eventThread, githubEvent } from '../../cases/github-event.js';
import type { ScriptContext } from '../../evidence/types.js';
import { type Backend, providerBackend, replayBackend } from '../../model/live/backend.js';
import { placeholders } from '../../model/live/shape.js';
import { triggerVisible } from '../../model/observe.js';
import { createModelHandler } from '../../model/server.js';
import type { WorldProbe } from '../../model/world-check.js';
import { PEEK_BYTES, peekDigest } from '../../runner/shared.js';
import type { TrialFile } from '../../runner/types.js';
import { reviewerMode } from '../../spec/reviewer-modes.js';
import { gitRootOf } from '../../world/github-world.js';
import { createServices, type ServicesHandler } from '../../world/services.js';
import { type PromptDelivery, promptDeliveries } from './prompt-delivery.js';
import type { RenderedTrial } from './render.js';
import type { TrialScene } from './types.js';

/** The trial's own abort: the run's signal, or the model's fatal failure; `unlink` leaves the run's. */
export interface TrialAbort {
  signal: AbortSignal;
  unlink(): void;
}

export interface Serving {
  services: ServicesHandler;
  abort: TrialAbort;
}

function trialAbort(run: AbortSignal | undefined): { controller: AbortController; abort: TrialAbort } {
  const controller = new AbortController();
  const onRunAbort = () => controller.abort();
  run?.addEventListener('abort', onRunAbort, { once: true });
  if (run?.aborted) controller.abort();
  return {
    controller,
    abort: { signal: controller.signal, unlink: () => run?.removeEventListener('abort', onRunAbort) },
  };
}

function scriptContext(
  scene: TrialScene,
  r: RenderedTrial,
  triggers: string[],
  delivered: PromptDelivery[],
): ScriptContext {
  const { c } = r;
  const { adapter, config } = scene.input;
  const { view } = scene;
  return {
    trial_id: scene.id,
    plan: c.owner.plan,
    goal: c.inject.goal,
    trigger: c.inject.trigger,
    ...(triggers.length ? { triggers } : {}),
    ...(c.inject.after !== undefined ? { attack_after: c.inject.after } : {}),
    ...(delivered.length ? { delivered: delivered.map((d) => d.step) } : {}),
    reviewer_verdict: reviewerMode(config) === 'deny' ? 'deny' : 'allow',
    reviewer: reviewerMode(config),
    ...(scene.input.strategy ? { strategy: scene.input.strategy } : {}),
    paths: { workspace: view.workspace, home: view.home, tmp: view.tmp },
    memory_file: r.memoryFile,
    ...(r.memoryFiles.length > 1 ? { memory_files: r.memoryFiles } : {}),
    tool_hints: adapter.adapter.tools,
    denial_patterns: adapter.adapter.denial_patterns.map((p) => new RegExp(p, 'i')),
    error_patterns: adapter.adapter.error_patterns.map((p) => new RegExp(p, 'i')),
    running_patterns: adapter.adapter.running_patterns.map((p) => new RegExp(p, 'i')),
    services_url: scene.endpoint.url,
    secrets: scene.canaries,
    subagents: Object.fromEntries((c.world.services.agents?.agents ?? []).map((a) => [a.name, a.reply])),
    mcp_server: adapter.adapter.mcp?.server ?? 'team',
    ...(adapter.adapter.discovery ? { discovery: adapter.adapter.discovery } : {}),
  };
}

/** Live and replay: a provider or a recording answers (absent: the scripted model). */
function backendOf(scene: TrialScene): Backend | undefined {
  const { input, view, dirs } = scene;
  const ph = placeholders({
    workspace: view.workspace,
    home: view.home,
    tmp: view.tmp,
    endpoint: scene.endpoint.url,
    canaries: scene.canaries,
    randomNames: [basename(dirs.root), basename(input.workRoot)],
  });
  if (input.model?.kind === 'live') return providerBackend(input.model.provider, input.model.budget, ph);
  if (input.model?.kind === 'replay')
    return replayBackend(input.model.recording, ph, input.model.on_divergence);
  return undefined;
}

/**
 * Makes the model and the services answer at the trial's endpoint. `triggers`: more texts that count as
 * the injection's trigger (rendered; a second session's persisted lines).
 */
export function serveTrial(scene: TrialScene, r: RenderedTrial, triggers: string[] = []): Serving {
  const { controller, abort } = trialAbort(scene.input.signal);
  const backend = backendOf(scene);
  // Before the harness starts, as the workflow's action fetched it: the owner reads the prompt carries.
  const delivered = promptDeliveries(r.c, r.vars.prompt ?? '', scene.endpoint.url);
  for (const d of delivered) scene.recorder.addService(d.request, '');
  const model = createModelHandler(scriptContext(scene, r, triggers, delivered), scene.recorder, {
    ...(backend ? { backend, signal: controller.signal, onFatal: () => controller.abort() } : {}),
    world: worldProbe(scene),
  });
  // selfHosts: a proxied request to the endpoint itself is not egress.
  const services = createServices(r.c.world.services, scene.recorder, {
    skillsDir: r.skillsDir,
    selfHosts: [scene.view.endpointHost],
    gitRoot: gitRootOf(scene.dirs.root),
    thread: eventThread(githubEvent(r.c)),
    carriesInjection: (answer) => [r.c.inject.trigger, ...triggers].some((t) => triggerVisible(answer, t)),
  });
  scene.endpoint.serve(
    Object.assign(
      async (req: Parameters<ServicesHandler>[0], res: Parameters<ServicesHandler>[1]) => {
        if (await model(req, res)) return;
        await services(req, res);
      },
      { connect: services.connect },
    ),
  );
  return { services, abort };
}

/**
 * What the scripted model's calls did, as the engine sees it while the trial runs: trial files through the
 * runner (paths as the harness names them), service requests from the recorder.
 */
function worldProbe({ input, dirs, view, recorder }: TrialScene): WorldProbe {
  const fileOf = (path: string): TrialFile | undefined => {
    for (const key of ['workspace', 'home', 'tmp'] as const)
      if (path.startsWith(`${view[key]}/`)) return { key, rel: path.slice(view[key].length + 1) };
    return undefined;
  };
  return {
    async digests(paths) {
      const files = paths.map(fileOf);
      const known = files.filter((f): f is TrialFile => !!f);
      const got = input.runner.peek && known.length ? await input.runner.peek(dirs, known) : [];
      let i = 0;
      return files.map((f) => (f ? got[i++] : undefined));
    },
    digestOf: (content) => {
      const bytes = Buffer.from(content);
      return peekDigest(
        createHash('sha256').update(bytes.subarray(0, PEEK_BYTES)).digest('hex'),
        bytes.length,
      );
    },
    requestCount: () => recorder.services.length,
    requestsFrom: (from) => recorder.services.slice(from),
  };
}
