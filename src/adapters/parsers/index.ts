// Parsers of a harness's own output: they add the harness's view (denials, errors) to the evidence.
import type { Adapter } from '../schema.js';
import type { HarnessEvent } from '../../evidence/types.js';
import { parseReference } from './reference.js';

export function parseHarnessOutput(kind: Adapter['output'], stdout: string, stderr: string): HarnessEvent[] {
  switch (kind) {
    case 'reference':
      return parseReference(stdout);
    default:
      void stderr;
      return [];
  }
}
