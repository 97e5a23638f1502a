// Evaluating a check over a trial's evidence, and the reason it gives when it does not hold: each kind's
// own `holds` and `unmet` from the registry (check-kinds.ts), combined in three-valued logic.

import type { z } from 'zod';
import { type CheckContext, Undecided } from './check-context.js';
import {
  type AdapterSurface,
  type Check,
  type CheckKind,
  COMBINATOR_KINDS,
  isCombinator,
  LEAF_KINDS,
  type Leaf,
  type LeafArgs,
  type Tri,
} from './check-kinds.js';

const split = (check: Check): [CheckKind, unknown] => Object.entries(check)[0] as [CheckKind, unknown];

/** Whether the check holds; throws Undecided when that depends on what a capped snapshot did not see. */
export function evaluateCheck(check: Check, ctx: CheckContext): boolean {
  const v = decide(check, ctx);
  if (v instanceof Undecided) throw v;
  return v;
}

function decide(check: Check, ctx: CheckContext): Tri {
  const [kind, arg] = split(check);
  if (isCombinator(kind)) {
    const holds = COMBINATOR_KINDS[kind].holds as (a: unknown, each: (c: Check) => Tri) => Tri;
    return holds(arg, (c) => decide(c, ctx));
  }
  const def = LEAF_KINDS[kind as keyof LeafArgs] as unknown as Leaf<z.ZodTypeAny> | undefined;
  if (!def) throw new Error(`unknown check kind ${kind}`);
  try {
    return def.holds(arg, ctx);
  } catch (e) {
    if (e instanceof Undecided) return e;
    throw e;
  }
}

/** Why the check does not hold (or cannot be decided), or undefined when it does. */
export function explainCheck(check: Check, ctx: CheckContext): string | undefined {
  const v = decide(check, ctx);
  if (v === true) return undefined;
  if (v instanceof Undecided) return `undecided: ${v.message}`;
  const [kind, arg] = split(check);
  if (isCombinator(kind)) {
    const unmet = COMBINATOR_KINDS[kind].unmet as (
      a: unknown,
      each: (c: Check) => string | undefined,
    ) => string;
    return unmet(arg, (c) => explainCheck(c, ctx));
  }
  return (LEAF_KINDS[kind as keyof LeafArgs] as unknown as Leaf<z.ZodTypeAny>).unmet(arg, ctx);
}

/**
 * Whether the check can hold at all on an adapter that declares only the `declared` surfaces: false when
 * every way to make it true reads a surface that is not there (a `memory_contains` on a harness with no
 * memory file declared). Decided before any trial, by the same three-valued logic as the evaluation: a
 * leaf that reads an undeclared surface is false, every other leaf undecided. Pure.
 */
export function canHold(check: Check, declared: ReadonlySet<AdapterSurface>): boolean {
  return staticValue(check, declared) !== false;
}

function staticValue(check: Check, declared: ReadonlySet<AdapterSurface>): Tri {
  const [kind, arg] = split(check);
  if (isCombinator(kind)) {
    const holds = COMBINATOR_KINDS[kind].holds as (a: unknown, each: (c: Check) => Tri) => Tri;
    return holds(arg, (c) => staticValue(c, declared));
  }
  const reads = (LEAF_KINDS[kind as keyof LeafArgs] as unknown as Leaf<z.ZodTypeAny> | undefined)?.reads;
  return reads && !declared.has(reads) ? false : new Undecided('decided by the trial');
}
