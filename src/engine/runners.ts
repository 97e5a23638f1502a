// The runner registry: every runner a user can name, what it is, and how the engine makes one. Every
// list of runner names (schemas, help, errors) and every choice by runner name reads this table.
import { UserError } from '../errors.js';
import { type HostPlan, planHost } from '../runner/contain/host.js';
import type { Limits } from '../runner/contain/limits.js';
import { ProcessRunner } from '../runner/process.js';
import type { Runner } from '../runner/types.js';

/**
 * What a runner's factory reads of the run's options (engine/options.ts RunOptions has them all; named
 * here so the option schema, which lists the runner names, and this registry do not import each other).
 */
export interface RunnerOptions {
  runner: RunnerName;
  host_setup?: boolean;
  limits?: Partial<Limits>;
  image?: string;
  concurrency: number;
  on_progress?: (event: { kind: 'notice'; message: string }) => void;
}

/** What a factory gets besides the run's options. */
export interface RunnerSetup {
  runId: string;
  /** Folders every sandbox mounts read-only / hides (containers are started ahead with them). */
  prewarm: { readOnly: string[]; hide: string[] }[];
  hostPlan?: Promise<HostPlan>;
}

export interface RunnerEntry {
  /** One line for help and errors. */
  doc: string;
  /** Whether the harness runs contained (a matrix only publishes contained measurements). */
  contains: boolean;
  /** The runner recorded in a result (`process-uncontained` is the process runner with containment off). */
  records: 'process' | 'docker';
  /** Needs an `image` (action input, --image flag). */
  needsImage: boolean;
  /** Plans the host's isolation (bubblewrap, user namespaces) before the first trial. */
  plansHost: boolean;
  create(opts: RunnerOptions, setup: RunnerSetup): Promise<Runner>;
}

const processRunner =
  (containment: 'auto' | 'off') =>
  async (opts: RunnerOptions, setup: RunnerSetup): Promise<Runner> =>
    new ProcessRunner({
      containment,
      setupHost: opts.host_setup ?? false,
      ...(setup.hostPlan ? { plan: setup.hostPlan } : {}),
      ...(opts.limits ? { limits: opts.limits } : {}),
      onWarning: (message) => opts.on_progress?.({ kind: 'notice', message }),
    });

export const RUNNERS = {
  process: {
    doc: 'contained (namespaces) where the machine allows, else recorded as uncontained',
    contains: true,
    records: 'process',
    needsImage: false,
    plansHost: true,
    create: processRunner('auto'),
  },
  'process-uncontained': {
    doc: 'the harness runs as a plain process, with the job’s access',
    contains: false,
    records: 'process',
    needsImage: false,
    plansHost: false,
    create: processRunner('off'),
  },
  docker: {
    doc: 'each trial in a fresh container of `image` (your harness build)',
    contains: true,
    records: 'docker',
    needsImage: true,
    plansHost: false,
    async create(opts: RunnerOptions, setup: RunnerSetup): Promise<Runner> {
      // Programmatic callers (validate, doctor, matrix) reach here without the run options' parse.
      if (!opts.image)
        throw new UserError(
          'runner docker needs an image',
          'set `image:` (action input) or --image (CLI) to the image holding your harness build',
        );
      const { DockerRunner } = await import('../runner/docker/runner.js');
      return new DockerRunner({
        image: opts.image,
        runId: setup.runId,
        // One idle container ready per concurrent trial; none ever serves a second trial.
        warm: opts.concurrency,
        prewarm: setup.prewarm,
        // The run's per-trial limits, where set, hold in the container too (a harness that needs the
        // process runner's 2 GiB gets them here); unset ones keep the container's own defaults.
        ...dockerLimits(opts.limits),
        onWarning: (message) => opts.on_progress?.({ kind: 'notice', message }),
      }) as Runner;
    },
  },
} as const satisfies Record<string, RunnerEntry>;

/** The run's limits in the docker runner's terms (only those set). */
function dockerLimits(l: Partial<Limits> | undefined) {
  return {
    ...(l?.memory_bytes ? { memory: l.memory_bytes } : {}),
    ...(l?.pids ? { pids: l.pids } : {}),
    ...(l?.file_size_bytes ? { fileSize: l.file_size_bytes } : {}),
    ...(l?.disk_bytes ? { disk: l.disk_bytes } : {}),
  };
}

export type RunnerName = keyof typeof RUNNERS;
export const RUNNER_NAMES = Object.keys(RUNNERS) as RunnerName[];
export const DEFAULT_RUNNER: RunnerName = 'process';

export const runnerEntry = (name: RunnerName): RunnerEntry => RUNNERS[name];

/** The host plan of a run whose runner plans one (started early: it probes while cases load). */
export const hostPlanFor = (opts: RunnerOptions): Promise<HostPlan> | undefined =>
  runnerEntry(opts.runner).plansHost ? planHost({ setup: opts.host_setup ?? false }) : undefined;

/** `process (contained…), process-uncontained or docker`: the names for an error's hint. */
export function runnerChoices(names: readonly RunnerName[] = RUNNER_NAMES): string {
  const shown = names.map((n) => (n === DEFAULT_RUNNER ? `${n} (contained)` : n));
  return shown.length > 1 ? `${shown.slice(0, -1).join(', ')} or ${shown.at(-1)}` : (shown[0] ?? '');
}
