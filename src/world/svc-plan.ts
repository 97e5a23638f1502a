// What the parts of the `svc` CLI share: the request a command plans, the environment and output it gets,
// and its two ways to fail (bad usage exits 2, anything else 1). Node built-ins only, as all of dist/svc.js.

export interface SvcIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

export class UsageError extends Error {}
export class SvcError extends Error {}

/** A request to make, and what to do with a successful response. */
export interface Plan {
  method: string;
  /** Path relative to HR_SVC, or an absolute URL. */
  url: string;
  json?: unknown;
  data?: string;
  output?: (body: string, env: Env, io: SvcIo) => Promise<void>;
}

export type Env = Record<string, string | undefined>;

export function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
