// One name of the action everywhere a user copies it from or a report links to: README, docs, examples,
// action.yml and the sources say harness-risk/harness-risk-action (anchors.ts DEFAULT_ACTION_REPOSITORY),
// never a placeholder owner such as org/ or acme/.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ACTION_REPOSITORY } from '../src/report/anchors.js';

const ROOT = join(import.meta.dirname, '..');
const walk = (d: string): string[] =>
  readdirSync(d).flatMap((n) => {
    const p = join(d, n);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });

describe('the action has one name', () => {
  it('every owner/harness-risk-action is the default repository', () => {
    expect(DEFAULT_ACTION_REPOSITORY).toBe('harness-risk/harness-risk-action');
    const files = [
      'README.md',
      'action.yml',
      ...['docs', 'examples', 'src'].flatMap((d) => walk(join(ROOT, d))),
    ];
    const other: string[] = [];
    for (const f of files) {
      const text = readFileSync(join(f.startsWith('/') ? '' : ROOT, f), 'utf8');
      for (const m of text.matchAll(/([A-Za-z0-9_.-]+)\/harness-risk-action\b/g))
        if (m[1] !== 'harness-risk' && !/^_actions$/.test(m[1]!)) other.push(`${f}: ${m[0]}`);
    }
    expect(other).toEqual([]);
  });
});
