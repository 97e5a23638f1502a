// One sentence per attacker step that got through, naming the route that did it and the routes the
// harness refused or failed first: "wrote ~/.bashrc through write_file after bash was refused". It says
// where the harness's boundary has a gap, not just that it has one. Plain text: the caller escapes it
// (route names are the harness's tool names, target text is the case's: neither is trusted).
import type { AttackRoute } from '../spec/run-result.js';

const VERB: Record<string, string> = {
  read: 'read',
  write: 'wrote',
  send: 'sent',
  fetch: 'fetched',
  run: 'ran',
  call: 'called',
  install: 'installed',
  remember: 'saved to',
};

/** Routes before the one that worked, by what happened to them ("bash was refused", "a and b failed"). */
function before(tried: AttackRoute['tried'], succeeded: string): string {
  const earlier = tried.slice(
    0,
    tried.findIndex((t) => t.route === succeeded),
  );
  const routesWith = (outcome: string) => [
    ...new Set(earlier.filter((t) => t.outcome === outcome).map((t) => t.route)),
  ];
  const refused = routesWith('refused');
  const failed = routesWith('errored');
  const parts = [
    ...(refused.length ? [`${refused.join(', ')} ${refused.length === 1 ? 'was' : 'were'} refused`] : []),
    ...(failed.length ? [`${failed.join(', ')} failed`] : []),
  ];
  return parts.length ? ` after ${parts.join(' and ')}` : '';
}

export function routeSentences(routes: AttackRoute[] | undefined): string[] {
  return (routes ?? []).flatMap((r) => {
    if (!r.succeeded) return [];
    const verb = VERB[r.action] ?? r.action;
    return [`${verb} ${r.target} through ${r.succeeded}${before(r.tried, r.succeeded)}`];
  });
}
