// The policy engine: one function decides every tool call. Shell commands are read with shell.ts and each
// part is checked with the same rules as the equivalent tool (a `svc` command is the tool it wraps, a
// redirection is a file write, `curl URL` is an http_request), so there is one mechanism, not two.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { addedCommands, ownerCommands, untrustedTarget } from './autorun.js';
import {
  absolutePath,
  isInside,
  looksSecretPath,
  type ProtectedMatcher,
  protectedMatcher,
  realPath,
} from './paths.js';
import type { ApprovalOp, Policy } from './policy.js';
import { httpRequestOf, parseShell, type SimpleCommand, serviceRouteToTool, svcToTool } from './shell.js';
import { namesMemory, ownerSubstance } from './substance.js';
import { Provenance } from './taint.js';

export type Verdict = { ok: true } | { ok: false; rule: string; reason: string };
const ALLOW: Verdict = { ok: true };
const deny = (rule: string, reason: string): Verdict => ({ ok: false, rule, reason });

export interface GuardContext {
  policy: Policy;
  /** Real path of the workspace (the harness's cwd). */
  workspace: string;
  home: string;
  /** Owner prompts of the session so far. */
  prompts: string[];
  /** Base URL of the mock services (HR_SVC), no trailing slash. */
  svc?: string;
  env: Record<string, string | undefined>;
}

/** Commands that reach the network. */
const NETWORK_COMMANDS = new Set([
  'curl',
  'wget',
  'nc',
  'ncat',
  'netcat',
  'telnet',
  'ssh',
  'scp',
  'sftp',
  'rsync',
  'ftp',
  'socat',
]);
const DESTRUCTIVE_COMMANDS = new Set([
  'rm',
  'rmdir',
  'unlink',
  'shred',
  'truncate',
  'dd',
  'wipefs',
  'mkfs',
  'kill',
  'pkill',
  'killall',
  'shutdown',
  'reboot',
  'halt',
  'poweroff',
  'crontab',
]);
/** Commands whose arguments are never paths (so path scope ignores them). */
const NON_PATH_ARGS = new Set([
  'echo',
  'printf',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'sed',
  'awk',
  'git',
  'npm',
  'node',
]);

export class Guard {
  readonly provenance = new Provenance();
  private readonly protectedPaths: ProtectedMatcher;
  private readonly autorunPaths: ProtectedMatcher;
  readonly memoryFile: string;
  readonly skillsDir: string;
  private readonly realWorkspace: string;

  constructor(readonly ctx: GuardContext) {
    this.realWorkspace = realPath(ctx.workspace);
    this.protectedPaths = protectedMatcher(ctx.policy.protected_paths, ctx.workspace, ctx.home);
    this.autorunPaths = protectedMatcher(ctx.policy.autorun_paths ?? [], ctx.workspace, ctx.home);
    this.memoryFile = absolutePath(ctx.policy.memory_file, ctx.workspace, ctx.home);
    this.skillsDir = absolutePath(ctx.policy.skills_dir, ctx.workspace, ctx.home);
  }

  get policy(): Policy {
    return this.ctx.policy;
  }

  /** Resolves a tool's path argument against the workspace (`~` = HOME). */
  resolve(p: string, cwd = this.ctx.workspace): string {
    return absolutePath(p, cwd, this.ctx.home);
  }

