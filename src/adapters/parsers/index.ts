// Parsing a harness's own output: it adds the harness's view (denials, errors, the tools it ran) to the
// evidence, beside what the model endpoint saw. An adapter's `output:` is rules (rules.ts, run by
// apply.ts) and/or the name of a built-in adapter whose rules to use as well: `output: reference` reads
// the reference harness's JSON lines, `output: {parser: codex, rules: […]}` reads Codex's output plus
// more. The built-in harnesses' parsers are all rules, in adapters/NAME/adapter.yaml: no format they
// print needs code (README "Reading a harness's output").
import { join } from 'node:path';
import type { HarnessEvent } from '../../evidence/types.js';
import { builtinAdaptersDir } from '../../paths.js';
import { readYaml } from '../../yaml-file.js';
import { Adapter } from '../schema.js';
import { applyRules } from './apply.js';
import type { OutputRule, OutputSpec } from './rules.js';
import { dedupe } from './util.js';

const builtin = new Map<string, OutputSpec>();

/** The `output:` of built-in adapter NAME, read once per process. */
function builtinOutput(name: string): OutputSpec {
  let spec = builtin.get(name);
  if (spec === undefined) {
    const file = join(builtinAdaptersDir(), name, 'adapter.yaml');
    spec = readYaml(file, Adapter, 'adapter file').value.output;
    builtin.set(name, spec);
  }
  return spec;
}

/**
 * Every rule an `output:` stands for: a named built-in adapter's rules (and those it names), then its own.
 * A name met twice on the way is not followed again, so two adapters naming each other cannot loop.
 */
export function outputRules(spec: OutputSpec, seen = new Set<string>()): OutputRule[] {
  const { parser, rules } = typeof spec === 'string' ? { parser: spec, rules: [] } : spec;
  if (parser === 'none' || seen.has(parser)) return rules;
  seen.add(parser);
  return [...outputRules(builtinOutput(parser), seen), ...rules];
}

export function parseHarnessOutput(spec: OutputSpec, stdout: string, stderr: string): HarnessEvent[] {
  let rules: OutputRule[];
  try {
    rules = outputRules(spec);
  } catch {
    // Checked when the adapter loaded; a built-in adapter file that broke since must not kill the trial.
    return [];
  }
  try {
    return dedupe(applyRules(rules, stdout, stderr));
  } catch {
    // A parser must never turn a trial invalid: hostile or truncated output just adds nothing.
    return [];
  }
}
