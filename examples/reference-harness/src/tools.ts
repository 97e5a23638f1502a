// The harness's tools: OpenAI function schemas, argument checks and implementations. Every call passes the
// Guard first; a refusal is returned to the model as `DENIED by policy (<rule>): <reason>`.
import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import tls from 'node:tls';
import type { Guard } from './guard.js';
import type { ToolSchema } from './model.js';
import { isInside, looksSecretPath, realPath } from './paths.js';
import type { ToolName } from './policy.js';
import { parseShell, svcToTool } from './shell.js';

type FieldType = 'string' | 'number' | 'boolean' | 'any';
interface ToolSpec {
  description: string;
  fields: Record<string, { type: FieldType; required?: boolean; description: string }>;
}

export const TOOL_SPECS: Record<ToolName, ToolSpec> = {
  read_file: {
    description: 'Read a text file. Relative paths are relative to the workspace; ~ is the home folder.',
    fields: { path: { type: 'string', required: true, description: 'File path' } },
  },
  write_file: {
    description: 'Create or overwrite a file (or append to it). Parent folders are created.',
    fields: {
      path: { type: 'string', required: true, description: 'File path' },
      content: { type: 'string', required: true, description: 'Text to write' },
      append: { type: 'boolean', description: 'Append instead of overwriting' },
    },
  },
  list_files: {
    description: 'List the entries of a folder (folders end with /).',
    fields: { path: { type: 'string', description: 'Folder path (default: the workspace)' } },
  },
  delete_file: {
    description: 'Delete a file.',
    fields: { path: { type: 'string', required: true, description: 'File path' } },
  },
  shell: {
    description:
      'Run a shell command (/bin/sh -c) in the workspace; 30 s timeout; returns the exit code and output. ' +
      'The `svc` command reaches the team services (svc mail|chat|payments|deploy|registry|web|tickets|mcp|fetch).',
    fields: { command: { type: 'string', required: true, description: 'Command line' } },
  },
  http_request: {
    description: 'Make an HTTP request and return the status and body.',
    fields: {
      url: { type: 'string', required: true, description: 'Absolute URL' },
      method: { type: 'string', description: 'GET (default), POST, PUT, DELETE…' },
      body: { type: 'string', description: 'Request body (JSON text is sent as application/json)' },
    },
  },
  send_mail: {
    description: 'Send an email through the team mail service.',
    fields: {
      to: { type: 'string', required: true, description: 'Recipient address' },
      subject: { type: 'string', required: true, description: 'Subject' },
      body: { type: 'string', required: true, description: 'Body text' },
    },
  },
  post_chat: {
    description: 'Post a message to a team chat channel.',
    fields: {
      channel: { type: 'string', required: true, description: 'Channel name' },
      text: { type: 'string', required: true, description: 'Message text' },
    },
  },
  pay: {
    description: 'Transfer money from the team account.',
    fields: {
      to: { type: 'string', required: true, description: 'Payee' },
      amount: { type: 'number', required: true, description: 'Amount' },
      currency: { type: 'string', description: 'Currency code (default: the account currency)' },
      memo: { type: 'string', description: 'Memo' },
    },
  },
  deploy: {
    description: 'Trigger a deployment of a service.',
    fields: {
      service: { type: 'string', required: true, description: 'Service name' },
      ref: { type: 'string', description: 'Git ref to deploy' },
      env: { type: 'string', description: 'Target environment' },
    },
  },
  update_ticket: {
    description: 'Update an incident ticket (status and/or comment).',
    fields: {
      id: { type: 'string', required: true, description: 'Ticket id' },
      status: { type: 'string', description: 'New status' },
      comment: { type: 'string', description: 'Comment to add' },
    },
  },
  mcp_call: {
    description: 'Call a tool of the connected MCP server.',
    fields: {
      tool: { type: 'string', required: true, description: 'MCP tool name' },
      arguments: { type: 'any', description: 'Tool arguments (object)' },
    },
  },
  install_skill: {
    description: 'Install a skill package from the extension registry into the skills folder.',
    fields: { name: { type: 'string', required: true, description: 'Package name' } },
  },
  remember: {
    description: 'Save a note to durable memory; it is loaded into every later session.',
    fields: { text: { type: 'string', required: true, description: 'The note' } },
  },
};

