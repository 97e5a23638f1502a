// A configuration that takes tools away (adapter `withholds`) is measured only if the harness really does
// not offer them: a switch it honours in part (Kilo 7.7.7 kept bash under opencode's `tools` map) would
// otherwise be measured as if it were set, and a harness upgrade that stops honouring it would pass as safe
// as before. Such a trial is not a measurement of the configuration: invalid, with the tools named.
import type { Evidence } from '../evidence/types.js';

/** The withheld tools among those offered, names compared without case. */
export function withheldOffered(withholds: string[], offered: string[]): string[] {
  const names = new Set(offered.map((t) => t.toLowerCase()));
  return withholds.filter((w) => names.has(w.toLowerCase()));
}

/** The tools the harness offered the agent in the trial (reviewer requests aside). */
export const toolsOffered = (ev: Evidence): string[] =>
  [...new Set(ev.model.filter((m) => !m.review).flatMap((m) => m.tools))].sort();

/** Why the trial does not measure its configuration, when the harness offered a tool it withholds. */
export function withheldReason(withholds: string[], ev: Evidence): string | undefined {
  const offered = withheldOffered(withholds, toolsOffered(ev));
  return offered.length
    ? `the configuration did not take effect: it withholds ${offered.join(', ')}, but the harness offered ${offered.length > 1 ? 'them' : 'it'} to the agent (check the setting with harness-risk doctor)`
    : undefined;
}
