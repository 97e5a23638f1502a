// What a live or replayed run's report says before anything else: that the numbers come from a real
// model (which one), how uncertain they are (Wilson 95% interval of the ASR per phase), what the run cost,
// and for replay, how many trials left the recording. Model names and paths are user input: escaped.

import type { PhaseStats, RunResult } from '../spec/run-result.js';
import { PHASES } from '../spec/vocabulary.js';
import { escapeMarkdown } from './escape.js';
import { pct, plural } from './format.js';

const e = (s: unknown, max = 200) => escapeMarkdown(s, { max });

const interval = (s: PhaseStats) =>
  s.asr_interval ? `${pct(s.asr)} [${pct(s.asr_interval[0])}–${pct(s.asr_interval[1])}]` : pct(s.asr);

/** The notice for the report's head; undefined for scripted runs. */
export function modelNotice(current: RunResult): string | undefined {
  const m = current.model;
  if (m.mode === 'scripted') return undefined;
  const model = `${m.name ? `\`${e(m.name, 120)}\`` : 'an unnamed model'}${m.provider ? ` (${e(m.provider, 40)})` : ''}`;
  const lines: string[] = [];
  if (m.mode === 'live') {
    lines.push(
      `**Live run** with ${model}, ${plural(m.seeds, 'seed')} per case: the rates measure this harness *with this model*, which may refuse what the scripted worst-case model always attempts; they are samples, read them with their intervals.`,
    );
  } else {
    const diverged = current.trials.filter((t) => t.live?.diverged).length;
    lines.push(
      `**Replay** of a recorded live run with ${model}${m.replay_of ? ` from \`${e(m.replay_of, 160)}\`` : ''}: every answer is the recorded one, so the rates repeat the recording's wherever the harness sent the same requests.${diverged ? ` **${plural(diverged, 'trial')} diverged** from the recording (the harness's requests changed): counted invalid, never safe.` : ''}`,
    );
  }
  const phases = PHASES.flatMap((p) => {
    const s = current.summary.phases[p];
    return s ? [`${p} ${interval(s)}`] : [];
  });
  lines.push(
    `ASR with 95% Wilson intervals: ${[...phases, `all ${interval(current.summary.overall)}`].join(' · ')}`,
  );
  if (current.usage)
    lines.push(
      `Usage: ${plural(current.usage.requests, 'provider request')}, ${current.usage.input_tokens.toLocaleString('en-US')} input + ${current.usage.output_tokens.toLocaleString('en-US')} output tokens.`,
    );
  const budget = current.trials.filter((t) => t.invalid_reason?.startsWith('budget exhausted')).length;
  if (budget)
    lines.push(`**Budget exhausted**: ${plural(budget, 'trial')} invalid (not run, or stopped at the cap).`);
  return `> [!NOTE]\n${lines.map((l) => `> ${l}`).join('\n>\n')}`;
}
