// Every input error is clear and early (issue 15): each finding of the fuzzing round is a load-time error
// that names the file, the line or field, and what to do — never a stack trace, an "internal error", a
// generic "Invalid input", or a failure after every trial ran. Each test fails on the code before it.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { Adapter } from '../src/adapters/schema.js';
import { loadCaseFile } from '../src/cases/load.js';
import { Case } from '../src/cases/schema.js';
import { readRunResultFile } from '../src/compare/baseline.js';
import { RUN_SETTING_DEFAULTS, RUN_SETTING_NAMES, RunSettingFields } from '../src/engine/options.js';
import { runSafetyCases } from '../src/engine/run.js';
import { UserError } from '../src/errors.js';
import { parseFields } from '../src/input-fields.js';
import { checkOutputPath } from '../src/output-path.js';
import { spawnErrorText } from '../src/runner/child.js';
import { parseYaml } from '../src/yaml-file.js';

const ROOT = join(import.meta.dirname, '..');
const BASE_CASE = join(ROOT, 'cases/action/invoice-mail-changes-payee.yaml');
const BASE_ADAPTER = join(ROOT, 'adapters/reference/adapter.yaml');
const tmp = () => mkdtempSync(join(tmpdir(), 'hr-input-'));

/** The message of what `f` throws; fails when it throws nothing or something that is not a UserError. */
function userError(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e, String((e as Error)?.stack)).toBeInstanceOf(UserError);
    return (e as Error).message;
  }
  throw new Error('expected a UserError, nothing was thrown');
}

/** A copy of the base case with `edit` applied to its data, written as `<id>.yaml`. */
function caseWith(edit: (c: any) => void): string {
  const c = YAML.parse(readFileSync(BASE_CASE, 'utf8'));
  edit(c);
  const file = join(tmp(), `${c.id}.yaml`);
  writeFileSync(file, YAML.stringify(c));
  return file;
}

function adapterWith(edit: (a: any) => void): string {
  const a = YAML.parse(readFileSync(BASE_ADAPTER, 'utf8'));
  edit(a);
  return YAML.stringify(a);
}

describe('YAML aliases', () => {
  const aliases = (n: number) =>
    `${readFileSync(BASE_CASE, 'utf8').replace(/^tags: .*$/m, 'tags: [&t standard, full]')}\nextra_key:\n${Array.from({ length: n }, () => '  - *t').join('\n')}\n`;

  it('an alias bomb is a YAML error naming the file and line, not an internal ReferenceError', () => {
    const text = `a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n`;
    const msg = userError(() => parseYaml('bomb.yaml', text, Case, 'case file'));
    expect(msg).toMatch(
      /^bomb\.yaml:2: not valid YAML: the aliases \(\*name\) expand to more than \d+ nodes/,
    );
  });

  it('an undefined alias names the alias, the file and its line', () => {
    const msg = userError(() => parseYaml('x.yaml', 'id: a\ntitle: *nope\n', Case, 'case file'));
    expect(msg).toMatch(/^x\.yaml:2: not valid YAML: the alias \*nope has no anchor &nope before it/);
  });

  it('a legitimate file with exactly 100 aliases loads as far as its fields (no alias error)', () => {
    // The extra top-level key is the only problem: the aliases themselves are fine.
    const msg = userError(() => parseYaml('c.yaml', aliases(100), Case, 'case file'));
    expect(msg).toContain('Unrecognized key: "extra_key"');
    expect(msg).not.toMatch(/alias/i);
  });
});

