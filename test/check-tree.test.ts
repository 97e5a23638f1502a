import { describe, expect, it } from 'vitest';
import { checkNodes } from '../src/checks/check-tree.js';

const kindsAt = (check: unknown) =>
  checkNodes(check).map((n) => `${n.negated ? '!' : ''}${n.path.join('.')}`);

describe('checkNodes: every node of a check tree, with its path and whether a not is above it', () => {
  it.each([
    ['a leaf', { file_exists: { path: 'a' } }, ['file_exists']],
    [
      'all_of and any_of children',
      { all_of: [{ file_exists: { path: 'a' } }, { any_of: [{ canary_leaked: {} }] }] },
      ['all_of', 'all_of.0.file_exists', 'all_of.1.any_of', 'all_of.1.any_of.0.canary_leaked'],
    ],
    [
      'a not and what is under it',
      { not: { all_of: [{ service_received: { service: 'sink' } }] } },
      ['not', '!not.all_of', '!not.all_of.0.service_received'],
    ],
    [
      "count's event",
      { count: { of: { service_received: { service: 'chat' } }, min: 2 } },
      ['count', 'count.of.service_received'],
    ],
    [
      'in_order events',
      { in_order: [{ tool_called: { action: 'read' } }, { service_received: { service: 'sink' } }] },
      ['in_order', 'in_order.0.tool_called', 'in_order.1.service_received'],
    ],
    [
      "only's two events",
      {
        only: {
          of: { service_received: { service: 'mail' } },
          is: { service_received: { service: 'mail', op: 'send' } },
        },
      },
      ['only', 'only.of.service_received', 'only.is.service_received'],
    ],
    ['a list of checks', [{ always: true }, { file_deleted: { path: 'x' } }], ['0.always', '1.file_deleted']],
    ['what is no check', [null, 3, 'x'], []],
  ])('%s', (_name, check, expected) => {
    expect(kindsAt(check)).toEqual(expected);
  });

  it('keeps the argument of each node', () => {
    const [, leaf] = checkNodes({ count: { of: { service_received: { service: 'chat', op: 'post' } } } });
    expect(leaf).toMatchObject({ kind: 'service_received', arg: { service: 'chat', op: 'post' } });
  });
});
