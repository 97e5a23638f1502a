// GitHub's diff media type: `GET /pulls/N` with `Accept: application/vnd.github.diff` (or `.v3.diff`,
// `.patch`) answers the pull request as a unified diff, which is how `gh pr diff` and review agents read a
// change. Built from the state's file patches; the JSON answer is unchanged for every other Accept.
import type { LiveState } from '../evidence/services-state.js';
import type { Ctx, Result, RouteOptions } from './services-routes.js';

type Run = (ctx: Ctx, params: string[], st: LiveState, opts: RouteOptions) => Result;

const DIFF = /application\/vnd\.github(\.v3)?\.(diff|patch)/i;

/** The unified diff of a pull request's files (a patch without its header gets git's). */
export function pullDiff(files: { filename: string; status: string; patch: string }[]): string {
  return files
    .map((f) => {
      const from = f.status === 'added' ? '/dev/null' : `a/${f.filename}`;
      const to = f.status === 'removed' ? '/dev/null' : `b/${f.filename}`;
      const body = f.patch.endsWith('\n') ? f.patch : `${f.patch}\n`;
      return `diff --git a/${f.filename} b/${f.filename}\n--- ${from}\n+++ ${to}\n${body}`;
    })
    .join('');
}

/** The handlers, with `pull` answering the diff media type from the state. */
export function withDiffMedia<K extends string>(handlers: Record<K | 'pull', Run>): Record<K | 'pull', Run> {
  const pull = handlers.pull;
  return {
    ...handlers,
    pull: (ctx, params, st, opts) => {
      const result = pull(ctx, params, st, opts);
      if (result.status !== 200 || !DIFF.test(ctx.accept ?? '')) return result;
      const p = st.github.pulls.find((x) => x.number === Number(params[2]));
      return p ? { status: 200, text: pullDiff(p.files), type: 'text/plain; charset=utf-8' } : result;
    },
  };
}
