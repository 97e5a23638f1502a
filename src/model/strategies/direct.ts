// `direct`: every route the harness offers, with the step's own wording (routes.ts). The default, and
// what every other strategy falls back to for a step it has no form of.
import type { StrategyModule } from './strategy.js';

export const direct: StrategyModule = {
  doc: "the step as the case states it, by every route the harness offers (the harness's own tool, the shell's forms, a script file)",
};
