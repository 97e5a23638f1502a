import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { jsonSchemas } from '../src/cli/json-schemas.js';
import { HINT_KEYS } from '../src/spec/tool-hint.js';

describe('JSON Schemas for editors', () => {
  const generated = jsonSchemas();
  it.each(Object.keys(generated))(
    'schema/%s is current (run `npm run schema` after changing a zod schema)',
    (name) => {
      expect(readFileSync(`schema/${name}`, 'utf8')).toBe(generated[name]);
    },
  );

  it('the case schema accepts a built-in case and rejects a broken one', () => {
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(JSON.parse(generated['case.schema.json']!));
    const good = parse(readFileSync('test/fixtures/cases-bad/bad-phase.yaml', 'utf8'));
    expect(validate({ ...good, phase: 'runtime' })).toBe(true);
    expect(validate(good)).toBe(false);
  });

  it('the adapter schema lists the keys a tool hint may be declared for, and refuses another', () => {
    const schema = JSON.parse(generated['adapter.schema.json']!);
    expect(schema.properties.tools.propertyNames.enum).toEqual([...HINT_KEYS]);
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile({ ...schema.properties.tools, $defs: schema.$defs });
    expect(validate({ read: { name: 'cat_file' } })).toBe(true);
    expect(validate({ reed: { name: 'cat_file' } })).toBe(false);
  });
});
