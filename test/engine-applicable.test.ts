// A case the adapter cannot run (it pre-installs skills; the adapter names no skills folder) is recorded
// invalid with a reason that says what to do; the run goes on and measures the other cases. Before, the
// run stopped at that case with an error, so a new adapter without skills could not run subset:standard.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAdapter } from '../src/adapters/load.js';
import { displayPath, loadCases } from '../src/cases/load.js';
import type { AdapterSurface, Check } from '../src/checks/check-kinds.js';
import { canHold } from '../src/checks/evaluate.js';
import { notApplicable, notApplicableNotice } from '../src/engine/applicable.js';
import { runSafetyCases } from '../src/engine/run.js';

const SKILL_CASE = 'id:changelog-page-upgrades-installed-skill';
// Not a memory case: the mini harness never shows its memory file, so such a trial is not applicable too.
const OTHER_CASE = 'id:setup-guide-disables-approval';
let dir: string;
let adapterDir: string;
let noMemoryDir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hr-applicable-'));
  adapterDir = join(dir, 'noskills');
  noMemoryDir = join(dir, 'nomemory');
  await cp(join(import.meta.dirname, 'fixtures', 'mini-harness'), adapterDir, { recursive: true });
  await cp(join(import.meta.dirname, 'fixtures', 'mini-harness'), noMemoryDir, { recursive: true });
  const yaml = await readFile(join(adapterDir, 'adapter.yaml'), 'utf8');
  await writeFile(join(adapterDir, 'adapter.yaml'), yaml.replace(/^\s*skills_dir:.*\n/m, ''));
  await writeFile(join(noMemoryDir, 'adapter.yaml'), yaml.replace(/^\s*memory_files:.*\n/m, ''));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('cases an adapter cannot run', () => {
  it('are named by a pure check, and only those', () => {
    const adapter = loadAdapter(adapterDir);
    const [skill] = loadCases([SKILL_CASE]);
    const [other] = loadCases([OTHER_CASE]);
    expect(notApplicable(skill!, adapter)).toMatch(/declares no state\.skills_dir/);
    expect(notApplicable(other!, adapter)).toBeUndefined();
    expect(notApplicable(skill!, loadAdapter('reference'))).toBeUndefined();
    expect(notApplicableNotice([skill!, other!], adapter)).toContain('1 case(s) cannot be measured on mini');
  });

  it('a case whose owner or attacker installs a package needs the skills folder the install writes to', () => {
    // Without it `svc registry install` fails before any request ("missing HR_SKILLS_DIR"): the attack would
    // read as defended on every adapter that declares none (the generic acp adapter, a team's new one).
    const adapter = loadAdapter(adapterDir);
    const installing = loadCases(['subset:standard']).filter((lc) =>
      [...lc.case.owner.plan, ...lc.case.inject.goal].some((a) => a.do === 'install'),
    );
    expect(installing.length).toBeGreaterThanOrEqual(5);
    for (const lc of installing) {
      const why = lc.case.world.skills.length ? /pre-installs skill/ : /installs .* from the registry, but /;
      expect(notApplicable(lc, adapter), lc.case.id).toMatch(why);
      expect(notApplicable(lc, adapter), lc.case.id).toMatch(/declares no state\.skills_dir/);
      expect(notApplicable(lc, loadAdapter('reference')), lc.case.id).toBeUndefined();
    }
    expect(notApplicable(loadCases(['id:skill-requires-companion-install'])[0]!, loadAdapter('acp'))).toMatch(
      /pdf-extract|installs/,
    );
  });

  it('are recorded not applicable (never safe, never valid), and the run measures the rest', async () => {
    const notices: string[] = [];
    const r = await runSafetyCases({
      adapter: adapterDir,
      config: 'open',
      cases: [SKILL_CASE, OTHER_CASE],
      runner: 'process',
      concurrency: 1,
      seeds: 1,
      model: 'scripted',
      out: join(dir, 'r.json'),
      keep_evidence: false,
      on_progress: (e) => {
        if (e.kind === 'notice') notices.push(e.message);
      },
    });
    expect(r.status).toBe('complete');
    const skill = r.trials.find((t) => t.case_id === 'changelog-page-upgrades-installed-skill')!;
    expect(skill.valid).toBe(false);
    expect(skill.invalid_reason).toMatch(/^not applicable: .*state\.skills_dir/);
    expect(skill.not_applicable).toBe(skill.invalid_reason);
    const other = r.trials.find((t) => t.case_id === 'setup-guide-disables-approval')!;
    expect(other.valid).toBe(true);
    expect(notices.some((n) => n.includes('changelog-page-upgrades-installed-skill'))).toBe(true);
  }, 120_000);
});

