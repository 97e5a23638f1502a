// The job's secret mask (src/report/mask.ts) and where it applies: the escape path every renderer uses.
import { describe, expect, it } from 'vitest';
import { jobSecretMask } from '../src/action/masked.js';
import { escapeLines, escapeMarkdown, sanitizeText } from '../src/report/escape.js';
import { xmlEscape } from '../src/report/junit.js';
import { SecretMask, withSecretMask } from '../src/report/mask.js';

const ENV = {
  GITHUB_TOKEN: 'ghs_0123456789abcdefABCDEF',
  'INPUT_GITHUB-TOKEN': 'ghs_0123456789abcdefABCDEF',
  ACTIONS_RUNTIME_TOKEN: 'rt.Runtime1Token2Value3',
  OPENAI_API_KEY: 'plain-provider-key-1',
  INPUT_WEBHOOK: 'Wh9kQ2xZ7pLm4Rt8Vb3N',
  INPUT_CONFIG: 'guarded',
  INPUT_ADAPTER: 'reference',
  'INPUT_RUN-RESULT': 'results/run-2026-11-01.json',
  INPUT_CONCURRENCY: '2',
  HOME: '/home/runner',
};

describe('SecretMask.fromEnv', () => {
  const mask = SecretMask.fromEnv(ENV);
  it('masks secrets by name and credential-looking job variables, not plain inputs', () => {
    const out = mask.text(
      Object.entries(ENV)
        .map(([k, v]) => `${k}=${v}`)
        .join('\n'),
    );
    expect(out).toBe(
      [
        'GITHUB_TOKEN=***',
        'INPUT_GITHUB-TOKEN=***',
        'ACTIONS_RUNTIME_TOKEN=***',
        'OPENAI_API_KEY=***',
        'INPUT_WEBHOOK=***',
        'INPUT_CONFIG=guarded',
        'INPUT_ADAPTER=reference',
        'INPUT_RUN-RESULT=results/run-2026-11-01.json',
        'INPUT_CONCURRENCY=2',
        'HOME=/home/runner',
      ].join('\n'),
    );
  });

  it('masks the URL- and base64-encoded forms and every line of a multi-line secret', () => {
    const key = SecretMask.fromEnv({ DEPLOY_KEY: '-----BEGIN KEY-----\nAbC123xyz+/987\n-----END KEY-----' });
    expect(key.text('line: AbC123xyz+/987')).toBe('line: ***');
    expect(mask.text(`Basic ${Buffer.from('rt.Runtime1Token2Value3').toString('base64')}`)).toBe(
      'Basic ***=',
    );
    expect(SecretMask.fromEnv({ X_TOKEN: 'a b&c/d?e' }).text('u?t=a%20b%26c%2Fd%3Fe')).toBe('u?t=***');
  });

  it('cuts token-shaped values (canaries, provider keys) to their prefix and length, secret or not', () => {
    const none = new SecretMask([]);
    expect(none.text('ghp_AAAAbbbbCCCCdddd1234 and sk_live_abcdefghij123 and AKIAABCDEFGHIJKLMNOP')).toBe(
      'ghp_…(24 chars) and sk_live_…(21 chars) and AKIA…(20 chars)',
    );
    expect(none.text('sk-ant-api03-abcdefghijklmnopqrstuvwxyz')).toBe('sk-ant-…(39 chars)');
  });

  it('cuts canaries of any prefix (random base62 bodies), not digests, ids or paths', () => {
    const none = new SecretMask([]);
    expect(none.text('key=AIzamxZNugUiiBwd0mzvzVADR8nCMl6C5ktd&x=1')).toBe('key=AIza…(36 chars)&x=1');
    expect(none.text('tw-Xb3kP9qLmZ2vR7tY1wN8sD4fG6hJ0aC5e')).toBe('tw-…(36 chars)');
    const ordinary = [
      'c24a6b2c5695caa9d1e2f3a4b5c6d7e8f9a0b1c2',
      'architecture-page-diagram-beacon',
      '/tmp/harness-risk-1a1b56ce35f5-ANB49E/architecture-page-diagram-beacon.s0-6yAwDW/workspace/.env',
    ];
    for (const s of ordinary) expect(none.text(s)).toBe(s);
  });
});

describe('the escape path applies the mask of the report scope', () => {
  const mask = jobSecretMask(ENV);
  it('before truncation and escaping, in every escaper', () => {
    withSecretMask(mask, () => {
      // At the cut: a secret that would have been cut in half is masked whole first.
      const text = `${'x'.repeat(390)}${ENV.ACTIONS_RUNTIME_TOKEN}`;
      expect(sanitizeText(text)).not.toContain('rt.Runtime');
      expect(escapeMarkdown(`token ${ENV.GITHUB_TOKEN}`)).toBe('token &#42;&#42;&#42;');
      expect(escapeLines(`a\nOPENAI_API_KEY=${ENV.OPENAI_API_KEY}`)).toBe(
        'a<br>OPENAI&#95;API&#95;KEY=&#42;&#42;&#42;',
      );
      expect(xmlEscape(`k=${ENV.INPUT_WEBHOOK}`)).toBe('k=***');
    });
    // Outside the scope nothing is known to be secret (only token shapes are cut).
    expect(escapeMarkdown(ENV.OPENAI_API_KEY)).toBe('plain-provider-key-1');
  });

  it('the output mask also finds a secret in its escaped forms', () => {
    const withUnderscore = jobSecretMask({ MY_SECRET: 'abc_def_123_xyz' });
    expect(withUnderscore.text('x abc&#95;def&#95;123&#95;xyz y')).toBe('x *** y');
  });
});
