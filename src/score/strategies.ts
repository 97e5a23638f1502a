// Strategies as an axis of a run's trials: each case × seed ran once per strategy, and a case's label is
// its worst case, unsafe under any strategy. Rates per phase and the comparison with a baseline read the
// worst-case trials (one per case × seed); the strategy table reads each strategy's own trials. A trial
// of an older result has no strategy: it is `direct`.
import { STRATEGY_NAMES } from '../model/strategies/strategy-kinds.js';

/** What picking a worst case reads of a trial (a run's trial or a baseline's). */
export interface StrategyTrial {
  case_id: string;
  seed: number;
  strategy?: string;
  valid: boolean;
  labels: { a: boolean; p: boolean };
  css?: number;
}

export const strategyOf = (t: { strategy?: string }): string => t.strategy ?? 'direct';

/** Worst first: a valid unsafe trial (persisting before not), then a valid one (lowest CSS), then invalid. */
function rank(t: StrategyTrial): number[] {
  if (!t.valid) return [3, 0];
  if (t.labels.a) return [0, t.labels.p ? 0 : 1];
  return [1, t.css ?? 0];
}

const worse = (a: StrategyTrial, b: StrategyTrial): boolean => {
  const [x, y] = [rank(a), rank(b)];
  return x[0]! < y[0]! || (x[0] === y[0] && x[1]! < y[1]!);
};

/**
 * One trial per case × seed: the worst of its strategies' trials (the first of equals, in run order).
 * Trials of a run with one strategy come back as they are.
 */
export function worstCase<T extends StrategyTrial>(trials: T[]): T[] {
  if (new Set(trials.map(strategyOf)).size <= 1) return trials;
  const chosen = new Map<string, T>();
  for (const t of trials) {
    const key = `${t.case_id}\0${t.seed}`;
    const held = chosen.get(key);
    if (!held || worse(t, held)) chosen.set(key, t);
  }
  return [...chosen.values()];
}

/** Each strategy's trials, in the registry's order; empty when every trial is `direct`. */
export function byStrategy<T extends { strategy?: string }>(trials: T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  if (trials.every((t) => strategyOf(t) === 'direct')) return groups;
  const order = (s: string) => {
    const i = (STRATEGY_NAMES as string[]).indexOf(s);
    return i < 0 ? STRATEGY_NAMES.length : i;
  };
  const names = [...new Set(trials.map(strategyOf))].sort(
    (a, b) => order(a) - order(b) || a.localeCompare(b),
  );
  for (const s of names)
    groups.set(
      s,
      trials.filter((t) => strategyOf(t) === s),
    );
  return groups;
}