describe('a case whose checks read a surface the adapter does not declare', () => {
  const memory: Check = { memory_contains: { text: 'x' } };
  const skill: Check = { skill_installed: { name: 'x' } };
  const file: Check = { file_contains: { path: 'a', text: 'x' } };
  const none = new Set<AdapterSurface>();
  const rows: [string, Check, Set<AdapterSurface>, boolean][] = [
    ['memory, none declared', memory, none, false],
    ['memory, memory declared', memory, new Set(['memory_files']), true],
    ['skill, only memory declared', skill, new Set(['memory_files']), false],
    ['a file check reads no surface', file, none, true],
    ['any_of with a readable part', { any_of: [memory, file] }, none, true],
    ['any_of of unreadable parts', { any_of: [memory, skill] }, none, false],
    ['all_of with an unreadable part', { all_of: [file, memory] }, none, false],
    ['not of an unreadable part holds always', { not: memory }, none, true],
    ['not of not', { not: { not: memory } }, none, false],
  ];
  it.each(rows)('canHold: %s', (_, check, declared, expected) => {
    expect(canHold(check, declared)).toBe(expected);
  });

  it('every standard case whose attack shows only in memory is not applicable without memory files, and only those', () => {
    // The generic acp adapter declares no memory file: a "remember this rule" attack had nowhere the engine
    // could see it land and read "blocked" under every policy, allow included.
    const adapter = loadAdapter(noMemoryDir);
    const cases = loadCases(['subset:standard']);
    const memoryOnly = cases.filter((lc) => {
      const a = JSON.stringify(lc.case.checks.attack);
      const p = JSON.stringify(lc.case.checks.persistence ?? { memory_contains: {} });
      return a.startsWith('{"memory_contains"') && p.startsWith('{"memory_contains"');
    });
    expect(memoryOnly.length).toBeGreaterThanOrEqual(5);
    for (const lc of cases) {
      const why = notApplicable(lc, adapter);
      const seeded = lc.case.world.memory.some((m) => m.includes(lc.case.inject.trigger));
      if (memoryOnly.includes(lc)) {
        if (!seeded) expect(why, lc.case.id).toMatch(/can only hold through memory_contains/);
        expect(why, lc.case.id).toMatch(/declares no state\.memory_files/);
        expect(why, lc.case.id).toContain(displayPath(lc.file));
      } else if (why) expect(why, lc.case.id).not.toMatch(/can only hold through/);
      expect(notApplicable(lc, loadAdapter('reference')), lc.case.id).toBeUndefined();
    }
    expect(notApplicable(memoryOnly[0]!, loadAdapter('acp'))).toMatch(/state\.memory_files/);
  });

  it('a case whose injection is a memory entry cannot reach a harness without memory files', () => {
    const adapter = loadAdapter(noMemoryDir);
    const cases = loadCases(['subset:standard']);
    const seeded = cases.filter((lc) => lc.case.world.memory.some((m) => m.includes(lc.case.inject.trigger)));
    expect(seeded.length).toBeGreaterThanOrEqual(5);
    for (const lc of seeded) {
      expect(notApplicable(lc, adapter), lc.case.id).toMatch(/puts its injection in the harness's memory/);
      expect(notApplicable(lc, loadAdapter('reference')), lc.case.id).toBeUndefined();
    }
    // Memory that only sets the scene does not make a case unmeasurable.
    const scene = cases.find(
      (lc) =>
        lc.case.world.memory.length && !lc.case.world.memory.some((m) => m.includes(lc.case.inject.trigger)),
    );
    if (scene) expect(notApplicable(scene, adapter) ?? '').not.toMatch(/world\.memory/);
  });
});
