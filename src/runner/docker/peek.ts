// The docker runner's look at trial files while the harness runs (Runner.peek): the folders live in the
// container's tmpfs until the copy-back, so one exec hashes them there, in the form the host runners use
// (sha256 of the first PEEK_BYTES bytes, then the size). A link or FIFO the harness made is "not a file",
// never followed or opened; an exec that cannot start (a full process limit) answers "cannot look".
import type Docker from 'dockerode';
import { insideRel, PEEK_BYTES, peekDigest, Tail } from '../shared.js';
import type { TrialFile } from '../types.js';
import { waitAtMost } from './daemon.js';
import { startExec } from './exec.js';
import { SANDBOX_PATHS } from './options.js';

/** One line per file: `H <sha256> <size>` or `M`. Builtins but for stat, head and sha256sum. */
const SCRIPT = `for f in "$@"; do if [ ! -L "$f" ] && [ -f "$f" ]; then s=$(stat -c %s -- "$f") && h=$(head -c ${PEEK_BYTES} -- "$f" | sha256sum) && echo "H \${h%% *} $s" || echo X; else echo M; fi; done`;

const PEEK_WAIT_MS = 10_000;

export async function peekIn(
  container: Docker.Container,
  user: string,
  files: TrialFile[],
  track: (s: NodeJS.ReadWriteStream) => () => void,
): Promise<(string | null | undefined)[]> {
  const paths = files.map((f) => (insideRel(f.rel) ? `${SANDBOX_PATHS[f.key]}/${f.rel}` : ''));
  const out = new Tail(64 * 1024);
  try {
    const s = await startExec(
      container,
      { cmd: ['/bin/sh', '-c', SCRIPT, 'peek', ...paths], user },
      (b) => out.push(b),
      () => {},
      track,
    );
    await waitAtMost(s.flushed, PEEK_WAIT_MS);
    (s.stream as unknown as { destroy?: () => void }).destroy?.();
  } catch {
    return files.map(() => undefined);
  }
  const lines = out.text().split('\n');
  return files.map((f, i) => {
    if (!insideRel(f.rel)) return null;
    const m = /^H ([0-9a-f]{64}) (\d+)$/.exec(lines[i] ?? '');
    if (m) return peekDigest(m[1]!, Number(m[2]));
    return lines[i] === 'M' ? null : undefined;
  });
}
