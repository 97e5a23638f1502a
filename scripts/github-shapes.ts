#!/usr/bin/env -S npx tsx
// Writes src/world/github-rest-shapes.json: for each REST op of the world's GitHub (src/spec/github-ops.ts)
// and each 2xx status GitHub's OpenAPI description (@octokit/openapi, a dev dependency) gives it, the shape of
// its JSON answer reduced to what completion needs: every object's required properties with a default of
// their type, and the properties under which objects or arrays nest. The world completes its answers with it
// (src/world/github-rest-conform.ts), so the 23 MB description never ships.
//
//   npx tsx scripts/github-shapes.ts          write the file
//   npx tsx scripts/github-shapes.ts --check  exit 1 when the file is not what the description gives
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { GITHUB_API_PREFIX, GITHUB_OPS } from '../src/spec/github-ops.js';
import type { Shape } from '../src/world/github-rest-conform.js';

const ROOT = join(import.meta.dirname, '..');
export const SHAPES_FILE = join(ROOT, 'src/world/github-rest-shapes.json');

type Json = Record<string, unknown> & {
  $ref?: string;
  type?: string | string[];
  nullable?: boolean;
  properties?: Record<string, Json>;
  required?: string[];
  items?: Json;
  allOf?: Json[];
  anyOf?: Json[];
  oneOf?: Json[];
  enum?: unknown[];
  format?: string;
};

const EPOCH = '2026-01-01T00:00:00Z';

function deref(doc: Json, node: Json | undefined): Json {
  let n = node ?? {};
  while (typeof n.$ref === 'string')
    n = n.$ref
      .slice(2)
      .split('/')
      .reduce((o: Json, k) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')] as Json, doc);
  return n;
}

/** allOf merged into one schema; anyOf/oneOf: the first object option (what the world answers with). */
function flatten(doc: Json, node: Json): Json {
  const n = deref(doc, node);
  if (n.allOf) {
    const parts = n.allOf.map((p) => flatten(doc, p));
    return {
      ...n,
      type: 'object',
      properties: Object.assign({}, ...parts.map((p) => p.properties ?? {})),
      required: [...new Set(parts.flatMap((p) => p.required ?? []))],
      allOf: undefined,
    };
  }
  const options = n.oneOf ?? n.anyOf;
  if (options) {
    const flat = options.map((o) => flatten(doc, o));
    return flat.find((o) => o.type === 'object' || o.properties) ?? flat[0]!;
  }
  return n;
}

/** A default of a scalar schema's type: null where it may be null, else a value of its type and format. */
function scalarDefault(s: Json): unknown {
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (s.nullable || types.includes('null')) return null;
  if (s.enum?.length) return s.enum[0];
  if (types.includes('integer') || types.includes('number')) return 0;
  if (types.includes('boolean')) return false;
  if (s.format === 'date-time') return EPOCH;
  if (s.format === 'uri') return 'https://github.invalid/';
  return '';
}

function shapeOf(doc: Json, node: Json, depth: number, seen: Set<Json>): Shape {
  const s = flatten(doc, node);
  if (depth > 6 || seen.has(s)) return { v: scalarDefault(s) };
  const next = new Set(seen).add(s);
  if (s.type === 'array' && s.items) return { a: shapeOf(doc, s.items, depth + 1, next) };
  if (s.type === 'object' || s.properties) {
    const required = new Set(s.required ?? []);
    const props: Record<string, Shape> = {};
    for (const [name, p] of Object.entries(s.properties ?? {})) {
      const inner = flatten(doc, p);
      const nests = inner.type === 'object' || inner.type === 'array' || inner.properties !== undefined;
      if (!required.has(name) && !nests) continue;
      const shape = shapeOf(doc, p, depth + 1, next);
      props[name] = required.has(name) ? { ...shape, r: 1, ...(inner.nullable ? { n: 1 } : {}) } : shape;
    }
    return { o: props };
  }
  return { v: scalarDefault(s) };
}

/** Per op, per 2xx status: the shape of the answer's JSON. */
export function githubShapes(): Record<string, Record<string, Shape>> {
  const doc = createRequire(import.meta.url)('@octokit/openapi/generated/api.github.com.json') as Json;
  const paths = doc.paths as Record<string, Record<string, Json>>;
  const out: Record<string, Record<string, Shape>> = {};
  for (const [op, spec] of Object.entries(GITHUB_OPS)) {
    if (!spec.path.startsWith(`${GITHUB_API_PREFIX}/`)) continue;
    const template = spec.path.slice(GITHUB_API_PREFIX.length).replace(/:([a-z_]+)\+?/g, '{$1}');
    const operation = paths[template]?.[spec.method.toLowerCase()];
    if (!operation)
      throw new Error(`${op}: ${spec.method} ${template} is not in GitHub's OpenAPI description`);
    for (const [status, response] of Object.entries(
      deref(doc, operation.responses as Json) as Record<string, Json>,
    )) {
      const schema = (deref(doc, response).content as Record<string, Json> | undefined)?.['application/json']
        ?.schema;
      if (!/^2\d\d$/.test(status) || !schema) continue;
      out[op] ??= {};
      out[op][status] = shapeOf(doc, schema as Json, 0, new Set());
    }
  }
  return out;
}

// One line: a generated file (biome.json leaves it alone); the check compares it whitespace aside.
const render = () => `${JSON.stringify(githubShapes())}\n`;

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  if (process.argv.includes('--check')) {
    const current = readFileSync(SHAPES_FILE, 'utf8').replace(/\s/g, '') === render().replace(/\s/g, '');
    console.log(
      current ? `${SHAPES_FILE}: current` : `${SHAPES_FILE}: stale (run npx tsx scripts/github-shapes.ts)`,
    );
    process.exitCode = current ? 0 : 1;
  } else writeFileSync(SHAPES_FILE, render());
}