  /** Decides one tool call. Arguments are assumed validated (strings where strings are expected). */
  check(tool: string, args: Record<string, unknown>): Verdict {
    if (!this.policy.tools.includes(tool as never)) {
      return deny('tools', `the tool "${tool}" is not enabled in this harness's policy`);
    }
    const worded = this.policy.deny_patterns.find((p) => new RegExp(p, 'i').test(JSON.stringify(args)));
    if (worded !== undefined) return deny('deny_patterns', `the call matches the deny pattern /${worded}/`);
    const s = (k: string): string =>
      typeof args[k] === 'string' ? (args[k] as string) : String(args[k] ?? '');
    switch (tool) {
      case 'read_file':
      case 'list_files':
        return this.checkScope(s('path') || '.', 'read');
      case 'write_file':
        return this.checkWrite(s('path'), s('content'));
      case 'delete_file':
        return this.first(
          () => this.checkWrite(s('path'), ''),
          () => this.approve('delete_file', [this.pathTargets(s('path'))], `delete ${s('path')}`),
        );
      case 'shell':
        return this.checkShell(s('command'));
      case 'http_request':
        return this.checkHttp(
          s('url'),
          s('method') || 'GET',
          typeof args.body === 'string' ? args.body : undefined,
        );
      case 'send_mail':
        return this.first(
          () =>
            this.approve(
              'send_mail',
              splitList(s('to')).map((t) => [t]),
              `send mail to ${s('to')}`,
            ),
          () => this.checkOutbound(args),
        );
      case 'post_chat':
        return this.first(
          () =>
            this.approve(
              'post_chat',
              [[s('channel').replace(/^#/, '')]],
              `post to #${s('channel').replace(/^#/, '')}`,
            ),
          () => this.checkOutbound(args),
        );
      case 'pay':
        return this.first(
          () => this.approvePayment(s('to'), args.amount),
          () => this.checkOutbound(args),
        );
      case 'deploy':
        return this.first(
          () => this.approve('deploy', [[s('service')]], `deploy ${s('service')}`),
          () => this.checkOutbound(args),
        );
      case 'update_ticket':
        return this.first(
          () => this.approve('update_ticket', [[s('id')]], `update ticket ${s('id')}`),
          () => this.checkOutbound(args),
        );
      case 'install_skill':
        return this.approve('install_skill', [[s('name')]], `install the skill ${s('name')}`);
      case 'mcp_call':
        return this.checkOutbound(args);
      case 'remember':
        return this.checkMemoryText(s('text'), 'remember');
      default:
        return ALLOW;
    }
  }

  private first(...checks: (() => Verdict)[]): Verdict {
    for (const c of checks) {
      const v = c();
      if (!v.ok) return v;
    }
    return ALLOW;
  }

  // ---- files ----

  /** Path scope: with `workspace`, the real path must be inside the workspace. */
  checkScope(p: string, verb: 'read' | 'write', cwd?: string): Verdict {
    if (this.policy.path_scope !== 'workspace') return ALLOW;
    const abs = this.resolve(p, cwd);
    const real = realPath(abs);
    if (isInside(real, this.realWorkspace)) return ALLOW;
    if (isInside(abs, this.ctx.workspace) || isInside(abs, this.realWorkspace)) {
      return deny('path_scope', `${p} resolves through a symlink to ${real}, outside the workspace`);
    }
    return deny('path_scope', `${verb} of ${p} is outside the workspace ${this.ctx.workspace}`);
  }

  /** A write (or delete) of `p`: scope, protected paths, memory guard. */
  checkWrite(p: string, content: string, cwd?: string): Verdict {
    if (!p) return ALLOW;
    const scope = this.checkScope(p, 'write', cwd);
    if (!scope.ok) return scope;
    const abs = this.resolve(p, cwd);
    const glob = this.protectedPaths.match(abs);
    if (glob !== undefined) return deny('protected_paths', `${p} is protected (matches "${glob}")`);
    if (this.isMemoryPath(abs)) return this.checkMemoryText(content, `write to ${p}`);
    const runs = this.autorunPaths.match(abs);
    if (runs !== undefined) {
      const v = ownerCommands(addedCommands(abs, currentText(abs), content), this.ctx.prompts, (e) =>
        this.provenance.seen(e),
      );
      if (!v.ok) return deny('autorun_paths', `write to ${p} (runs as commands, "${runs}"): ${v.reason}`);
    }
    this.noteDerived(p, abs, content);
    return ALLOW;
  }

  /**
   * A file written with a target from untrusted content is itself untrusted from now on: a package script
   * or Makefile entry that runs it runs what the untrusted content asked for, whatever the file is called.
   */
  private noteDerived(p: string, abs: string, content: string): void {
    if (!content) return;
    if (untrustedTarget(content, this.ctx.prompts, (t) => this.provenance.seen(t)) === undefined) return;
    const rel = path.relative(this.ctx.workspace, abs);
    this.provenance.derive([p, abs, ...(rel && !rel.startsWith('..') ? [rel] : [])]);
  }

  isMemoryPath(abs: string): boolean {
    const real = realPath(abs);
    return [abs, real].some(
      (x) =>
        x === this.memoryFile ||
        x === realPath(this.memoryFile) ||
        isInside(x, this.skillsDir) ||
        isInside(x, realPath(this.skillsDir)),
    );
  }

  /**
   * Memory guard, by provenance: the owner must have asked for something to be kept (a turn names the
   * memory, the verb remember, or the memory file), and what is kept must be the owner's in substance:
   * not a target seen only in untrusted content, not mostly words the owner did not say (substance.ts).
   */
  checkMemoryText(text: string, what: string): Verdict {
    if (!this.policy.memory_guard) return ALLOW;
    if (!this.ctx.prompts.some((p) => namesMemory(p, this.memoryFile))) {
      return deny('memory_guard', `${what}: the owner did not ask for anything to be kept in memory`);
    }
    const v = ownerSubstance(text, this.ctx.prompts, (e) => this.provenance.seen(e));
    if (!v.ok) return deny('memory_guard', `${what}: ${v.reason}`);
    return ALLOW;
  }

  private pathTargets(p: string): string[] {
    const abs = this.resolve(p);
    const rel = path.relative(this.ctx.workspace, abs);
    const out = [p.replace(/^\.\//, '')];
    if (rel && !rel.startsWith('..')) out.push(rel);
    return out;
  }

  // ---- approval ----

  /**
   * Approval of an irreversible operation. `targets` is a list of required targets, each given as
   * alternatives; with `owner_intent` every required target must appear literally in an owner prompt.
   */
  approve(op: ApprovalOp, targets: string[][], what: string): Verdict {
    if (!this.policy.approval.includes(op)) return ALLOW;
    if (this.policy.approval_mode === 'deny')
      return deny('approval', `${what} requires approval, and approval is off`);
    for (const alternatives of targets) {
      const ok = alternatives.some((t) => t.trim() !== '' && this.ctx.prompts.some((p) => namesTarget(p, t)));
      if (!ok) {
        return deny(
          'approval',
          `${what} requires approval: "${alternatives[0] ?? ''}" is not named in the owner's request`,
        );
      }
    }
    if (targets.length === 0) return deny('approval', `${what} requires approval`);
    return ALLOW;
  }

  private approvePayment(to: string, amount: unknown): Verdict {
    const what = `pay ${String(amount)} to ${to}`;
    const v = this.approve('pay', [[to]], what);
    if (!v.ok || !this.policy.approval.includes('pay') || this.policy.approval_mode !== 'owner_intent')
      return v;
    const wanted = Number(amount);
    const named = this.ctx.prompts.flatMap(amountsNamed);
    if (!Number.isFinite(wanted) || !named.includes(wanted)) {
      return deny(
        'approval',
        `${what} requires approval: the amount ${String(amount)} is not named in the owner's request`,
      );
    }
    return ALLOW;
  }

  // ---- network ----

  egressAllowed(url: string): boolean {
    if (this.policy.egress.includes('*')) return true;
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return false;
    }
    return this.policy.egress.some((prefix) => {
      let p: URL;
      try {
        p = new URL(prefix);
      } catch {
        return false;
      }
      if (p.origin !== u.origin) return false;
      if (u.pathname.startsWith(p.pathname)) return true;
      // `…/tickets/` also allows `…/tickets` itself.
      return p.pathname.endsWith('/') && u.pathname === p.pathname.slice(0, -1);
    });
  }

  checkHttp(url: string, method: string, body: string | undefined): Verdict {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return ALLOW; // the tool reports the bad URL itself
    }
    if (!this.egressAllowed(u.href)) {
      return deny('egress', `${u.href} is not in the egress allowlist`);
    }
    if (this.ctx.svc && u.href.startsWith(`${this.ctx.svc}/`)) {
      const mapped = serviceRouteToTool(method, u, body);
      if (mapped) {
        const v = this.check(mapped.tool, mapped.args);
        if (!v.ok)
          return { ...v, reason: `${method.toUpperCase()} ${u.pathname} is ${mapped.tool}: ${v.reason}` };
      } else if (!/^(GET|HEAD)$/i.test(method)) {
        const rel = u.pathname.slice(new URL(this.ctx.svc).pathname.replace(/\/+$/, '').length);
        const v = this.approve('service_write', serviceTargets(rel), `${method.toUpperCase()} ${rel}`);
        if (!v.ok) return v;
      }
      const inventory = credentialInventory(u.pathname);
      if (inventory) {
        const v = this.approve('service_secrets', [inventory], `${method.toUpperCase()} ${u.pathname}`);
        if (!v.ok) return v;
      }
    }
    return this.checkOutbound({ url, body });
  }

  /** Secrets: an outbound call may not carry a tainted value. */
  checkOutbound(args: unknown): Verdict {
    if (!this.policy.secrets) return ALLOW;
    const text = typeof args === 'string' ? args : JSON.stringify(args);
    const unescaped = typeof args === 'string' ? args : flattenStrings(args).join('\n');
    const hit = this.provenance.secretIn(unescaped) ?? this.provenance.secretIn(text);
    if (hit && !this.ctx.prompts.some((p) => p.includes(hit))) {
      return deny(
        'secrets',
        `the call carries a secret value (${mask(hit)}) that was read from a secret source`,
      );
    }
    return ALLOW;
  }

  // ---- shell ----

  checkShell(command: string): Verdict {
    const policy = this.policy;
    if (policy.shell === 'deny') return deny('shell', 'shell commands are disabled');
    const parsed = parseShell(command, { ...this.ctx.env, HOME: this.ctx.home, PWD: this.ctx.workspace });
    const guarded = typeof policy.shell === 'object';
    if (guarded && parsed.error) return deny('shell', `cannot verify the command: ${parsed.error}`);
    if (guarded && parsed.substitution) {
      return deny(
        'shell',
        'command substitution ($(…), backticks, <(…)) is not allowed by the shell allowlist',
      );
    }
    let network = false;
    let readsSecret = false;
    // Relative paths follow `cd` along the line (sequentially: conservative for subshells and pipes).
    let cwd = this.ctx.workspace;
    for (const part of parsed.commands) {
      const argv = part.argv;
      const name = argv[0] ? path.basename(argv[0]) : '';
      // svc: the same policy as the tool it wraps.
      if (name === 'svc') {
        const mapped = svcToTool(['svc', ...argv.slice(1)], this.ctx.svc ?? '');
        if (mapped) {
          const v = this.check(mapped.tool, mapped.args);
          if (!v.ok) return { ...v, reason: `\`${part.text}\` is ${mapped.tool}: ${v.reason}` };
          if (
            ['http_request', 'send_mail', 'post_chat', 'pay', 'mcp_call', 'deploy', 'update_ticket'].includes(
              mapped.tool,
            )
          ) {
            network = true;
          }
        }
        const w = this.checkRedirects(part, cwd);
        if (!w.ok) return w;
        continue;
      }
      const destructive = this.destructiveTargets(part);
      if (destructive) {
        const v = this.approve(
          'shell:destructive',
          destructive.map((t) => [t]),
          `\`${part.text}\``,
        );
        if (!v.ok) return v;
      }
      // Egress: every URL in the command, and network commands without one.
      const urls = argv.flatMap((a) => a.match(/\bhttps?:\/\/[^\s'"`<>|;&)]+/g) ?? []);
      for (const url of urls) {
        if (!this.egressAllowed(url))
          return deny('egress', `\`${part.text}\` reaches ${url}, not in the egress allowlist`);
      }
      // curl/wget to the mock services: the same policy as the tool the route is (send_mail, pay, …).
      const http = this.ctx.svc ? httpRequestOf(argv) : undefined;
      if (http) {
        for (const url of urls.filter((x) => x.startsWith(`${this.ctx.svc}/`))) {
          const v = this.checkHttp(url, http.method, http.body);
          if (!v.ok) return { ...v, reason: `\`${part.text}\` sends ${v.reason}` };
        }
      }
      if (NETWORK_COMMANDS.has(name)) {
        network = true;
        if (urls.length === 0 && !policy.egress.includes('*')) {
          return deny(
            'egress',
            `\`${name}\` without an allowed URL is not permitted by the egress allowlist`,
          );
        }
      }
      if (guarded) {
        const allowed = (policy.shell as { allow_commands: string[] }).allow_commands.some((entry) => {
          const words = entry.trim().split(/\s+/);
          return words.every((w, k) => (k === 0 ? name === w : argv[k] === w));
        });
        if (!allowed) return deny('shell', `\`${name}\` is not in the shell allowlist`);
        if (
          name === 'find' &&
          argv.some((a) => /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/.test(a))
        ) {
          return deny('shell', 'find with -exec/-delete/-fprint is not allowed by the shell allowlist');
        }
      }
      // Writes: redirections, tee, cp/mv destinations, touch/mkdir, sed -i, sort -o, --output=.
      const w = this.checkRedirects(part, cwd);
      if (!w.ok) return w;
      for (const target of writeTargets(part)) {
        const v = this.checkWrite(target, writtenContent(part), cwd);
        if (!v.ok) return v;
      }
      // Reads: path-like arguments stay inside the workspace.
      for (const arg of pathArgs(part)) {
        if (policy.path_scope === 'workspace' && (isPathLike(arg) || name === 'cd' || name === 'pushd')) {
          const v = this.checkScope(arg, 'read', cwd);
          if (!v.ok) return v;
        }
      }
      if (this.partReadsSecret(part, cwd)) readsSecret = true;
      if (name === 'cd' || name === 'pushd') {
        const dir = argv.slice(1).find((a) => !a.startsWith('-'));
        cwd = dir === undefined ? this.ctx.home : this.resolve(dir, cwd);
      }
    }
    if (policy.secrets && readsSecret && network) {
      return deny('secrets', 'the command reads a secret file and sends data over the network');
    }
    return this.checkOutbound(command);
  }

  /** True when a command line reads a file that looks secret (its output then counts as secret). */
  readsSecret(command: string): boolean {
    const parsed = parseShell(command, { ...this.ctx.env, HOME: this.ctx.home, PWD: this.ctx.workspace });
    let cwd = this.ctx.workspace;
    return parsed.commands.some((part) => {
      const hit = this.partReadsSecret(part, cwd);
      const name = part.argv[0] ? path.basename(part.argv[0]) : '';
      if (name === 'cd' || name === 'pushd') {
        const dir = part.argv.slice(1).find((a) => !a.startsWith('-'));
        cwd = dir === undefined ? this.ctx.home : this.resolve(dir, cwd);
      }
      return hit;
    });
  }

  private partReadsSecret(part: SimpleCommand, cwd: string): boolean {
    const inputs = [
      ...pathArgs(part).map((a) => a.replace(/^@/, '')),
      ...part.redirects.filter((r) => r.op === '<').map((r) => r.target),
    ];
    return inputs.some((arg) => looksSecretPath(this.resolve(arg, cwd), this.ctx.home));
  }

  private checkRedirects(part: SimpleCommand, cwd: string): Verdict {
    for (const r of part.redirects) {
      if (!['>', '>>', '>|', '&>', '&>>'].includes(r.op)) {
        if (r.op === '<' && this.policy.path_scope === 'workspace') {
          const v = this.checkScope(r.target, 'read', cwd);
          if (!v.ok) return v;
        }
        continue;
      }
      if (/^\/dev\/(null|stdout|stderr|tty)$/.test(r.target)) continue;
      const v = this.checkWrite(r.target, writtenContent(part), cwd);
      if (!v.ok) return v;
    }
    return ALLOW;
  }

  /** The targets a destructive command acts on, or undefined when the command is not destructive. */
  private destructiveTargets(part: SimpleCommand): string[] | undefined {
    const argv = part.argv;
    const name = argv[0] ? path.basename(argv[0]) : '';
    const operands = argv.slice(1).filter((a) => !a.startsWith('-'));
    if (DESTRUCTIVE_COMMANDS.has(name) || name.startsWith('mkfs.')) {
      if (name === 'crontab' && !argv.includes('-r')) return undefined;
      return operands.length ? operands : [part.text];
    }
    if (name === 'mv') return operands;
    if (name === 'git') {
      const sub = argv[1];
      if (sub === 'push' && argv.some((a) => a === '--force' || a === '-f' || a.startsWith('--force')))
        return [part.text];
      if (sub === 'reset' && argv.includes('--hard')) return [part.text];
      if (sub === 'clean' || (sub === 'branch' && argv.includes('-D'))) return [part.text];
      return undefined;
    }
    if (name === 'find' && argv.some((a) => a === '-delete' || a === '-exec' || a === '-execdir'))
      return [part.text];
    return undefined;
  }
}

/** A file's text before a write, or undefined when there is none (or it cannot be read). */
function currentText(abs: string): string | undefined {
  try {
    return readFileSync(abs, 'utf8');
  } catch {
    return undefined;
  }
}

/** What a command writes through its output redirection, as far as the line shows it. */
function writtenContent(part: SimpleCommand): string {
  const name = part.argv[0] ? path.basename(part.argv[0]) : '';
  const stdin = part.redirects
    .filter((r) => r.op === '<<' || r.op === '<<-' || r.op === '<<<')
    .map((r) => r.body ?? r.target)
    .join('\n');
  if (name === 'echo' || name === 'printf')
    return [part.argv.slice(1).join(' '), stdin].filter(Boolean).join('\n');
  return stdin;
}

function writeTargets(part: SimpleCommand): string[] {
  const argv = part.argv;
  const name = argv[0] ? path.basename(argv[0]) : '';
  const operands = argv.slice(1).filter((a) => !a.startsWith('-'));
  const out: string[] = [];
  if (
    name === 'tee' ||
    name === 'touch' ||
    name === 'mkdir' ||
    name === 'rm' ||
    name === 'rmdir' ||
    name === 'unlink' ||
    name === 'shred' ||
    name === 'truncate'
  ) {
    out.push(...operands.filter((a) => !/^\d+[KMG]?$/.test(a)));
  }
  if ((name === 'cp' || name === 'mv' || name === 'ln' || name === 'install') && operands.length >= 2) {
    out.push(operands[operands.length - 1]);
    if (name === 'mv') out.push(...operands.slice(0, -1));
  }
  if (name === 'sed' && argv.some((a) => a === '-i' || a.startsWith('-i') || a === '--in-place')) {
    out.push(...operands.slice(1));
  }
  if (name === 'dd') for (const a of argv) if (a.startsWith('of=')) out.push(a.slice(3));
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--output=')) out.push(a.slice('--output='.length));
    if (name === 'sort' && a === '-o' && argv[i + 1]) out.push(argv[i + 1]);
    else if (name === 'sort' && /^-o./.test(a)) out.push(a.slice(2));
  }
  return out;
}

function pathArgs(part: SimpleCommand): string[] {
  const argv = part.argv;
  const name = argv[0] ? path.basename(argv[0]) : '';
  if (NON_PATH_ARGS.has(name)) {
    // grep PATTERN FILES…: the files after the pattern are paths.
    if (['grep', 'egrep', 'fgrep', 'rg'].includes(name)) {
      const operands = argv.slice(1).filter((a) => !a.startsWith('-'));
      return operands.slice(1);
    }
    return [];
  }
  return argv.slice(1).filter((a) => !a.startsWith('-') && !/^[a-z][a-z0-9+.-]*:\/\//i.test(a));
}

function isPathLike(a: string): boolean {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(a)) return false;
  return a.startsWith('/') || a.startsWith('~') || a.startsWith('.') || a.includes('/');
}

function splitList(s: string): string[] {
  const parts = s
    .split(/[,;]/)
    .map((x) => x.trim())
    .filter(Boolean);
  return parts.length ? parts : [s];
}

function flattenStrings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (typeof v === 'number' || typeof v === 'boolean') return [String(v)];
  if (Array.isArray(v)) return v.flatMap(flattenStrings);
  if (v && typeof v === 'object') return Object.values(v).flatMap(flattenStrings);
  return [];
}

function mask(secret: string): string {
  return secret.length <= 8 ? '****' : `${secret.slice(0, 4)}…${secret.slice(-2)}`;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Whether the owner's prompt names `target` as a whole token: `web` is not named by "web-frontend",
 * `acme` not by "acme-hosting", `INC-20` not by "INC-201", `data` not by "database". A sentence's
 * full stop after the target still counts.
 */
export function namesTarget(prompt: string, target: string): boolean {
  const t = escapeRegExp(target.trim());
  return new RegExp(`(?<![\\w@./-])${t}(?![\\w@-]|[./:]\\w)`, 'i').test(prompt);
}

/**
 * Amounts the owner named: standalone numbers, not parts of URLs (ports), dates, versions, times or
 * identifiers such as INV-2041. "1,250.50" counts as 1250.5.
 */
export function amountsNamed(prompt: string): number[] {
  const text = prompt.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, ' ');
  const out: number[] = [];
  for (const m of text.matchAll(
    /(?<![\w.:/#-])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w:/-]|\.\d)|(?<![\w.:/#-])\d+(?:\.\d+)?(?![\w:/-]|\.\d)/g,
  )) {
    out.push(Number(m[0].replace(/,/g, '')));
  }
  return out;
}
/** A path's segments, percent-decoded. */
function segments(path: string): string[] {
  return path
    .split('/')
    .filter(Boolean)
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });
}

/**
 * What the owner must name for a state-changing service request (each group: one of its words).
 * `…/COLLECTION/ID` and short paths: the object (the last segment). `…/OBJECT/OPERATION` (invites/ID/accept,
 * tokens/NAME/rotate): the object. When the object is a bare number (an issue, a pull request, a run:
 * pulls/7/merge, pulls/7/reviews), also the operation: a number says which object, not what to do to it,
 * and an owner who names pull request 7 to read it has not asked to merge, approve or review it.
 */
export function serviceTargets(path: string): string[][] {
  const parts = segments(path);
  const last = parts.at(-1) ?? '';
  if (parts.length < 3 || /\d/.test(last)) return [[last]];
  const object = parts.at(-2)!;
  if (!/^\d+$/.test(object)) return [[object]];
  const operation = [last, last.replace(/s$/, ''), last.replace(/_/g, ' ')];
  return [[object], operation.filter((w, i) => w && operation.indexOf(w) === i)];
}

/**
 * The words that name a listing of a service's credentials (GitHub's repository, organisation and
 * environment `…/secrets` and `…/variables`, and the like elsewhere): the names of every secret a job
 * holds are a map for an attacker, so the owner must ask for them.
 */
export function credentialInventory(path: string): string[] | undefined {
  const parts = segments(path).map((p) => p.toLowerCase());
  // A file's path in a repository is not a listing (contents/docs/secrets/README.md).
  if (parts.includes('contents')) return undefined;
  for (const word of ['secrets', 'variables'])
    if (parts.includes(word)) return [word, word.replace(/s$/, '')];
  return undefined;
}
