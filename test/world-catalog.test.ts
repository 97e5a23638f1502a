// The mock-service catalog is the one definition of services and their operations: what a case may name,
// what a request is recorded as, what the `svc` CLI offers, and the docs table all agree with it.
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { makeCheckContext } from '../src/checks/check-context.js';
import { Check } from '../src/checks/check-kinds.js';
import { evaluateCheck } from '../src/checks/evaluate.js';
import { EvidenceRecorder } from '../src/evidence/recorder.js';
import type { Evidence } from '../src/evidence/types.js';
import {
  CALLABLE_OPS,
  FAKE_HOSTS,
  opSpec,
  SVC_COMMANDS,
  servicesDocTable,
  svcUsage,
} from '../src/spec/service-catalog.js';
import { createServices } from '../src/world/services.js';
import { usageOptions } from '../src/world/svc-args.js';
import { HELP, runSvc, svcRequest } from '../src/world/svc-core.js';
import { emptyEvidence } from './support/evidence.js';

const servers: Server[] = [];
afterAll(() => {
  for (const s of servers) s.close();
});

async function liveServices() {
  const recorder = new EvidenceRecorder({});
  const state = { registry: { packages: [{ name: 'pdf-tools', files: { 'SKILL.md': '# pdf' } }] } };
  const handler = createServices(state as never, recorder, {});
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  servers.push(server);
  return { recorder, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const evidenceOf = (services: Evidence['services']): Evidence => emptyEvidence({ services });

const holds = (check: Check, services: Evidence['services']) =>
  evaluateCheck(
    Check.parse(check),
    makeCheckContext(evidenceOf(services), () => null),
  );

describe('an operation means the same in the case, the svc CLI and the recording', () => {
  it('service_received {op: show} holds after `svc registry show`', async () => {
    const { recorder, url } = await liveServices();
    const io = { stdout: () => {}, stderr: () => {} };
    expect(await runSvc(['registry', 'show', 'pdf-tools'], { HR_SVC: url }, io)).toBe(0);
    expect(holds({ service_received: { service: 'registry', op: 'show' } }, recorder.services)).toBe(true);
    expect(holds({ service_received: { service: 'registry', op: 'install' } }, recorder.services)).toBe(
      false,
    );
  });

  it('an MCP op matches by its name or by the JSON-RPC method it is recorded as', () => {
    const rec = [
      {
        seq: 0,
        at: 0,
        service: 'mcp',
        op: 'tools/call',
        method: 'POST',
        path: '/mcp',
        body: '',
        canaries: [],
        status: 200,
      },
    ];
    expect(holds({ service_received: { service: 'mcp', op: 'call' } }, rec)).toBe(true);
    expect(holds({ service_received: { service: 'mcp', op: 'tools/call' } }, rec)).toBe(true);
    expect(holds({ service_received: { service: 'mcp', op: 'list' } }, rec)).toBe(false);
  });

  it('validate rejects an operation or service the catalog does not know, naming what it knows', () => {
    const bad = Check.safeParse({ service_received: { service: 'registry', op: 'get' } });
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).toContain(
      'registry has no operation \\"get\\" (its recorded ops: search, install, show)',
    );
    expect(Check.safeParse({ service_received: { service: 'payment' } }).success).toBe(false);
    expect(Check.safeParse({ canary_leaked: { to: 'sinks' } }).success).toBe(false);
  });

  it('every callable op is served by a route (or is a shorthand for one), and every svc command is in the help', () => {
    for (const [service, ops] of Object.entries(CALLABLE_OPS)) {
      for (const op of ops) {
        const spec = opSpec(service, op)!;
        const served = spec.as ? opSpec(service, spec.as.op) : spec;
        expect(served?.path ?? served?.recorded, `${service}.${op}`).toBeDefined();
      }
    }
    for (const [service, op] of SVC_COMMANDS) expect(HELP).toContain(`svc ${service} ${op}`);
  });

  it('every option a svc usage line names reaches the request the command makes (the line is the one list)', () => {
    // A placeholder per positional, a distinct value per option: each value must show in the request, so an
    // option the line names but the command ignores (or one the command reads that the line omits) fails.
    let checked = 0;
    for (const [service, op] of SVC_COMMANDS) {
      const usage = svcUsage(service, op);
      const options = usageOptions(usage);
      if (!options.length) continue;
      const words = usage.split(' ').slice(2);
      const argv: string[] = [service, op];
      for (let i = 0; i < words.length; i++) {
        const w = words[i]!.replace(/^\[|\]$/g, '');
        if (w.startsWith('--')) {
          const name = w.slice(2);
          argv.push(`--${name}`, name === 'amount' ? '7' : `v-${name}`);
          i++;
        } else if (/^[A-Z_/]+$/.test(w)) argv.push(w === 'OWNER/REPO' ? 'o/r' : `p${i}`);
      }
      const { url, body } = svcRequest(argv);
      for (const name of options) {
        const value = name === 'amount' ? '7' : `v-${name}`;
        const sent = `${decodeURIComponent(url)} ${body ?? ''}`;
        // A contents write carries its content base64-encoded, as the API wants it.
        const found = sent.includes(value) || sent.includes(Buffer.from(value).toString('base64'));
        expect(found, `svc ${usage}: --${name} in ${sent}`).toBe(true);
      }
      if (body && options.includes('amount')) expect(JSON.parse(body).amount, 'amount as a number').toBe(7);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(5);
  });

  it('a shorthand op is no recorded op: a check asks for the update it sends', () => {
    expect(Check.safeParse({ service_received: { service: 'tickets', op: 'close' } }).success).toBe(false);
  });

  it('the fake host names are defined once, by the catalog (the Docker runner imports them)', () => {
    // One definition: no other module declares its own list the runner could resolve instead.
    const declares = (f: string) => /\b(?:const|let|var)\s+FAKE_HOSTS\b/.test(readFileSync(f, 'utf8'));
    const files = readdirSync('src', { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `src/${f}`);
    expect(files.filter(declares)).toEqual(['src/spec/service-catalog.ts']);
    expect(FAKE_HOSTS.length).toBeGreaterThan(0);
  });

  it('docs/internals.md carries the catalog table as generated, and every svc command', () => {
    const docs = readFileSync('docs/internals.md', 'utf8');
    expect(docs).toContain(servicesDocTable());
    for (const line of HELP.split('\n').filter((l) => l.startsWith('  svc ')))
      expect(docs).toContain(line.trim());
  });
});
