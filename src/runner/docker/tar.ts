// A small tar writer and a bounded, link-safe tar reader for moving the trial folders in and out of the
// container (Docker's archive API cannot reach a tmpfs or a read-only root filesystem, so the image's own
// `tar` runs inside via exec and these two run on the host).
// The reader treats the stream as hostile: it writes only regular files, folders and symlinks, only at
// paths under the destination whose every parent it created itself in this extraction, with O_EXCL and
// O_NOFOLLOW, drops set-id bits, and stops at a byte and entry budget.
import { constants } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, open, readdir, readlink, symlink } from 'node:fs/promises';
import path from 'node:path';

const BLOCK = 512;

/** The copy-back went over its budget: the trial wrote more than the runner brings back. */
export class TarLimitError extends Error {}

function octal(n: number, width: number): string {
  return `${n.toString(8).padStart(width - 1, '0')}\0`;
}

function header(name: string, type: string, size: number, mode: number, linkname = ''): Buffer {
  const h = Buffer.alloc(BLOCK);
  h.write(name.slice(0, 100), 0, 'utf8');
  h.write(octal(mode & 0o7777, 8), 100);
  h.write(octal(0, 8), 108);
  h.write(octal(0, 8), 116);
  h.write(octal(size, 12), 124);
  h.write(octal(Math.floor(Date.now() / 1000), 12), 136);
  h.write('        ', 148);
  h.write(type, 156);
  h.write(linkname.slice(0, 100), 157, 'utf8');
  h.write('ustar\u000000', 257, 'binary');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return h;
}

function pad(size: number): Buffer {
  const r = size % BLOCK;
  return Buffer.alloc(r ? BLOCK - r : 0);
}

/** A pax header carrying names that do not fit the 100-byte fields. */
function paxFor(name: string, linkname: string): Buffer[] {
  const recs: string[] = [];
  const rec = (k: string, v: string) => {
    const body = ` ${k}=${v}\n`;
    let len = Buffer.byteLength(body) + 1;
    while (String(len).length + Buffer.byteLength(body) !== len)
      len = String(len).length + Buffer.byteLength(body);
    recs.push(`${len}${body}`);
  };
  if (Buffer.byteLength(name) > 99) rec('path', name);
  if (Buffer.byteLength(linkname) > 99) rec('linkpath', linkname);
  if (!recs.length) return [];
  const data = Buffer.from(recs.join(''));
  return [header('././@PaxHeader', 'x', data.length, 0o644), data, pad(data.length)];
}

/**
 * The children of each `dirs[name]` as `name/...` entries: folders, regular files, symlinks (never
 * followed); anything else is left out.
 */
export async function* packTree(dirs: Record<string, string>): AsyncGenerator<Buffer> {
  async function* walk(abs: string, rel: string): AsyncGenerator<Buffer> {
    for (const name of (await readdir(abs)).sort()) {
      const a = path.join(abs, name);
      const r = `${rel}/${name}`;
      const st = await lstat(a);
      if (st.isDirectory()) {
        yield* paxFor(`${r}/`, '');
        yield header(`${r}/`, '5', 0, st.mode);
        yield* walk(a, r);
      } else if (st.isFile()) {
        yield* paxFor(r, '');
        const fh = await open(a, constants.O_RDONLY | constants.O_NOFOLLOW);
        try {
          const data = await fh.readFile();
          yield header(r, '0', data.length, st.mode);
          yield data;
          yield pad(data.length);
        } finally {
          await fh.close();
        }
      } else if (st.isSymbolicLink()) {
        const target = await readlink(a);
        yield* paxFor(r, target);
        yield header(r, '2', 0, 0o777, target);
      }
    }
  }
  for (const [name, dir] of Object.entries(dirs)) {
    const st = await lstat(dir);
    yield header(`${name}/`, '5', 0, st.mode);
    yield* walk(dir, name);
  }
  yield Buffer.alloc(BLOCK * 2);
}

function parseNum(b: Buffer): number {
  if (b[0] & 0x80) {
    // base-256 (GNU, for sizes ≥ 8 GiB)
    let n = 0;
    for (let i = 1; i < b.length; i++) n = n * 256 + b[i];
    return n;
  }
  const s = b.toString('ascii').replace(/\0.*$/s, '').trim();
  return s ? parseInt(s, 8) : 0;
}

function cstr(b: Buffer): string {
  const i = b.indexOf(0);
  return b.subarray(0, i < 0 ? b.length : i).toString('utf8');
}

function parsePax(data: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let s = data.toString('utf8');
  while (s.length) {
    const sp = s.indexOf(' ');
    const len = Number(s.slice(0, sp));
    if (!(len > 0)) break;
    const rec = s.slice(sp + 1, len - 1);
    const eq = rec.indexOf('=');
    if (eq > 0) out[rec.slice(0, eq)] = rec.slice(eq + 1);
    s = s.slice(len);
  }
  return out;
}

export interface ExtractLimits {
  maxBytes: number;
  maxEntries: number;
}

/**
 * Extracts `stream` into `dest[top]` for each top-level name of `dest` (entries under other names are
 * ignored). The destinations must exist and be empty.
 */
