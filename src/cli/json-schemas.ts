// JSON Schemas for editors, generated from the zod schemas (the single source of truth), never by hand.
// `harness-risk schema` writes them to schema/; a test fails when the committed copies are stale.
import { z } from 'zod';
import { Adapter } from '../adapters/schema.js';
import { Wiring } from '../adapters/wiring.js';
import { CaseFile } from '../cases/schema.js';
import { RunResult } from '../spec/run-result.js';

export function jsonSchemas(): Record<string, string> {
  const schemas = { case: CaseFile, adapter: Adapter, 'run-result': RunResult, wiring: Wiring };
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [
      `${name}.schema.json`,
      `${JSON.stringify(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }), null, 2)}\n`,
    ]),
  );
}
