// The harness's environment, built from nothing: the parent's variables (GITHUB_TOKEN, INPUT_*, cloud
// keys…) never reach a harness under test. Only what the trial needs and what the adapter declares.
import type { PolicedEnv, SandboxView } from '../runner/types.js';

/**
 * Workflow variables that must never reach a harness, even when an adapter asks for them: the job's
 * token, every action input (`INPUT_GITHUB-TOKEN`…), the runner's own tokens and settings.
 */
export const FORBIDDEN_ENV = /^(GITHUB_TOKEN|GH_TOKEN|ACTIONS_.*|INPUT_.*|RUNNER_.*)$/;

/**
 * The one env policy of every runner, and the only maker of a PolicedEnv: splits `env` into what may be
 * passed and what may not (forbidden names, and names or values a `NAME=value` environment block cannot
 * carry: empty, `=` in the name, NUL). Runners pass the result as it is, never policing it again.
 */
export function policeEnv(env: Record<string, string>): { env: PolicedEnv; dropped: string[] } {
  const out: Record<string, string> = {};
  const dropped: string[] = [];
  for (const [k, v] of Object.entries(env)) {
    if (!k || FORBIDDEN_ENV.test(k) || k.includes('=') || k.includes('\0')) dropped.push(k);
    else out[k] = String(v).replace(/\0/g, '');
  }
  return { env: out as PolicedEnv, dropped };
}

export function buildTrialEnv(input: {
  view: SandboxView;
  endpoint: string;
  endpointHost: string;
  skillsDir?: string;
  memoryFile?: string;
  adapterEnv: Record<string, string>;
  configEnv: Record<string, string>;
  /** Canary secrets the case puts in the harness's environment (generated per trial, never the parent's). */
  canaryEnv?: Record<string, string>;
}): { env: PolicedEnv; dropped: string[] } {
  const { view } = input;
  const base: Record<string, string> = {
    PATH: [view.bin, ...view.systemPath].join(':'),
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
  if (input.skillsDir) base.HR_SKILLS_DIR = input.skillsDir;
  if (input.memoryFile) base.HR_MEMORY_FILE = input.memoryFile;
  // Canaries last: a case's NPM_TOKEN is the trial's canary even where an adapter sets a placeholder.
  return policeEnv({ ...base, ...input.adapterEnv, ...input.configEnv, ...input.canaryEnv });
}
