// `run --resume FILE`: continue a run that died (SIGKILL, a lost runner) or was interrupted, from the
// journal beside its result. Trials the journal holds are kept; only the missing ones run. A journal of
// another run (other adapter, config, cases or seeds) is refused: mixing them would give a result that
// measures nothing in particular.
import { UserError } from '../errors.js';
import { type Journal, journalPathOf, type ResultHeader, readJournal } from '../result/journal.js';
import type { Trial } from '../spec/run-result.js';
import type { EngineBuild } from './engine-build.js';

/** The journal a `--resume` argument names: the journal itself, or the result file it sits beside. */
export const resumeJournalPath = (file: string) => (file.endsWith('.journal') ? file : journalPathOf(file));

/** The result file a journal belongs to (where a resumed run writes by default). */
export const resumeResultPath = (file: string) => (file.endsWith('.journal') ? file.slice(0, -8) : file);

/** A trial an interruption left unrun or cut short: not a measurement, so a resumed run runs it. */
export const wasInterrupted = (t: Trial) => !t.valid && /^run interrupted/.test(t.invalid_reason ?? '');

const buildName = (b: { package: string; version: string } | undefined): string | undefined =>
  b && `${b.package}@${b.version}`;

/** A journal of another run (other adapter, config, cases, seeds…): what `matrix --resume` starts afresh over. */
export class JournalMismatch extends UserError {
  constructor(
    path: string,
    /** What differs, in words (`config was a, now b; seeds was 1, now 2`). */
    readonly differences: string,
  ) {
    super(
      `${path}: not a journal of this run: ${differences}`,
      'resume with the same --adapter, --config (or --wiring), --harness-package, --acp-command, --cases, --seeds, --strategies, --activation and --shard as the run that wrote it (and unchanged case, adapter and wiring files, on the same engine commit), or start a new run without --resume',
    );
  }
}

export function loadResume(file: string): Journal & { path: string } {
  const path = resumeJournalPath(file);
  return { ...readJournal(path), path };
}

/** The trials to keep from the journal, after checking it is a journal of this very run. */
export function carriedTrials(
  journal: Journal & { path: string },
  now: Pick<ResultHeader, 'adapter' | 'model' | 'selection'> & { engine?: EngineBuild },
  jobIds: Set<string>,
): Trial[] {
  const was = journal.header;
  // A result names one engine: trials of another commit are another engine's measurements.
  const engineOf = (b: EngineBuild | undefined) =>
    b?.commit ? `${b.commit.slice(0, 12)}${b.modified ? ' (modified)' : ''}` : b?.ref;
  const differs = (
    [
      ['adapter', was.adapter.name, now.adapter.name],
      ['config', was.adapter.config, now.adapter.config],
      ['adapter files, wiring file and harness build (digest)', was.adapter.digest, now.adapter.digest],
      ['wiring file', was.adapter.wiring, now.adapter.wiring],
      ['harness build', buildName(was.adapter.build), buildName(now.adapter.build)],
      [
        'ACP agent command',
        was.adapter.acp_command && JSON.stringify(was.adapter.acp_command),
        now.adapter.acp_command && JSON.stringify(now.adapter.acp_command),
      ],
      ['seeds', was.model.seeds, now.model.seeds],
      [
        'strategies',
        (was.model.strategies ?? ['direct']).join(','),
        (now.model.strategies ?? ['direct']).join(','),
      ],
      ['activation', was.model.activation ?? false, now.model.activation ?? false],
      ['case selection (ids and revisions)', was.selection?.digest, now.selection?.digest],
      ['shard', JSON.stringify(was.selection?.shard), JSON.stringify(now.selection?.shard)],
      ['engine', engineOf(was.tool), engineOf(now.engine)],
    ] as const
  ).filter(([, a, b]) => a !== b);
  if (differs.length)
    throw new JournalMismatch(
      journal.path,
      differs.map(([what, a, b]) => `${what} was ${a ?? 'unset'}, now ${b ?? 'unset'}`).join('; '),
    );
  return journal.trials.filter((t) => jobIds.has(t.id) && !wasInterrupted(t));
}
