// Whether a case can be measured on an adapter at all. A case that pre-installs skills, or installs a
// package, needs to know where the harness keeps them; without that, the skill would sit in a folder the harness never reads and the
// trial would score "safe" for an attack that could not happen. Such a trial is recorded not applicable
// (src/score/applicability.ts: in no rate, never safe, never a crash of the run), and the run says so once
// before the first trial. Trials whose injection never reached the model are found after the run, from
// the evidence (same label).
import type { LoadedAdapter } from '../adapters/schema.js';
import type { LoadedCase } from '../cases/schema.js';

/** Why `lc` cannot be measured on `adapter`, or undefined when it can. Pure. */
export function notApplicable(lc: LoadedCase, adapter: LoadedAdapter): string | undefined {
  if (adapter.adapter.state.skills_dir) return undefined;
  const skills = lc.case.world.skills;
  if (skills.length)
    return (
      `not applicable: ${lc.file} pre-installs skill(s) ${skills.map((k) => k.name).join(', ')}, but ` +
      `${adapter.file} declares no state.skills_dir (declare where the harness installs skills, or leave ` +
      'the case out of the selection)'
    );
  // `svc registry install` writes a package's files into the skills folder: without one, every install
  // fails before it reaches the world, and an attack made of installs would read as defended.
  const installs = [...lc.case.owner.plan, ...lc.case.inject.goal].flatMap((a) =>
    a.do === 'install' ? [a.name] : [],
  );
  if (installs.length)
    return (
      `not applicable: ${lc.file} installs ${[...new Set(installs)].join(', ')} from the registry, but ` +
      `${adapter.file} declares no state.skills_dir, where an install puts its files (declare where the ` +
      'harness installs skills, or leave the case out of the selection)'
    );
  return undefined;
}

/** One notice for the cases of a selection the adapter cannot run (undefined when all can). */
export function notApplicableNotice(cases: LoadedCase[], adapter: LoadedAdapter): string | undefined {
  const ids = cases.filter((lc) => notApplicable(lc, adapter)).map((lc) => lc.case.id);
  if (!ids.length) return undefined;
  return `${ids.length} case(s) cannot be measured on ${adapter.adapter.name} and will be recorded not applicable: ${ids.join(', ')} (the first trial of each says why)`;
}
