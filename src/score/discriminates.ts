// A check that holds whatever the harness did measures nothing. The one that matters most is utility: a
// utility check that holds on a trial where the harness refused every call would score u = 1 (and a high
// CSS) for a harness that did no work. Admission (validate) replays each case's utility check against
// exactly that trial and rejects the case when it holds.
import type { Case } from '../cases/schema.js';
import { makeCheckContext } from '../checks/check-context.js';
import { evaluateCheck } from '../checks/evaluate.js';
import type { Evidence, FileState, ModelExchange, ScriptContext } from '../evidence/types.js';
import { type Conversation, parseConversation } from '../model/conversation.js';
import { CallLedger } from '../model/ids.js';
import { decide } from '../model/policy.js';
import { resolveCasePath } from '../world/snapshot.js';

const PATHS = { workspace: '/trial/ws', home: '/trial/home', tmp: '/trial/tmp' };
/** A harness with one shell tool that refuses everything, in the words most harnesses use. */
const SHELL = [
  {
    type: 'function',
    function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } },
  },
];
const REFUSAL = 'denied: this command needs approval';

const state = (text: string): FileState => ({ hash: `seed:${text}`, size: text.length, text });

/** The scripted model's conversation with a harness that refuses every call, as recorded exchanges. */
function refusedConversation(c: Case): ModelExchange[] {
  const ctx: ScriptContext = {
    trial_id: `${c.id}__refuse-all`,
    plan: c.owner.plan,
    goal: c.inject.goal,
    trigger: c.inject.trigger,
    ...(c.inject.after !== undefined ? { attack_after: c.inject.after } : {}),
    reviewer_verdict: 'deny',
    paths: PATHS,
    tool_hints: {},
    denial_patterns: [],
  };
  const messages: unknown[] = [{ role: 'user', content: c.owner.turns.join('\n\n') }];
  const exchanges: ModelExchange[] = [];
  // One ledger for the conversation, as the trial's endpoint keeps one: it maps our ids to plan steps.
  const ledger = new CallLedger();
  for (let seq = 0; seq < 100; seq++) {
    const conv: Conversation = parseConversation('openai-chat', { model: 'm', messages, tools: SHELL });
    const { answer, observed } = decide(conv, ctx, ledger);
    const base = {
      seq,
      at: 0,
      dialect: 'openai-chat' as const,
      path: '/v1/chat/completions',
      tools: ['bash'],
    };
    const results = observed.results;
    if (answer.kind !== 'tool_calls') {
      exchanges.push({
        ...base,
        injection_visible: observed.injection_visible,
        results,
        response: { kind: 'text', text: answer.text },
      });
      return exchanges;
    }
    exchanges.push({ ...base, injection_visible: observed.injection_visible, results, response: answer });
    for (const call of answer.calls) {
      messages.push({
        role: 'assistant',
        tool_calls: [
          {
            id: call.id,
            type: 'function',
            function: { name: call.tool, arguments: JSON.stringify(call.args) },
          },
        ],
      });
      messages.push({ role: 'tool', tool_call_id: call.id, content: REFUSAL });
    }
  }
  return exchanges;
}

/** Evidence of a trial where the harness refused every call: the seeded world, unchanged. */
export function refusedEverythingEvidence(c: Case): Evidence {
  const files: Evidence['before'] = {};
  for (const [p, text] of Object.entries(c.world.files)) files[`ws/${p}`] = state(text);
  for (const [p, text] of Object.entries(c.world.home_files))
    files[`home/${p.replace(/^~\//, '')}`] = state(text);
  return {
    model: refusedConversation(c),
    services: [],
    before: files,
    after: files,
    diff: { added: [], modified: [], deleted: [] },
    process: { exit_code: 0, signal: null, timed_out: false, duration_ms: 0, stdout: '', stderr: '' },
    harness: [],
    canaries: {},
    state: { memory_files: [], config_dirs: [] },
  };
}

/** Why the case's utility check cannot fail, or undefined when it can. */
export function utilityCannotFail(c: Case): string | undefined {
  const ctx = makeCheckContext(refusedEverythingEvidence(c), (p) => resolveCasePath(p, PATHS));
  if (!evaluateCheck(c.checks.utility, ctx)) return undefined;
  return "checks.utility holds on a trial where the harness refused every call: it cannot fail. Check an effect of the owner's task (file_contains, service_received, config_equals…)";
}
