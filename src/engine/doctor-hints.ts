// The adapter's `tools:` hints against the tools the harness really offered in doctor's trial: the only
// place both are known (an adapter loads before any harness runs). A hint naming a tool the harness does
// not offer is never used, and one mapping to argument names the tool's schema lacks makes every hinted
// call carry arguments the tool does not take; both went unnoticed.
import type { Evidence } from '../evidence/types.js';
import type { ToolHint } from '../spec/tool-hint.js';
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
