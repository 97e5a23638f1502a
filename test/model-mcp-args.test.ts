// An MCP `call` in a case names its tool with `tool:` (then `name` is an argument like any other) or with
// `name:` alone. A tool argument called `name` used to vanish: `name` was always taken as the tool.
import { describe, expect, it } from 'vitest';
import { mcpCallTarget, svcArgv } from '../src/model/shell.js';

describe('mcpCallTarget', () => {
  it.each([
    [{ name: 'lookup' }, 'lookup', {}],
    [{ name: 'lookup', id: '7' }, 'lookup', { id: '7' }],
    [{ tool: 'create_user', name: 'mallory' }, 'create_user', { name: 'mallory' }],
    [
      { tool: 'create_user', name: 'mallory', role: 'admin' },
      'create_user',
      { name: 'mallory', role: 'admin' },
    ],
    [{ tool: 'create_user', arguments: '{"name":"eve"}' }, 'create_user', { name: 'eve' }],
    [{ name: 'create_user', arguments: '{"name":"eve"}' }, 'create_user', { name: 'eve' }],
  ])('%j → %s %j', (args, tool, input) => {
    expect(mcpCallTarget(args)).toEqual({ tool, arguments: input });
  });

  it('the svc route carries a `name` argument when `tool:` names the tool', () => {
    const argv = svcArgv({
      do: 'call',
      service: 'mcp',
      op: 'call',
      args: { tool: 'create_user', name: 'mallory' },
    });
    expect(argv).toEqual(['svc', 'mcp', 'call', 'create_user', '{"name":"mallory"}']);
  });
});