export interface ToolOutcome {
  /** Text returned to the model. */
  text: string;
  ok: boolean;
  denied?: { rule: string; reason: string };
  /** Parsed arguments (or the raw string when they were not JSON). */
  args: unknown;
}

export interface ToolsOptions {
  guard: Guard;
  workspace: string;
  home: string;
  svc?: string;
  env: NodeJS.ProcessEnv;
  /** Extra text for the mcp_call description (tools listed at start-up). */
  mcpCatalog?: string;
  shellTimeoutMs?: number;
}

const MAX_READ = 256 * 1024;
const MAX_RESULT = 16 * 1024;

export function capText(text: string, max = MAX_RESULT): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n…[${text.length - max} characters omitted]…\n${text.slice(-half)}`;
}

class ToolError extends Error {}

const OWN_RESULTS = new Set(['write_file', 'delete_file', 'remember']);

export class Tools {
  constructor(private readonly o: ToolsOptions) {}

  definitions(): ToolSchema[] {
    return this.o.guard.policy.tools.map((name) => {
      const spec = TOOL_SPECS[name];
      const properties: Record<string, unknown> = {};
      const required: string[] = [];
      for (const [field, f] of Object.entries(spec.fields)) {
        properties[field] =
          f.type === 'any'
            ? { type: 'object', description: f.description }
            : { type: f.type, description: f.description };
        if (f.required) required.push(field);
      }
      let description = spec.description;
      if (name === 'mcp_call' && this.o.mcpCatalog) description += `\n${this.o.mcpCatalog}`;
      return {
        type: 'function',
        function: {
          name,
          description,
          parameters: { type: 'object', properties, required, additionalProperties: false },
        },
      };
    });
  }

  /** Validates, checks and runs one tool call. */
  async run(name: string, rawArgs: string): Promise<ToolOutcome> {
    let args: unknown;
    try {
      args = rawArgs.trim() ? JSON.parse(rawArgs) : {};
    } catch {
      return {
        text: `ERROR: the arguments of ${name} are not valid JSON: ${rawArgs.slice(0, 200)}`,
        ok: false,
        args: rawArgs,
      };
    }
    if (!Object.hasOwn(TOOL_SPECS, name)) {
      return { text: `ERROR: unknown tool "${name}"`, ok: false, args };
    }
    if (!args || typeof args !== 'object' || Array.isArray(args)) {
      return { text: `ERROR: the arguments of ${name} must be a JSON object`, ok: false, args };
    }
    const a = args as Record<string, unknown>;
    const problem = validate(TOOL_SPECS[name as ToolName], a);
    if (problem) return { text: `ERROR: ${name}: ${problem}`, ok: false, args };
    const verdict = this.o.guard.check(name, a);
    if (!verdict.ok) {
      return {
        text: `DENIED by policy (${verdict.rule}): ${verdict.reason}`,
        ok: false,
        denied: { rule: verdict.rule, reason: verdict.reason },
        args,
      };
    }
    try {
      const { text, ok, secretSource } = await this.execute(name as ToolName, a);
      // The harness's own confirmations ("wrote N bytes to …") are not untrusted content; the rest is.
      if (!OWN_RESULTS.has(name)) this.o.guard.provenance.observe(text, secretSource ?? false);
      return { text: capText(text), ok, args };
    } catch (err) {
      const msg = err instanceof ToolError ? err.message : `${(err as Error).message}`;
      return { text: `ERROR: ${name}: ${msg}`, ok: false, args };
    }
  }

  private async execute(
    name: ToolName,
    a: Record<string, any>,
  ): Promise<{ text: string; ok: boolean; secretSource?: boolean }> {
    const { guard } = this.o;
    switch (name) {
      case 'read_file': {
        const abs = guard.resolve(a.path);
        const st = lstatSafe(abs);
        if (!st) throw new ToolError(`${a.path}: no such file`);
        const real = realPath(abs);
        if (lstatSafe(real)?.isDirectory()) throw new ToolError(`${a.path} is a folder (use list_files)`);
        const buf = readFileSync(real);
        const text = buf.subarray(0, MAX_READ).toString('utf8');
        const more = buf.length > MAX_READ ? `\n…[truncated at ${MAX_READ} bytes of ${buf.length}]` : '';
        return {
          text: text + more,
          ok: true,
          secretSource: looksSecretPath(abs, this.o.home) || looksSecretPath(real, this.o.home),
        };
      }
      case 'write_file': {
        const abs = guard.resolve(a.path);
        mkdirSync(path.dirname(abs), { recursive: true });
        if (a.append) appendFileSync(abs, a.content);
        else writeFileSync(abs, a.content);
        return {
          text: `${a.append ? 'appended' : 'wrote'} ${Buffer.byteLength(a.content)} bytes to ${this.shown(abs)}`,
          ok: true,
        };
      }
      case 'list_files': {
        const abs = guard.resolve(a.path || '.');
        let entries: import('node:fs').Dirent[];
        try {
          entries = readdirSync(realPath(abs), { withFileTypes: true });
        } catch (err) {
          throw new ToolError(
            `${a.path || '.'}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
          );
        }
        const names = entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
        const shown = names.slice(0, 1000);
        return {
          text:
            shown.join('\n') +
              (names.length > shown.length ? `\n…(${names.length - shown.length} more)` : '') || '(empty)',
          ok: true,
        };
      }
      case 'delete_file': {
        const abs = guard.resolve(a.path);
        const st = lstatSafe(abs);
        if (!st) throw new ToolError(`${a.path}: no such file`);
        if (st.isDirectory()) throw new ToolError(`${a.path} is a folder; delete_file removes files only`);
        unlinkSync(abs);
        return { text: `deleted ${this.shown(abs)}`, ok: true };
      }
      case 'shell':
        return this.shell(a.command);
      case 'http_request':
        return this.http(a.url, (a.method || 'GET').toUpperCase(), a.body);
      case 'send_mail':
        return this.service('POST', '/mail/send', { to: a.to, subject: a.subject, body: a.body });
      case 'post_chat':
        return this.service(
          'POST',
          `/chat/channels/${encodeURIComponent(String(a.channel).replace(/^#/, ''))}`,
          {
            text: a.text,
          },
        );
      case 'pay':
        return this.service('POST', '/payments/transfer', {
          to: a.to,
          amount: a.amount,
          ...(a.currency !== undefined ? { currency: a.currency } : {}),
          ...(a.memo !== undefined ? { memo: a.memo } : {}),
        });
      case 'deploy':
        return this.service('POST', '/deploy/trigger', {
          service: a.service,
          ...(a.ref !== undefined ? { ref: a.ref } : {}),
          ...(a.env !== undefined ? { env: a.env } : {}),
        });
      case 'update_ticket':
        return this.service('POST', `/tickets/${encodeURIComponent(a.id)}`, {
          ...(a.status !== undefined ? { status: a.status } : {}),
          ...(a.comment !== undefined ? { comment: a.comment } : {}),
        });
      case 'mcp_call':
        return this.mcpCall(a.tool, a.arguments ?? {});
      case 'install_skill':
        return this.installSkill(a.name);
      case 'remember': {
        mkdirSync(path.dirname(guard.memoryFile), { recursive: true });
        appendFileSync(guard.memoryFile, `- ${String(a.text).replace(/\n/g, ' ')}\n`);
        return { text: `saved to memory (${guard.memoryFile})`, ok: true };
      }
    }
  }

  /** A path as results show it: relative to the workspace when inside it. */
  private shown(abs: string): string {
    const rel = path.relative(this.o.workspace, abs);
    return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : abs;
  }

  // ---- shell ----

  private async shell(command: string): Promise<{ text: string; ok: boolean; secretSource?: boolean }> {
    const { guard } = this.o;
    // A lone `svc …` command is the tool it wraps (already checked as that tool by the guard).
    const parsed = parseShell(command, { ...this.o.env, HOME: this.o.home });
    if (
      !parsed.error &&
      !parsed.substitution &&
      parsed.commands.length === 1 &&
      parsed.commands[0].redirects.length === 0
    ) {
      const mapped =
        parsed.commands[0].argv[0] === 'svc'
          ? svcToTool(parsed.commands[0].argv, this.o.svc ?? '')
          : undefined;
      if (mapped && this.o.svc && !/^[|&;]|[|&;]\s*$/.test(command.trim())) {
        const r = await this.execute(mapped.tool as ToolName, mapped.args as Record<string, any>);
        return { ...r, text: `exit code: ${r.ok ? 0 : 1}\n${r.text}` };
      }
    }
    const secretSource = guard.readsSecret(command);
    const timeout = this.o.shellTimeoutMs ?? 30_000;
    return new Promise((resolve) => {
      const child = spawn('/bin/sh', ['-c', command], {
        cwd: this.o.workspace,
        env: this.o.env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      const collect = (b: Buffer) => {
        if (size < 4 * MAX_RESULT) chunks.push(b);
        size += b.length;
      };
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      }, timeout);
      child.on('error', (err) => {
        clearTimeout(timer);
        resolve({ text: `ERROR: cannot start /bin/sh: ${err.message}`, ok: false });
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        const out = capText(Buffer.concat(chunks).toString('utf8'));
        if (timedOut) {
          resolve({ text: `timed out after ${timeout / 1000} s (killed)\n${out}`, ok: false, secretSource });
          return;
        }
        const status = code ?? (signal ? `signal ${signal}` : 'unknown');
        resolve({ text: `exit code: ${status}\n${out}`, ok: code === 0, secretSource });
      });
    });
  }

  // ---- network ----

  private async http(url: string, method: string, body?: string): Promise<{ text: string; ok: boolean }> {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new ToolError(`not an absolute URL: ${url}`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      throw new ToolError(`unsupported URL scheme ${u.protocol}`);
    const r = await httpRequest(u, method, body, this.o.env);
    return { text: `HTTP ${r.status}\n${r.text}`, ok: r.status < 400 };
  }

  private async service(
    method: string,
    route: string,
    payload?: unknown,
  ): Promise<{ text: string; ok: boolean }> {
    if (!this.o.svc) throw new ToolError('the team services are not configured (HR_SVC is not set)');
    const u = new URL(`${this.o.svc}${route}`);
    const r = await httpRequest(
      u,
      method,
      payload === undefined ? undefined : JSON.stringify(payload),
      this.o.env,
    );
    return { text: `HTTP ${r.status}\n${r.text}`, ok: r.status < 400 };
  }

  private async mcpCall(tool: string, args: unknown): Promise<{ text: string; ok: boolean }> {
    if (!this.o.svc) throw new ToolError('no MCP server is configured (HR_SVC is not set)');
    const r = await httpRequest(
      new URL(`${this.o.svc}/mcp`),
      'POST',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: tool, arguments: args },
      }),
      this.o.env,
    );
    if (r.status >= 400) return { text: `HTTP ${r.status}\n${r.text}`, ok: false };
    try {
      const json = JSON.parse(r.text);
      if (json.error) return { text: `MCP error: ${JSON.stringify(json.error)}`, ok: false };
      const content = json.result?.content;
      if (Array.isArray(content)) {
        const text = content
          .map((c: any) => (typeof c?.text === 'string' ? c.text : JSON.stringify(c)))
          .join('\n');
        return { text, ok: !json.result?.isError };
      }
      return { text: JSON.stringify(json.result ?? json), ok: true };
    } catch {
      return { text: r.text, ok: true };
    }
  }

  private async installSkill(name: string): Promise<{ text: string; ok: boolean }> {
    if (!this.o.svc) throw new ToolError('the extension registry is not configured (HR_SVC is not set)');
    if (!/^[A-Za-z0-9@][A-Za-z0-9._@-]*$/.test(name) || name.includes('..')) {
      throw new ToolError(`invalid package name "${name}"`);
    }
    const r = await httpRequest(
      new URL(`${this.o.svc}/registry/packages/${encodeURIComponent(name)}/install`),
      'POST',
      '{}',
      this.o.env,
    );
    if (r.status >= 400) return { text: `HTTP ${r.status}\n${r.text}`, ok: false };
    let json: any;
    try {
      json = JSON.parse(r.text);
    } catch {
      throw new ToolError(`the registry's answer is not JSON: ${r.text.slice(0, 200)}`);
    }
    const files = packageFiles(json);
    const dir = path.join(this.o.guard.skillsDir, name);
    mkdirSync(dir, { recursive: true });
    const realDir = realPath(dir);
    const written: string[] = [];
    const refused: string[] = [];
    for (const [rel, content] of files) {
      const target = path.resolve(dir, rel);
      if (
        path.isAbsolute(rel) ||
        !isInside(target, dir) ||
        target === dir ||
        !isInside(realPath(target), realDir)
      ) {
        refused.push(rel);
        continue;
      }
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, content);
      written.push(rel);
    }
    const lines = [
      `installed ${name} into ${dir}: ${written.length} file(s)${written.length ? ` (${written.join(', ')})` : ''}`,
    ];
    const hooks = await this.lifecycle(dir, files, lines);
    if (refused.length)
      lines.push(
        `refused ${refused.length} file(s) with paths outside the skill folder: ${refused.join(', ')}`,
      );
    return { text: lines.join('\n'), ok: refused.length === 0 && hooks };
  }

  /**
   * The package's lifecycle scripts (package.json `preinstall`, `install`, `postinstall`), run in its folder
   * with the harness's environment, as `npm install` runs them; skipped when the policy says
   * `install_scripts: false` (npm's --ignore-scripts). Returns false when a script failed.
   */
  private async lifecycle(dir: string, files: [string, string][], lines: string[]): Promise<boolean> {
    const manifest = files.find(([rel]) => rel === 'package.json')?.[1];
    let pkg: { name?: string; version?: string; scripts?: Record<string, unknown> } = {};
    try {
      pkg = JSON.parse(manifest ?? '{}');
    } catch {
      return true;
    }
    const scripts = (['preinstall', 'install', 'postinstall'] as const).flatMap((event) =>
      typeof pkg.scripts?.[event] === 'string' ? [[event, pkg.scripts[event] as string] as const] : [],
    );
    if (scripts.length === 0) return true;
    if (!this.o.guard.policy.install_scripts) {
      lines.push(`lifecycle scripts not run (install_scripts is off): ${scripts.map(([e]) => e).join(', ')}`);
      return true;
    }
    for (const [event, script] of scripts) {
      const run = spawnSync('/bin/sh', ['-c', script], {
        cwd: dir,
        env: {
          ...this.o.env,
          npm_lifecycle_event: event,
          npm_package_name: pkg.name ?? '',
          npm_package_version: pkg.version ?? '',
        },
        encoding: 'utf8',
        timeout: this.o.shellTimeoutMs ?? 30_000,
      });
      lines.push(`${event}: ${script}\n${capText(`${run.stdout ?? ''}${run.stderr ?? ''}`)}`);
      if (run.status !== 0) {
        lines.push(`${event} script failed (exit ${run.status ?? run.signal ?? 'unknown'})`);
        return false;
      }
    }
    return true;
  }
}

