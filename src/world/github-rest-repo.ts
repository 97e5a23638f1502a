// The world's GitHub over REST: the repository's contents, refs, commits, tags, releases and collaborators.
// Branch protection is the case's `protected` list: a write onto one is refused as GitHub refuses it
// (status and message), and the refusal is what the evidence records.
import type { GithubLive } from '../evidence/github-live.js';
import { fakeSha } from '../evidence/github-live.js';
import { fail, type GhRun, idOf, ok, repoUrl, str, user } from './github-rest-answers.js';

/** The branch a write lands on is protected: GitHub's own refusal text. */
export const isProtected = (gh: GithubLive, branch: string) =>
  gh.protected.includes(branch.replace(/^refs\/heads\//, ''));

function contentAt(gh: GithubLive, path: string, ref: string | null): string | undefined {
  const head = ref ? gh.pulls.find((p) => p.head === ref || `refs/heads/${p.head}` === ref) : undefined;
  const fromHead = head?.files.find((f) => f.filename === path)?.content;
  if (fromHead !== undefined) return fromHead;
  const written = gh.writes.filter((w) => w.path === path && (!ref || w.branch === ref)).at(-1);
  if (written) return written.content;
  return Object.hasOwn(gh.files, path) ? gh.files[path] : undefined;
}

export const contents: GhRun = ({ query }, [path], gh) => {
  const text = contentAt(gh, path!, query.get('ref'));
  if (text === undefined) return fail(404, 'Not Found');
  return ok({
    type: 'file',
    encoding: 'base64',
    size: Buffer.byteLength(text),
    name: path!.split('/').at(-1),
    path,
    content: Buffer.from(text).toString('base64'),
    sha: fakeSha(`blob:${text}`),
    url: `${repoUrl(gh)}/contents/${path}`,
    html_url: `https://github.invalid/${gh.repo}/blob/${gh.default_branch}/${path}`,
    download_url: null,
    git_url: null,
    _links: { self: `${repoUrl(gh)}/contents/${path}`, git: null, html: null },
  });
};

export const putContents: GhRun = ({ fields }, [path], gh) => {
  const message = str(fields, 'message');
  const content = str(fields, 'content');
  if (!message || content === undefined)
    return fail(422, 'Validation Failed: message and content are required');
  const branch = str(fields, 'branch') ?? gh.default_branch;
  const text = Buffer.from(content, 'base64').toString('utf8');
  // The evidence keeps the text written, not its base64: a check's `contains` reads what the file says.
  const record = JSON.stringify({ ...fields, content: text });
  if (isProtected(gh, branch))
    return {
      ...fail(
        409,
        `Repository rule violations found: ${branch} is a protected branch (changes must be made through a pull request)`,
      ),
      record,
    };
  gh.writes.push({ path: path!, branch, message, content: text });
  const sha = fakeSha(`write:${gh.writes.length}:${path}`);
  gh.refs[`heads/${branch}`] = sha;
  return {
    ...ok(
      {
        content: { path, name: path!.split('/').at(-1), sha: fakeSha(`blob:${content}`) },
        commit: { sha, message },
      },
      201,
    ),
    record,
  };
};

const refJson = (gh: GithubLive, name: string) => ({
  ref: `refs/${name}`,
  node_id: `REF_${name}`,
  url: `${repoUrl(gh)}/git/refs/${name}`,
  object: { sha: gh.refs[name], type: 'commit', url: `${repoUrl(gh)}/git/commits/${gh.refs[name]}` },
});

export const ref: GhRun = (_c, [name], gh) =>
  Object.hasOwn(gh.refs, name!) ? ok(refJson(gh, name!)) : fail(404, 'Not Found');

export const createRef: GhRun = ({ fields }, _p, gh) => {
  const full = str(fields, 'ref') ?? '';
  const sha = str(fields, 'sha');
  if (!/^refs\/(heads|tags)\/.+/.test(full) || !sha)
    return fail(422, 'Validation Failed: ref must be refs/heads/… or refs/tags/… and sha given');
  const name = full.slice('refs/'.length);
  if (Object.hasOwn(gh.refs, name)) return fail(422, 'Reference already exists');
  gh.refs[name] = sha;
  return ok(refJson(gh, name), 201);
};

export const updateRef: GhRun = ({ fields }, [name], gh) => {
  const sha = str(fields, 'sha');
  if (!sha) return fail(422, 'Validation Failed: sha is required');
  if (!Object.hasOwn(gh.refs, name!)) return fail(422, 'Reference does not exist');
  if (name!.startsWith('heads/') && isProtected(gh, name!.slice('heads/'.length)))
    return fail(422, `Cannot update protected branch ${name!.slice('heads/'.length)}`);
  gh.refs[name!] = sha;
  return ok(refJson(gh, name!));
};

export const commitJson = (gh: GithubLive, sha: string, message: string, author: string) => ({
  sha,
  node_id: `C_${sha.slice(0, 8)}`,
  url: `${repoUrl(gh)}/commits/${sha}`,
  html_url: `https://github.invalid/${gh.repo}/commit/${sha}`,
  commit: {
    message,
    author: { name: author, email: `${author}@users.noreply.invalid`, date: '2026-01-01T00:00:00Z' },
  },
  author: user(author),
  parents: [],
});

export const commit: GhRun = (_c, [sha], gh) => {
  for (const p of gh.pulls)
    for (const [i, c] of p.commits.entries())
      if (
        fakeSha(`commit:${p.number}:${i}`).startsWith(sha!) ||
        (i === p.commits.length - 1 && sha === p.head)
      )
        return ok(commitJson(gh, fakeSha(`commit:${p.number}:${i}`), c.message, p.user));
  const known = Object.entries(gh.refs).find(([n, s]) => s === sha || n === `heads/${sha}`);
  return known
    ? ok(commitJson(gh, known[1], `Update ${known[0]}`, 'maintainer'))
    : fail(422, `No commit found for SHA: ${sha}`);
};

export const tags: GhRun = (_c, _p, gh) =>
  ok(
    Object.keys(gh.refs)
      .filter((r) => r.startsWith('tags/'))
      .map((r) => ({
        name: r.slice(5),
        commit: { sha: gh.refs[r], url: `${repoUrl(gh)}/commits/${gh.refs[r]}` },
        node_id: `TAG_${r}`,
      })),
  );

type Release = GithubLive['releases'][number];
const releaseJson = (gh: GithubLive, r: Release) => ({
  id: idOf(`release:${r.tag}`),
  node_id: `RE_${r.tag}`,
  tag_name: r.tag,
  name: r.name ?? r.tag,
  body: r.body,
  draft: r.draft,
  prerelease: false,
  html_url: `https://github.invalid/${gh.repo}/releases/tag/${r.tag}`,
  author: user('maintainer'),
  created_at: '2026-01-01T00:00:00Z',
  published_at: '2026-01-01T00:00:00Z',
  assets: [],
});

export const releases: GhRun = (_c, _p, gh) => ok(gh.releases.map((r) => releaseJson(gh, r)));
export const releaseByTag: GhRun = (_c, [tag], gh) => {
  const r = gh.releases.find((x) => x.tag === tag);
  return r ? ok(releaseJson(gh, r)) : fail(404, 'Not Found');
};
export const createRelease: GhRun = ({ fields }, _p, gh) => {
  const tag = str(fields, 'tag_name');
  if (!tag) return fail(422, 'Validation Failed: tag_name is required');
  if (gh.releases.some((r) => r.tag === tag)) return fail(422, 'Validation Failed: tag_name already_exists');
  const r: Release = {
    tag,
    name: str(fields, 'name'),
    body: str(fields, 'body') ?? '',
    draft: fields.draft === true,
  };
  gh.releases.push(r);
  gh.refs[`tags/${tag}`] ??= gh.refs[`heads/${gh.default_branch}`]!;
  return ok(releaseJson(gh, r), 201);
};

// ---- collaborators ----

export const collaborators: GhRun = (_c, _p, gh) =>
  ok(
    gh.collaborators.map((c) => ({
      ...user(c.login),
      permissions: { admin: c.permission === 'admin', push: c.permission !== 'read', pull: true },
      role_name: c.permission,
    })),
  );
export const addCollaborator: GhRun = ({ fields }, [login], gh) => {
  const permission = str(fields, 'permission') ?? 'push';
  gh.invitations.push({ login: login!, permission });
  return ok(
    {
      id: idOf(`invite:${login}`),
      node_id: `INV_${login}`,
      invitee: user(login!),
      // The request's legacy `push`/`pull` are answered as the role names GitHub answers with.
      permissions: ({ push: 'write', pull: 'read' } as Record<string, string>)[permission] ?? permission,
      repository: { full_name: gh.repo },
      created_at: '2026-01-01T00:00:00Z',
    },
    201,
  );
};
