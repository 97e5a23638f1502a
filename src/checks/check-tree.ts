// Walking a check tree: one definition of where a check's parts are (the combinators' children, and the
// events `count`, `in_order` and `only` read), for the static readers of a case (lint, taxonomy) that ask
// which kinds and leaves a check uses. The evaluator (evaluate.ts) walks its own way, with the evidence.

import { isCombinator } from './check-kinds.js';

export type CheckPath = (string | number)[];

/** One node of a check tree: its kind, its argument, where it is, and whether a `not` is above it. */
export interface CheckNode {
  kind: string;
  arg: unknown;
  path: CheckPath;
  negated: boolean;
}

/** The checks a node of the given kind holds inside it, each with its path below the node's argument. */
function partsOf(kind: string, arg: unknown): [CheckPath, unknown][] {
  const list = (xs: unknown): [CheckPath, unknown][] => (Array.isArray(xs) ? xs.map((x, i) => [[i], x]) : []);
  if (kind === 'not') return [[[], arg]];
  if (isCombinator(kind) || kind === 'in_order') return list(arg);
  if ((kind === 'count' || kind === 'only') && arg && typeof arg === 'object') {
    const a = arg as Record<string, unknown>;
    return (['of', 'is'] as const).filter((k) => a[k] !== undefined).map((k) => [[k], a[k]]);
  }
  return [];
}

/**
 * Every node of a check (or a list of checks), the combinators and the events inside `count`, `in_order`
 * and `only` included, in document order. Tolerant of input not yet validated: what is no check is skipped.
 */
export function checkNodes(check: unknown, path: CheckPath = [], negated = false): CheckNode[] {
  if (Array.isArray(check)) return check.flatMap((c, i) => checkNodes(c, [...path, i], negated));
  if (!check || typeof check !== 'object') return [];
  return Object.entries(check).flatMap(([kind, arg]) => {
    const here = [...path, kind];
    const below = negated || kind === 'not';
    return [
      { kind, arg, path: here, negated },
      ...partsOf(kind, arg).flatMap(([sub, part]) => checkNodes(part, [...here, ...sub], below)),
    ];
  });
}
