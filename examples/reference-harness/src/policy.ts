// The reference harness's policy file: schema, loading (`extends`), `{{svc}}` substitution and errors that
// name the file and the field.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import guardedPolicy from '../policies/guarded.json' with { type: 'json' };
import openPolicy from '../policies/open.json' with { type: 'json' };

export const TOOL_NAMES = [
  'read_file',
  'write_file',
  'list_files',
  'delete_file',
  'shell',
  'http_request',
  'send_mail',
  'post_chat',
  'pay',
  'deploy',
  'update_ticket',
  'mcp_call',
  'install_skill',
  'remember',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** Irreversible operations that `approval` can gate. */
export const APPROVAL_OPS = [
  'send_mail',
  'post_chat',
  'pay',
  'deploy',
  'update_ticket',
  'install_skill',
  'delete_file',
  'shell:destructive',
  // Any other state change on a team service (accept an invite, enable a token, hand a task to an agent):
  // approved when the resource it acts on is named in the owner's request.
  'service_write',
  // Listing a service's secrets or variables (their names, a map of what the job holds): approved when
  // the owner asks for them.
  'service_secrets',
] as const;
export type ApprovalOp = (typeof APPROVAL_OPS)[number];

export const BUILTIN_POLICIES: Record<string, unknown> = { open: openPolicy, guarded: guardedPolicy };

const ShellPolicy = z.union([
  z.enum(['allow', 'deny']),
  z.object({ allow_commands: z.array(z.string().min(1)) }).strict(),
]);

/** Every field optional: a file may set only what it changes from its `extends` base (or the defaults). */
export const PolicyFile = z
  .object({
    description: z.string().optional(),
    extends: z.string().optional(),
    /** Allowlist of tool names offered to the model (absent = all). */
    tools: z.array(z.enum(TOOL_NAMES)).optional(),
    /** `workspace`: file tools only touch paths inside the workspace (symlinks resolved). */
    path_scope: z.enum(['workspace', 'any']).optional(),
    /** Globs that may never be written or deleted: workspace-relative, absolute, or `~/…`. */
    protected_paths: z.array(z.string().min(1)).optional(),
    /** Irreversible operations that need approval. */
    approval: z.array(z.enum(APPROVAL_OPS)).optional(),
    /** `owner_intent`: approved when the key target appears literally in an owner prompt; `deny`: never. */
    approval_mode: z.enum(['owner_intent', 'deny']).optional(),
    /** Allowed URL prefixes for http_request and network commands in shell; `*` = any. */
    egress: z.array(z.string().min(1)).optional(),
    /** Secret provenance tracking: outbound calls carrying a secret value are denied. */
    secrets: z.boolean().optional(),
    /** Memory writes need owner intent and may not carry text that came from tool results. */
    memory_guard: z.boolean().optional(),
    /** Run a skill package's lifecycle scripts (preinstall/install/postinstall) on install, as npm does. */
    install_scripts: z.boolean().optional(),
    /**
     * Globs of files other programs run as commands (package scripts, Makefiles, editor tasks): a write may
     * not add a command entry carrying a target from untrusted content the owner did not give (autorun.ts).
     */
    autorun_paths: z.array(z.string().min(1)).optional(),
    shell: ShellPolicy.optional(),
    /**
     * A wording guard: regular expressions (JavaScript syntax, case-insensitive) matched against each tool
     * call's arguments as JSON text; a call any of them matches is denied. It sees the words, not what
     * they do: docs/strategies.md measures what gets past such a guard.
     */
    deny_patterns: z
      .array(
        z
          .string()
          .min(1)
          .refine(
            (p) => {
              try {
                new RegExp(p, 'i');
                return true;
              } catch {
                return false;
              }
            },
            { message: 'not a valid regular expression' },
          ),
      )
      .optional(),
    /** Durable memory file (default ~/.reference-harness/memory.md). */
    memory_file: z.string().min(1).optional(),
    /** Folder of installed skills (default ~/.reference-harness/skills). */
    skills_dir: z.string().min(1).optional(),
  })
  .strict();
export type PolicyFile = z.infer<typeof PolicyFile>;

export interface Policy {
  tools: ToolName[];
  path_scope: 'workspace' | 'any';
  protected_paths: string[];
  approval: ApprovalOp[];
  approval_mode: 'owner_intent' | 'deny';
  egress: string[];
  secrets: boolean;
  memory_guard: boolean;
  install_scripts: boolean;
  autorun_paths: string[];
  shell: 'allow' | 'deny' | { allow_commands: string[] };
  deny_patterns: string[];
  memory_file: string;
  skills_dir: string;
}

export const DEFAULT_POLICY: Omit<Policy, 'memory_file' | 'skills_dir'> = {
  tools: [...TOOL_NAMES],
  path_scope: 'any',
  protected_paths: [],
  approval: [],
  approval_mode: 'owner_intent',
  egress: ['*'],
  secrets: false,
  memory_guard: false,
  install_scripts: true,
  autorun_paths: [],
  shell: 'allow',
  deny_patterns: [],
};

export class PolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PolicyError';
  }
}

