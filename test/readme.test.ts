// The README is the front door (issue 27): short, its two commands are the ones CI and the demo use, its
// workflow snippet names the action, and every link in it and in docs/ leads somewhere (the manual lives
// in docs/, so a moved section must not leave a dead link or anchor behind).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ACTION_REPOSITORY } from '../src/report/anchors.js';

const ROOT = join(import.meta.dirname, '..');
const read = (f: string) => readFileSync(join(ROOT, f), 'utf8');
const readme = read('README.md');
const withoutCode = (md: string) => md.replace(/^```[\s\S]*?^```/gm, '');

/** The commands of the README's "Try it" block, without their comments. */
function tryItCommands(): string[] {
  const section = readme.split(/^## /m).find((s) => s.startsWith('Try it'));
  const block = section?.match(/```sh\n([\s\S]*?)```/)?.[1] ?? '';
  return block
    .split('\n')
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter(Boolean);
}

/** GitHub's heading anchors of a markdown file (lower case, punctuation dropped, spaces to dashes). */
function anchorsOf(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, h] of withoutCode(md).matchAll(/^#{1,6} (.*)$/gm)) {
    const base = h!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base);
    seen.set(base, (n ?? -1) + 1);
    out.add(n === undefined ? base : `${base}-${n + 1}`);
  }
  return out;
}

/** Relative links of a markdown file that lead to no file, or to no heading of a markdown file. */
function deadLinks(file: string): string[] {
  const dead: string[] = [];
  for (const [, link] of withoutCode(read(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/.test(link!)) continue;
    const [path, anchor] = link!.split('#');
    const target = path ? join(ROOT, dirname(file), path) : join(ROOT, file);
    if (!existsSync(target)) dead.push(`${file}: ${link} (no such file)`);
    else if (anchor && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor))
      dead.push(`${file}: ${link} (no such heading in ${relative(ROOT, target)})`);
  }
  return dead;
}

describe('README', () => {
  it('is a front door: at most 300 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('runs the demo and the tests with two commands; CI runs exactly the README test command', () => {
    const [demo, tests] = tryItCommands();
    expect(demo).toBe('npm ci && npm run demo');
    const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>;
    expect(scripts.demo).toMatch(/^node dist\/cli\.js run --adapter reference /);
    const ciSteps = read('.ci/run').split('\n');
    expect(ciSteps.at(ciSteps.indexOf('step "tests"') + 1)).toBe(tests);
  });

  it('has one workflow snippet, using the action by its one name', () => {
    const uses = [...readme.matchAll(/uses: ([\w.-]+\/harness-risk-action)@v\d+/g)].map((m) => m[1]);
    expect(uses).toEqual([DEFAULT_ACTION_REPOSITORY]);
  });

  it('draws the pipeline with the gate', () => {
    expect(readme).toMatch(/compare ─► gate ─► report/);
  });

  it('every link in it and in docs/ leads to a file and a heading that exist', () => {
    const pages = [
      'README.md',
      ...readdirSync(join(ROOT, 'docs'))
        .filter((n) => n.endsWith('.md') && statSync(join(ROOT, 'docs', n)).isFile())
        .map((n) => `docs/${n}`),
    ];
    expect(pages.flatMap(deadLinks)).toEqual([]);
  });
});