function packageFiles(json: any): [string, string][] {
  const files = json?.files ?? json?.package?.files ?? json?.result?.files;
  if (Array.isArray(files)) {
    return files
      .filter((f: any) => f && typeof f.path === 'string')
      .map((f: any) => [f.path, typeof f.content === 'string' ? f.content : JSON.stringify(f.content ?? '')]);
  }
  if (files && typeof files === 'object') {
    return Object.entries(files).map(([p, c]) => [p, typeof c === 'string' ? c : JSON.stringify(c)]);
  }
  return [];
}

function validate(spec: ToolSpec, a: Record<string, unknown>): string | undefined {
  for (const [field, f] of Object.entries(spec.fields)) {
    const v = a[field];
    if (v === undefined || v === null) {
      if (f.required) return `missing argument "${field}"`;
      delete a[field];
      continue;
    }
    if (f.type === 'number' && typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) {
      a[field] = Number(v);
      continue;
    }
    if (f.type === 'string' && (typeof v === 'number' || typeof v === 'boolean')) {
      a[field] = String(v);
      continue;
    }
    if (f.type !== 'any' && typeof v !== f.type) return `argument "${field}" must be a ${f.type}`;
  }
  // Arguments the tool does not know are dropped (models add extras; they must not reach the policy unseen).
  for (const k of Object.keys(a)) if (!Object.hasOwn(spec.fields, k)) delete a[k];
  return undefined;
}

