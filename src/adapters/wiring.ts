// A team's own CI wiring, without code: which GitHub events start the agent, the prompt template the
// workflow fills from the event, the harness and its configuration (or extra flags: allowed tools), and
// the environment variables the job passes (names only: a trial gives each a canary value). Applied to
// the `github_event` cases (docs/wiring.md): the harness runs as that workflow would run it.
import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { EVENT_OF_SOURCE } from '../cases/github-event.js';
import { PromptTemplate } from '../cases/prompt-template.js';
import type { Case, LoadedCase } from '../cases/schema.js';
import { UserError } from '../errors.js';
import { readYaml } from '../yaml-file.js';
import { adapterConfig, loadAdapter } from './load.js';
import type { AdapterConfig, LoadedAdapter } from './schema.js';

/** The events a wiring may name: those a `github_event` case stands for. */
export const WIRING_EVENTS = [...new Set(Object.values(EVENT_OF_SOURCE))] as [string, ...string[]];

export const Wiring = z
  .object({
    /** The wiring's name: the run's configuration name (results, reports, baselines). */
    name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes'),
    description: z.string().default(''),
    /** The events that start the agent (the workflow's `on:`); cases of other events are left out. */
    on: z.array(z.enum(WIRING_EVENTS)).min(1),
    /** The harness: a built-in adapter name, or the path of an adapter folder/file (relative to this file). */
    harness: z.string().min(1),
    /** The adapter's configuration the workflow runs (e.g. `action`, a CI profile). Absent: its only one. */
    config: z.string().min(1).optional(),
    /**
     * The prompt the workflow hands the harness: `{{request}}`, `{{event.FIELD…}}`, `{{event_name}}` or
     * `${{ github.event.FIELD… }}` (docs/adapters.md, "CI profiles"). Absent: the configuration's.
     */
    prompt: PromptTemplate.optional(),
    /** Extra launch arguments after the configuration's (allowed/disallowed tools, a permission mode). */
    args: z.array(z.string()).default([]),
    /** Variables the job passes to the harness (`env:` of the step): names only; each gets a canary. */
    env: z
      .array(z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'an upper-case variable name such as NPM_TOKEN'))
      .default([]),
  })
  .strict();
export type Wiring = z.infer<typeof Wiring>;

export interface LoadedWiring {
  wiring: Wiring;
  file: string;
}

export function loadWiring(file: string, cwd = process.cwd()): LoadedWiring {
  const abs = resolve(cwd, file);
  return { wiring: readYaml(abs, Wiring, 'wiring file').value, file: abs };
}

/** The wiring's harness as an adapter: a built-in name, or a path relative to the wiring file. */
export function wiringAdapterRef(w: LoadedWiring): string {
  const h = w.wiring.harness;
  return /^[a-z0-9][a-z0-9-]*$/.test(h) || isAbsolute(h) ? h : resolve(dirname(w.file), h);
}

/** The configuration the wiring runs: its base configuration with the wiring's flags and prompt. */
export function wiredConfig(w: LoadedWiring, adapter: LoadedAdapter): AdapterConfig {
  const { wiring } = w;
  const names = Object.keys(adapter.adapter.configs);
  const base = wiring.config ?? (names.length === 1 ? names[0]! : undefined);
  if (!base)
    throw new UserError(
      `${w.file}: config: adapter ${adapter.adapter.name} has ${names.length} configurations`,
      `name the one the workflow runs (config: ${names.includes('action') ? 'action' : names[0]})`,
    );
  let config: AdapterConfig;
  try {
    config = adapterConfig(adapter, base);
  } catch (e) {
    if (e instanceof UserError) throw new UserError(`${w.file}: config: ${e.message}`, e.hint);
    throw e;
  }
  const prompt = wiring.prompt ?? config.prompt;
  return {
    ...config,
    description: wiring.description || `wiring ${wiring.name} over ${adapter.adapter.name}:${base}`,
    args: [...config.args, ...wiring.args],
    ...(prompt ? { prompt } : {}),
  };
}

/** A secret's look by its name, so the canary reads as the real kind (a scanner or a model may care). */
function canaryPrefix(name: string): string {
  if (/GITHUB|GH_/.test(name)) return 'ghs_';
  if (/NPM/.test(name)) return 'npm_';
  if (/AWS/.test(name)) return 'AKIA';
  return 'sk-';
}

/** The case with the job's variables: each name the wiring passes and the case lacks becomes a canary. */
export function wiredCase(c: Case, w: Wiring): Case {
  const have = new Set(c.world.canaries.flatMap((k) => [k.name, k.env]));
  const gh = c.world.services?.github;
  const jobHas = (n: string) => (n === 'GITHUB_TOKEN' || n === 'GH_TOKEN') && !!gh?.actions?.token;
  const added = w.env
    .filter((n) => !have.has(n) && !jobHas(n))
    .map((n) => ({ name: n, env: n, prefix: canaryPrefix(n) }));
  return added.length ? { ...c, world: { ...c.world, canaries: [...c.world.canaries, ...added] } } : c;
}

/**
 * The selection under the wiring: only `github_event` cases apply (any other is the user's to drop, named
 * with its entry point), and of those the ones whose event the workflow listens to, with its variables.
 */
export function wiredCases(w: LoadedWiring, cases: LoadedCase[]): LoadedCase[] {
  const other = cases.filter((lc) => lc.case.entry_point !== 'github_event');
  if (other.length)
    throw new UserError(
      `${w.file}: a wiring applies to github_event cases only; the selection holds ${other.length} other case(s) (${other
        .slice(0, 3)
        .map((lc) => `${lc.case.id}: ${lc.case.entry_point}`)
        .join(', ')}${other.length > 3 ? ', …' : ''})`,
      'select GitHub cases only, e.g. --cases tag:github (or drop --cases: a wiring run selects them)',
    );
  const on = new Set(w.wiring.on);
  const kept = cases.filter((lc) => on.has(EVENT_OF_SOURCE[lc.case.github_source!]));
  if (kept.length === 0)
    throw new UserError(
      `${w.file}: on: none of the ${cases.length} selected case(s) is started by ${[...on].join(', ')}`,
      `add the events of the cases you selected (${[...new Set(cases.map((lc) => EVENT_OF_SOURCE[lc.case.github_source!]))].join(', ')})`,
    );
  return kept.map((lc) => ({ ...lc, case: wiredCase(lc.case, w.wiring) }));
}

/** The wiring's adapter and configuration, loaded: what a run of it launches. */
export function wiredAdapter(w: LoadedWiring): { adapter: LoadedAdapter; config: AdapterConfig } {
  let adapter: LoadedAdapter;
  try {
    adapter = loadAdapter(wiringAdapterRef(w));
  } catch (e) {
    if (e instanceof UserError) throw new UserError(`${w.file}: harness: ${e.message}`, e.hint);
    throw e;
  }
  return { adapter, config: wiredConfig(w, adapter) };
}
