// What a run launched is its identity, for the reproduce command and for --resume: a wiring run is
// reproduced with `--wiring FILE` (its configuration is the wiring's name, no configuration of the
// adapter), a run of another harness build with `--harness-package PKG@VER`; and a resumed run is the run
// it continues only with the same wiring content and the same build (before, a changed wiring file or a
// different --harness-package carried the old trials over).
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSafetyCases } from '../src/engine/run.js';
import { harnessArgs, reproduceCommand } from '../src/report/reproduce.js';
import { JournalWriter } from '../src/result/journal.js';
import type { RunResult } from '../src/spec/run-result.js';
import { freshOut, scriptedRun, useTempDir } from './support/engine-run.js';

const dir = useTempDir('hr-identity-');

describe('the reproduce command names what ran', () => {
  const adapter = { name: 'claude-code', config: 'pr-review', file: 'adapters/claude-code/adapter.yaml' };
  it('a wiring run: --wiring FILE, not a configuration the adapter does not have', () => {
    const cmd = reproduceCommand({ adapter: { ...adapter, wiring: 'ci/pr-review.yaml' }, caseId: 'c1' });
    expect(cmd).toBe('harness-risk run --wiring ci/pr-review.yaml --cases id:c1');
  });
  it('another harness build: --harness-package PKG@VER, with the adapter and its configuration', () => {
    const build = { package: '@anthropic-ai/claude-code', version: '2.1.300' };
    expect(harnessArgs({ ...adapter, config: 'default', build })).toEqual([
      '--adapter',
      'claude-code',
      '--config',
      'default',
      '--harness-package',
      '@anthropic-ai/claude-code@2.1.300',
    ]);
    const cmd = reproduceCommand({
      adapter: { ...adapter, wiring: 'w.yaml', build },
      caseId: 'c1',
      seeds: 3,
    });
    expect(cmd).toBe(
      'harness-risk run --wiring w.yaml --harness-package @anthropic-ai/claude-code@2.1.300 --cases id:c1 --seeds 3',
    );
  });
  it('a run under strategies: --strategies with its selection; direct alone adds nothing', () => {
    const base = { adapter: { ...adapter, config: 'default' }, caseId: 'c1' };
    expect(reproduceCommand({ ...base, strategies: ['direct', 'fused'] })).toBe(
      'harness-risk run --adapter claude-code --config default --cases id:c1 --strategies direct,fused',
    );
    expect(reproduceCommand({ ...base, strategies: ['direct'] })).toBe(
      'harness-risk run --adapter claude-code --config default --cases id:c1',
    );
  });
  it('an ACP agent the run named: --acp-command with it, quoted; a command unsafe to print gives none', () => {
    const acp = { name: 'acp', config: 'allow', file: 'adapters/acp/adapter.yaml' };
    const acp_command = ['{{cache}}/node/bin/node', '/opt/agent/cli.js', '--acp', '--auth-type', 'openai'];
    expect(reproduceCommand({ adapter: { ...acp, acp_command }, caseId: 'c1' })).toBe(
      `harness-risk run --adapter acp --config allow --acp-command '["{{cache}}/node/bin/node","/opt/agent/cli.js","--acp","--auth-type","openai"]' --cases id:c1`,
    );
    for (const word of ["it's", 'a`b`', '$(id)', 'a|b', '<x>'])
      expect(
        reproduceCommand({ adapter: { ...acp, acp_command: ['agent', word] }, caseId: 'c1' }),
        word,
      ).toBe(undefined);
  });
});

/** A journal with `result`'s header and no trial: what a run killed before its first trial leaves. */
function journalOf(out: string): void {
  const {
    trials: _t,
    summary: _s,
    status: _st,
    finished_at: _f,
    ...header
  } = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
  new JournalWriter(`${out}.journal`, header).close();
}

const WIRING = (env: string[]) => `
name: triage
on: [issues, issue_comment]
harness: reference
config: open
prompt: |
  Triage this issue: {{event.issue.title}}
  {{request}}
env: [${env.join(', ')}]
`;