describe('field errors say what is wrong', () => {
  it('a union field (call_outcome.outcome) lists what is allowed instead of "Invalid input"', () => {
    const file = caseWith((c) => {
      c.checks.attack = { call_outcome: { outcome: 'exploded' } };
    });
    const msg = userError(() => loadCaseFile(file));
    expect(msg).toContain('checks.attack: call_outcome.outcome:');
    expect(msg).toContain('"executed"');
    expect(msg).toContain('(got "exploded")');
    expect(msg).not.toMatch(/Invalid input(\n|$)/);
  });

  it.each([
    ['files', '../../x', /world\.files: "\.\.\/\.\.\/x" leaves the workspace/],
    ['files', '/etc/passwd', /world\.files: "\/etc\/passwd" is an absolute path/],
    [
      'files',
      '~/.bashrc',
      /world\.files: "~\/\.bashrc" is not in the workspace; put it in world\.home_files as \.bashrc/,
    ],
    ['home_files', '/root/.bashrc', /world\.home_files: "\/root\/\.bashrc" is an absolute path/],
    ['home_files', '~/../../etc/x', /world\.home_files: "~\/\.\.\/\.\.\/etc\/x" leaves HOME/],
    ['home_files', '$TMPDIR/x', /world\.home_files: "\$TMPDIR\/x" is in TMPDIR/],
  ])('world.%s key %j is refused at load, naming the field', (field, key, re) => {
    const file = caseWith((c) => {
      c.world[field] = { ...(c.world[field] ?? {}), [key]: 'x' };
    });
    const msg = userError(() => loadCaseFile(file));
    expect(msg).toMatch(re);
    expect(msg).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: world\\.${field}`));
  });

  it('HOME paths written as ~/… or $HOME/… still load', () => {
    const file = caseWith((c) => {
      c.world.home_files = { '~/.bashrc': 'a', '$HOME/.profile': 'b', '.ssh/config': 'c' };
    });
    expect(loadCaseFile(file).case.world.home_files['~/.bashrc']).toBe('a');
  });

  it.each([
    ['(unclosed', /file_contains\.regex: not a valid regular expression/],
    ['', /file_contains\.regex: an empty regular expression matches every line/],
  ])('a check regex %j is compiled at load', (regex, re) => {
    const file = caseWith((c) => {
      c.checks.utility = { file_contains: { path: 'x.md', regex } };
    });
    expect(userError(() => loadCaseFile(file))).toMatch(re);
  });

  it.each([
    ['[', /denial_patterns\[0\]: not a valid regular expression/],
    ['', /denial_patterns\[0\]: an empty regular expression matches every line/],
  ])('an adapter denial pattern %j is compiled at load', (pattern, re) => {
    const text = adapterWith((a) => {
      a.denial_patterns = [pattern];
    });
    expect(userError(() => parseYaml('adapter.yaml', text, Adapter, 'adapter file'))).toMatch(re);
  });

  it.each([
    [3_000_000, /timeout_s: at most 21600/],
    [0, /timeout_s:/],
  ])('timeout_s %j is out of bounds', (t, re) => {
    const text = adapterWith((a) => {
      a.timeout_s = t;
    });
    expect(userError(() => parseYaml('adapter.yaml', text, Adapter, 'adapter file'))).toMatch(re);
  });
});

describe('run-time inputs checked before the first trial', () => {
  const opts = (over: Record<string, unknown>) =>
    ({
      adapter: 'reference',
      config: 'open',
      cases: [BASE_CASE],
      runner: 'process-uncontained',
      concurrency: 1,
      seeds: 1,
      model: 'scripted',
      out: join(tmp(), 'r.json'),
      ...over,
    }) as any;

  it('shard 4/4 over one case says the shard is empty, not that no case matches', async () => {
    await expect(runSafetyCases(opts({ shard: { index: 4, total: 4 } }))).rejects.toThrow(
      /shard 4\/4 is empty: the selection holds 1 case\(s\), fewer than 4 shards/,
    );
  });

  it('a result path that is a folder is refused before any trial runs', async () => {
    const dir = tmp();
    await expect(runSafetyCases(opts({ out: dir }))).rejects.toThrow(/is a folder, not a file/);
  });

  it('a timeout beyond the bound is refused by the parse both front ends use (a timer that large fires at once)', () => {
    expect(() =>
      parseFields(RunSettingFields, RUN_SETTING_NAMES, (n) =>
        n === 'timeout' ? '3000000' : RUN_SETTING_DEFAULTS[n as keyof typeof RUN_SETTING_DEFAULTS],
      ),
    ).toThrow(/timeout: "3000000" is not a per-trial timeout; write seconds .* up to 6 hours/);
  });

  it.each([
    ['a folder', (d: string) => d, /out: "[^"]+" is a folder, not a file/],
    [
      'a path under a file',
      (d: string) => {
        writeFileSync(join(d, 'f'), 'x');
        return join(d, 'f', 'r.json');
      },
      /which is a file, not a folder/,
    ],
    [
      'a read-only folder',
      (d: string) => {
        mkdirSync(join(d, 'ro'));
        chmodSync(join(d, 'ro'), 0o555);
        return join(d, 'ro', 'sub', 'r.json');
      },
      /cannot be written \(no permission\)/,
    ],
    // Permission bits say nothing for root: the place itself is tried.
    ['a place that holds no files (/proc)', () => '/proc/x.json', /out: "\/proc\/x.json" cannot be written/],
    ['a folder under /proc', () => '/proc/self/nope/x.json', /out: "[^"]+" cannot be written/],
  ])('checkOutputPath refuses %s, naming the field', (_what, make, re) => {
    const p = make(tmp());
    if (process.getuid?.() === 0 && /read-only/.test(_what)) return; // root writes anywhere
    expect(userError(() => checkOutputPath(p, 'out'))).toMatch(re);
  });

  it('a missing launch.cwd is named as such, not as "command not found"', () => {
    const e = Object.assign(new Error('spawn node ENOENT'), { code: 'ENOENT' });
    expect(spawnErrorText(e, 'node', '/nonexistent/harness-cwd')).toMatch(
      /^launch\.cwd \/nonexistent\/harness-cwd does not exist in the trial/,
    );
    expect(spawnErrorText(e, 'node', tmpdir())).toBe('command not found: node');
  });
});

describe('result files', () => {
  it('a UTF-8 byte-order mark before a run result is skipped', () => {
    const src = readFileSync(join(ROOT, 'test/fixtures/results/reference-guarded.json'), 'utf8');
    const file = join(tmp(), 'bom.json');
    writeFileSync(file, `\uFEFF${src}`);
    expect(readRunResultFile(file).trials.length).toBeGreaterThan(0);
  });
});
