// The CLI as users run it: the bundled dist/cli.js in a child process.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const cli = (...args: string[]) =>
  spawnSync(process.execPath, ['dist/cli.js', ...args], { encoding: 'utf8', timeout: 120_000 });

describe('harness-risk CLI', () => {
  it.each([
    [
      [
        'run',
        '--adapter',
        'reference',
        '--config',
        'open',
        '--cases',
        'test/fixtures/cases-bad/bad-phase.yaml',
      ],
      /bad-phase\.yaml:3: phase: /,
    ],
    [['run', '--adapter', 'no-such-harness'], /unknown adapter "no-such-harness".*\n.*use one of/],
    [
      ['run', '--adapter', 'reference', '--config', 'nope'],
      /has no configuration "nope"\n.*use one of open, guarded/,
    ],
    [
      ['run', '--adapter', 'reference', '--config', 'open', '--cases', 'phase:deploy'],
      /unknown phase "deploy"/,
    ],
    [
      ['run', '--adapter', 'reference', '--config', 'open', '--shard', 'x'],
      /--shard "x" is not a shard; write i\/n with 1 ≤ i ≤ n, e.g. 2\/4/,
    ],
    // Silently running the first of several configurations measured something nobody picked.
    [
      ['run', '--adapter', 'reference'],
      /--config is required: adapter reference has 2 configurations \(open, guarded\)/,
    ],
    [['run', '--adapter', 'reference', '--bogus'], /Unknown option '--bogus'/],
    [['frobnicate'], /unknown command "frobnicate"/],
    // Asking a command that does not exist for its help names it, not the global help with exit 0.
    [['lint', '--help'], /unknown command "lint"/],
    // list takes one topic, as run and validate take no word: a typo, a second word or a glob the shell
    // expanded after --cases is refused, never answered with every case.
    [
      ['list', 'strategis'],
      /list: unknown topic "strategis" \(did you mean strategies\?\)\n.*cases, taxonomy/,
    ],
    [['list', 'cases', 'extra'], /Unexpected argument 'extra'/],
    [
      [
        'list',
        'cases',
        '--cases',
        'test/fixtures/cases-why/why-check-fails.yaml',
        'test/fixtures/cases-why/why-never-seen.yaml',
      ],
      /Unexpected argument 'test\/fixtures\/cases-why\/why-never-seen\.yaml'/,
    ],
    [
      ['list', 'cases', '--cases', 'cases/*/variantz/*.yaml'],
      /"cases\/\*\/variantz\/\*\.yaml" matches no case file/,
    ],
    [
      [
        'run',
        '--adapter',
        'reference',
        '--config',
        'open',
        '--cases',
        'subset:smoke',
        '--cases',
        'no-such-dir/*.yaml',
      ],
      /"no-such-dir\/\*\.yaml" matches no case file/,
    ],
  ])('%j → a clear message, exit 2, no stack trace', (args, message) => {
    const r = cli(...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  // The global help lists no command's flags: a flag mistake points at the help of its own command.
  it.each([
    ['run'],
    ['list'],
    ['validate'],
    ['coverage'],
    ['schema'],
    ['doctor'],
    ['bisect'],
    ['matrix'],
    ['compare'],
  ])('%s --bogus points at its own --help', (cmd) => {
    const r = cli(cmd, '--bogus');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`Unknown option '--bogus'\\n  → run harness-risk ${cmd} --help\\n$`));
  });

  it("a bad flag value points at its command's --help", () => {
    const r = cli('doctor', '--adapter', 'reference', '--acp-command', '[1');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /--acp-command "\[1" is not a command.*\n {2}→ run harness-risk doctor --help\n$/,
    );
  });

  it('runs a smoke case and prints the phase table; the result file is complete', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'hr-cli-')), 'r.json');
    const r = cli(
      'run',
      '--adapter',
      'reference',
      '--config',
      'open',
      '--cases',
      'subset:smoke',
      '--cases',
      'phase:recovery',
      '--out',
      out,
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/phase\s+cases\s+valid\s+ASR\s+persist\s+utility\s+detect\s+CSS/);
    expect(r.stdout).toMatch(/^recovery\s+1\s+1\s+/m);
    expect(r.stderr).toMatch(/\[1\/1\] .*: attack SUCCEEDED/);
    // Not a terminal: plain lines with elapsed time and the running ASR, no escape codes.
    expect(r.stderr).toMatch(/\[1\/1\] \d+:\d\d elapsed · ETA – · ASR 100\.0% \(1\/1 unsafe\)/);
    expect(r.stderr).not.toContain('\x1b[');
    // The closing list: the unsafe case with the command that reruns it alone.
    expect(r.stdout).toMatch(/^Unsafe \(1\): the attack succeeded\n {2}\S+ /m);
    expect(r.stdout).toMatch(/^ {4}harness-risk run --adapter reference --config open --cases id:\S+$/m);
    expect(JSON.parse(readFileSync(out, 'utf8')).status).toBe('complete');
  });

  it.each([['run'], ['list'], ['validate'], ['coverage'], ['schema']])(
    '%s --help prints that command’s usage, exit 0',
    (cmd) => {
      const r = cli(cmd, '--help');
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage:\\n {2}harness-risk ${cmd}\\b`, 'm'));
      expect(r.stdout).not.toContain('harness-risk matrix'); // not the global text
      expect(r.stderr).toBe('');
    },
  );

  it('coverage prints the phase and entry point × effect tables', () => {
    const r = cli('coverage');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('### Entry point × effect');
    expect(r.stdout).toMatch(/\| workspace_file +\|/);
  });

  it('list cases | head -1: no EPIPE stack trace when the reader goes away', () => {
    const r = spawnSync(
      'bash',
      ['-c', `set -o pipefail; '${process.execPath}' dist/cli.js list cases | head -1`],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(r.status).toBe(0);
  });
});
