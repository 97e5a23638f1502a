// The built-in case library: every file parses with the case schema and is internally consistent
// (unique ids, the trigger sits in a real injected artifact the owner's plan actually reaches, phase
// folders match, canaries are declared, artifact texts are not reused across unrelated cases).

import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCaseFile } from '../src/cases/load.js';
import type { Case } from '../src/cases/schema.js';
import type { Action } from '../src/spec/actions.js';
import { EFFECTS, ENTRY_POINTS, PHASES } from '../src/spec/vocabulary.js';

const ROOT = join(import.meta.dirname, '..', 'cases');

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = join(dir, name);
      // rules/ holds rule packs (test/cases-packs.test.ts), not cases.
      if (statSync(p).isDirectory()) return name === 'rules' ? [] : walk(p);
      return /\.ya?ml$/.test(name) ? [p] : [];
    });
}

interface Loaded {
  file: string;
  c: Case;
}

const files = walk(ROOT);
const loaded: Loaded[] = [];
const parseErrors: string[] = [];
for (const file of files) {
  try {
    loaded.push({ file: relative(ROOT, file), c: loadCaseFile(file).case });
  } catch (err) {
    parseErrors.push(`${relative(ROOT, file)}: ${(err as Error).message}`);
  }
}

/** Every piece of untrusted text the world holds, with where it lives. */
function worldTexts(c: Case): { where: string; text: string }[] {
  const w = c.world;
  const out: { where: string; text: string }[] = [];
  for (const [p, t] of Object.entries(w.files)) out.push({ where: `file:${p}`, text: t });
  for (const [p, t] of Object.entries(w.home_files)) out.push({ where: `home:${p}`, text: t });
  for (const [i, t] of w.memory.entries()) out.push({ where: `memory:${i}`, text: t });
  const s = w.services;
  for (const m of s.mail?.inbox ?? [])
    out.push({ where: 'mail', text: `${m.from}\n${m.subject}\n${m.body}` });
  for (const [ch, msgs] of Object.entries(s.chat?.channels ?? {}))
    for (const m of msgs) out.push({ where: `chat:${ch}`, text: m.text });
  for (const [id, t] of Object.entries(s.deploy?.logs ?? {}))
    out.push({ where: `deploy-log:${id}`, text: t });
  for (const pkg of s.registry?.packages ?? []) {
    out.push({ where: `registry:${pkg.name}`, text: pkg.description });
    for (const [p, t] of Object.entries(pkg.files)) out.push({ where: `registry:${pkg.name}/${p}`, text: t });
    for (const t of Object.values(pkg.scripts ?? {}))
      if (t !== undefined) out.push({ where: `registry:${pkg.name}/package.json`, text: t });
  }
  for (const i of s.calendar?.invites ?? [])
    out.push({ where: `calendar:${i.id}`, text: `${i.title}\n${i.organizer}\n${i.description}` });
  for (const a of s.agents?.agents ?? []) out.push({ where: `agent:${a.name}`, text: a.reply });
  for (const k of w.skills)
    for (const [p, t] of Object.entries(k.files)) out.push({ where: `skill:${k.name}/${p}`, text: t });
  for (const [p, t] of Object.entries(s.web?.pages ?? {})) out.push({ where: `web:${p}`, text: t });
  for (const t of s.tickets?.items ?? [])
    out.push({ where: `ticket:${t.id}`, text: `${t.title}\n${t.body}` });
  for (const t of s.mcp?.tools ?? []) {
    out.push({ where: `mcp:${t.name}:description`, text: t.description });
    out.push({ where: `mcp:${t.name}:result`, text: t.result });
  }
  out.push(...githubTexts(s.github));
  return out;
}

/** The world's GitHub: every text field an event brings (titles, bodies, comments, patches, logs, outputs). */
function githubTexts(g: Case['world']['services']['github']): { where: string; text: string }[] {
  if (!g) return [];
  const at = (what: string, text: string) => ({ where: `github:${what}`, text });
  return [
    ...g.issues.flatMap((i) => [
      at(`#${i.number}`, `${i.title}\n${i.body}`),
      ...i.comments.map((c) => at(`#${i.number}`, c.body)),
    ]),
    ...g.pulls.flatMap((p) => [
      at(`#${p.number}`, `${p.title}\n${p.body}`),
      ...p.comments.map((c) => at(`#${p.number}`, c.body)),
      ...p.review_comments.map((c) => at(`#${p.number}`, c.body)),
      ...p.commits.map((c) => at(`#${p.number}`, c.message)),
      ...p.files.map((f) => at(`#${p.number}`, `${f.patch}\n${f.content ?? ''}`)),
    ]),
    ...g.releases.map((r) => at(`release:${r.tag}`, r.body)),
    ...g.runs.flatMap((r) => r.jobs.map((j) => at(`run:${r.id}`, j.log))),
    ...g.check_runs.map((c) => at(`check:${c.id}`, `${c.title}\n${c.summary}\n${c.text}`)),
    ...Object.entries(g.files).map(([p, t]) => at(`file:${p}`, t)),
  ];
}

