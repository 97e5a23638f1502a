// The results matrix over several adapter configurations: one engine run per cell, markdown + JSON by phase.
// Runs the bundled reference harness (dist/) and the fifth, out-of-tree test harness.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAdapterSpecs, runMatrix, storedCell } from '../src/matrix/index.js';
import { matrixMarkdown } from '../src/matrix/markdown.js';
import type { MatrixResult } from '../src/matrix/types.js';
import { describeEngine } from '../src/result/engine-name.js';
import { RunResult } from '../src/spec/run-result.js';
import { PHASES } from '../src/spec/vocabulary.js';
import { makeResult } from './fixtures/results/builders.js';

const MINI = join(import.meta.dirname, 'fixtures', 'mini-harness');

describe('parseAdapterSpecs', () => {
  it('splits NAME:CONFIG,CONFIG and merges repeats', () => {
    expect(
      parseAdapterSpecs(['codex:read-only,danger-full-access', 'pi', 'codex:workspace-write', '/x/y/mine:a']),
    ).toEqual([
      { adapter: 'codex', configs: ['read-only', 'danger-full-access', 'workspace-write'] },
      { adapter: 'pi', configs: [] },
      { adapter: '/x/y/mine', configs: ['a'] },
    ]);
    expect(parseAdapterSpecs(['codex:read-only', 'codex'])).toEqual([{ adapter: 'codex', configs: [] }]);
  });
});

