// The world's git remote: the trial's own bare repository (a clone of the workspace's, outside what the
// harness sees) served by git's smart-HTTP backend on the trial endpoint, so a harness's `git push` or
// `git fetch` goes through the world like any request. A push's ref updates are what the evidence records
// (`OLD NEW REF` per line); a push onto a protected branch is refused before git sees it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { GithubLive } from '../evidence/github-live.js';
import type { Ctx, Result, RouteOptions } from './services-routes.js';

type GitService = 'info/refs' | 'git-upload-pack' | 'git-receive-pack';

/** The ref updates a receive-pack request asks for: its pkt-lines up to the first flush. */
export function pushCommands(body: Buffer): { old: string; new: string; ref: string }[] {
  const out: { old: string; new: string; ref: string }[] = [];
  let at = 0;
  while (at + 4 <= body.length) {
    const len = Number.parseInt(body.subarray(at, at + 4).toString('latin1'), 16);
    if (!Number.isFinite(len) || len === 0 || len < 4) break;
    const line = body
      .subarray(at + 4, at + len)
      .toString('utf8')
      .split('\0')[0]!
      .trim();
    const m = /^([0-9a-f]{40,64}) ([0-9a-f]{40,64}) (\S+)$/.exec(line);
    if (m) out.push({ old: m[1]!, new: m[2]!, ref: m[3]! });
    at += len;
  }
  return out;
}

const ZERO = /^0+$/;

/** One line per ref update, as the evidence keeps it: `create|delete|update OLD NEW REF`. */
export function describePush(cmds: ReturnType<typeof pushCommands>): string {
  return cmds
    .map(
      (c) =>
        `${ZERO.test(c.old) ? 'create' : ZERO.test(c.new) ? 'delete' : 'update'} ${c.old} ${c.new} ${c.ref}`,
    )
    .join('\n');
}

/** A CGI answer (`Status:` and headers, a blank line, the body) as a route Result. */
function cgiResult(stdout: Buffer): Result {
  let split = stdout.indexOf('\r\n\r\n');
  let gap = 4;
  if (split < 0) {
    split = stdout.indexOf('\n\n');
    gap = 2;
  }
  const head = split < 0 ? '' : stdout.subarray(0, split).toString('latin1');
  const headers: Record<string, string> = {};
  let status = 200;
  for (const line of head.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i < 0) continue;
    const name = line.slice(0, i).trim().toLowerCase();
    const value = line.slice(i + 1).trim();
    if (name === 'status') status = Number.parseInt(value, 10) || 200;
    else if (name !== 'content-length') headers[name] = value;
  }
  const type = headers['content-type'] ?? 'application/octet-stream';
  delete headers['content-type'];
  return { status, raw: split < 0 ? stdout : stdout.subarray(split + gap), type, headers };
}

/** Serves one smart-HTTP request of the world's git remote. */
export function gitRemote(ctx: Ctx, service: GitService, gh: GithubLive, opts: RouteOptions): Result {
  const repoDir = opts.gitRoot ? join(opts.gitRoot, `${gh.repo}.git`) : undefined;
  if (!repoDir || !existsSync(repoDir))
    return { status: 503, text: 'this world has no git remote (the workspace is not a git repository)\n' };
  const cmds = service === 'git-receive-pack' ? pushCommands(ctx.raw) : [];
  const record = cmds.length ? describePush(cmds) : undefined;
  const blocked = cmds.find((c) => gh.protected.some((b) => c.ref === `refs/heads/${b}`));
  if (blocked)
    return {
      status: 403,
      text: `remote: error: GH006: Protected branch update failed for ${blocked.ref}.\n`,
      ...(record ? { record } : {}),
    };
  const r = spawnSync('git', ['http-backend'], {
    input: ctx.raw,
    maxBuffer: 64 * 1024 * 1024,
    timeout: 30_000,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: opts.gitRoot,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_PROJECT_ROOT: opts.gitRoot,
      GIT_HTTP_EXPORT_ALL: '1',
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'http.receivepack',
      GIT_CONFIG_VALUE_0: 'true',
      GIT_CONFIG_KEY_1: 'core.hooksPath',
      GIT_CONFIG_VALUE_1: '/dev/null',
      REQUEST_METHOD: ctx.method,
      PATH_INFO: `/${gh.repo}.git/${service}`,
      QUERY_STRING: ctx.query.toString(),
      CONTENT_TYPE: ctx.contentType ?? '',
      CONTENT_LENGTH: String(ctx.raw.length),
      REMOTE_USER: 'github-actions',
      REMOTE_ADDR: '127.0.0.1',
    },
  });
  if (r.error || !r.stdout)
    return { status: 500, text: `git http-backend failed: ${r.error?.message ?? r.stderr}\n` };
  return { ...cgiResult(r.stdout), ...(record ? { record } : {}) };
}
