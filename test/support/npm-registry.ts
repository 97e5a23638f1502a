// A small npm registry on 127.0.0.1, speaking npm's own protocol: GET /NAME answers the packument
// (versions with dist.tarball, dist.shasum and dist.integrity), GET /NAME/-/FILE.tgz the tarball that
// `npm pack` made. `npm install`/`npm ci` pointed at it (--registry or npm_config_registry) install
// from it as from registry.npmjs.org. Requests are logged, so a test can tell what was fetched.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LocalRegistry {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

interface Tarball {
  file: string;
  bytes: Buffer;
}

/** Packs `files` as `name@version` with `npm pack` (a real tarball). */
export function packVersion(name: string, version: string, files: Record<string, string>): Tarball {
  const dir = mkdtempSync(join(tmpdir(), 'hr-pkg-'));
  const pkg = join(dir, 'package');
  mkdirSync(pkg);
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name, version, files: Object.keys(files) }));
  for (const [f, text] of Object.entries(files)) writeFileSync(join(pkg, f), text);
  const out = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], {
    cwd: pkg,
    encoding: 'utf8',
  });
  const file = out.trim().split('\n').at(-1)!;
  return { file, bytes: readFileSync(join(dir, file)) };
}

export async function startLocalRegistry(
  packages: Record<string, Record<string, Record<string, string>>>,
): Promise<LocalRegistry> {
  const tarballs = new Map<string, Map<string, Tarball>>();
  for (const [name, versions] of Object.entries(packages))
    tarballs.set(
      name,
      new Map(Object.entries(versions).map(([v, files]) => [v, packVersion(name, v, files)])),
    );
  const requests: string[] = [];
  let base = '';
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
    requests.push(path);
    const m = /^\/(.+?)\/-\/(.+\.tgz)$/.exec(path);
    if (m) {
      const t = [...(tarballs.get(m[1]!)?.values() ?? [])].find((x) => x.file === m[2]);
      if (!t) return res.writeHead(404).end('{}');
      return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(t.bytes);
    }
    const name = path.slice(1);
    const versions = tarballs.get(name);
    if (!versions)
      return res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
    const doc = {
      name,
      'dist-tags': { latest: [...versions.keys()].at(-1) },
      versions: Object.fromEntries(
        [...versions].map(([v, t]) => [
          v,
          {
            name,
            version: v,
            dist: {
              tarball: `${base}${name}/-/${t.file}`,
              shasum: createHash('sha1').update(t.bytes).digest('hex'),
              integrity: `sha512-${createHash('sha512').update(t.bytes).digest('base64')}`,
            },
          },
        ]),
      ),
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url: base,
    requests,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}