describe('--resume keys on what ran', () => {
  it('a wiring whose content changed is another run', async () => {
    const wiring = join(dir(), 'triage.yaml');
    writeFileSync(wiring, WIRING(['NPM_TOKEN']));
    const out = freshOut(dir());
    const opts = { adapter: '', config: 'triage', wiring, cases: ['id:issue-body-secrets-inventory'], out };
    const first = await runSafetyCases(scriptedRun(opts));
    expect(first.adapter.wiring).toBe(
      wiring.startsWith(process.cwd()) ? wiring.slice(process.cwd().length + 1) : wiring,
    );
    journalOf(out);
    writeFileSync(wiring, WIRING(['NPM_TOKEN', 'DEPLOY_KEY']));
    await expect(runSafetyCases(scriptedRun({ ...opts, resume: out }))).rejects.toThrow(
      /not a journal of this run: adapter files, wiring file and harness build \(digest\) was \w+, now \w+/,
    );
  }, 120_000);

  it('another --harness-package is another run', async () => {
    // The mini harness, declaring the package it stands for (a team's harness installed in its repository).
    const adapterDir = join(dir(), 'mini');
    cpSync(join(import.meta.dirname, 'fixtures/mini-harness'), adapterDir, {
      recursive: true,
      dereference: true,
    });
    const yaml = join(adapterDir, 'adapter.yaml');
    writeFileSync(yaml, `${readFileSync(yaml, 'utf8')}harness: { package: mini-agent, version: 1.0.0 }\n`);
    const out = freshOut(dir());
    const opts = { adapter: adapterDir, config: 'open', cases: ['id:install-doc-wget-toolchain'], out };
    await runSafetyCases(scriptedRun(opts));
    journalOf(out);
    await expect(
      runSafetyCases(
        scriptedRun({ ...opts, harness_package: { package: 'mini-agent', version: '2.0.0' }, resume: out }),
      ),
    ).rejects.toThrow(/harness build was unset, now mini-agent@2\.0\.0/);
  }, 120_000);

  it('another ACP agent command is another run, and the result names the command', async () => {
    const agent = [process.execPath, join(import.meta.dirname, 'fixtures', 'acp', 'agent.mjs')];
    const out = freshOut(dir());
    const opts = { adapter: 'acp', config: 'allow', cases: ['id:install-doc-wget-toolchain'], out };
    const first = await runSafetyCases(scriptedRun({ ...opts, acp_command: agent }));
    expect(first.adapter.acp_command).toEqual(agent);
    journalOf(out);
    await expect(
      runSafetyCases(scriptedRun({ ...opts, acp_command: [...agent, '--other'], resume: out })),
    ).rejects.toThrow(/ACP agent command was \[.*agent\.mjs"\], now \[.*"--other"\]/);
  }, 120_000);

  it('a journal another engine commit wrote is another run (a result names one engine)', async () => {
    const out = freshOut(dir());
    const opts = { adapter: 'reference', config: 'open', cases: ['id:install-doc-wget-toolchain'], out };
    const first = await runSafetyCases(scriptedRun(opts));
    expect(first.tool.commit).toMatch(/^[0-9a-f]{40}$/);
    const { trials: _t, summary: _s, status: _st, finished_at: _f, ...header } = first;
    // The same run, same engine: resumable.
    new JournalWriter(`${out}.journal`, header).close();
    await expect(runSafetyCases(scriptedRun({ ...opts, resume: out }))).resolves.toMatchObject({
      status: 'complete',
    });
    // Written by another commit of the engine: refused, naming both.
    new JournalWriter(`${out}.journal`, {
      ...header,
      tool: { ...header.tool, commit: '0'.repeat(40) },
    }).close();
    await expect(runSafetyCases(scriptedRun({ ...opts, resume: out }))).rejects.toThrow(
      /not a journal of this run: engine was 000000000000( \(modified\))?, now [0-9a-f]{12}/,
    );
  }, 120_000);
});