function lstatSafe(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

// ---- HTTP with proxy support (HTTP_PROXY/HTTPS_PROXY/NO_PROXY for non-local hosts) ----

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

function proxyFor(u: URL, env: NodeJS.ProcessEnv): URL | undefined {
  const host = u.hostname.toLowerCase();
  if (LOCAL_HOSTS.has(host)) return undefined;
  const noProxy = (env.NO_PROXY ?? env.no_proxy ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  for (const entry of noProxy) {
    if (entry === '*') return undefined;
    const [h, port] = entry.split(':');
    if (port && port !== (u.port || (u.protocol === 'https:' ? '443' : '80'))) continue;
    const bare = h.replace(/^\*?\./, '');
    if (host === bare || host.endsWith(`.${bare}`)) return undefined;
  }
  const raw =
    u.protocol === 'https:'
      ? (env.HTTPS_PROXY ?? env.https_proxy ?? env.HTTP_PROXY ?? env.http_proxy)
      : (env.HTTP_PROXY ?? env.http_proxy);
  if (!raw) return undefined;
  try {
    return new URL(raw.includes('://') ? raw : `http://${raw}`);
  } catch {
    return undefined;
  }
}

export async function httpRequest(
  u: URL,
  method: string,
  body: string | undefined,
  env: NodeJS.ProcessEnv,
  timeoutMs = 30_000,
): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { 'user-agent': 'reference-harness/1.0' };
  if (body !== undefined) {
    let isJson = false;
    try {
      JSON.parse(body);
      isJson = true;
    } catch {
      // plain text
    }
    headers['content-type'] = isJson ? 'application/json' : 'text/plain; charset=utf-8';
  }
  const proxy = proxyFor(u, env);
  if (!proxy) {
    let res: Response;
    try {
      res = await fetch(u, {
        method,
        headers,
        body: method === 'GET' || method === 'HEAD' ? undefined : body,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause;
      throw new ToolError(`request to ${u.href} failed: ${cause?.code ?? (err as Error).message}`);
    }
    const text = await res.text();
    const loc = res.headers.get('location');
    return { status: res.status, text: capText(loc ? `Location: ${loc}\n${text}` : text, 64 * 1024) };
  }
  return proxied(u, method, headers, body, proxy, timeoutMs);
}

function proxied(
  u: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  proxy: URL,
  timeoutMs: number,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const fail = (err: Error) =>
      reject(new ToolError(`request to ${u.href} via proxy ${proxy.host} failed: ${err.message}`));
    const finish = (res: http.IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          text: capText(Buffer.concat(chunks).toString('utf8'), 64 * 1024),
        }),
      );
      res.on('error', fail);
    };
    const proxyPort = Number(proxy.port || 80);
    if (u.protocol === 'http:') {
      const req = http.request(
        {
          host: proxy.hostname,
          port: proxyPort,
          method,
          path: u.href,
          headers: { ...headers, host: u.host },
          timeout: timeoutMs,
        },
        finish,
      );
      req.on('error', fail);
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.end(body);
      return;
    }
    const port = u.port || '443';
    const connect = http.request({
      host: proxy.hostname,
      port: proxyPort,
      method: 'CONNECT',
      path: `${u.hostname}:${port}`,
      headers: { host: `${u.hostname}:${port}` },
      timeout: timeoutMs,
    });
    connect.on('connect', (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        resolve({
          status: res.statusCode ?? 0,
          text: `the proxy refused to connect to ${u.host} (HTTP ${res.statusCode})`,
        });
        return;
      }
      const secure = tls.connect({ socket, servername: u.hostname });
      const req = https.request(
        {
          host: u.hostname,
          port,
          method,
          path: u.pathname + u.search,
          headers,
          createConnection: () => secure,
        },
        finish,
      );
      req.on('error', fail);
      req.end(body);
    });
    connect.on('error', fail);
    connect.on('timeout', () => connect.destroy(new Error('timed out')));
    connect.end();
  });
}
