// What every REST handler of the world's GitHub shares: its type, the answer and GitHub's error shape, a
// request field as text, and the users, ids and API URLs GitHub's objects carry.
import type { GithubLive } from '../evidence/github-live.js';
import { fakeSha } from '../evidence/github-live.js';
import type { Ctx, Result, RouteOptions } from './services-routes.js';

export type GhRun = (ctx: Ctx, params: string[], gh: GithubLive, opts: RouteOptions) => Result;

export const ok = (json: unknown, status = 200): Result => ({ status, json });
export const fail = (status: number, message: string): Result => ({
  status,
  json: { message, documentation_url: 'https://docs.github.com/rest' },
});

export const str = (fields: Record<string, unknown>, name: string): string | undefined => {
  const v = fields[name];
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
};

const API = 'http://github.invalid/api/v3';
export const user = (login: string) => ({
  login,
  id: idOf(login),
  node_id: `U_${login}`,
  type: login.endsWith('[bot]') ? 'Bot' : 'User',
  site_admin: false,
});
/** A small stable numeric id for a name. */
export const idOf = (name: string): number => Number.parseInt(fakeSha(name).slice(0, 7), 16);

export const repoUrl = (gh: GithubLive) => `${API}/repos/${gh.repo}`;
