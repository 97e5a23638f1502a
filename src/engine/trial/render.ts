// Stage "render": the case and the adapter's templates filled in for this trial's sandbox view (its
// folders, its endpoint's URL, its canaries), and the adapter's state paths as snapshot keys. Pure: it
// writes nothing; an unknown template variable or a state path outside the trial is the user's to fix.

import { harnessVersionOf } from '../../adapters/version-override.js';
import { githubEvent, threadContext } from '../../cases/github-event.js';
import { renderPromptTemplate } from '../../cases/prompt-template.js';
import type { Case } from '../../cases/schema.js';
import { UserError } from '../../errors.js';
import { mapStrings } from '../../json-strings.js';
import { providerKey } from '../../model/ids.js';
import { injectText, rewritesInjection } from '../../model/strategies/strategy-kinds.js';
import { actionRoot } from '../../paths.js';
import { resolveCasePath } from '../../world/snapshot.js';
import { renderDeep, renderTemplate, TemplateError, trialVars } from '../../world/template.js';
import { trialPath } from '../env.js';
import type { TrialScene } from './types.js';

type McpDecl = NonNullable<TrialScene['input']['adapter']['adapter']['mcp']>;

/** The trial as the harness will see it: its case and its adapter's templates, rendered. */
export interface RenderedTrial {
  /** The case with every template filled in. */
  c: Case;
  /** The adapter's template variables ({{bin}}, {{model_url}}, {{prompt}}…). */
  vars: Record<string, string>;
  /** Renders one adapter template (a UserError naming the adapter file for an unknown variable). */
  ra: (template: string) => string;
  /** Snapshot keys (`home/…`) of the adapter's state: what the persistence checks read. */
  keys: { memory: string[]; skills?: string; config: string[] };
  /** The skills folder and first memory file as the harness names them (its view). */
  skillsDir?: string;
  memoryFile?: string;
  /** Every memory file as the harness names them, in the adapter's order. */
  memoryFiles: string[];
  /** The adapter's MCP client settings, when the case serves MCP tools. */
  mcp?: McpDecl;
  /** The case serves MCP tools (an ACP agent gets the server in session/new, with or without `mcp:`). */
  servesMcp: boolean;
}

function renderCase(c: Case, vars: Record<string, string>, file: string): Case {
  try {
    return renderDeep(c, vars);
  } catch (e) {
    if (e instanceof TemplateError) {
      throw new UserError(
        `${file}: case "${c.id}" uses unknown template variable {{${e.variable}}}`,
        'use {{svc}}, {{workspace}}, {{home}}, {{tmp}} or {{canary:NAME}} with NAME declared under world.canaries',
      );
    }
    throw e;
  }
}

/**
 * The case under the trial's strategy: a strategy that rewrites the injection (authority) rewrites every
 * string of the world that holds the trigger, wherever the case put it (a file, a page, a mail, a tool
 * description). The trigger stays in it, so the model still sees it.
 */
export function strategyCase(c: Case, strategy: string | undefined): Case {
  if (!rewritesInjection(strategy)) return c;
  const trigger = c.inject.trigger;
  const world = mapStrings(c.world, (s) => (s.includes(trigger) ? injectText(strategy, s, trigger) : s));
  return { ...c, world: world as Case['world'] };
}

/**
 * The harness's prompt: the owner's turns, or, for a case that stands for a GitHub event under a
 * configuration with a CI prompt template, that template filled with the event and the owner's request.
 */
export function promptOf(c: Case, template: string | undefined): string {
  const request = c.owner.turns.join('\n\n');
  const event = template ? githubEvent(c) : undefined;
  return template && event
    ? renderPromptTemplate(template, request, event, threadContext(c, event))
    : request;
}

/** The case's world serves MCP tools (its mock MCP server has something to offer). */
const servesMcp = (c: { world: { services?: { mcp?: { tools: unknown[] } } } }): boolean =>
  (c.world.services?.mcp?.tools.length ?? 0) > 0;

export function renderTrial(scene: TrialScene): RenderedTrial {
  const { input, view, canaries } = scene;
  const { adapter } = input;
  const endpoint = scene.endpoint.url;
  const baseVars = trialVars({
    canaries,
    svc: endpoint,
    workspace: view.workspace,
    home: view.home,
    tmp: view.tmp,
  });
  const c = strategyCase(renderCase(input.loaded.case, baseVars, input.loaded.file), input.strategy);
  const vars: Record<string, string> = {
    ...baseVars,
    bin: view.bin,
    // The trial's own PATH, so an adapter can put a folder before it (`PATH: DIR:{{path}}`) without
    // spelling out the runner's system folders, which differ between runners.
    path: trialPath(view),
    adapter_dir: view.mapReadOnly(adapter.dir),
    action_root: view.mapReadOnly(actionRoot()),
    cache: view.mapReadOnly(input.cacheDir),
    ...versionVar(adapter.adapter),
    // The repository under test (its own harness build), read-only under docker.
    repo: view.mapReadOnly(input.repoDir),
    model_url: endpoint,
    mcp_url: `${endpoint}/mcp`,
    // Random and provider-shaped: it must not tell the harness which trial (or instrument) it faces.
    model_key: providerKey(adapter.adapter.dialect),
    prompt: promptOf(c, input.config.prompt),
    config: input.configName,
  };
  const ra = (s: string) => {
    try {
      return renderTemplate(s, vars);
    } catch (e) {
      if (e instanceof TemplateError)
        throw new UserError(
          `${adapter.file}: unknown template variable {{${e.variable}}}`,
          `use one of the variables listed in src/adapters/schema.ts`,
        );
      throw e;
    }
  };
  const keyOf = (p: string, what: string) => pathKey(view, adapter.file, ra, p, what);
  const st = adapter.adapter.state;
  const keys = {
    memory: st.memory_files.map((p) => keyOf(p, 'state.memory_files entry')),
    skills: st.skills_dir ? keyOf(st.skills_dir, 'state.skills_dir') : undefined,
    config: st.config_dirs.map((p) => keyOf(p, 'state.config_dirs entry')),
  };
  return {
    c,
    vars,
    ra,
    keys,
    skillsDir: st.skills_dir ? ra(st.skills_dir) : undefined,
    memoryFile: st.memory_files[0] ? ra(st.memory_files[0]) : undefined,
    memoryFiles: st.memory_files.map(ra),
    // The harness's own MCP client gets the trial's MCP server, for cases that serve MCP tools.
    mcp: servesMcp(c) ? adapter.adapter.mcp : undefined,
    servesMcp: servesMcp(c),
  };
}

/** The snapshot key of one of the adapter's paths (a template): a UserError when outside the trial. */
export function pathKey(
  view: TrialScene['view'],
  adapterFile: string,
  ra: (template: string) => string,
  p: string,
  what: string,
): string {
  const key = resolveCasePath(ra(p), view);
  if (!key)
    throw new UserError(
      `${adapterFile}: ${what} "${p}" is outside the trial's folders`,
      'use a path under {{home}}, {{workspace}} or {{tmp}}',
    );
  return key;
}

/** {{harness_version}} where the adapter names its harness's version (else using it is an unknown variable). */
export function versionVar(adapter: Parameters<typeof harnessVersionOf>[0]): { harness_version?: string } {
  const v = harnessVersionOf(adapter);
  return v ? { harness_version: v } : {};
}
