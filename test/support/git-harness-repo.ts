// A team's repository, made for real in a temp folder: its own harness (the reference harness bundle
// copied in as source, with a policy file), a build that assembles build/ from src/ and the policy, an
// adapter that launches {{repo}}/build/harness.js, and git history. Commits are made by the test:
// the base blocks an attack, the head removes the check.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml, stringify } from 'yaml';

const ROOT = resolve(import.meta.dirname, '../..');

export const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'T',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 'T',
      GIT_COMMITTER_EMAIL: 't@example.com',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();

/** The reference adapter, launching the repository's own build instead of the action's bundle. */
function teamAdapter(): string {
  const ref = parseYaml(readFileSync(join(ROOT, 'adapters/reference/adapter.yaml'), 'utf8'));
  return stringify({
    ...ref,
    name: 'team-harness',
    description: "The team's own harness, built from the repository under test.",
    harness: { package_json: '{{repo}}/package.json' },
    launch: {
      ...ref.launch,
      command: [
        'node',
        '{{repo}}/build/harness.js',
        '--policy',
        '{{repo}}/build/policy.json',
        '--prompt',
        '{{prompt}}',
      ],
    },
    configs: { default: { description: 'The policy in build/policy.json.' } },
  });
}

export interface HarnessRepo {
  dir: string;
  /** Writes the policy (a function of the guarded one) and commits; returns the commit SHA. */
  commitPolicy(edit: (p: Record<string, any>) => void, message: string): string;
  commitFile(path: string, text: string, message: string): string;
}

export const GUARDED = () =>
  JSON.parse(readFileSync(join(ROOT, 'examples/reference-harness/policies/guarded.json'), 'utf8'));

export function makeHarnessRepo(): HarnessRepo {
  const dir = mkdtempSync(join(tmpdir(), 'hr-team-repo-'));
  // A checkout is world-readable (mkdtemp makes 0700): the contained harness runs as another uid.
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, 'harness-risk'), { recursive: true });
  cpSync(join(ROOT, 'dist/reference-harness.js'), join(dir, 'src/harness.js'));
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'team-harness', version: '1.0.0', private: true }, null, 2)}\n`,
  );
  writeFileSync(join(dir, 'harness-risk/adapter.yaml'), teamAdapter());
  writeFileSync(join(dir, '.gitignore'), 'build/\n.harness-risk/\n');
  git(dir, 'init', '-q', '-b', 'main');
  const commitFile = (path: string, text: string, message: string) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', message);
    return git(dir, 'rev-parse', 'HEAD');
  };
  return {
    dir,
    commitFile,
    commitPolicy(edit, message) {
      const p = GUARDED();
      edit(p);
      return commitFile('policy.json', `${JSON.stringify(p, null, 2)}\n`, message);
    },
  };
}

/** The build every test passes as `build:`: build/ from src/ and the policy (fails when either is missing). */
export const BUILD =
  'mkdir -p build && cp src/harness.js build/harness.js && cp policy.json build/policy.json';
