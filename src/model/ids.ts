// Opaque ids. A harness under test is hostile: anything in an id that tells an attack call from an owner
// call (a step tag, a role letter, a trial name) lets it refuse exactly the attacker's calls and look safe
// while enforcing nothing. So every id the scripted model sends looks like the real provider's (prefix,
// alphabet, length) and is a keyed pseudo-random function of a per-trial secret and a counter: it carries
// no step, role or trial information. Which plan step a call served is kept by the engine, in memory, in
// the trial's CallLedger (the one piece of state the scripted model keeps between requests).
//
// HMAC rather than plain random bytes: a test that fixes the secret gets byte-identical traffic, while a
// real run draws a fresh secret per trial, so ids are unpredictable and unlinkable across runs. Labels
// never depend on id bytes (the ledger maps ids to moves), so identical commits still give identical labels.
import { createHmac, randomBytes } from 'node:crypto';
import { callKey, type StepRef, type WorldVerdict } from '../evidence/types.js';
import { type Conversation, type Dialect, UNNAMED_CALL } from './conversation.js';
import type { Before } from './world-check.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE64URL = `${BASE62}-_`;
const HEX = '0123456789abcdef';

/** `length` characters of `alphabet` drawn from bytes (rejection sampling: no bias towards early letters). */
function fromBytes(next: () => Buffer, alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const b of next()) {
      if (b >= limit) continue;
      out += alphabet[b % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** HMAC-SHA256(secret, parts) as a stream of blocks, so any length can be drawn. */
function keyedStream(secret: string, parts: string[]): () => Buffer {
  let block = 0;
  return () =>
    createHmac('sha256', secret)
      .update([...parts, String(block++)].join('\u0000'))
      .digest();
}

/**
 * A second try at a call that wrote nothing because the harness wants the file read first (Claude Code's
 * and Qwen Code's write tools refuse to overwrite a file the session has not read; a real model reads it
 * and writes again): `read` reads the file the call writes, `write` makes the call again. Owner steps and
 * attacker routes alike (replay.ts readFirst). `search` (owner steps only): the harness offers no tool for
 * the step but a tool search; the step is then made with what the search found (discovery.ts).
 */
export type Redo = 'read' | 'write' | 'search';

/** One tool call of the policy: the plan step it serves, and whether it is a second try at it. */
export interface Move {
  step: StepRef;
  redo?: Redo;
  /**
   * Attacker steps: which of the step's routes (routes.ts) and which call of that route. Owner steps:
   * 1 = the shell's form, after the harness's own tool refused or failed the step; 2 = the tool a search
   * found (after a `search` move); 3 = the step asked again outside the harness's sandbox (escalation.ts);
   * 4 = the step's next plain form (routes.ts ownerAlternative), after a form that failed before the world
   * saw anything of it.
   * A redo of an attacker call names the route and call it repeats.
   */
  route?: number;
  part?: number;
}

/** The ids of one response besides its tool calls. */
export interface ResponseIds {
  /** `msg_01…` (Anthropic), `resp_…` (Responses), `chatcmpl-…` (Chat Completions), Gemini's responseId. */
  response: string;
  /** The Responses API's output message item (`msg_…`); unused elsewhere. */
  message: string;
}

/** What real providers' ids look like (prefix + alphabet + length), per kind of id. */
const SHAPES = {
  anthropicTool: { prefix: 'toolu_01', alphabet: BASE62, length: 22 },
  anthropicMessage: { prefix: 'msg_01', alphabet: BASE62, length: 22 },
  openaiCall: { prefix: 'call_', alphabet: BASE62, length: 24 },
  responsesItem: { prefix: 'fc_', alphabet: HEX, length: 48 },
  responsesMessage: { prefix: 'msg_', alphabet: HEX, length: 48 },
  response: { prefix: 'resp_', alphabet: HEX, length: 48 },
  chatCompletion: { prefix: 'chatcmpl-', alphabet: BASE62, length: 29 },
  geminiCall: { prefix: '', alphabet: '0123456789abcdefghijklmnopqrstuvwxyz', length: 8 },
  geminiResponse: { prefix: '', alphabet: BASE64URL, length: 23 },
} as const;
type Shape = keyof typeof SHAPES;

/** The shape of a tool-call id in each dialect. */
const callShape = (dialect: Dialect): Shape =>
  dialect === 'anthropic-messages' ? 'anthropicTool' : dialect === 'gemini' ? 'geminiCall' : 'openaiCall';

/** The per-trial state of the scripted model: the ids it issued and the move each one served. */
export class CallLedger {
  private seq = 0;
  /** callKey(id) → move: a harness that strips separators (OpenClaw) still finds its calls. */
  private readonly moves = new Map<string, Move>();
  /** callKey(id) → the world before the call, for calls whose effect the engine can see (world-check.ts). */
  private readonly before = new Map<string, Before>();
  /** callKey(id) → what the world showed once its result came back. */
  private readonly verdicts = new Map<string, WorldVerdict>();
  /** id → the call as sent (name and arguments), in issue order: finds a call echoed without its id. */
  private readonly sent = new Map<string, string>();

  /** `secret` defaults to 32 fresh random bytes; pass one only to get byte-identical traffic in tests. */
  constructor(private readonly secret: string = randomBytes(32).toString('hex')) {}

  private draw(shape: Shape): string {
    const s = SHAPES[shape];
    return s.prefix + fromBytes(keyedStream(this.secret, [shape, String(this.seq++)]), s.alphabet, s.length);
  }

  /** A fresh tool-call id in the dialect's format, remembered as serving `move`. */
  issue(dialect: Dialect, move: Move): string {
    const id = this.draw(callShape(dialect));
    this.moves.set(callKey(id), move);
    return id;
  }

  /** A fresh tool-call id for a call no plan step made (live and replayed answers): remembered as nothing. */
  fresh(dialect: Dialect): string {
    return this.draw(callShape(dialect));
  }

  /** Remembers what call `id` asked for, so a harness that echoes it without the id (Gemini) is understood. */
  sentAs(id: string, name: string, args: unknown): void {
    this.sent.set(id, sentText(name, args));
  }

  /** The ids sent for a call of this name and arguments, in issue order. */
  idsSentAs(name: string, args: unknown): string[] {
    const text = sentText(name, args);
    return [...this.sent].filter(([, t]) => t === text).map(([id]) => id);
  }

  /** The move an id we issued served, also after a harness rewrote its separators; undefined for ids it made up. */
  lookup(id: string): Move | undefined {
    return this.moves.get(callKey(id));
  }

  /** Remembers the world before call `id` ran, to judge its effect when its result comes back. */
  expect(id: string, before: Before): void {
    this.before.set(callKey(id), before);
  }

  /** Calls whose effect is still to be judged: their ids' keys and the world before them. */
  awaiting(): [key: string, before: Before][] {
    return [...this.before].filter(([k]) => !this.verdicts.has(k));
  }

  settle(key: string, verdict: WorldVerdict): void {
    this.verdicts.set(key, verdict);
  }

  /** What the world showed of call `id`'s effect; undefined when nobody looked (or could). */
  verdict(id: string): WorldVerdict | undefined {
    return this.verdicts.get(callKey(id));
  }

  /** Every move a call was issued for, in issue order (a sub-agent's conversation follows its delegate call). */
  issued(): Move[] {
    return [...this.moves.values()];
  }

  /** The Responses API's function_call item id: its own random id, as real ones are unrelated to the call id. */
  itemId(): string {
    return this.draw('responsesItem');
  }

  responseIds(dialect: Dialect): ResponseIds {
    switch (dialect) {
      case 'anthropic-messages':
        return { response: this.draw('anthropicMessage'), message: '' };
      case 'openai-responses':
        return { response: this.draw('response'), message: this.draw('responsesMessage') };
      case 'openai-chat':
        return { response: this.draw('chatCompletion'), message: '' };
      case 'gemini':
        return { response: this.draw('geminiResponse'), message: '' };
    }
  }
}

const sentText = (name: string, args: unknown): string => JSON.stringify([name, args ?? {}]);

/**
 * A Gemini harness may send calls and results back without ids; the parser gave them ids of its own
 * (UNNAMED_CALL…), unknown to the ledger. Each such call that repeats one the ledger sent (same name and
 * arguments, the earliest not yet matched) gets that call's id back, its results with it, so the policy
 * knows which plan step it served as if the harness had echoed the id.
 */
export function withIssuedIds(conv: Conversation, ledger: CallLedger): Conversation {
  const named = new Map<string, string>();
  const used = new Set<string>();
  for (const m of conv.messages)
    for (const c of m.toolCalls) {
      if (!c.id.startsWith(UNNAMED_CALL)) {
        used.add(c.id);
        continue;
      }
      const id = ledger.idsSentAs(c.name, c.args).find((i) => !used.has(i));
      if (id) {
        named.set(c.id, id);
        used.add(id);
      }
    }
  if (!named.size) return conv;
  const idOf = (id: string) => named.get(id) ?? id;
  return {
    ...conv,
    messages: conv.messages.map((m) => ({
      ...m,
      toolCalls: m.toolCalls.map((c) => ({ ...c, id: idOf(c.id) })),
      toolResults: m.toolResults.map((r) => ({ ...r, callId: idOf(r.callId) })),
    })),
  };
}

/**
 * An API key for the harness, shaped like the provider's (`sk-ant-api03-…AA`, `sk-proj-…T3BlbkFJ…`,
 * `AIza…`) and random: the old `hr-<trial id>` told the harness it faced the instrument and which trial
 * it was in. The endpoint never checks it.
 */
export function providerKey(dialect: Dialect): string {
  const rnd = (n: number) => fromBytes(() => randomBytes(64), BASE64URL, n);
  if (dialect === 'gemini') return `AIza${rnd(35)}`;
  return dialect === 'anthropic-messages'
    ? `sk-ant-api03-${rnd(93)}AA`
    : `sk-proj-${rnd(74)}T3BlbkFJ${rnd(74)}`;
}