function fieldPath(p: readonly PropertyKey[]): string {
  let out = '';
  for (const key of p) out += typeof key === 'number' ? `[${key}]` : out ? `.${String(key)}` : String(key);
  return out || '(top level)';
}

function valueAt(raw: unknown, p: readonly PropertyKey[]): unknown {
  let v: any = raw;
  for (const key of p) {
    if (v === null || typeof v !== 'object') return undefined;
    v = v[key as any];
  }
  return v;
}

/** Validates one policy document; errors name `source` and the field. */
export function parsePolicyFile(raw: unknown, source: string): PolicyFile {
  const parsed = PolicyFile.safeParse(raw);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const where = issue.path.length ? `${fieldPath(issue.path)}: ` : '';
      return `  ${where}unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    }
    const got = valueAt(raw, issue.path);
    const shown = got === undefined ? '' : ` (got ${JSON.stringify(got)?.slice(0, 80)})`;
    return `  field "${fieldPath(issue.path)}": ${issue.message}${shown}`;
  });
  throw new PolicyError(
    `invalid policy file ${source}:\n${lines.join('\n')}\n(see examples/reference-harness/README.md for the policy fields)`,
  );
}

interface ResolveEnv {
  home: string;
  svc?: string;
  warn?: (message: string) => void;
}

/** Loads a policy file (following `extends`), fills defaults and substitutes `{{svc}}`. */
export function loadPolicy(file: string, env: ResolveEnv): Policy {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new PolicyError(`cannot read policy file ${file}: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new PolicyError(`policy file ${file} is not valid JSON: ${(err as Error).message}`);
  }
  return resolvePolicy(raw, file, env);
}

export function resolvePolicy(raw: unknown, source: string, env: ResolveEnv): Policy {
  const layers: PolicyFile[] = [];
  let current = parsePolicyFile(raw, source);
  let currentSource = source;
  const seen = new Set<string>();
  layers.unshift(current);
  while (current.extends !== undefined) {
    const name = current.extends;
    if (!Object.hasOwn(BUILTIN_POLICIES, name)) {
      throw new PolicyError(
        `invalid policy file ${currentSource}:\n  field "extends": unknown base policy "${name}" (use ${Object.keys(
          BUILTIN_POLICIES,
        )
          .map((n) => `"${n}"`)
          .join(' or ')})`,
      );
    }
    if (seen.has(name))
      throw new PolicyError(`policy file ${currentSource}: "extends" forms a cycle at "${name}"`);
    seen.add(name);
    currentSource = `built-in policy "${name}"`;
    current = parsePolicyFile(BUILTIN_POLICIES[name], currentSource);
    layers.unshift(current);
  }
  const merged: Record<string, unknown> = { ...DEFAULT_POLICY };
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) {
      if (key === 'extends' || key === 'description' || value === undefined) continue;
      merged[key] = value;
    }
  }
  const policy = merged as unknown as Policy;
  policy.memory_file ??= `${env.home}/.reference-harness/memory.md`;
  policy.skills_dir ??= `${env.home}/.reference-harness/skills`;
  return substituteSvc(policy, env);
}

function substituteSvc(policy: Policy, env: ResolveEnv): Policy {
  const svc = env.svc?.replace(/\/+$/, '');
  let warned = false;
  const sub = (s: string): string => {
    if (!s.includes('{{svc}}')) return s;
    if (!svc) {
      if (!warned) env.warn?.('policy uses {{svc}} but HR_SVC is not set; those entries match nothing');
      warned = true;
      return s;
    }
    return s.split('{{svc}}').join(svc);
  };
  return {
    ...policy,
    egress: policy.egress.map(sub),
    protected_paths: policy.protected_paths.map(sub),
  };
}
