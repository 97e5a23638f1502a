// The harness's environment, built from nothing: the parent's variables (GITHUB_TOKEN, INPUT_*, cloud
// keys…) never reach a harness under test. Only what the trial needs and what the adapter declares.
import { policeEnv } from '../runner/shared.js';
import type { SandboxView } from '../runner/types.js';

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
}): { env: Record<string, string>; dropped: string[] } {
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
  // The one env policy of every runner (src/runner/shared.ts).
  // Canaries last: a case's NPM_TOKEN is the trial's canary even where an adapter sets a placeholder.
  return policeEnv({ ...base, ...input.adapterEnv, ...input.configEnv, ...input.canaryEnv });
}
