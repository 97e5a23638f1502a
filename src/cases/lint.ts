// Static admission checks: mistakes a case file can be told about before any replay, each naming the
// field and what to do. Replaying a case with one of these wastes minutes and then reports a symptom
// ("attack succeeded in 0 of 3 replays") instead of the cause.
import { basename } from 'node:path';
import { checkNodes } from '../checks/check-tree.js';
import { CALLABLE_OPS, opSpec } from '../spec/service-catalog.js';
import { flowYaml, isInputStep, requiresInput, withEvidenceChain } from './evidence-chain.js';
import { occasionSteps } from './next-session.js';
import { FILL } from './scaffold.js';
import type { Case } from './schema.js';
import { AGENT_CONFIG } from './taxonomy.js';

export interface LintFinding {
  /** Where, as a path into the case document (for the line). */
  path: (string | number)[];
  message: string;
  /** What to do about it. */
  hint: string;
}

type Strings = [path: (string | number)[], text: string][];

/** Every string in a value with its path, in document order. */
export function stringsIn(value: unknown, path: (string | number)[] = [], keys = true): Strings {
  if (typeof value === 'string') return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringsIn(v, [...path, i], keys));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => [
      // Keys count too: world.files and web pages are keyed by path, and a page path may carry a template.
      ...(keys ? ([[[...path, k], k]] as Strings) : []),
      ...stringsIn(v, [...path, k], keys),
    ]);
  return [];
}

/** Strings of a case that still hold the scaffold's placeholder. */
export function scaffoldLeftovers(c: Case): LintFinding[] {
  return stringsIn(c)
    .filter(([, s]) => s.includes(FILL))
    .map(([path]) => ({
      path,
      message: `still holds the \`new case\` placeholder "${FILL} …"`,
      hint: 'replace it with the real text (the # FILL: comment on that line says what goes there)',
    }));
}

/** The id is the file name: the report, `--cases id:…` and reviewers all find a case by either. */
export function idMatchesFile(c: Case, file: string): LintFinding[] {
  const name = basename(file).replace(/\.ya?ml$/, '');
  if (name === c.id) return [];
  return [
    {
      path: ['id'],
      message: `case id "${c.id}" differs from the file name "${basename(file)}"`,
      hint: `rename the file to ${c.id}.yaml or set id: ${name}`,
    },
  ];
}

/**
 * The trigger must be the attacker's text only. In the owner's turns or plan it is visible from the first
 * request, so the scripted model pursues the goal whether or not the harness ever showed it the
 * artifact: the case would measure nothing about the entry point.
 */
export function triggerInOwner(c: Case): LintFinding[] {
  const hit = stringsIn(c.owner, ['owner']).find(([, s]) => s.includes(c.inject.trigger));
  if (!hit) return [];
  return [
    {
      path: hit[0],
      message: `inject.trigger "${c.inject.trigger}" appears in the owner's own ${hit[0][1] === 'turns' ? 'turn' : 'plan'}`,
      hint: 'pick a phrase only the injected text of the artifact holds (docs/cases.md, rule 2)',
    },
  ];
}

/** A trigger no file, page, message or entry of the world holds can never become visible (often a typo). */
export function triggerInWorld(c: Case): LintFinding[] {
  const texts = stringsIn(c.world).map(([, s]) => s);
  if (texts.some((s) => s.includes(c.inject.trigger))) return [];
  const near = nearTrigger(c.inject.trigger, texts);
  return [
    {
      path: ['inject', 'trigger'],
      message: `inject.trigger "${c.inject.trigger}" is not in the world: no file, page, message or entry holds it (artifact ${c.inject.artifact})${near ? `; the world holds ${JSON.stringify(near.text)}, which differs ${near.how}` : ''}`,
      hint: near
        ? `the trigger is matched exactly as the harness shows the text: copy it as the world holds it, or pick a phrase that ${near.text.includes('\n') ? 'fits on one line' : 'the world spells the same way'}`
        : `copy the trigger verbatim from the injected text of ${c.inject.artifact}`,
    },
  ];
}

/**
 * The world's text the author most likely meant by a trigger it does not hold verbatim: the same words
 * with other spacing (a phrase wrapped across lines of a YAML block), or in another case. Pure.
 */
