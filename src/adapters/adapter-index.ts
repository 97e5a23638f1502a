// The built-in adapters as one file (dist/adapters-index.json, written by `npm run build`): each one's
// validated value and the sha256 of its adapter.yaml. Parsing an adapter.yaml with YAML and zod was the
// largest single cost of a run's start-up (~30–100 ms of CPU, most of it compiling the YAML parser on
// first use) for a file that changes only with a release. The bundles read the index and check the
// file's bytes against it, so an edited adapter.yaml is parsed again; code run from src/ (tests, a
// checkout) always parses the YAML. User adapters (a path) are never indexed.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fileDigest } from '../cases/case-index.js';
import { actionRoot, builtinAdaptersDir, runsFromBundle } from '../paths.js';
import { VERSION } from '../version.js';
import { readYaml } from '../yaml-file.js';
import { Adapter } from './schema.js';

/** Bumped when the index's layout changes, so an index of another layout is never read. */
export const ADAPTER_INDEX_FORMAT = 1;

interface AdapterIndex {
  format: number;
  version: string;
  adapters: Record<string, { sha256: string; adapter: Adapter }>;
}

export const adapterIndexPath = () => join(actionRoot(), 'dist', 'adapters-index.json');

/** The index's exact bytes for these built-in adapters, each parsed and validated as a run would. */
export function adapterIndexText(names: string[]): string {
  const adapters: AdapterIndex['adapters'] = {};
  for (const name of [...names].sort()) {
    const file = join(builtinAdaptersDir(), name, 'adapter.yaml');
    const { value } = readYaml(file, Adapter, 'adapter file');
    // The value goes through JSON: a schema that made something JSON cannot hold (a RegExp, a Map, an
    // undefined field) would come back different, and is caught here rather than in a run.
    if (!isDeepStrictEqual(JSON.parse(JSON.stringify(value)), value))
      throw new Error(`${file}: the validated adapter does not survive JSON`);
    adapters[name] = { sha256: fileDigest(readFileSync(file)), adapter: value };
  }
  const index: AdapterIndex = { format: ADAPTER_INDEX_FORMAT, version: VERSION, adapters };
  return `${JSON.stringify(index)}\n`;
}

export function writeAdapterIndex(out: string, names: string[]): number {
  writeFileSync(out, adapterIndexText(names));
  return names.length;
}

/**
 * The validated value of built-in adapter `name` from the index when the bundle runs and `file` has the
 * bytes that were indexed; undefined otherwise (the caller parses the YAML, with its errors).
 */
export function indexedAdapter(name: string, file: string, path = adapterIndexPath()): Adapter | undefined {
  if (!runsFromBundle) return undefined;
  return fromIndex(name, file, path);
}

/** The lookup itself (tests call it directly: code run from src/ never uses the index). */
export function fromIndex(name: string, file: string, path: string): Adapter | undefined {
  try {
    const index = JSON.parse(readFileSync(path, 'utf8')) as AdapterIndex;
    if (index?.format !== ADAPTER_INDEX_FORMAT || index.version !== VERSION) return undefined;
    const entry = index.adapters?.[name];
    if (!entry || fileDigest(readFileSync(file)) !== entry.sha256) return undefined;
    return entry.adapter;
  } catch {
    return undefined;
  }
}
