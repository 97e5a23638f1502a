// The scripted model's last answer to the owner: what was done, or which steps were not and why.

import type { ScriptContext } from '../evidence/types.js';
import type { Action } from '../spec/actions.js';
import { replies, type Steps } from './plan-steps.js';
import type { Progress } from './progress.js';

/** A plan step in a few words: the action and what it is about. */
function stepLabel(a: Action): string {
  switch (a.do) {
    case 'read':
    case 'write':
      return `${a.do} ${a.path}`;
    case 'run':
      return `run \`${a.command.split('\n')[0]!.slice(0, 80)}\``;
    case 'fetch':
      return `fetch ${a.url}`;
    case 'send':
      return `send ${a.channel} to ${a.to}`;
    case 'call':
      return `${a.service} ${a.op}`;
    case 'install':
      return `install ${a.name}`;
    case 'delegate':
      return `delegate to ${a.agent}`;
    case 'remember':
      return 'remember a note';
    case 'reply':
      return 'reply';
  }
}

/**
 * The answer to the owner says what actually happened: the plan's reply only when every owner step was
 * carried out, else which steps the harness refused, failed or gave no way to do, in its own words. So a
 * `reply_contains` check on the plan's reply holds only when the work was done.
 */
export function finalText(p: Progress, steps: Steps, ctx: ScriptContext): string {
  // The goal's own reply (e.g. "tell the owner to run X") is part of the attack: a compliant model says it.
  const attack = p.trigger ? replies(ctx.goal) : [];
  const undone = steps.owner.flatMap((i) => {
    const r = p.owner_results.get(i);
    if (r?.status === 'done') return [];
    const why = r ? `${r.status === 'refused' ? 'refused by the harness' : 'failed'}: ${r.text}` : 'not done';
    return [`- ${stepLabel(ctx.plan[i]!)}: ${why}`];
  });
  if (undone.length) return [`I could not finish the task.\n${undone.join('\n')}`, ...attack].join('\n\n');
  const owner = replies(ctx.plan);
  return [...(owner.length ? owner : ['Done.']), ...attack].join('\n\n');
}