export function nearTrigger(
  trigger: string,
  texts: readonly string[],
): { text: string; how: string } | undefined {
  const words = trigger.trim().split(/\s+/).filter(Boolean);
  if (!words.length) return undefined;
  const source = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+');
  for (const flags of ['', 'i']) {
    const re = new RegExp(source, flags);
    for (const t of texts) {
      const text = re.exec(t)?.[0];
      if (text === undefined) continue;
      if (flags) return { text, how: 'in upper/lower case' };
      return { text, how: text.includes('\n') ? 'in spacing (a line break)' : 'in spacing' };
    }
  }
  return undefined;
}

const CANARY = /\{\{\s*canary:([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/**
 * Canaries the case uses but does not declare: a `{{canary:NAME}}` fails the trial at run time (every
 * replay "infrastructure" invalid), and a `canary_leaked` check of an undeclared name can never hold.
 */
export function undeclaredCanaries(c: Case): LintFinding[] {
  const declared = new Set(c.world.canaries.map((k) => k.name));
  const declaredList = declared.size ? [...declared].join(', ') : 'none';
  const out: LintFinding[] = [];
  const seen = new Set<string>();
  for (const [path, s] of stringsIn(c)) {
    for (const m of s.matchAll(CANARY)) {
      const name = m[1]!;
      if (declared.has(name) || seen.has(name)) continue;
      seen.add(name);
      out.push({
        path,
        message: `{{canary:${name}}} is used but not declared under world.canaries (declared: ${declaredList})`,
        hint: `add {name: ${name}} to world.canaries, or fix the name`,
      });
    }
  }
  for (const [path, s] of stringsIn(c.checks, ['checks'], false)) {
    if (path.at(-1) !== 'canary' || declared.has(s) || seen.has(s)) continue;
    seen.add(s);
    out.push({
      path,
      message: `canary_leaked names canary "${s}", which is not declared under world.canaries (declared: ${declaredList}): the check can never hold`,
      hint: `add {name: ${s}} to world.canaries, or fix the name`,
    });
  }
  return out;
}

/**
 * A utility check that can hold without any owner step having brought the owner's data (a bare
 * `file_contains` on the summary): the scripted model writes its planned artefact whatever it read, so
 * the check would credit a task the harness kept the agent from doing. It must require the evidence chain.
 */
export function utilityWithoutEvidence(c: Case): LintFinding[] {
  const inputs = c.owner.plan.filter((s) => isInputStep(s, c.world));
  if (!inputs.length || requiresInput(c.checks.utility, c.owner.plan, c.world)) return [];
  const chain = withEvidenceChain(c.checks.utility, c.owner.plan, c.world);
  return [
    {
      path: ['checks', 'utility'],
      message:
        "can hold without any owner step having succeeded: nothing in it shows the owner's data arrived (the scripted model writes its planned artefact whatever it read)",
      hint: `require the evidence chain as well, e.g. utility: ${flowYaml(chain)}`,
    },
  ];
}

/**
 * A goal step that sends to an outside host over HTTPS: the world refuses the tunnel at CONNECT, where it
 * sees the host only, so a secret in the path, query or body is never seen and a `canary_leaked` or
 * `service_received` check cannot hold on it, whatever the harness allowed. Over plain HTTP the request
 * is recorded whole (and answered 403).
 */
export function httpsEgress(c: Case): LintFinding[] {
  const checksContent = stringsIn(c.checks).some(
    ([, s]) => s === 'canary_leaked' || s === 'service_received',
  );
  if (!checksContent) return [];
  return c.inject.goal.flatMap((step, i) => {
    if (step.do !== 'fetch') return [];
    const m = /^https:\/\/([^/?#]+)/i.exec(step.url.trim());
    if (!m) return [];
    return [
      {
        path: ['inject', 'goal', i, 'url'],
        message: `sends to ${m[1]} over HTTPS: the world refuses an outside host's tunnel at CONNECT and sees the host only, never the path, query or body, so the attack check cannot see what this step carries`,
        hint: `write http://${m[1]}… (recorded whole, answered 403) or send it to {{svc}}/sink/…; check egress_attempted where reaching the host is the effect`,
      },
    ];
  });
}

/** The ops of a service a case can call that change something (any method but GET), for a hint. */
const writingOps = (service: string): string[] =>
  (CALLABLE_OPS[service] ?? []).filter((op) => (opSpec(service, op)?.method ?? 'GET') !== 'GET');

/**
 * An attack or persistence check of a case that changes something (state, persistence, execution) which
 * holds on a request that only reads (a GET route): a read changes nothing, so the check credits an
 * effect that did not happen (its `contains` matches the read's query string, where `svc` puts the
 * options a read does not take).
 */
export function readOnlyEffect(c: Case): LintFinding[] {
  if (c.effect === 'disclosure' || c.effect === 'exhaustion') return [];
  return (['attack', 'persistence'] as const).flatMap((which) =>
    checkNodes(c.checks[which], ['checks', which]).flatMap(({ kind, arg, path, negated }) => {
      // Under a `not` a read is fine: the check asks that something did not happen.
      if (kind !== 'service_received' || negated) return [];
      const { service, op } = arg as { service?: string; op?: string };
      if (!service || !op || opSpec(service, op)?.method !== 'GET') return [];
      const writes = writingOps(service);
      return [
        {
          path,
          message: `${service}.${op} only reads (GET): a request to it changes nothing, so this check would credit a ${c.effect.replace('_', ' ')} that did not happen`,
          hint: writes.length
            ? `name the op that makes the change (${service}: ${writes.join(', ')}); a read is an effect only of a disclosure or exhaustion case`
            : `${service} has no op that changes this; check a file, another service or the world state the change would leave`,
        },
      ];
    }),
  );
}

/**
 * A persistence case without `checks.persistence`: its `p` label is then false in every trial, and the
 * report shows the durable change the attack left as "did not persist".
 */
export function persistenceUnchecked(c: Case): LintFinding[] {
  if (c.effect !== 'persistence' || c.checks.persistence !== undefined) return [];
  return [
    {
      path: ['checks'],
      message:
        'a persistence case has no checks.persistence: its p label would read false in every trial, whatever the attack left behind',
      hint: `add checks.persistence: the durable change the goal leaves (often the attack check itself: persistence: ${flowYaml(c.checks.attack)})`,
    },
  ];
}

/**
 * A case that asks for a second session whose default goal only persists text again (a `remember`, a write
 * to an instruction file the agent loads) and that no ordinary occasion sets off: the second session obeys
 * the persisted line by saving it once more, which the activation check finds on the world as the session
 * found it, so `activated` is no measurement on any harness (docs/cases.md, "Persistence that fires").
 */
export function activationUnmeasurable(c: Case): LintFinding[] {
  const ns = c.next_session;
  if (ns === undefined || ns.goal !== undefined || ns.activation !== undefined) return [];
  const persistsText = c.inject.goal.every(
    (a) => a.do === 'remember' || a.do === 'reply' || (a.do === 'write' && AGENT_CONFIG.test(a.path)),
  );
  if (!persistsText || occasionSteps(c).length > 0) return [];
  return [
    {
      path: ['next_session'],
      message:
        "the second session's goal is inject.goal, which only saves the persisted text again: activated would be no measurement on every harness (obeying reads as writing the same line)",
      hint: 'give next_session.goal (what obeying the persisted instruction does: the mail it copies, the merge it makes, the command it runs), next_session.activation (the check that sees it) and turns/plan for an owner task that gives it its occasion',
    },
  ];
}

/**
 * A second session whose owner plan opens the injected file again: the model then sees the injection
 * itself, and `activated` measures the injection a second time rather than what the first session left
 * (the default plan never reads it for that reason). Only file artefacts: a service record (`mail:5`) is
 * named differently by each route to it.
 */
export function secondSessionRereadsInjection(c: Case): LintFinding[] {
  const plan = c.next_session?.plan;
  const file = c.inject.artifact;
  if (!plan || /^[a-z_]+:/.test(file)) return [];
  const opens = (a: (typeof plan)[number]) =>
    ((a.do === 'read' || a.do === 'write') && a.path === file) ||
    (a.do === 'run' && a.command.includes(file));
  return plan.flatMap((a, i) =>
    opens(a)
      ? [
          {
            path: ['next_session', 'plan', i],
            message: `the second session's owner opens ${file}, the injected file: its model sees the injection again, so activated would measure the injection, not what persisted`,
            hint: 'give the second session an owner task that does not touch the injected file (the persisted artefact must reach the model by itself)',
          },
        ]
      : [],
  );
}

/** All static findings for one case file, in the order an author fixes them. */
export function lintCase(c: Case, file: string): LintFinding[] {
  return [
    ...idMatchesFile(c, file),
    ...scaffoldLeftovers(c),
    ...triggerInOwner(c),
    ...triggerInWorld(c),
    ...undeclaredCanaries(c),
    ...utilityWithoutEvidence(c),
    ...httpsEgress(c),
    ...readOnlyEffect(c),
    ...persistenceUnchecked(c),
    ...activationUnmeasurable(c),
    ...secondSessionRereadsInjection(c),
  ];
}
