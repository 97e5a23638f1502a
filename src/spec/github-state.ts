// The world's GitHub as a case seeds it (`world.services.github`): one repository, the event's objects
// (issues, pull requests with their files, commits and review comments, releases, workflow runs with
// their job logs, check runs) whose text fields carry the injection, its protected branches, secrets,
// variables and collaborators, and the Actions job's environment the harness runs in (`actions`).
import { z } from 'zod';

const Login = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9-]*(\[bot\])?$/, 'a GitHub login');
/**
 * A branch or tag name as git allows it (git check-ref-format), slashes included (`fix/queue-drain`,
 * `dependabot/npm_and_yarn/lodash-4.17.21`): parts of letters, digits and . _ - joined by single slashes,
 * none starting with a dot, no `..`, not ending in `.lock`.
 */
const RefName = z
  .string()
  .regex(
    /^(?!.*\.\.)(?!.*\.lock$)(?!-)[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/,
    'a branch or tag name: letters, digits, . _ - in parts joined by single slashes (fix/queue-drain), no part starting with a dot, no "..", not ending in .lock',
  );

const Comment = z.object({ user: Login.default('contributor'), body: z.string() }).strict();

const Issue = z
  .object({
    number: z.number().int().positive(),
    title: z.string(),
    body: z.string().default(''),
    user: Login.default('contributor'),
    labels: z.array(z.string()).default([]),
    state: z.enum(['open', 'closed']).default('open'),
    comments: z.array(Comment).default([]),
  })
  .strict();

const PullFile = z
  .object({
    filename: z.string().min(1),
    status: z.enum(['added', 'modified', 'removed', 'renamed']).default('modified'),
    patch: z.string().default(''),
    /** The file at the pull request's head (the contents API at `ref=` the head branch). */
    content: z.string().optional(),
  })
  .strict();

const Pull = z
  .object({
    number: z.number().int().positive(),
    title: z.string(),
    body: z.string().default(''),
    user: Login.default('contributor'),
    head: RefName.default('feature'),
    base: RefName.default('main'),
    /** The head branch lives in a fork (`USER/REPO`): its files are the fork owner's, not the team's. */
    fork: z.boolean().default(false),
    files: z.array(PullFile).default([]),
    commits: z.array(z.object({ message: z.string() }).strict()).default([]),
    comments: z.array(Comment).default([]),
    /** Comments on a line of the diff. */
    review_comments: z
      .array(
        z
          .object({
            user: Login.default('reviewer'),
            body: z.string(),
            path: z.string(),
            line: z.number().int().positive().default(1),
          })
          .strict(),
      )
      .default([]),
  })
  .strict();

const Release = z
  .object({
    tag: RefName,
    name: z.string().optional(),
    body: z.string().default(''),
    draft: z.boolean().default(false),
  })
  .strict();

const Run = z
  .object({
    id: z.number().int().positive(),
    name: z.string(),
    head_branch: RefName.default('main'),
    conclusion: z.enum(['success', 'failure', 'cancelled']).default('failure'),
    /** The run's jobs; each job's log is what `job_logs` serves. */
    jobs: z
      .array(z.object({ id: z.number().int().positive(), name: z.string(), log: z.string() }).strict())
      .default([]),
  })
  .strict();

const CheckRun = z
  .object({
    id: z.number().int().positive(),
    name: z.string(),
    conclusion: z.enum(['success', 'failure', 'neutral']).default('failure'),
    /** The commit (or branch) whose check-runs list shows it. */
    ref: z.string().default('main'),
    title: z.string().default(''),
    summary: z.string().default(''),
    text: z.string().default(''),
  })
  .strict();

/**
 * The Actions job's environment, as the harness would see it in a workflow: every value a canary or a
 * world URL of this trial, never the real job's. `token` becomes GITHUB_TOKEN (and GH_TOKEN), the OIDC
 * pair ACTIONS_ID_TOKEN_REQUEST_URL (the world's token endpoint) and ACTIONS_ID_TOKEN_REQUEST_TOKEN, `env`
 * the workflow's `env:` (secrets.* and inputs passed on).
 */
const Actions = z
  .object({
    event_name: z
      .string()
      .regex(/^[a-z_]+$/)
      .default('issue_comment'),
    /** GITHUB_TOKEN's value: a canary template (`{{canary:GITHUB_TOKEN}}`). */
    token: z.string().optional(),
    /** The token's permissions, as the workflow's `permissions:` grants them (shown to `GET /installation`-less clients in the X-OAuth-Scopes header). */
    permissions: z.record(z.string(), z.enum(['read', 'write', 'none'])).default({ contents: 'read' }),
    /** ACTIONS_ID_TOKEN_REQUEST_TOKEN's value (a canary); with `id_token`, the job may mint OIDC tokens. */
    id_token_request: z.string().optional(),
    /** The OIDC token the world's endpoint mints (a canary). */
    id_token: z.string().optional(),
    /** More variables of the job's environment (`secrets.*` passed as env, inputs): values are templates. */
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string()).default({}),
  })
  .strict();

export const GithubState = z
  .object({
    repo: z
      .string()
      .regex(/^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/, 'OWNER/NAME')
      .default('acme/app'),
    default_branch: RefName.default('main'),
    /** Branches a push, ref update, contents write or merge onto is refused (as branch protection does). */
    protected: z.array(RefName).default(['main']),
    /** The default branch's files (the contents API); a pull request's head adds its files' `content`. */
    files: z.record(z.string(), z.string()).default({}),
    issues: z.array(Issue).default([]),
    pulls: z.array(Pull).default([]),
    releases: z.array(Release).default([]),
    tags: z.array(RefName).default([]),
    runs: z.array(Run).default([]),
    check_runs: z.array(CheckRun).default([]),
    /** Names of the repository's Actions secrets (values are never listed, as on GitHub). */
    secrets: z.array(z.string()).default([]),
    variables: z.record(z.string(), z.string()).default({}),
    collaborators: z
      .array(
        z
          .object({
            login: Login,
            permission: z.enum(['read', 'triage', 'write', 'maintain', 'admin']).default('write'),
          })
          .strict(),
      )
      .default([]),
    actions: Actions.optional(),
  })
  .strict();
export type GithubState = z.infer<typeof GithubState>;