export async function extractTree(
  stream: AsyncIterable<Buffer>,
  dest: Record<string, string>,
  limits: ExtractLimits,
): Promise<{ bytes: number; entries: number; skipped: number }> {
  const made = new Set<string>(Object.values(dest).map((d) => path.resolve(d)));
  const dirModes: [string, number][] = [];
  let buf: Buffer = Buffer.alloc(0);
  let bytes = 0;
  let entries = 0;
  let skipped = 0;
  let longName: string | undefined;
  let longLink: string | undefined;
  let pax: Record<string, string> = {};
  // The current entry's data: where it goes and how much is left.
  let cur:
    | { left: number; pad: number; fh?: Awaited<ReturnType<typeof open>>; collect?: Buffer[]; kind: string }
    | undefined;

  const target = (name: string): string | undefined => {
    const parts = name.split('/').filter((p) => p && p !== '.');
    if (parts.length < 2 || parts.some((p) => p === '..') || name.startsWith('/')) return undefined;
    const top = dest[parts[0]];
    if (!top || !Object.hasOwn(dest, parts[0])) return undefined;
    const abs = path.join(path.resolve(top), ...parts.slice(1));
    return made.has(path.dirname(abs)) ? abs : undefined;
  };

  const begin = async (h: Buffer) => {
    const type = String.fromCharCode(h[156] || 48);
    const size = parseNum(h.subarray(124, 136));
    const mode = parseNum(h.subarray(100, 108)) & 0o1777;
    const prefix = cstr(h.subarray(345, 500));
    let name =
      pax.path ?? longName ?? (prefix ? `${prefix}/${cstr(h.subarray(0, 100))}` : cstr(h.subarray(0, 100)));
    const link = pax.linkpath ?? longLink ?? cstr(h.subarray(157, 257));
    const padLen = (BLOCK - (size % BLOCK)) % BLOCK;
    if (type === 'L' || type === 'K' || type === 'x' || type === 'g') {
      if (size > 1024 * 1024) throw new TarLimitError('a tar metadata entry over 1 MiB');
      cur = { left: size, pad: padLen, collect: [], kind: type };
      return;
    }
    longName = longLink = undefined;
    pax = {};
    entries++;
    if (entries > limits.maxEntries) throw new TarLimitError(`more than ${limits.maxEntries} files`);
    name = name.replace(/\/+$/, '');
    const abs = target(name);
    cur = { left: size, pad: padLen, kind: 'skip' };
    if (!abs) {
      skipped++;
      return;
    }
    if (type === '5') {
      await mkdir(abs, { mode: 0o700 }).then(
        () => {
          made.add(abs);
          dirModes.push([abs, mode]);
        },
        () => skipped++,
      );
    } else if (type === '0' || type === '\0' || type === '7') {
      try {
        const fh = await open(
          abs,
          constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
          0o600,
        );
        cur = { left: size, pad: padLen, fh, kind: 'file' };
        await fh.chmod(mode);
      } catch {
        skipped++;
      }
    } else if (type === '2') {
      await symlink(link, abs).catch(() => skipped++);
    } else if (type === '1') {
      // A hard link to a file extracted earlier: a copy of it (never a link into anything else).
      const from = target(link.replace(/\/+$/, ''));
      const st = from ? await lstat(from).catch(() => undefined) : undefined;
      if (from && st?.isFile())
        await copyFile(from, abs, constants.COPYFILE_EXCL)
          .then(() => chmod(abs, st.mode & 0o1777))
          .catch(() => skipped++);
      else skipped++;
    } else {
      skipped++;
    }
  };

  const finishMeta = () => {
    if (!cur?.collect) return;
    const data = Buffer.concat(cur.collect);
    if (cur.kind === 'L') longName = cstr(data);
    else if (cur.kind === 'K') longLink = cstr(data);
    else if (cur.kind === 'x') pax = { ...pax, ...parsePax(data) };
  };

  for await (const chunk of stream) {
    bytes += chunk.length;
    if (bytes > limits.maxBytes) {
      await cur?.fh?.close().catch(() => {});
      throw new TarLimitError(`more than ${Math.round(limits.maxBytes / 1024 ** 2)} MiB`);
    }
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    for (;;) {
      if (cur && cur.left > 0) {
        if (buf.length === 0) break;
        const n = Math.min(cur.left, buf.length);
        const part = buf.subarray(0, n);
        if (cur.fh) await cur.fh.write(part);
        else if (cur.collect) cur.collect.push(Buffer.from(part));
        cur.left -= n;
        buf = buf.subarray(n);
        if (cur.left > 0) break;
      }
      if (cur && cur.left === 0) {
        if (buf.length < cur.pad) break;
        buf = buf.subarray(cur.pad);
        await cur.fh?.close();
        finishMeta();
        cur = undefined;
      }
      if (buf.length < BLOCK) break;
      const h = buf.subarray(0, BLOCK);
      buf = buf.subarray(BLOCK);
      if (h.every((b) => b === 0)) {
        continue;
      }
      await begin(Buffer.from(h));
    }
  }
  await cur?.fh?.close().catch(() => {});
  // Folder modes last (a read-only folder would have refused its children), deepest first.
  for (const [d, m] of dirModes.reverse()) await chmod(d, m).catch(() => {});
  return { bytes, entries, skipped };
}

/**
 * Starts pulling `src` now, up to `max` bytes ahead of the reader, so that reading the trial folders
 * overlaps the exec's creation and start instead of following it.
 */
export function prefetch(src: AsyncIterable<Buffer>, max: number): AsyncIterable<Buffer> {
  const queue: Buffer[] = [];
  let bytes = 0;
  let done = false;
  let error: unknown;
  let wake: (() => void) | undefined;
  let room: (() => void) | undefined;
  void (async () => {
    try {
      for await (const c of src) {
        queue.push(c);
        bytes += c.length;
        wake?.();
        while (bytes >= max) await new Promise<void>((r) => (room = r));
      }
    } catch (e) {
      error = e;
    } finally {
      done = true;
      wake?.();
    }
  })();
  return {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const c = queue.shift();
        if (c) {
          bytes -= c.length;
          room?.();
          room = undefined;
          yield c;
          continue;
        }
        if (error) throw error;
        if (done) return;
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
      }
    },
  };
}