function artifactOf(c: Case) {
  return worldTexts(c).filter((x) => x.text.includes(c.inject.trigger));
}

/** Text of a plan step, for "does the plan reach this artifact" checks. */
function stepText(a: Action): string {
  return JSON.stringify(a);
}

/** Does the owner's plan reach the place where the trigger sits? */
function planReaches(c: Case, where: string): boolean {
  const steps = c.owner.plan.map(stepText);
  const any = (re: RegExp) => steps.some((s) => re.test(s));
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const [kind, ...rest] = where.split(':');
  const name = rest.join(':');
  switch (kind) {
    case 'file':
      return any(new RegExp(esc(name)));
    case 'home':
      return any(new RegExp(`~/${esc(name)}`));
    case 'memory':
      return true; // loaded into the system prompt
    case 'mail':
      return any(/"service":"mail"|\/mail\/|svc mail/);
    case 'chat':
      return any(/"service":"chat"|\/chat\/|svc chat/);
    case 'github':
      return any(/"service":"github"|\/api\/v3\/|svc github/);
    case 'deploy-log':
      return any(/"service":"deploy"|\/deploy\/logs|svc deploy/);
    case 'registry':
      return any(/"do":"install"|"service":"registry"|\/registry\/|svc registry/);
    case 'web':
      return any(
        new RegExp(`/web/${esc(name.replace(/^\//, ''))}|svc web get /?${esc(name.replace(/^\//, ''))}`),
      );
    case 'ticket':
      return any(/"service":"tickets"|\/tickets|svc tickets/);
    case 'mcp':
      return any(/"service":"mcp"|\/mcp|svc mcp/);
    case 'calendar':
      return any(
        new RegExp(
          `"service":"calendar".*"id":"${esc(name)}"|/calendar/invites/${esc(name)}|svc calendar show ${esc(name)}`,
        ),
      );
    case 'agent':
      return any(
        new RegExp(
          `"do":"delegate","agent":"${esc(name)}"|/agents/${esc(name)}/|svc agents run ${esc(name)}`,
        ),
      );
    case 'skill':
      return true; // installed before the trial, where the harness loads its skills
    default:
      return false;
  }
}

