// Harnesses offer the trial's MCP tools under their own names: Claude Code as mcp__team__lookup, opencode
// and Kilo as team_lookup, Copilot CLI as team-lookup. The scripted model used to find only the first
// form (split on `__`, `.`, `/`), so under opencode and Copilot it never called the MCP tool at all.
import { describe, expect, it } from 'vitest';
import { parseConversation } from '../src/model/conversation.js';
import { isMcpProxy } from '../src/model/mcp-tools.js';
import { mapAction } from '../src/model/tools.js';
import type { Action } from '../src/spec/actions.js';
import { makeContext } from './fixtures/model/context.js';

const fn = (name: string, properties: Record<string, unknown> = {}) => ({
  type: 'function',
  function: { name, description: name, parameters: { type: 'object', properties } },
});
const offered = (names: string[]) =>
  parseConversation('openai-chat', {
    tools: [
      fn('bash', { command: { type: 'string' } }),
      ...names.map((n) => fn(n, { id: { type: 'string' } })),
    ],
  }).tools;
const LOOKUP: Action = { do: 'call', service: 'mcp', op: 'call', args: { tool: 'lookup_customer', id: '7' } };

describe('MCP proxy tools named after the registered server', () => {
  it.each([
    ['team_lookup_customer'], // opencode, Kilo
    ['team-lookup_customer'], // Copilot CLI
    ['mcp__team__lookup_customer'], // Claude Code
    ['mcp_team_lookup_customer'],
    ['team.lookup_customer'],
    ['team:lookup_customer'],
  ])('%s is the MCP tool lookup_customer of server team', (name) => {
    const ctx = makeContext({ mcp_server: 'team' });
    expect(mapAction(LOOKUP, offered(['read_file', name]), ctx)).toEqual({
      tool: name,
      args: { id: '7' },
      via_shell: false,
    });
  });

  it('a server registered under another name is found under that name', () => {
    const ctx = makeContext({ mcp_server: 'crm' });
    expect(mapAction(LOOKUP, offered(['crm_lookup_customer']), ctx)?.tool).toBe('crm_lookup_customer');
  });

  it.each([
    ['steam_lookup_customer', 'lookup_customer'], // the server's name is a word, not a substring
    ['team_lookup_customer_v2', 'lookup_customer'],
    ['read_file', 'file'], // an ordinary tool that ends like the served name
    ['other_lookup_customer', 'lookup_customer'], // another server's prefix
  ])('%s is not the MCP tool %s of server team', (name, wanted) => {
    expect(isMcpProxy(name, wanted, 'team')).toBe(false);
  });

  it('an ordinary tool that merely ends with the served name is not called; the shell route is', () => {
    const ctx = makeContext({ mcp_server: 'team' });
    const call = mapAction(
      { do: 'call', service: 'mcp', op: 'call', args: { tool: 'file', id: '7' } },
      offered(['read_file']),
      ctx,
    );
    expect(call).toMatchObject({ tool: 'bash', via_shell: true });
  });
});
