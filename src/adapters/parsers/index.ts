// Parsers of a harness's own output: they add the harness's view (denials, errors, the tools it ran) to
// the evidence, beside what the model endpoint saw. An adapter's `output:` names a built-in parser (code,
// for formats rules cannot read: Claude Code's paired permission events, Codex's exit codes, OpenClaw's
// envelope) and/or declares rules (rules.ts), which is all most harnesses need.
import type { HarnessEvent } from '../../evidence/types.js';
import { parseClaudeCode } from './claude-code.js';
import { parseCodex } from './codex.js';
import { parseOpenClaw } from './openclaw.js';
import { parseReference } from './reference.js';
import { applyRules, type OutputRule } from './rules.js';
import { dedupe } from './util.js';

/** The built-in parsers by name: the adapter schema's `output.parser` values derive from this table. */
export const PARSERS = {
  none: () => [],
  reference: (stdout: string) => parseReference(stdout),
  'claude-code': parseClaudeCode,
  codex: parseCodex,
  openclaw: parseOpenClaw,
} satisfies Record<string, (stdout: string, stderr: string) => HarnessEvent[]>;

export type ParserName = keyof typeof PARSERS;
export const PARSER_NAMES = Object.keys(PARSERS) as [ParserName, ...ParserName[]];

/** An adapter's `output:`: a parser name, or a parser and rules. */
export type OutputSpec = ParserName | { parser: ParserName; rules: OutputRule[] };

export function parseHarnessOutput(spec: OutputSpec, stdout: string, stderr: string): HarnessEvent[] {
  const { parser, rules } = typeof spec === 'string' ? { parser: spec, rules: [] } : spec;
  try {
    return dedupe([...PARSERS[parser](stdout, stderr), ...applyRules(rules, stdout, stderr)]);
  } catch {
    // A parser must never turn a trial invalid: hostile or truncated output just adds nothing.
    return [];
  }
}
