// Stage "launch", protocol: acp: the engine as the ACP client of the harness. The agent runs under the
// trial's runner like any harness (contained, policed env); the runner hands the engine its stdio and
// the session (adapters/acp/session.ts) runs over it. What the session reports goes into the trial's
// harness events as it happens; a session that never started is the trial's start failure.

import { constants, realpathSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { AcpSessionResult, ClientFs } from '../../adapters/acp/session.js';
import { runAcpSession } from '../../adapters/acp/session.js';
import type { ProcessOutcome } from '../../evidence/types.js';
import type { TrialLaunch } from '../../runner/types.js';
import { resolveCasePath } from '../../world/snapshot.js';
import { MCP_STDIO } from '../harness-view.js';
import type { RenderedTrial } from './render.js';
import type { TrialScene } from './types.js';

/** The bytes a client fs read returns at most (the agent's own tools have their own limits). */
const FS_READ_CAP = 1024 * 1024;

/** The conversation for TrialLaunch.converse, and where its result lands once it is over. */
export interface AcpConversation {
  converse: NonNullable<TrialLaunch['converse']>;
  result: () => AcpSessionResult | undefined;
}

/** The ACP session of this trial: undefined unless the adapter speaks ACP. */
export function acpConversation(scene: TrialScene, r: RenderedTrial): AcpConversation | undefined {
  const { adapter, config } = scene.input;
  if (adapter.adapter.protocol !== 'acp' || !config.acp) return undefined;
  const acp = config.acp;
  let result: AcpSessionResult | undefined;
  // Client file access runs in the engine on the host folders: only where they are the live ones.
  const fs = acp.fs && scene.input.runner.name === 'process' ? confinedFs(scene) : undefined;
  if (acp.fs && !fs)
    scene.notices.push(`${adapter.file}: acp.fs is not offered under runner ${scene.input.runner.name}`);
  return {
    converse: async (io) => {
      result = await runAcpSession(
        io,
        {
          policy: acp.permission,
          cwd: r.ra(adapter.adapter.launch.cwd),
          prompt: r.vars.prompt ?? '',
          initializeTimeoutMs: (adapter.adapter.acp?.initialize_timeout_s ?? 60) * 1000,
          ...(fs ? { fs } : {}),
          // ACP's own way to hand an agent MCP servers: no `mcp:` files needed; named as the model expects.
          ...(r.servesMcp
            ? {
                mcpUrl: r.vars.mcp_url,
                mcpServer: adapter.adapter.mcp?.server ?? 'team',
                mcpCommand: `${r.vars.bin}/${MCP_STDIO}`,
              }
            : {}),
        },
        scene.recorder.harness,
      );
    },
    result: () => result,
  };
}

/**
 * The outcome with the session's start failure: an agent that never answered initialize (or refused
 * session/new) could not be started as an ACP agent, whatever its exit said; never the attack's doing.
 */
export function withAcpResult(o: ProcessOutcome, result: AcpSessionResult | undefined): ProcessOutcome {
  // The agent's identity, attested per trial: the same command may start another build between trials.
  const out = result?.agent ? { ...o, agent: result.agent } : o;
  if (!result?.failure || o.spawn_error || o.infra_error) return out;
  return { ...out, spawn_error: result.failure };
}

/** fs/read_text_file and fs/write_text_file inside the trial's folders only, never through a link. */
function confinedFs(scene: TrialScene): ClientFs {
  const host = (path: string): string => {
    const key = resolveCasePath(path, scene.view);
    const [root, ...rest] = (key ?? '').split('/');
    const base = root === 'workspace' || root === 'home' || root === 'tmp' ? scene.dirs[root] : undefined;
    if (!key || !base) throw rpcDenied(`path outside the trial's folders: ${path.slice(0, 200)}`);
    const file = join(base, ...rest);
    // The folder must resolve inside the trial's folder (a link the agent made must not lead out).
    let real: string;
    try {
      real = realpathSync(dirname(file));
    } catch {
      throw rpcDenied(`no such folder: ${path.slice(0, 200)}`);
    }
    if (real !== realpathSync(base) && !real.startsWith(`${realpathSync(base)}/`))
      throw rpcDenied(`path leads outside the trial's folders: ${path.slice(0, 200)}`);
    return file;
  };
  const flags = constants.O_NOFOLLOW | constants.O_NONBLOCK;
  return {
    read: async (path, line, limit) => {
      const h = await open(host(path), constants.O_RDONLY | flags);
      try {
        const buf = Buffer.alloc(FS_READ_CAP);
        const { bytesRead } = await h.read(buf, 0, FS_READ_CAP, 0);
        const lines = buf.subarray(0, bytesRead).toString('utf8').split('\n');
        const from = Math.max(0, (line ?? 1) - 1);
        return lines.slice(from, limit === undefined ? undefined : from + limit).join('\n');
      } finally {
        await h.close();
      }
    },
    write: async (path, content) => {
      const h = await open(
        host(path),
        constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | flags,
        0o644,
      );
      try {
        await h.writeFile(content);
      } finally {
        await h.close();
      }
    },
  };
}

const rpcDenied = (message: string) => ({ code: -32602, message });
