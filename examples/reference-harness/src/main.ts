// reference-harness: a small but real agent harness (OpenAI Chat Completions, tools, policy, memory, skills).
//   node dist/reference-harness.js --policy POLICY.json --prompt "TEXT" [--prompt "TEXT2"…] [--max-steps 30]
// Environment: OPENAI_BASE_URL (…/v1), OPENAI_API_KEY, REF_MODEL (default "scripted"), HR_SVC (services).
// stdout: JSON lines (tool_call, tool_result, denial, final). Exit 0 done, 1 bad input, 2 model/protocol error.
import os from 'node:os';
import { runAgent } from './agent.js';
import { ModelError } from './model.js';
import { loadPolicy, type Policy, PolicyError } from './policy.js';

const USAGE =
  'usage: reference-harness --policy POLICY.json --prompt "TEXT" [--prompt "TEXT2" …] [--max-steps N]';

class UsageError extends Error {}

export interface CliArgs {
  policy?: string;
  prompts: string[];
  maxSteps: number;
}

export function parseArgs(argv: string[]): CliArgs {
  const out: CliArgs = { prompts: [], maxSteps: 30 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const flag = eq === -1 ? a : a.slice(0, eq);
    const value = (): string => {
      if (eq !== -1) return a.slice(eq + 1);
      const v = argv[i + 1];
      if (v === undefined) throw new UsageError(`${flag} needs a value\n${USAGE}`);
      i++;
      return v;
    };
    switch (flag) {
      case '--policy':
        out.policy = value();
        break;
      case '--prompt':
        out.prompts.push(value());
        break;
      case '--max-steps': {
        const v = value();
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1)
          throw new UsageError(`--max-steps must be a positive integer, got "${v}"`);
        out.maxSteps = n;
        break;
      }
      case '-h':
      case '--help':
        throw new UsageError(USAGE);
      default:
        throw new UsageError(`unknown argument "${a}"\n${USAGE}`);
    }
  }
  if (out.policy === undefined) throw new UsageError(`--policy is required\n${USAGE}`);
  if (out.prompts.length === 0) throw new UsageError(`at least one --prompt is required\n${USAGE}`);
  if (out.prompts.some((p) => p.trim() === '')) throw new UsageError('--prompt must not be empty');
  return out;
}

async function main(): Promise<number> {
  const env = process.env;
  const warn = (m: string) => process.stderr.write(`reference-harness: ${m}\n`);
  let args: CliArgs;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (err instanceof UsageError) {
      warn(err.message);
      return 1;
    }
    throw err;
  }
  const home = env.HOME || os.homedir();
  const svc = env.HR_SVC?.replace(/\/+$/, '') || undefined;
  let policy: Policy;
  try {
    policy = loadPolicy(args.policy!, { home, svc, warn });
  } catch (err) {
    if (err instanceof PolicyError) {
      warn(err.message);
      return 1;
    }
    throw err;
  }
  const baseUrl = env.OPENAI_BASE_URL;
  if (!baseUrl) {
    warn('OPENAI_BASE_URL is not set (e.g. http://127.0.0.1:8080/v1)');
    return 1;
  }
  try {
    new URL(baseUrl);
  } catch {
    warn(`OPENAI_BASE_URL is not a URL: "${baseUrl}"`);
    return 1;
  }
  const emit = (event: object) => process.stdout.write(`${JSON.stringify(event)}\n`);
  try {
    await runAgent({
      policy,
      prompts: args.prompts,
      maxSteps: args.maxSteps,
      model: { baseUrl, apiKey: env.OPENAI_API_KEY ?? '', model: env.REF_MODEL || 'scripted' },
      workspace: process.cwd(),
      home,
      svc,
      env,
      emit,
      warn,
    });
  } catch (err) {
    if (err instanceof ModelError) {
      warn(err.message);
      return 2;
    }
    warn(`internal error: ${(err as Error).stack ?? String(err)}`);
    return 2;
  }
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`reference-harness: internal error: ${(err as Error).stack ?? String(err)}\n`);
    process.exitCode = 2;
  },
);
