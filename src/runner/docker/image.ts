// What the runner needs to know of the image before the first trial: which user runs the harness.
import type Docker from 'dockerode';

/**
 * The container user: explicit, else ours when not root (files stay ours), else the image's labelled
 * user or its uid 1000, else root (all capabilities dropped, with a warning).
 */
export async function chooseUser(
  docker: Docker,
  image: string,
  info: Docker.ImageInspectInfo,
  o: {
    explicit?: string;
    labels: Record<string, string>;
    warn: (key: string, m: string) => void;
    /** The container made to read the image's /etc/passwd could not be removed (stop() sweeps it). */
    leftover?: () => void;
  },
): Promise<string> {
  if (o.explicit) return o.explicit;
  const hostUid = process.getuid?.() ?? 0;
  if (hostUid !== 0) return `${hostUid}:${process.getgid?.() ?? hostUid}`;
  const labelled = info.Config?.Labels?.['harness-risk.user'];
  if (labelled && /^\d+:\d+$/.test(labelled)) return labelled;
  const passwd = await readImageFile(docker, image, '/etc/passwd', o.labels, o.leftover).catch(
    () => undefined,
  );
  const line = passwd?.split('\n').find((l) => l.split(':')[2] === '1000');
  if (line) return `1000:${line.split(':')[3] || '1000'}`;
  o.warn(
    'root',
    `docker runner: image ${image} has no uid 1000 user; trials run as root (all capabilities dropped).`,
  );
  return '0:0';
}

/** Reads a file of the image without starting anything (create, archive, remove). */
async function readImageFile(
  docker: Docker,
  image: string,
  p: string,
  labels: Record<string, string>,
  leftover: () => void = () => {},
): Promise<string | undefined> {
  const c = await docker.createContainer({
    Image: image,
    Entrypoint: ['/nonexistent'],
    Labels: labels,
    HostConfig: { NetworkMode: 'none' },
  });
  try {
    const stream = await c.getArchive({ path: p });
    const chunks: Buffer[] = [];
    for await (const b of stream as AsyncIterable<Buffer>) chunks.push(b);
    const buf = Buffer.concat(chunks);
    const len = parseInt(buf.subarray(124, 136).toString('ascii').replace(/\0.*$/s, '').trim() || '0', 8);
    return buf.subarray(512, 512 + len).toString('utf8');
  } finally {
    await c.remove({ force: true }).catch(leftover);
  }
}
