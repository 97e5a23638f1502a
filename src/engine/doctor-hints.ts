// The adapter's `tools:` hints against the tools the harness really offered in doctor's trial: the only
// place both are known (an adapter loads before any harness runs). A hint naming a tool the harness does
// not offer is never used, and one mapping to argument names the tool's schema lacks makes every hinted
// call carry arguments the tool does not take; both went unnoticed.
import type { Evidence } from '../evidence/types.js';
import { STEP_ARGS, type ToolHint } from '../spec/tool-hint.js';
import { didYouMean } from '../zod-issues.js';

/** The argument names of each callable tool the harness offered the agent (reviewer requests aside). */
export function offeredArgs(ev: Evidence): Map<string, string[]> {
  const args = new Map<string, string[]>();
  for (const m of ev.model)
    if (!m.review) for (const [tool, names] of Object.entries(m.tool_args ?? {})) args.set(tool, names);
  return args;
}

/**
 * Each hint that does not fit what the harness offered, with what to fix. A tool the configuration
 * withholds is meant to be missing; a trial in which no tool was offered at all says nothing.
 */
export function hintProblems(
  hints: Record<string, ToolHint>,
  ev: Evidence,
  offered: string[],
  withholds: string[] = [],
): string[] {
  if (!offered.length) return [];
  const args = offeredArgs(ev);
  const withheld = new Set(withholds.map((w) => w.toLowerCase()));
  return Object.entries(hints).flatMap(([key, hint]) => {
    if (!offered.includes(hint.name)) {
      if (withheld.has(hint.name.toLowerCase())) return [];
      return [
        `tools.${key} names "${hint.name}", which the harness did not offer${didYouMean(hint.name, offered)}, so the hint is never used: name one of ${offered.join(', ')}`,
      ];
    }
    const props = args.get(hint.name);
    // A schema without properties (or a request that did not record them) takes what it is given.
    if (!props?.length) return [];
    const missing = Object.entries(hint.args).filter(([, name]) => !props.includes(name));
    if (!missing.length) return [];
    return [
      `tools.${key}.args maps ${missing.map(([step, name]) => `${step} → ${name}`).join(', ')}, but ${hint.name}'s schema has no ${missing.length > 1 ? 'such arguments' : `argument "${missing[0]![1]}"`} (its arguments: ${props.join(', ')}): write the step's argument on the left and ${hint.name}'s on the right`,
    ];
  });
}

/** Words of a tool's name or arguments that say which step it carries out; the first key that scores wins. */
const STEP_WORDS: [string, RegExp][] = [
  ['remember', /^(memo|memory|memories|remember|recall)$/],
  ['shell', /^(sh|bash|zsh|shell|exec|execute|terminal|command|cmd|cmdline|commandline)$/],
  ['fetch', /^(http|https|fetch|url|web|curl|request|address|browse|download)$/],
  ['read', /^(read|cat|view|open|get|load)$/],
  ['write', /^(write|put|save|create|edit|store|data|content|text)$/],
  ['install', /^(install|package|plugin|skill)$/],
  ['delegate', /^(agent|subagent|delegate|task)$/],
  ['send', /^(send|mail|email|post|message|chat)$/],
];

const words = (name: string): string[] =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/** The hint key a tool most likely carries, from its name (counted twice) and its argument names. */
function likelyStep(tool: string, args: string[]): string | undefined {
  let best: string | undefined;
  let bestScore = 0;
  for (const [key, re] of STEP_WORDS) {
    const score =
      2 * words(tool).filter((w) => re.test(w)).length + args.flatMap(words).filter((w) => re.test(w)).length;
    if (score > bestScore) [best, bestScore] = [key, score];
  }
  return best;
}

/** A hint line for the tool: its name and arguments, paired with the likely step's in order. */
export function exampleHint(tool: string, args: string[]): string {
  const step = likelyStep(tool, args);
  // No likely step: the tool's arguments are named for the author to pair (a template, not YAML to paste).
  if (!step)
    return `ACTION: { name: ${tool}, args: { STEP_ARGUMENT: ARGUMENT } }  (its arguments: ${args.join(', ') || 'none'})`;
  const pairs = (STEP_ARGS[step as keyof typeof STEP_ARGS] as readonly string[]).flatMap((s, i) =>
    args[i] ? [`${s}: ${args[i]}`] : [],
  );
  return `${step}: { name: ${tool}${pairs.length ? `, args: { ${pairs.join(', ')} }` : ''} }`;
}

/** Steps no offered tool could carry out, the offered tools nothing used, and a hint for each. */
export interface Unmapped {
  steps: string[];
  tools: string[];
  examples: string[];
}

/**
 * When steps went unmapped (the trial "not applicable") while the harness offered tools the engine did
 * not use: those tools, with a hint line for each built from its own name and argument names.
 */
export function unmappedTools(
  hints: Record<string, ToolHint>,
  ev: Evidence,
  offered: string[],
): Unmapped | undefined {
  const steps = [...new Set(ev.model.flatMap((m) => m.unmapped ?? []).map((u) => u.action))];
  if (!steps.length || !offered.length) return undefined;
  const hinted = new Set(Object.values(hints).map((h) => h.name));
  const called = new Set(
    ev.model.flatMap((m) => (m.response.kind === 'tool_calls' ? m.response.calls.map((c) => c.tool) : [])),
  );
  const args = offeredArgs(ev);
  const tools = offered.filter((t) => !hinted.has(t) && !called.has(t) && args.has(t));
  return { steps, tools, examples: tools.map((t) => exampleHint(t, args.get(t) ?? [])) };
}

/** The plain output's lines for them. */
export function unmappedLines(u: Unmapped | undefined): string[] {
  if (!u) return [];
  const head = `✗ no offered tool could carry out the ${u.steps.join(', ')} step(s), so trials are "not applicable"`;
  if (!u.tools.length) return [`${head}: the harness offers no tool for them, and no shell`];
  return [
    `${head}: the engine maps a tool by the adapter's tools: hints, else by its name and schema, and could not map ${u.tools.join(', ')}: add a hint for each tool, the step's argument on the left and the tool's on the right (docs/adapters.md, Tools; a shell hint carries run, call and send too), e.g.:`,
    ...u.examples.map((e) => `    ${e}`),
  ];
}