describe('built-in case library', () => {
  it('has case files', () => {
    expect(files.length).toBeGreaterThanOrEqual(12);
  });

  it('every case file parses with the case schema', () => {
    expect(parseErrors).toEqual([]);
  });

  it('ids are unique and match the file name and phase folder', () => {
    const seen = new Map<string, string>();
    const problems: string[] = [];
    for (const { file, c } of loaded) {
      if (seen.has(c.id)) problems.push(`${file}: id ${c.id} also in ${seen.get(c.id)}`);
      seen.set(c.id, file);
      const want = c.variant_of ? `${c.phase}/variants/${c.id}.yaml` : `${c.phase}/${c.id}.yaml`;
      if (file !== want) problems.push(`${file}: expected ${want}`);
    }
    expect(problems).toEqual([]);
  });

  it('every phase has at least two cases and a smoke case', () => {
    for (const phase of PHASES) {
      const inPhase = loaded.filter(({ c }) => c.phase === phase);
      expect(inPhase.length, phase).toBeGreaterThanOrEqual(2);
      expect(
        inPhase.filter(({ c }) => c.tags.includes('smoke')).length,
        `${phase} smoke cases`,
      ).toBeGreaterThanOrEqual(1);
    }
  });

  it('the trigger occurs in an injected artifact of the world, never in the owner turns', () => {
    const problems: string[] = [];
    for (const { file, c } of loaded) {
      if (artifactOf(c).length === 0)
        problems.push(`${file}: trigger "${c.inject.trigger}" is in no world text`);
      if (c.owner.turns.some((t) => t.includes(c.inject.trigger)))
        problems.push(`${file}: trigger in owner turns`);
      if (c.owner.plan.some((a) => stepText(a).includes(c.inject.trigger)))
        problems.push(`${file}: trigger in the owner's own plan`);
    }
    expect(problems).toEqual([]);
  });

  it("the owner's plan reaches the artifact that holds the trigger", () => {
    const problems: string[] = [];
    for (const { file, c } of loaded) {
      const places = artifactOf(c).map((x) => x.where);
      if (places.length > 0 && !places.some((w) => planReaches(c, w)))
        problems.push(`${file}: no plan step reaches ${places.join(', ')}`);
    }
    expect(problems).toEqual([]);
  });

  it('canaries used in templates are declared', () => {
    const problems: string[] = [];
    for (const { file, c } of loaded) {
      const declared = new Set(c.world.canaries.map((k) => k.name));
      const used = new Set([...JSON.stringify(c).matchAll(/\{\{canary:([A-Z0-9_]+)\}\}/g)].map((m) => m[1]));
      for (const name of used) if (!declared.has(name)) problems.push(`${file}: canary ${name} not declared`);
      const named = JSON.stringify(c.checks).match(/"canary":"([A-Z0-9_]+)"/g) ?? [];
      for (const n of named) {
        const name = n.slice(10, -1);
        if (!declared.has(name)) problems.push(`${file}: check names undeclared canary ${name}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('audit rules have unique ids per case and at least 20 rules per case', () => {
    const problems: string[] = [];
    for (const { file, c } of loaded) {
      const ids = c.audit.map((r) => r.id);
      if (new Set(ids).size !== ids.length) problems.push(`${file}: duplicate audit rule ids`);
      if (c.audit.length < 20) problems.push(`${file}: only ${c.audit.length} audit rules`);
      for (const ch of ['tools', 'resources', 'flow'] as const)
        if (!c.audit.some((r) => r.channel === ch)) problems.push(`${file}: no ${ch} rule`);
    }
    expect(problems).toEqual([]);
  });

  it('no two unrelated cases share their injected artifact text', () => {
    const family = (c: Case) => c.variant_of ?? c.id;
    const byText = new Map<string, Loaded>();
    const problems: string[] = [];
    for (const l of loaded) {
      for (const { text } of artifactOf(l.c)) {
        const prev = byText.get(text);
        if (prev && family(prev.c) !== family(l.c))
          problems.push(`${l.file} shares its artifact with ${prev.file}`);
        else byText.set(text, l);
      }
    }
    expect(problems).toEqual([]);
  });

  it('variants name an existing base case and carry a perturb: tag', () => {
    const ids = new Set(loaded.map(({ c }) => c.id));
    const problems: string[] = [];
    for (const { file, c } of loaded) {
      if (c.variant_of === undefined) continue;
      if (!ids.has(c.variant_of)) problems.push(`${file}: variant_of ${c.variant_of} does not exist`);
      if (!c.tags.some((t) => t.startsWith('perturb:')))
        problems.push(`${file}: variant without a perturb: tag`);
    }
    expect(problems).toEqual([]);
  });

  // ---- the library as a whole (issue 6) ----
  const bases = loaded.filter(({ c }) => c.variant_of === undefined);
  const variants = loaded.filter(({ c }) => c.variant_of !== undefined);

  it('has at least 24 base cases in every phase, 144 in all', () => {
    expect(bases.length).toBeGreaterThanOrEqual(144);
    for (const phase of PHASES)
      expect(bases.filter(({ c }) => c.phase === phase).length, phase).toBeGreaterThanOrEqual(24);
  });

  it('covers every entry point x effect cell with at least two base cases', () => {
    const missing: string[] = [];
    for (const ep of ENTRY_POINTS)
      for (const ef of EFFECTS) {
        const n = bases.filter(({ c }) => c.entry_point === ep && c.effect === ef).length;
        if (n < 2) missing.push(`${ep} x ${ef}: ${n}`);
      }
    expect(missing).toEqual([]);
  });

  it('has at least 20 audit rules per case on average', () => {
    const mean = loaded.reduce((n, { c }) => n + c.audit.length, 0) / loaded.length;
    expect(mean).toBeGreaterThanOrEqual(20);
  });

  it('tags subsets: one or two smoke cases per phase, every base case standard and full, variants full only', () => {
    const problems: string[] = [];
    for (const phase of PHASES) {
      const smoke = bases.filter(({ c }) => c.phase === phase && c.tags.includes('smoke')).length;
      if (smoke < 1 || smoke > 2) problems.push(`${phase}: ${smoke} smoke cases`);
    }
    for (const { file, c } of bases)
      if (!c.tags.includes('standard') || !c.tags.includes('full'))
        problems.push(`${file}: needs tags standard and full`);
    for (const { file, c } of variants) {
      if (c.tags.includes('standard') || c.tags.includes('smoke'))
        problems.push(`${file}: variants are full-only`);
      if (!c.tags.includes('full')) problems.push(`${file}: variant without tag full`);
    }
    expect(problems).toEqual([]);
  });

  it('has perturbation variants for at least half of the base cases, for every kind of perturbation', () => {
    const withVariant = new Set(variants.map(({ c }) => c.variant_of));
    expect(withVariant.size).toBeGreaterThanOrEqual(bases.length / 2);
    const basesWith = (tag: string) =>
      new Set(variants.filter(({ c }) => c.tags.includes(tag)).map(({ c }) => c.variant_of)).size;
    // Placement (late or nested) applies to every case whose artifact the agent reaches with a tool call.
    const placement = new Set(
      variants
        .filter(
          ({ c }) =>
            c.tags.includes('perturb:late-injection') || c.tags.includes('perturb:nested-tool-result'),
        )
        .map(({ c }) => c.variant_of),
    ).size;
    expect(placement).toBeGreaterThanOrEqual(bases.length / 2);
    expect(basesWith('perturb:ambiguous-goal')).toBeGreaterThanOrEqual(bases.length / 2);
    expect(basesWith('perturb:service-error')).toBeGreaterThanOrEqual(bases.length / 2);
    expect(basesWith('perturb:late-injection')).toBeGreaterThan(0);
    expect(basesWith('perturb:nested-tool-result')).toBeGreaterThan(0);
  });

  it('the committed variants are what cases/generate-variants.mjs produces', () => {
    const out = execFileSync(process.execPath, [join(ROOT, 'generate-variants.mjs'), '--check'], {
      encoding: 'utf8',
    });
    expect(out).toMatch(/up to date/);
  });
});
