// Abstract actions: what the scripted model wants done (an owner's plan, an attacker's goal), independent
// of any harness's tool names. Its own module so the check kinds can name action kinds without a cycle.
import { z } from 'zod';
import { didYouMean } from '../zod-issues.js';
import { CALLABLE_OPS } from './service-catalog.js';

/**
 * Paths in actions and checks: relative paths are inside the trial's workspace, `~/…` inside the trial's
 * HOME, `$TMP/…` inside its TMPDIR; absolute paths are left as they are. Strings may hold templates:
 * `{{canary:NAME}}`, `{{svc}}` (base URL of the mock services as the harness sees it), `{{workspace}}`,
 * `{{home}}`, `{{tmp}}`.
 */
export const Text = z.string();

/** Operations of each mock service a `call` action may name (the `svc` CLI's vocabulary), from the catalog. */
export const SERVICE_OPS = CALLABLE_OPS;
/** The channels a `send` action goes through. */
export const SEND_CHANNELS = ['mail', 'chat'] as const;
const CALL_SERVICES = Object.keys(CALLABLE_OPS) as [string, ...string[]];

/** Abstract actions: what the scripted model wants done, independent of any harness's tool names. */
export const Action = z.discriminatedUnion('do', [
  z.object({ do: z.literal('read'), path: Text }).strict(),
  z
    .object({ do: z.literal('write'), path: Text, content: Text, append: z.boolean().default(false) })
    .strict(),
  z.object({ do: z.literal('run'), command: Text }).strict(),
  z
    .object({
      do: z.literal('fetch'),
      url: Text,
      method: z.enum(['GET', 'POST', 'PUT', 'DELETE']).default('GET'),
      body: Text.optional(),
    })
    .strict(),
  /** A message through the mail or chat service. */
  z
    .object({
      do: z.literal('send'),
      channel: z.enum(SEND_CHANNELS),
      to: Text,
      subject: Text.optional(),
      body: Text,
    })
    .strict(),
  /** Any other mock-service operation, e.g. payments.transfer, deploy.trigger, tickets.close. */
  z
    .object({
      do: z.literal('call'),
      service: z.enum(CALL_SERVICES),
      op: z.string().min(1),
      args: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
    })
    .strict()
    .superRefine((a, ctx) => {
      const ops = SERVICE_OPS[a.service] ?? [];
      if (ops.includes(a.op)) return;
      // The service's own ops, and the one likely meant: the author fixes one name, not a list of all.
      ctx.addIssue({
        code: 'custom',
        path: ['op'],
        message: `${a.service} has no operation "${a.op}" a call can name${didYouMean(a.op, ops)} (its ops: ${ops.join(', ')})`,
      });
    }),
  /** Install an extension/skill from the mock registry into the harness's skills folder. */
  z.object({ do: z.literal('install'), name: Text }).strict(),
  /**
   * Hand a task to a sub-agent: the harness's own task/sub-agent tool where it has one (adapter hint
   * `delegate`, or a tool named task/delegate/spawn_agent…), else the `agents` mock service (`svc agents run`).
   * The sub-agent's report (world.services.agents) comes back as untrusted content.
   */
  z.object({ do: z.literal('delegate'), agent: Text, task: Text }).strict(),
  /** Write a durable entry into the harness's memory. */
  z.object({ do: z.literal('remember'), text: Text }).strict(),
  /** Final text to the owner. */
  z.object({ do: z.literal('reply'), text: Text }).strict(),
]);
export type Action = z.infer<typeof Action>;

/** The `agents` service call a `delegate` action falls back to when the harness has no task tool. */
export const delegateCall = (a: Extract<Action, { do: 'delegate' }>): Extract<Action, { do: 'call' }> => ({
  do: 'call',
  service: 'agents',
  op: 'run',
  args: { name: a.agent, task: a.task },
});
export type ActionKind = Action['do'];

export const ACTION_KINDS = Action.options.map((o) => o.shape.do.value) as [ActionKind, ...ActionKind[]];
export const ActionKindSchema = z.enum(ACTION_KINDS);
