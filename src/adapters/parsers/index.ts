// Parsers of a harness's own output: they add the harness's view (denials, errors, the tools it ran) to
// the evidence, beside what the model endpoint saw. Chosen by the adapter's `output:` field.
import type { HarnessEvent } from '../../evidence/types.js';
import type { Adapter } from '../schema.js';
import { parseClaudeCode } from './claude-code.js';
import { parseCodex } from './codex.js';
import { parseOpenClaw } from './openclaw.js';
import { parsePi } from './pi.js';
import { parseReference } from './reference.js';

export function parseHarnessOutput(kind: Adapter['output'], stdout: string, stderr: string): HarnessEvent[] {
  try {
    switch (kind) {
      case 'reference':
        return parseReference(stdout);
      case 'claude-code':
        return parseClaudeCode(stdout, stderr);
      case 'codex':
        return parseCodex(stdout, stderr);
      case 'openclaw':
        return parseOpenClaw(stdout, stderr);
      case 'pi':
        return parsePi(stdout, stderr);
      case 'none':
        return [];
    }
  } catch {
    // A parser must never turn a trial invalid: hostile or truncated output just adds nothing.
  }
  return [];
}
