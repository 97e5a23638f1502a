// The harness install of a run: the adapter's pinned package into the cache, contained where bubblewrap
// works (runner/contain/install-sandbox.ts), with the .npmrc files the run's scope allows, and what the
// result records of it (HarnessInstall).
import { ensureInstalled, type InstallSandbox, isInstalled } from '../../adapters/install.js';
import { ignoredProjectNpmrc } from '../../adapters/npmrc.js';
import { UserError } from '../../errors.js';
import { type HostPlan, planHost } from '../../runner/contain/host.js';
import { installSandboxOf } from '../../runner/contain/install-sandbox.js';
import type { HarnessInstall } from '../../spec/run-result.js';
import type { RunOptions } from '../options.js';
import type { RunPlan } from './types.js';

/** Pure: the notice for a project .npmrc a scope leaves out, naming the file, why, and what to do. */
export function npmrcIgnoredNotice(file: string, reason: string): string {
  return `${file} is not used for the harness install: ${reason}. Its registry settings would choose the code installed and run on this runner. Name the registry in the workflow instead (actions/setup-node \`registry-url\`, or npm_config_registry), where the base repository decides it.`;
}

/** The install sandbox of this host (probed unless the run's runner probed it already), or why none. */
export async function hostInstallSandbox(
  hostPlan?: Promise<HostPlan>,
): Promise<{ sandbox?: InstallSandbox; reason: string }> {
  const host: HostPlan = await (hostPlan ?? planHost({ setup: false })).catch(
    (e: Error): HostPlan => ({ contained: false, reason: e.message, notes: [] }),
  );
  const sandbox = installSandboxOf(host);
  return sandbox ? { sandbox, reason: '' } : { reason: host.contained ? 'no sandbox' : host.reason };
}

/** One adapter's pinned harness into the cache (a bump's tree may pin another version than the run's). */
export async function installHarness(
  opts: RunOptions,
  adapter: RunPlan['adapter'],
  plan: RunPlan,
  cacheDir: string,
): Promise<HarnessInstall> {
  if (opts.install === false && !isInstalled(adapter.adapter, cacheDir)) {
    const npm = adapter.adapter.install?.npm;
    const what = npm ? `${npm.package}@${npm.version}` : `Node.js ${adapter.adapter.install?.node}`;
    throw new UserError(
      `${adapter.adapter.name}: its harness (${what}) is not in the install cache ${cacheDir}, and --no-install forbids installing it`,
      `drop --no-install to install it now, or install it first (node scripts/install-harnesses.mjs ${adapter.adapter.name}, with HARNESS_RISK_CACHE=${cacheDir})`,
    );
  }
  // The process runner probed the host already; another runner's run probes it here (no setup).
  const { sandbox, reason } = await hostInstallSandbox(plan.hostPlan);
  const scope = opts.npmrc;
  const info = await ensureInstalled(adapter.adapter, cacheDir, {
    adapterDir: adapter.dir,
    ...(opts.repo_dir ? { projectDir: opts.repo_dir } : {}),
    ...(scope ? { npmrc: scope } : {}),
    ...(sandbox ? { sandbox } : {}),
    log: (line) => opts.on_progress?.({ kind: 'notice', message: line }),
  });
  const ignored =
    scope && !scope.project ? ignoredProjectNpmrc(opts.repo_dir ?? process.cwd(), scope) : undefined;
  return {
    installed_now: info.installed,
    containment: sandbox ? 'bubblewrap' : 'uncontained',
    mechanism: sandbox ? sandbox.mechanism : `no install sandbox: ${reason}`,
    ...(ignored && scope && !scope.project ? { npmrc_ignored: `${ignored}: ${scope.reason}` } : {}),
  };
}
