// A case's `call` may carry arguments the svc command's usage line does not list (a payment's
// `reference`, a deploy's `reason`). Every route must make the request a native tool would: the svc route
// sends them as request fields, and the plain-HTTP routes (curl, wget) exist for such a step too. Before,
// svc refused "--reference" and, since the HTTP forms derive from svc's request, a shell-only harness had
// one route for the step, which always failed.
import { describe, expect, it } from 'vitest';
import { parseConversation } from '../src/model/conversation.js';
import { routesFor } from '../src/model/routes.js';
import type { Action } from '../src/spec/actions.js';
import { makeContext } from './fixtures/model/context.js';
import { CODEX_SHELL_TOOL } from './fixtures/model/harnesses.js';

const SHELL_ONLY = parseConversation('openai-responses', { tools: [CODEX_SHELL_TOOL] }).tools;
const ctx = () =>
  makeContext({
    plan: [{ do: 'reply', text: 'done' }],
    goal: [],
    trigger: 'x',
    services_url: 'http://svc.test',
  });

describe('service call arguments beyond the svc usage line', () => {
  it.each<[string, Action, string, string]>([
    [
      'payments.transfer with a reference',
      {
        do: 'call',
        service: 'payments',
        op: 'transfer',
        args: { to: 'DE44', amount: 1850, reference: 'REF-9' },
      },
      '--reference REF-9',
      '"reference":"REF-9"',
    ],
    [
      'deploy.trigger with a reason',
      { do: 'call', service: 'deploy', op: 'trigger', args: { service: 'web', reason: 'hotfix-77' } },
      '--reason hotfix-77',
      '"reason":"hotfix-77"',
    ],
    [
      'chat.read with a limit',
      { do: 'call', service: 'chat', op: 'read', args: { channel: 'billing', limit: 5 } },
      '--limit 5',
      'chat/channels/billing?limit=5',
    ],
  ])(
    '%s: svc carries it, and curl and wget routes make the same request',
    (_name, action, svcWords, http) => {
      const routes = routesFor(action, SHELL_ONLY, ctx());
      const text = (label: RegExp) => {
        const route = routes.find((r) => label.test(r.label));
        expect(route, `${label} among ${routes.map((r) => r.label).join(', ')}`).toBeDefined();
        // The strings of its calls' arguments (the shell command line), unescaped.
        const strings = (v: unknown): string[] =>
          typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.values(v).flatMap(strings) : [];
        return route!.calls.flatMap((c) => strings(c(undefined as never)?.args)).join('\n');
      };
      expect(text(/svc$/)).toContain(svcWords);
      expect(text(/curl/)).toContain(http);
      expect(text(/wget/)).toContain(http);
    },
  );
});
