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
  const x = new TreeExtractor(dest, limits);
  try {
    for await (const chunk of stream) await x.feed(chunk);
  } finally {
    await x.closeCurrent();
  }
  return x.finish();
}

/** One tar header, decoded: its type, size, mode, and name and link with the pending long names applied. */
interface TarHeader {
  type: string;
  size: number;
  mode: number;
  name: string;
  link: string;
  pad: number;
}

/** The state of one extraction: what was made, the entry being written, the pending long names. */
class TreeExtractor {
  private readonly made: Set<string>;
  private readonly dirModes: [string, number][] = [];
  private buf: Buffer = Buffer.alloc(0);
  private bytes = 0;
  private entries = 0;
  private skipped = 0;
  private longName: string | undefined;
  private longLink: string | undefined;
  private pax: Record<string, string> = {};
  // The current entry's data: where it goes and how much is left.
  private cur:
    | { left: number; pad: number; fh?: Awaited<ReturnType<typeof open>>; collect?: Buffer[]; kind: string }
    | undefined;

  constructor(
    private readonly dest: Record<string, string>,
    private readonly limits: ExtractLimits,
  ) {
    this.made = new Set<string>(Object.values(dest).map((d) => path.resolve(d)));
  }

  /** Where an entry goes: under a destination, in a folder this extraction made; else undefined. */
  private target(name: string): string | undefined {
    const parts = name.split('/').filter((p) => p && p !== '.');
    if (parts.length < 2 || parts.some((p) => p === '..') || name.startsWith('/')) return undefined;
    const top = this.dest[parts[0]];
    if (!top || !Object.hasOwn(this.dest, parts[0])) return undefined;
    const abs = path.join(path.resolve(top), ...parts.slice(1));
    return this.made.has(path.dirname(abs)) ? abs : undefined;
  }

  private header(h: Buffer): TarHeader {
    const size = parseNum(h.subarray(124, 136));
    const prefix = cstr(h.subarray(345, 500));
    return {
      type: String.fromCharCode(h[156] || 48),
      size,
      mode: parseNum(h.subarray(100, 108)) & 0o1777,
      name:
        this.pax.path ??
        this.longName ??
        (prefix ? `${prefix}/${cstr(h.subarray(0, 100))}` : cstr(h.subarray(0, 100))),
      link: this.pax.linkpath ?? this.longLink ?? cstr(h.subarray(157, 257)),
      pad: (BLOCK - (size % BLOCK)) % BLOCK,
    };
  }

  /** A header block: a metadata entry to collect, or an entry to make (or skip). */
  private async begin(block: Buffer): Promise<void> {
    const h = this.header(block);
    if (h.type === 'L' || h.type === 'K' || h.type === 'x' || h.type === 'g') {
      if (h.size > 1024 * 1024) throw new TarLimitError('a tar metadata entry over 1 MiB');
      this.cur = { left: h.size, pad: h.pad, collect: [], kind: h.type };
      return;
    }
    this.longName = this.longLink = undefined;
    this.pax = {};
    this.entries++;
    if (this.entries > this.limits.maxEntries)
      throw new TarLimitError(`more than ${this.limits.maxEntries} files`);
    const abs = this.target(h.name.replace(/\/+$/, ''));
    this.cur = { left: h.size, pad: h.pad, kind: 'skip' };
    if (!abs) this.skipped++;
    else await this.make(h, abs);
  }

  /** Makes one entry at `abs`: a folder, a file (its data follows), a symlink, a hard link's copy. */
  private async make(h: TarHeader, abs: string): Promise<void> {
    const skip = () => {
      this.skipped++;
    };
    if (h.type === '5') {
      await mkdir(abs, { mode: 0o700 }).then(() => {
        this.made.add(abs);
        this.dirModes.push([abs, h.mode]);
      }, skip);
    } else if (h.type === '0' || h.type === '\0' || h.type === '7') {
      try {
        const fh = await open(
          abs,
          constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
          0o600,
        );
        this.cur = { left: h.size, pad: h.pad, fh, kind: 'file' };
        await fh.chmod(h.mode);
      } catch {
        skip();
      }
    } else if (h.type === '2') {
      await symlink(h.link, abs).catch(skip);
    } else if (h.type === '1') {
      // A hard link to a file extracted earlier: a copy of it (never a link into anything else).
      const from = this.target(h.link.replace(/\/+$/, ''));
      const st = from ? await lstat(from).catch(() => undefined) : undefined;
      if (from && st?.isFile())
        await copyFile(from, abs, constants.COPYFILE_EXCL)
          .then(() => chmod(abs, st.mode & 0o1777))
          .catch(skip);
      else skip();
    } else {
      skip();
    }
  }

  private finishMeta(): void {
    const cur = this.cur;
    if (!cur?.collect) return;
    const data = Buffer.concat(cur.collect);
    if (cur.kind === 'L') this.longName = cstr(data);
    else if (cur.kind === 'K') this.longLink = cstr(data);
    else if (cur.kind === 'x') this.pax = { ...this.pax, ...parsePax(data) };
  }

  /** The next chunk of the stream: entry data written, headers begun, as far as the chunk goes. */
  async feed(chunk: Buffer): Promise<void> {
    this.bytes += chunk.length;
    if (this.bytes > this.limits.maxBytes)
      throw new TarLimitError(`more than ${Math.round(this.limits.maxBytes / 1024 ** 2)} MiB`);
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    for (;;) {
      const cur = this.cur;
      if (cur && cur.left > 0) {
        if (this.buf.length === 0) break;
        const n = Math.min(cur.left, this.buf.length);
        const part = this.buf.subarray(0, n);
        if (cur.fh) await cur.fh.write(part);
        else if (cur.collect) cur.collect.push(Buffer.from(part));
        cur.left -= n;
        this.buf = this.buf.subarray(n);
        if (cur.left > 0) break;
      }
      if (cur && cur.left === 0) {
        if (this.buf.length < cur.pad) break;
        this.buf = this.buf.subarray(cur.pad);
        await cur.fh?.close();
        this.finishMeta();
        this.cur = undefined;
      }
      if (this.buf.length < BLOCK) break;
      const h = this.buf.subarray(0, BLOCK);
      this.buf = this.buf.subarray(BLOCK);
      if (h.every((b) => b === 0)) continue;
      await this.begin(Buffer.from(h));
    }
  }

  /** Closes the file being written, if any (the stream ended or failed). */
  async closeCurrent(): Promise<void> {
    await this.cur?.fh?.close().catch(() => {});
  }

  /** Folder modes last (a read-only folder would have refused its children), deepest first. */
  async finish(): Promise<{ bytes: number; entries: number; skipped: number }> {
    for (const [d, m] of this.dirModes.reverse()) await chmod(d, m).catch(() => {});
    return { bytes: this.bytes, entries: this.entries, skipped: this.skipped };
  }
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
