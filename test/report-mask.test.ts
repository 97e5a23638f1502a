// The job's secret mask (src/report/mask.ts) and where it applies: the escape path every renderer uses.
import { describe, expect, it } from 'vitest';
import { jobSecretMask } from '../src/front/job-secrets.js';
import { escapeLines, escapeMarkdown, sanitizeText } from '../src/report/escape.js';
import { xmlEscape } from '../src/report/junit.js';
import { SecretMask, withSecretMask } from '../src/report/mask.js';
import { base64Slices, spacedRuns } from '../src/report/mask-forms.js';
import { mayBeSecret, secretVariable } from '../src/report/secret-rule.js';

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
    expect(mask.text(`Basic ${Buffer.from('rt.Runtime1Token2Value3').toString('base64')}`)).toBe('Basic ***');
    expect(SecretMask.fromEnv({ X_TOKEN: 'a b&c/d?e' }).text('u?t=a%20b%26c%2Fd%3Fe')).toBe('u?t=***');
  });

  it('cuts token-shaped values (canaries, provider keys) to their prefix and length, secret or not', () => {
    const none = new SecretMask([]);
    expect(none.text('ghp_AAAAbbbbCCCCdddd1234 and sk_live_abcdefghij123 and AKIAABCDEFGHIJKLMNOP')).toBe(
      'ghp_…(24 chars) and sk_live_…(21 chars) and AKIA…(20 chars)',
    );
    expect(none.text('sk-ant-api03-abcdefghijklmnopqrstuvwxyz')).toBe('sk-ant-…(39 chars)');
    // The shapes the guard calls secret (src/spec/secret-shapes.ts): an npm token keeps only its prefix,
    // even one whose body is too regular to pass for a random canary.
    expect(none.text('token npm_aaaaaaaaaabbbbbbbbbbcccccccccc0000 end')).toBe('token npm_…(38 chars) end');
    expect(none.text('ghr_aaaaaaaaaabbbbbbbbbb ok')).toBe('ghr_…(24 chars) ok');
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

// Secrets of different make: a token, a connection string (URL specials), one with a dot and a
// dash (separators of their own), one with a space and a non-ASCII letter.
const SECRETS = [
  'ghs_PlantedGithubToken0123456789abcd',
  'postgres://app:Pw9!x(7)@db/prod',
  'rt.Planted-Runtime1',
  'Grüße aus 42 Zeilen',
];
const hex = (s: string) => Buffer.from(s).toString('hex');
const b64 = (s: string) => Buffer.from(s).toString('base64');
const url = (s: string) => b64(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const spaced = (s: string, sep: string) => [...s].join(sep);

/** Each encoding a harness can apply with a one-liner, as it appears in its output. */
const ENCODINGS: [string, (s: string) => string, whole?: 'whole'][] = [
  ['raw', (s) => s],
  ['hex', hex, 'whole'],
  ['HEX', (s) => hex(s).toUpperCase(), 'whole'],
  ['base64', b64, 'whole'],
  ['base64 unpadded', (s) => b64(s).replace(/=+$/, ''), 'whole'],
  ['base64url', url, 'whole'],
  ['base64 in a blob, offset 1', (s) => b64(`x${s}tail`)],
  ['base64 in a blob, offset 2', (s) => b64(`xy${s}tail`)],
  ['base64 in a blob, offset 3', (s) => b64(`xyz${s}tail`)],
  ['base64url in a blob, offset 1', (s) => url(`user:${s}`)],
  ['Basic auth header', (s) => `Basic ${b64(`x-access-token:${s}`)}`],
  ['base64 wrapped at 20 columns', (s) => b64(`env=${s}\n`.repeat(3)).replace(/.{20}/g, '$&\n')],
  ['hex wrapped (xxd -p)', (s) => hex(`PREFIX${s}`).replace(/.{30}/g, '$&\n')],
  ['spaced', (s) => spaced(s, ' ')],
  ['dashed', (s) => spaced(s, '-')],
  ['dotted', (s) => spaced(s, '.')],
  ['spaced across a line break', (s) => `${spaced(s.slice(0, 5), ' ')}\n${spaced(s.slice(5), ' ')}`],
  ['spaced, line break after a space', (s) => `${spaced(s.slice(0, 5), ' ')} \n${spaced(s.slice(5), ' ')}`],
  ['reversed', (s) => [...s].reverse().join(''), 'whole'],
  ['encodeURIComponent', encodeURIComponent, 'whole'],
  ['URL, lower-case hex', (s) => encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (x) => x.toLowerCase())],
  ['URL, quote_plus', (s) => encodeURIComponent(s).replace(/%20/g, '+')],
  [
    'URL, RFC 3986 strict',
    (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
  ],
  ['JSON string', (s) => JSON.stringify(s)],
];

describe('the mask finds a secret in every encoding a harness can trivially apply', () => {
  // Shapes off: the token shape alone would cut the first secret; this is about the values.
  const mask = new SecretMask(SECRETS, { shapes: false });
  const cases = ENCODINGS.flatMap(([name, enc, whole]) =>
    SECRETS.map((s) => [name, s, enc(s), whole] as const),
  );
  it.each(cases)('%s of %s', (_name, secret, encoded, whole) => {
    const out = mask.text(`before ${encoded} after`);
    expect(out).toMatch(/^before .*\*\*\*.* after$/s);
    // Nothing of the secret's own characters is left in any form: neither the encoded text…
    expect(out).not.toContain(encoded.trim());
    // …nor, where the encoded text is the secret's alone, a piece of it.
    if (whole) expect(out).not.toContain(encoded.slice(0, 12));
    expect(out).not.toContain(secret);
  });

  it('a form an earlier truncation cut (text ending in …) is masked from where it starts', () => {
    const cut = (s: string, n: number) => `${s.slice(0, n)}…`;
    const [token] = SECRETS as [string];
    expect(mask.text(`tail: ${cut(hex(token), 20)}`)).toBe('tail: ***…');
    expect(mask.text(`tail: ${cut(token, 10)}`)).toBe('tail: ***…');
    // Too little of it to be a leak, or not a secret at all: left alone.
    expect(mask.text(`tail: ${cut(token, 5)}`)).toBe(`tail: ${cut(token, 5)}`);
    expect(mask.text('a case id architecture-page…')).toBe('a case id architecture-page…');
  });

  it('base64Slices: the characters that depend on the secret alone, at each alignment', () => {
    const bytes = Buffer.from('abcdef');
    expect(base64Slices(bytes)).toEqual(['YWJjZGVm', 'FiY2RlZ', 'hYmNkZW']);
    for (const [i, slice] of base64Slices(bytes).entries())
      for (const pad of ['\u0000', '\u00ff', 'Q'])
        expect(Buffer.from(`${pad.repeat(i)}abcdef${pad}`, 'latin1').toString('base64')).toContain(slice);
  });

  it('spacedRuns reads every stretch of single-separated characters, across line breaks', () => {
    expect(spacedRuns('x s e c r e t y').map((r) => r.chars)).toEqual(['xsecrety']);
    expect(spacedRuns('a-b-c\nd-e-f and more').map((r) => r.chars)).toEqual(['abcdefa']);
    expect(spacedRuns('ordinary words, a list: 1, 2, 3')).toEqual([]);
  });
});

describe('the mask does not blank ordinary report text', () => {
  const mask = SecretMask.fromEnv({
    DB_CONN: 'postgres://app:Pw9x7@db/prod',
    NODE_ENV: 'production',
    PORT: '3000',
    TIMEOUT_MS: '120000',
    GITHUB_SHA: 'c24a6b2c5695caa9d1e2f3a4b5c6d7e8f9a0b1c2',
    GITHUB_REPOSITORY: 'octo-org/agent-harness',
    GITHUB_WORKSPACE: '/home/runner/work/agent-harness/agent-harness',
    RUNNER_TEMP: '/home/runner/work/_temp',
    HOME: '/home/runner',
    PHASE_HINT: 'runtime',
    LANG: 'C.UTF-8',
  });
  const ordinary = [
    'runtime · persistence · configuration — 3 of 12 cases regressed (ASR 0.25 → 0.5, 120000 ms)',
    'architecture-page-diagram-beacon s0: invalid (exit 1)',
    '/home/runner/work/agent-harness/agent-harness/.harness-risk/results/run-2026-11-01.json',
    'https://github.com/octo-org/agent-harness/commit/c24a6b2c5695caa9d1e2f3a4b5c6d7e8f9a0b1c2',
    'production build, port 3000',
    'a b c d e f g h (a spaced sentence that holds no secret)',
  ];
  it.each(ordinary)('%s', (text) => expect(mask.text(text)).toBe(text));

  it('short values are never masked, and a spaced or hex match needs the whole secret', () => {
    expect(new SecretMask(['abc12']).text('abc12 a b c 1 2')).toBe('abc12 a b c 1 2');
    const m = new SecretMask(['Planted0Secret9'], { shapes: false });
    expect(m.text('P l a n t e d 0')).toBe('P l a n t e d 0');
    expect(m.text(hex('Planted0'))).toBe(hex('Planted0'));
    expect(m.text(`x ${spaced('Planted0Secret9', ' ')} y`)).toBe('x *** y');
  });
});

describe('which of the job’s variables are secrets', () => {
  const table: [string, string, boolean][] = [
    // By name, whatever the value.
    ['GITHUB_TOKEN', 'ghs_0123456789abcdef', true],
    ['INPUT_MODEL-KEY', 'plainwords', true],
    ['DB_PASSWORD', 'correct', true],
    // Custom secrets with no secret-looking name: by value.
    ['DB_CONN', 'postgres://app:Pw9x7@db/prod', true],
    ['STRIPE_LIVE', 'rk_live_51Hq2v7Xb3', true],
    ['SLACK_HOOK', 'https://hooks.slack.com/services/T0/B0/Xb3kP9qLmZ', true],
    ['PASSPHRASE_WORDS', 'correct horse battery staple', true],
    ['SIGNING', 'Ab3dE/fG7h9JkLmN0pQ', true],
    // Not secrets: the allow-list…
    ['GITHUB_SHA', 'c24a6b2c5695caa9d1e2f3a4b5c6d7e8f9a0b1c2', false],
    ['GITHUB_REPOSITORY', 'octo-org/agent-harness', false],
    ['HOME', '/home/runner', false],
    ['LANG', 'en_US.UTF-8', false],
    ['PATH', '/usr/local/bin:/usr/bin:/bin', false],
    // …the action's inputs unless they look like a credential…
    ['INPUT_ADAPTER', 'reference', false],
    ['INPUT_CASES', 'subset:smoke', false],
    ['INPUT_RUN-RESULT', 'results/run-2026-11-01.json', false],
    ['INPUT_WEBHOOK', 'Wh9kQ2xZ7pLm4Rt8Vb3N', true],
    // …and values that cannot be secrets.
    ['NODE_ENV', 'production', false],
    ['RUNS_ON', 'ubuntu-latest', false],
    ['FLAG', 'true', false],
    ['TIMEOUT_MS', '120000', false],
    ['TOOL_VERSION', '20.11.0', false],
    ['TOOL_RELEASE', 'v1.2.3-rc.1', false],
    ['JAVA_HOME_17_X64', '/usr/lib/jvm/temurin-17-jdk-amd64', false],
    ['CASES_DIR', 'cases/runtime', false],
    ['COMMITTER', 'GitHub Actions', false],
    ['SHORT', 'a1B2c', false],
  ];
  it.each(table)('%s=%s → %s', (name, value, secret) => expect(secretVariable(name, value)).toBe(secret));

  it('mayBeSecret: a path with a random segment can be one', () => {
    expect(mayBeSecret('/tmp/cache-Xb3kP9qLmZ2v/x')).toBe(true);
    expect(mayBeSecret('/tmp/harness-risk-1a1b56ce35f5-ANB49E/x')).toBe(false);
    expect(mayBeSecret('/opt/hostedtoolcache/node/20.11.0/x64')).toBe(false);
  });
});
