// A hint mapping an abstract action (or `shell`) to one of the harness's tools: the adapter declares it
// (src/adapters/schema.ts, `tools:`), the scripted model reads it (ScriptContext.tool_hints). Here, below
// both, so the two share one definition.
import { z } from 'zod';
import { didYouMean } from '../zod-issues.js';
import { ACTION_KINDS, SEND_CHANNELS, SERVICE_OPS } from './actions.js';

/**
 * What a hint may be declared for: the keys the scripted model looks a step's hint up by (an action,
 * `send.mail` or its channel, `payments.transfer` or its service; model/tool-hints.ts) and `shell`. Any
 * other key would never be read: a misspelt one (`fetchh`) must fail to load, not be silently ignored.
 */
export const HINT_KEYS: readonly string[] = [
  ...ACTION_KINDS,
  'shell',
  ...SEND_CHANNELS.flatMap((c) => [`send.${c}`, c]),
  ...Object.entries(SERVICE_OPS).flatMap(([service, ops]) => [
    service,
    ...ops.map((op) => `${service}.${op}`),
  ]),
];

/**
 * The step arguments a hint's `args` renames (`args: {path: file_path}`), per hint key of an action, as the
 * scripted model names them (model/tool-hints.ts abstractArgs) and in the order doctor pairs them with a
 * tool's own when it suggests a hint (engine/doctor-hints.ts). A write asks for `append` only when it
 * appends; a `call` carries the op's own arguments.
 */
export const STEP_ARGS = {
  read: ['path'],
  write: ['path', 'content'],
  run: ['command'],
  shell: ['command'],
  fetch: ['url', 'method', 'body'],
  send: ['to', 'subject', 'body'],
  install: ['name'],
  delegate: ['task', 'agent'],
  remember: ['text'],
  reply: [],
} as const satisfies Record<string, readonly string[]>;

export const HintKey = z
  .string()
  .superRefine((key, ctx) => {
    if (HINT_KEYS.includes(key)) return;
    ctx.addIssue({
      code: 'custom',
      message: `no action "${key}" to hint a tool for${didYouMean(key, HINT_KEYS)}; hint an action (${ACTION_KINDS.join(', ')}), shell, send.CHANNEL (${SEND_CHANNELS.join(', ')}) or SERVICE.OP (e.g. payments.transfer)`,
    });
  })
  // The JSON Schema lists the keys (an editor completes them); loading keeps the did-you-mean message.
  .meta({
    enum: [...HINT_KEYS],
    description: 'the action (or shell, send.CHANNEL, SERVICE.OP) this tool carries out',
  });

export const ToolHint = z
  .object({
    /** The harness's tool name. */
    name: z.string(),
    /** Abstract argument → the tool's argument name (e.g. path → file_path). */
    args: z.record(z.string(), z.string()).default({}),
    /**
     * Arguments the call always carries, whatever the action (e.g. Claude Code's Agent tool for `delegate`:
     * `run_in_background: false`, so the sub-agent's report comes back as the call's result).
     */
    set: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
    /**
     * Arguments that ask the harness to run the call outside its sandbox, on its approval (Codex's
     * `sandbox_permissions: require_escalated` with a `justification`). A step the call did not carry out
     * is made once more with them, as the harness tells a model to (model/escalation.ts); only while the
     * offered tool's schema declares every one of them. Absent: recognised in the schema; `{}`: none.
     */
    escalate: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
    /**
     * `delegate` only: how the harness's sub-agent finishes, when it must end by a tool call rather than a
     * text answer (Gemini CLI's `complete_task`). The scripted sub-agent calls this tool, when its request
     * offers it, with its report at `arg` (a dotted path: `result.response` → {result: {response: …}}).
     */
    finish: z
      .object({ name: z.string().min(1), arg: z.string().regex(/^[^.]+(\.[^.]+)*$/, 'a dotted path') })
      .strict()
      .optional(),
  })
  .strict();
export type ToolHint = z.infer<typeof ToolHint>;
