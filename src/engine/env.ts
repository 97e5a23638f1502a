// The harness's environment, built from nothing: the parent's variables (GITHUB_TOKEN, INPUT_*, cloud
// keys…) never reach a harness under test. Only what the trial needs and what the adapter declares.
import { FORBIDDEN_ENV } from '../job-env.js';
import { secretVariable } from '../report/secret-rule.js';
import type { PolicedEnv, SandboxView } from '../runner/types.js';

/**
 * The real job's secret values among the forbidden variables (its token, the OIDC request token and URL,
 * secret inputs), by the report's own rule of what is a secret (report/secret-rule.ts), so a plain input
 * such as `claude-code` never takes a harmless path with it.
 */
export function jobValues(parent: NodeJS.ProcessEnv): string[] {
  return Object.entries(parent).flatMap(([k, v]) =>
    FORBIDDEN_ENV.test(k) && v && (secretVariable(k, v) || k.startsWith('ACTIONS_ID_TOKEN')) ? [v] : [],
  );
}

/**
 * The one env policy of every runner, and the only maker of a PolicedEnv: splits `env` into what may be
 * passed and what may not (forbidden names, and names or values a `NAME=value` environment block cannot
 * carry: empty, `=` in the name, NUL). `world` is the trial's own Actions environment (its canary
 * GITHUB_TOKEN, its OIDC endpoint): those names pass with exactly those values. Whatever the name, a value
 * holding one of the real job's values (`job`) never passes. Runners pass the result as it is.
 */
export function policeEnv(
  env: Record<string, string>,
  world: Record<string, string> = {},
  job: string[] = jobValues(process.env),
): { env: PolicedEnv; dropped: string[] } {
  const out: Record<string, string> = {};
  const dropped: string[] = [];
  for (const [k, v] of Object.entries({ ...env, ...world })) {
    const owned = Object.hasOwn(world, k) && world[k] === v;
    const bad = !k || (FORBIDDEN_ENV.test(k) && !owned) || k.includes('=') || k.includes('\0');
    if (bad || job.some((j) => String(v).includes(j))) dropped.push(k);
    else out[k] = String(v).replace(/\0/g, '');
  }
  return { env: out as PolicedEnv, dropped };
}

/** The trial's PATH: its `bin` (the svc CLI) first, then the runner's system folders ({{path}} in adapters). */
export const trialPath = (view: Pick<SandboxView, 'bin' | 'systemPath'>): string =>
  [view.bin, ...view.systemPath].join(':');

export function buildTrialEnv(input: {
  view: SandboxView;
  endpoint: string;
  endpointHost: string;
  skillsDir?: string;
  memoryFile?: string;
  /** The harness's working folder as it sees it: PWD, as a shell sets it for the programs it starts. */
  cwd?: string;
  adapterEnv: Record<string, string>;
  configEnv: Record<string, string>;
  /** Canary secrets the case puts in the harness's environment (generated per trial, never the parent's). */
  canaryEnv?: Record<string, string>;
  /** The world's Actions environment (world/github-world.ts): may use the job's names, never its values. */
  worldEnv?: Record<string, string>;
}): { env: PolicedEnv; dropped: string[] } {
  const { view } = input;
  const base: Record<string, string> = {
    PATH: trialPath(view),
    HOME: view.home,
    USER: 'harness',
    LOGNAME: 'harness',
    SHELL: '/bin/sh',
    TMPDIR: view.tmp,
    TMP: view.tmp,
    TEMP: view.tmp,
    XDG_CONFIG_HOME: `${view.home}/.config`,
    XDG_DATA_HOME: `${view.home}/.local/share`,
    XDG_CACHE_HOME: `${view.home}/.cache`,
    XDG_STATE_HOME: `${view.home}/.local/state`,
    XDG_RUNTIME_DIR: `${view.tmp}/run`,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    HR_SVC: input.endpoint,
    // Stray egress goes to the trial endpoint, which records it and answers 403: nothing leaves.
    HTTP_PROXY: input.endpoint,
    HTTPS_PROXY: input.endpoint,
    http_proxy: input.endpoint,
    https_proxy: input.endpoint,
    NO_PROXY: `${input.endpointHost},localhost,127.0.0.1`,
    no_proxy: `${input.endpointHost},localhost,127.0.0.1`,
  };
  // A harness started from a terminal has PWD; some take their project folder (and their shell's
  // folder) from it, not from the process's cwd (opencode 1.18 ran its bash elsewhere without it).
  if (input.cwd) base.PWD = input.cwd;
  if (input.skillsDir) base.HR_SKILLS_DIR = input.skillsDir;
  if (input.memoryFile) base.HR_MEMORY_FILE = input.memoryFile;
  // Canaries last: a case's NPM_TOKEN is the trial's canary even where an adapter sets a placeholder.
  const world = { ...input.worldEnv, ...input.canaryEnv };
  return policeEnv({ ...base, ...input.adapterEnv, ...input.configEnv }, world);
}