describe('runMatrix', () => {
  let dir: string;
  let m: MatrixResult;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hr-matrix-'));
    m = await runMatrix({
      adapters: [
        { adapter: 'reference', configs: ['open', 'guarded'] },
        { adapter: MINI, configs: [] },
      ],
      cases: ['subset:smoke'],
      out: dir,
      concurrency: 2,
      command:
        'harness-risk matrix --adapter reference:open,guarded --adapter test/fixtures/mini-harness --cases subset:smoke --out DIR',
    });
  }, 300_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('has one cell per adapter configuration, in order, each a complete run result on disk', () => {
    expect(m.cells.map((c) => `${c.adapter}/${c.config}`)).toEqual([
      'reference/open',
      'reference/guarded',
      'mini/open',
      'mini/guarded',
    ]);
    for (const c of m.cells) {
      expect(c.status).toBe('complete');
      const doc = RunResult.parse(JSON.parse(readFileSync(join(dir, c.result), 'utf8')));
      expect(doc.adapter.config).toBe(c.config);
      expect(doc.summary.overall).toEqual(c.overall);
      expect(Object.keys(c.phases).sort()).toEqual([...PHASES].sort());
    }
    expect(m.cases.ids).toHaveLength(PHASES.length);
  });

  it('shows the safety difference between configurations', () => {
    const cell = (a: string, c: string) => m.cells.find((x) => x.adapter === a && x.config === c)!;
    expect(cell('reference', 'open').overall.asr).toBeGreaterThan(cell('reference', 'guarded').overall.asr);
    expect(cell('reference', 'open').overall.css).toBeLessThan(cell('reference', 'guarded').overall.css);
  });

  it('writes matrix.json and matrix.md with ASR, persistence, utility and CSS by phase', () => {
    const json = JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8'));
    expect(json.schema_version).toBe(1);
    expect(json.cells).toHaveLength(4);
    const md = readFileSync(join(dir, 'matrix.md'), 'utf8');
    for (const h of [
      '## Attack success rate (ASR) by phase',
      '## Persistence by phase',
      '## Utility by phase',
      '## Composite safety score (CSS) by phase',
    ]) {
      expect(md).toContain(h);
    }
    expect(md).toContain(`| adapter | config | ${PHASES.join(' | ')} | overall |`);
    expect(md).toContain('| reference | `open` |');
    expect(md).toContain('harness-risk matrix --adapter reference:open,guarded');
  });

  it('resumes: complete cells are reused, not rerun', async () => {
    const events: string[] = [];
    const again = await runMatrix({
      adapters: [{ adapter: 'reference', configs: ['open'] }],
      cases: ['subset:smoke'],
      out: dir,
      resume: true,
      on_progress: (e) => {
        if (e.kind === 'cell') events.push(`${e.config}:${e.reused}`);
        if (e.kind === 'trial') events.push('trial');
      },
    });
    expect(events).toEqual(['open:true']);
    expect(again.cells[0]!.overall).toEqual(m.cells[0]!.overall);
    expect(existsSync(join(dir, 'matrix.md'))).toBe(true);
  });

  it('resumes only a cell that answers the same question: other cases or seeds are rerun', async () => {
    const cellsRun = async (cases: string[], seeds = 1) => {
      const events: string[] = [];
      await runMatrix({
        adapters: [{ adapter: 'reference', configs: ['open'] }],
        cases,
        seeds,
        out: dir,
        resume: true,
        on_progress: (e) => {
          if (e.kind === 'cell') events.push(`${e.config}:${e.reused}`);
        },
      });
      return events;
    };
    // The stored cell holds the smoke cases: a narrower selection is a different question.
    expect(await cellsRun(['subset:smoke', 'phase:action'])).toEqual(['open:false']);
    expect(await cellsRun(['subset:smoke', 'phase:action'])).toEqual(['open:true']);
    expect(await cellsRun(['subset:smoke', 'phase:action'], 2)).toEqual(['open:false']);
    // Same case id, edited text: a new revision, so the stored answer is stale.
    const file = join(dir, 'edited-case.yaml');
    copyFileSync(join('cases', 'configuration', 'setup-guide-disables-approval.yaml'), file);
    expect(await cellsRun([file])).toEqual(['open:false']);
    expect(await cellsRun([file])).toEqual(['open:true']);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^title: (.*)$/m, 'title: $1 (edited)'));
    expect(await cellsRun([file])).toEqual(['open:false']);
  });

  it('resumes an interrupted cell from its journal: the trials it kept are not run again', async () => {
    const out = await mkdtemp(join(tmpdir(), 'hr-matrix-interrupted-'));
    try {
      const stop = new AbortController();
      const first: string[] = [];
      const matrix = (signal?: AbortSignal, cases = ['subset:smoke'], events: string[] = []) =>
        runMatrix({
          adapters: [{ adapter: 'reference', configs: ['open'] }],
          cases,
          out,
          concurrency: 1,
          resume: true,
          ...(signal ? { signal } : {}),
          on_progress: (e) => {
            if (e.kind === 'trial' && !/^run interrupted/.test(e.reason ?? '')) {
              events.push(e.case_id);
              if (signal && events.length === 2) stop.abort();
            }
            if (e.kind === 'notice') events.push(`notice: ${e.message}`);
          },
        });
      const stopped = await matrix(stop.signal, undefined, first);
      expect(stopped.cells[0]!.status).toBe('interrupted');
      const done = first.filter((x) => !x.startsWith('notice'));
      expect(done.length).toBeGreaterThanOrEqual(2);
      const second: string[] = [];
      const again = await matrix(undefined, undefined, second);
      expect(again.cells[0]!.status).toBe('complete');
      expect(second.some((x) => /resuming from .*: \d+ trial\(s\) kept/.test(x))).toBe(true);
      const rerun = second.filter((x) => !x.startsWith('notice'));
      // Trials the first pass finished are kept, not run again; the rest run once.
      const kept = RunResult.parse(JSON.parse(readFileSync(join(out, again.cells[0]!.result), 'utf8')));
      expect(kept.trials).toHaveLength(m.cases.ids.length);
      expect(rerun.length).toBeLessThan(m.cases.ids.length);
      expect(rerun.length + done.length).toBeGreaterThanOrEqual(m.cases.ids.length);
      expect(kept.trials.every((t) => t.valid || t.not_applicable !== undefined)).toBe(true);

      // A journal of another question (other cases) is not carried over: the cell starts afresh.
      const stop2 = new AbortController();
      const third: string[] = [];
      await runMatrix({
        adapters: [{ adapter: 'reference', configs: ['open'] }],
        cases: ['subset:smoke'],
        seeds: 2,
        out,
        concurrency: 1,
        resume: true,
        signal: stop2.signal,
        on_progress: (e) => {
          if (e.kind === 'trial' && third.push(e.case_id) === 1) stop2.abort();
        },
      });
      const fourth: string[] = [];
      await matrix(undefined, ['subset:smoke', 'phase:action'], fourth);
      expect(
        fourth.some((x) => x.includes('is of another run') && x.includes('starting the cell afresh')),
      ).toBe(true);
      // ... and what the other run collected is renamed aside, not overwritten.
      const keptAs = fourth.find((x) => x.includes('the earlier run kept as'))?.split('kept as ')[1];
      expect(keptAs).toMatch(/reference--open\.superseded-\d+\.json$/);
      const earlier = readFileSync(`${keptAs}.journal`, 'utf8').trim().split('\n');
      expect(earlier.slice(1).some((l) => JSON.parse(l).trial?.case_id === third[0])).toBe(true);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 300_000);

  it('--reuse-only runs nothing: stored cells are the matrix, the others are listed as not run with why', async () => {
    const out = await mkdtemp(join(tmpdir(), 'hr-matrix-reuse-only-'));
    try {
      const one = ['subset:smoke', 'phase:action'];
      await runMatrix({ adapters: [{ adapter: 'reference', configs: ['open'] }], cases: one, out });
      const events: string[] = [];
      const only = (cases: string[]) =>
        runMatrix({
          adapters: [
            { adapter: 'reference', configs: ['open', 'guarded'] },
            { adapter: MINI, configs: ['open'] },
          ],
          cases,
          out,
          reuse_only: true,
          on_progress: (e) => events.push(e.kind),
        });
      const m1 = await only(one);
      expect(events).not.toContain('trial');
      expect(m1.cells.map((c) => `${c.adapter}/${c.config}`)).toEqual(['reference/open']);
      expect(m1.not_run).toEqual([
        { adapter: 'reference', config: 'guarded', why: 'no run result' },
        { adapter: 'mini', config: 'open', why: 'no run result' },
      ]);
      const md = readFileSync(join(out, 'matrix.md'), 'utf8');
      expect(md).toContain('× 1 adapter configuration(s) (2 more not run)');
      expect(md).toContain('## Not run');
      expect(md).toContain('| reference | `guarded` | no run result |');
      // Another selection: the stored cell answers another question, and says so.
      const m2 = await only(['subset:smoke']);
      expect(m2.cells).toEqual([]);
      expect(readFileSync(join(out, 'matrix.md'), 'utf8')).not.toContain('by phase'); // no empty tables
      expect(m2.not_run?.[0]).toEqual({
        adapter: 'reference',
        config: 'open',
        why: 'another question: 1 cases, not the 6 selected',
      });
      expect(events).not.toContain('trial');
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 120_000);

  it('acp: the agent comes from acp_command; without one the matrix stops before any run, and --reuse-only says why', async () => {
    const out = await mkdtemp(join(tmpdir(), 'hr-matrix-acp-'));
    const one = ['subset:smoke', 'phase:action'];
    const agent = [process.execPath, join(import.meta.dirname, 'fixtures', 'acp', 'agent.mjs')];
    try {
      // Before: the matrix had no way to name the agent, and the first cell failed after the others ran.
      await expect(
        runMatrix({
          adapters: [
            { adapter: 'reference', configs: ['open'] },
            { adapter: 'acp', configs: ['allow'] },
          ],
          cases: one,
          out,
        }),
      ).rejects.toThrow(/--acp-command/);
      expect(existsSync(join(out, 'runs', 'reference--open.json'))).toBe(false);
      await expect(
        runMatrix({
          adapters: [{ adapter: 'reference', configs: ['open'] }],
          cases: one,
          out,
          acp_command: agent,
        }),
      ).rejects.toThrow(/no adapter in the matrix drives an agent/);
      // With the agent's command the acp cell runs it; the reference cell keeps its own command.
      const m = await runMatrix({
        adapters: [
          { adapter: 'reference', configs: ['open'] },
          { adapter: 'acp', configs: ['allow'] },
        ],
        cases: one,
        out,
        acp_command: agent,
      });
      expect(m.cells.map((c) => `${c.adapter}/${c.config}:${c.trials}`)).toEqual([
        'reference/open:1',
        'acp/allow:1',
      ]);
      expect(m.cells[0]!.valid).toBe(1);
      const stored = JSON.parse(readFileSync(join(out, 'runs', 'acp--allow.json'), 'utf8'));
      expect(JSON.stringify(stored.trials[0])).not.toContain('has no launch.command');
      // Assembling stored runs needs no command; a cell with none says what it takes.
      const r = await runMatrix({
        adapters: [{ adapter: 'acp', configs: ['allow', 'deny'] }],
        cases: one,
        out,
        reuse_only: true,
      });
      expect(r.cells.map((c) => c.config)).toEqual(['allow']);
      expect(r.not_run).toEqual([
        {
          adapter: 'acp',
          config: 'deny',
          why: 'no run result; it drives the ACP agent you name (--acp-command)',
        },
      ]);
      // A stored run of one agent is not the cell of another: reuse keys on the agent's command.
      const other = await runMatrix({
        adapters: [{ adapter: 'acp', configs: ['allow'] }],
        cases: one,
        out,
        reuse_only: true,
        acp_command: [...agent, '--other-agent'],
      });
      expect(other.cells).toEqual([]);
      expect(other.not_run?.[0]?.why).toMatch(/^another question: ACP agent \[.*agent\.mjs"\]$/);
      const same = await runMatrix({
        adapters: [{ adapter: 'acp', configs: ['allow'] }],
        cases: one,
        out,
        reuse_only: true,
        acp_command: agent,
      });
      expect(same.cells.map((c) => c.config)).toEqual(['allow']);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 300_000);

  it('--from assembles stored runs from other folders; --accept-edited admits a cell measured before an edit and names the case', async () => {
    const root = await mkdtemp(join(tmpdir(), 'hr-matrix-from-'));
    try {
      const one = ['subset:smoke', 'phase:action'];
      const made = join(root, 'made');
      await runMatrix({
        adapters: [{ adapter: 'reference', configs: ['open', 'guarded'] }],
        cases: one,
        out: made,
      });
      // A second folder holding an earlier measurement of `guarded`: its first case at another revision.
      const earlier = join(root, 'earlier');
      execFileSync('mkdir', ['-p', earlier]);
      const doc = JSON.parse(readFileSync(join(made, 'runs', 'reference--guarded.json'), 'utf8'));
      const editedId = doc.cases[0].id as string;
      doc.cases[0].revision = 'an-earlier-revision';
      writeFileSync(join(earlier, 'reference--guarded.json'), JSON.stringify(doc));
      copyFileSync(join(made, 'runs', 'reference--open.json'), join(earlier, 'reference--open.json'));
      const out = join(root, 'assembled');
      const assemble = (accept: boolean) =>
        runMatrix({
          adapters: [{ adapter: 'reference', configs: ['open', 'guarded'] }],
          cases: one,
          out,
          reuse_only: true,
          from: [earlier],
          ...(accept ? { accept_edited: true } : {}),
        });
      const strict = await assemble(false);
      expect(strict.cells.map((c) => [c.config, c.result])).toEqual([
        ['open', '../earlier/reference--open.json'],
      ]);
      expect(strict.not_run?.[0]?.why).toMatch(/^another question: 1 case\(s\) edited since/);
      expect(existsSync(join(out, 'runs'))).toBe(false); // nothing is run, so no runs/ folder is made
      const admitted = await assemble(true);
      expect(admitted.not_run).toEqual([]);
      expect(admitted.cells.map((c) => [c.config, c.edited_cases])).toEqual([
        ['open', undefined],
        ['guarded', [editedId]],
      ]);
      const md = readFileSync(join(out, 'matrix.md'), 'utf8');
      expect(md).toContain('1 of them with cases at an earlier revision (see Builds)');
      expect(md).toMatch(new RegExp(`\\| reference \\| \`guarded\` \\| [^\n]*\\| 1: ${editedId} \\|`));
      // Two folders: the first one holding an answering run wins, a later one is not read.
      const both = await runMatrix({
        adapters: [{ adapter: 'reference', configs: ['guarded'] }],
        cases: one,
        out,
        reuse_only: true,
        from: [join(made, 'runs'), earlier],
      });
      expect(both.cells.map((c) => [c.result, c.edited_cases])).toEqual([
        ['../made/runs/reference--guarded.json', undefined],
      ]);
      // The flags only assemble: a matrix that runs cells writes them to OUT/runs.
      await expect(
        runMatrix({
          adapters: [{ adapter: 'reference', configs: ['open'] }],
          cases: one,
          out,
          from: [earlier],
        }),
      ).rejects.toThrow(/--from and --accept-edited only assemble stored runs/);
      await expect(
        runMatrix({
          adapters: [{ adapter: 'reference', configs: ['open'] }],
          cases: one,
          out,
          reuse_only: true,
          from: [join(root, 'nope')],
        }),
      ).rejects.toThrow(/matrix --from .*nope: no such folder/);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 120_000);

  it('describes its selection even when stopped before the first cell', async () => {
    const out = await mkdtemp(join(tmpdir(), 'hr-matrix-stopped-'));
    try {
      const stopped = await runMatrix({
        adapters: [{ adapter: 'reference', configs: ['open'] }],
        cases: ['subset:smoke'],
        out,
        signal: AbortSignal.abort(),
      });
      expect(stopped.cells).toEqual([]);
      expect(stopped.cases.ids).toEqual(m.cases.ids);
      expect(stopped.cases.by_phase).toEqual(m.cases.by_phase);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  it('names the engine and harness build of every cell; a matrix mixing engines says which cell ran on which', () => {
    const doc = RunResult.parse(JSON.parse(readFileSync(join(dir, m.cells[0]!.result), 'utf8')));
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    expect(doc.tool.commit).toBe(head);
    expect(m.cells[0]!.engine).toBe(describeEngine(doc.tool));
    const md = readFileSync(join(dir, 'matrix.md'), 'utf8');
    expect(md).toContain(`Every cell ran on harness-risk-action ${describeEngine(doc.tool)}.`);
    const mixed = matrixMarkdown({
      ...m,
      cells: [m.cells[0]!, { ...m.cells[1]!, engine: '1.0.0 (0123456)', harness: 'pkg|x 2.0' }],
    });
    expect(mixed).not.toContain('Every cell ran on');
    expect(mixed).toContain('| adapter | config | harness | engine |');
    expect(mixed).toContain('| reference | `guarded` | pkg&#124;x 2.0 | 1.0.0 (0123456) |');
  });

  it('the valid column counts apart the not-applicable trials and those defended before the injection arrived', () => {
    const c = m.cells[0]!;
    const md = matrixMarkdown({
      ...m,
      cells: [{ ...c, not_applicable: 2, overall: { ...c.overall, delivery_refused: 3 } }],
    });
    expect(md).toMatch(/\| \S+ \(2 not applicable; 3 defended before the injection arrived\) \|/);
    expect(matrixMarkdown({ ...m, cells: [c] })).not.toContain('defended before');
  });

  it('escapes what it renders from adapter files', () => {
    const md = matrixMarkdown({
      ...m,
      cells: [
        { ...m.cells[0]!, adapter: 'x|<img src=x>', description: '@team see [link](http://e.test) | pipe' },
      ],
    });
    expect(md).not.toContain('<img');
    expect(md).not.toContain('[link](');
    expect(md).not.toMatch(/@team/);
  });
});

describe('runMatrix --strategies', () => {
  let out: string;
  const events: string[] = [];
  const run = (strategies?: ('direct' | 'encoded' | 'indirect')[]) =>
    runMatrix({
      adapters: [{ adapter: 'reference', configs: ['guarded'] }],
      cases: ['subset:smoke', 'phase:runtime'],
      out,
      resume: true,
      ...(strategies ? { strategies } : {}),
      on_progress: (e) => {
        if (e.kind === 'cell') events.push(`${strategies?.join('+') ?? 'default'}:${e.reused}`);
      },
    });
  let m: MatrixResult;
  beforeAll(async () => {
    out = await mkdtemp(join(tmpdir(), 'hr-matrix-strategies-'));
    m = await run(['direct', 'encoded']);
  }, 300_000);
  afterAll(async () => {
    await rm(out, { recursive: true, force: true });
  });

  it('one cell per configuration, each case run once per strategy', () => {
    expect(m.cells).toHaveLength(1);
    const doc = RunResult.parse(JSON.parse(readFileSync(join(out, m.cells[0]!.result), 'utf8')));
    expect(doc.trials.length).toBe(2 * m.cases.ids.length);
    expect(new Set(doc.trials.map((t) => t.strategy ?? 'direct'))).toEqual(new Set(['direct', 'encoded']));
    expect(m.strategies).toEqual(['direct', 'encoded']);
    expect(Object.keys(m.cells[0]!.strategies ?? {}).sort()).toEqual(['direct', 'encoded']);
  });

  it('the markdown gains ASR per strategy beside the worst case', () => {
    const md = matrixMarkdown(m);
    expect(md).toContain('## ASR by strategy');
    const row = md
      .split('\n')
      .find((l) => l.startsWith('| reference | `guarded` |') && l.split('|').length === 7);
    const c = m.cells[0]!;
    const pct = (x: number) => `${Math.round(x * 100)}%`;
    expect(row).toBe(
      `| reference | \`guarded\` | ${pct(c.strategies!.direct!.asr)} | ${pct(c.strategies!.encoded!.asr)} | ${pct(c.overall.asr)} |`,
    );
  });

  it('resumes only a cell run with the same strategies', async () => {
    events.length = 0;
    await run(['encoded', 'direct']); // the same set, in another order: reused
    await run(); // direct only: another question
    await run(['direct', 'indirect']);
    expect(events).toEqual(['encoded+direct:true', 'default:false', 'direct+indirect:false']);
  }, 300_000);
});

describe('storedCell: why a stored run does not answer the matrix', () => {
  const want = (
    revisions: [string, string][],
    over: Partial<{ seeds: number; strategies: string }> = {},
  ) => ({
    revisions: new Map(revisions),
    seeds: 1,
    runner: 'process' as const,
    strategies: 'direct',
    ...over,
  });
  const stored = (doc: RunResult) => {
    const file = join(mkdtempSync(join(tmpdir(), 'hr-stored-')), 'cell.json');
    writeFileSync(file, JSON.stringify(doc));
    return file;
  };
  const base = makeResult([
    { id: 'c1', phase: 'runtime', seeds: [false] },
    { id: 'c2', phase: 'action', seeds: [true] },
  ]);
  const revs = base.cases.map((c) => [c.id, c.revision] as [string, string]);

  it.each([
    ['the same question', base, want(revs), undefined],
    [
      'an interrupted run',
      { ...base, status: 'interrupted' as const },
      want(revs),
      /^interrupted \(\d+ of \d+ trials\)$/,
    ],
    ['other seeds', base, want(revs, { seeds: 3 }), /^another question: 1 seed\(s\)$/],
    [
      'other strategies',
      base,
      want(revs, { strategies: 'direct,encoded' }),
      /^another question: strategies direct$/,
    ],
    ['another selection', base, want(revs.slice(1)), /^another question: \d+ cases, not the \d+ selected$/],
    [
      'an edited case',
      base,
      want(revs.map(([id], i) => [id, i === 0 ? 'edited' : revs[i]![1]])),
      /^another question: 1 case\(s\) edited since/,
    ],
  ])('%s', (_name, doc, w, why) => {
    const r = storedCell(stored(doc as RunResult), w);
    if (why) expect('why' in r && r.why).toMatch(why);
    else expect('doc' in r).toBe(true);
  });

  it('an edited case, admitted: the cell names the cases measured at an earlier revision', () => {
    const w = { ...want(revs.map(([id], i) => [id, i === 0 ? 'edited' : revs[i]![1]])), acceptEdited: true };
    const r = storedCell(stored(base), w);
    expect('doc' in r && r.edited).toEqual(['c1']);
    expect(storedCell(stored(base), { ...want(revs), acceptEdited: true })).not.toHaveProperty('edited');
  });

  it('no file, or a file this version cannot read', () => {
    expect(storedCell('/nonexistent/cell.json', want(revs))).toEqual({ why: 'no run result', missing: true });
    const bad = join(mkdtempSync(join(tmpdir(), 'hr-stored-')), 'cell.json');
    writeFileSync(bad, '{"schema_version": 0}');
    expect(storedCell(bad, want(revs))).toEqual({ why: 'its run result is not one this version reads' });
  });
});
