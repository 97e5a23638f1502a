import { describe, expect, it } from 'vitest';
import { makeCanaries, newRunKey } from '../src/world/canaries.js';
import { renderDeep, renderTemplate, TemplateError, trialVars } from '../src/world/template.js';

const vars = trialVars({
  canaries: { DEPLOY_TOKEN: 'ghp_abc' },
  svc: 'http://127.0.0.1:9',
  workspace: '/w',
  home: '/h',
  tmp: '/t',
  extra: { bin: '/b' },
});

describe('renderTemplate', () => {
  it.each([
    ['curl {{svc}}/mail/inbox', 'curl http://127.0.0.1:9/mail/inbox'],
    ['{{ workspace }}/a {{home}}/b {{tmp}}/c {{bin}}', '/w/a /h/b /t/c /b'],
    ['token={{canary:DEPLOY_TOKEN}}', 'token=ghp_abc'],
    ['no templates here', 'no templates here'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, on purpose
    ['run: echo ${{ secrets.TOKEN }} ${{svc}}', 'run: echo ${{ secrets.TOKEN }} ${{svc}}'],
    ['{{ user.name | upper }}', '{{ user.name | upper }}'],
    ['literal \\{{svc}}', 'literal {{svc}}'],
  ])('%s', (input, expected) => {
    expect(renderTemplate(input, vars)).toBe(expected);
  });

  it('throws naming an unknown variable', () => {
    expect(() => renderTemplate('x {{nope}} y', vars)).toThrow(TemplateError);
    expect(() => renderTemplate('x {{nope}} y', vars)).toThrow('{{nope}}');
    try {
      renderTemplate('{{canary:MISSING}}', vars);
    } catch (error) {
      expect((error as TemplateError).variable).toBe('canary:MISSING');
    }
  });

  it('does not treat inherited object keys as variables', () => {
    expect(() => renderTemplate('{{constructor}}', vars)).toThrow(TemplateError);
  });
});

describe('renderDeep', () => {
  it('renders strings inside objects and arrays, leaving keys and other values', () => {
    const input = {
      do: 'write',
      path: '{{home}}/.bashrc',
      n: 3,
      ok: true,
      nested: [{ url: '{{svc}}/sink/x', body: '{{canary:DEPLOY_TOKEN}}' }, null],
      '{{svc}}': 'key stays',
    };
    expect(renderDeep(input, vars)).toEqual({
      do: 'write',
      path: '/h/.bashrc',
      n: 3,
      ok: true,
      nested: [{ url: 'http://127.0.0.1:9/sink/x', body: 'ghp_abc' }, null],
      '{{svc}}': 'key stays',
    });
  });

  it('does not mutate its input', () => {
    const input = { a: ['{{svc}}'] };
    renderDeep(input, vars);
    expect(input.a[0]).toBe('{{svc}}');
  });
});

describe('makeCanaries', () => {
  const canaries = [
    { name: 'DEPLOY_TOKEN', prefix: 'ghp_' },
    { name: 'AWS_KEY', prefix: 'AKIA' },
    { name: 'OTHER', prefix: 'sk-live-' },
  ];

  it('looks like a real secret: prefix plus 32 base62 characters', () => {
    const values = makeCanaries(canaries, 'run-key', 'case.s0');
    expect(values.DEPLOY_TOKEN).toMatch(/^ghp_[0-9A-Za-z]{32}$/);
    expect(values.AWS_KEY).toMatch(/^AKIA[0-9A-Za-z]{32}$/);
    expect(values.OTHER).toMatch(/^sk-live-[0-9A-Za-z]{32}$/);
  });

  it('is deterministic for one run key and trial', () => {
    expect(makeCanaries(canaries, 'k', 't1')).toEqual(makeCanaries(canaries, 'k', 't1'));
  });

  it('is unique per canary, per trial and per run', () => {
    const bodies = new Set<string>();
    for (const runKey of [newRunKey(), newRunKey()]) {
      for (const trial of ['a.s0', 'a.s1', 'b.s0']) {
        for (const value of Object.values(makeCanaries(canaries, runKey, trial)))
          bodies.add(value.slice(-32));
      }
    }
    expect(bodies.size).toBe(2 * 3 * 3);
  });

  it('keeps trial id and name apart', () => {
    const a = makeCanaries([{ name: 'B', prefix: '' }], 'k', 'a1');
    const b = makeCanaries([{ name: '1B', prefix: '' }], 'k', 'a');
    expect(a.B).not.toBe(b['1B']);
  });

  it('makes random run keys', () => {
    expect(newRunKey()).not.toBe(newRunKey());
    expect(newRunKey()).toMatch(/^[0-9a-f]{64}$/);
  });
});
