// Containment is attested by the engine, not by the file. A run result read back from disk (report-only,
// merged shards, a stored baseline) could have been written by anyone who can write that file: an
// uncontained harness (same uid as the engine), a PR that edits a committed result, a job that uploads a
// shard artifact. Its `containment` field is only a claim. The engine that ran the trials signs the
// result with HMAC-SHA256 under a key no trial ever sees (HR_ATTEST_KEY, a workflow secret; else a key
// of this machine's account, outside every sandbox's view); a reader holding the key checks it. A claim
// that cannot be checked becomes `unverified`, which the verdict treats like `uncontained`.
// Threat model: docs/attestation.md.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { UserError } from '../errors.js';
import type { Attestation, RunnerInfo, RunResult } from '../spec/run-result.js';

/** Domain separation: this MAC can never be confused with another use of the same key. */
const DOMAIN = 'harness-risk run result attestation v1\n';
/** A secret shorter than this is a password, not a key. */
export const MIN_KEY_CHARS = 32;

export interface AttestKey {
  /** Public, in the result: which key signed (never the key). */
  id: string;
  secret: Buffer;
  /** Where it came from, for messages. */
  source: 'HR_ATTEST_KEY' | 'machine';
}

const keyId = (secret: Buffer) =>
  createHash('sha256').update('harness-risk key id\n').update(secret).digest('hex').slice(0, 16);

export const keyFrom = (secret: string | Buffer, source: AttestKey['source']): AttestKey => {
  const b = Buffer.isBuffer(secret) ? secret : Buffer.from(secret, 'utf8');
  return { id: keyId(b), secret: b, source };
};

/**
 * JSON with sorted keys, streamed into `put`: the same value gives the same text whatever its key order,
 * so the file the engine wrote and the same file parsed back give one MAC. Like JSON.stringify, an
 * undefined member is left out.
 */
export function canonicalJson(value: unknown, put: (s: string) => void): void {
  if (value === null || typeof value !== 'object') {
    put(JSON.stringify(value) ?? 'null');
    return;
  }
  if (Array.isArray(value)) {
    put('[');
    value.forEach((v, i) => {
      if (i) put(',');
      canonicalJson(v === undefined ? null : v, put);
    });
    put(']');
    return;
  }
  put('{');
  let first = true;
  for (const k of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined) continue;
    put(`${first ? '' : ','}${JSON.stringify(k)}:`);
    first = false;
    canonicalJson(v, put);
  }
  put('}');
}

/** The MAC over everything in the result but the attestation itself. */
export function resultMac(doc: unknown, key: AttestKey): string {
  const { attestation: _, ...rest } = doc as Record<string, unknown>;
  const h = createHmac('sha256', key.secret).update(DOMAIN);
  canonicalJson(rest, (s) => h.update(s));
  return h.digest('hex');
}

export const signResult = (doc: RunResult, key: AttestKey): Attestation => ({
  alg: 'hmac-sha256',
  key_id: key.id,
  mac: resultMac(doc, key),
});

export type AttestCheck = { ok: true; key: AttestKey } | { ok: false; why: string };

/** Whether `raw` (a result as parsed from its file, before any normalising) carries a valid MAC. */
export function checkAttestation(raw: unknown, keys: AttestKey[]): AttestCheck {
  const a = (raw as { attestation?: Partial<Attestation> } | null)?.attestation;
  if (!a || typeof a.mac !== 'string' || typeof a.key_id !== 'string')
    return { ok: false, why: 'the result carries no engine attestation' };
  const key = keys.find((k) => k.id === a.key_id);
  if (!key)
    return {
      ok: false,
      why: `signed by key ${a.key_id.slice(0, 16)}, which this engine does not hold (set HR_ATTEST_KEY to the key the run was signed with)`,
    };
  const want = Buffer.from(resultMac(raw, key), 'hex');
  const got = Buffer.from(a.mac, 'hex');
  if (got.length !== want.length || !timingSafeEqual(got, want))
    return {
      ok: false,
      why: 'its attestation does not match its content: the file was changed after the engine signed it',
    };
  return { ok: true, key };
}

/**
 * The containment a reader may believe. `uncontained` needs no proof (no one forges their way down); any
 * other claim, or none, stands only with a valid MAC, and is `unverified` otherwise, naming the claim.
 */
export function attestedContainment(
  raw: unknown,
  doc: Pick<RunResult, 'runner' | 'containment'>,
  keys: AttestKey[],
): RunnerInfo {
  const claim = doc.containment;
  if (claim?.containment === 'uncontained') return claim;
  const check = checkAttestation(raw, keys);
  if (check.ok && claim) return claim;
  return {
    name: claim?.name ?? doc.runner,
    containment: 'unverified',
    mechanism: claim?.mechanism ?? 'not recorded',
    claimed: claim?.containment ?? 'not recorded',
    reason: check.ok ? 'the signed result records no containment' : check.why,
  };
}

/** `$XDG_STATE_HOME/harness-risk/attest.key` (HR_ATTEST_KEY_FILE overrides): this account's key. */
export const machineKeyPath = (): string =>
  process.env.HR_ATTEST_KEY_FILE ||
  join(process.env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'harness-risk', 'attest.key');

function readMachineKey(path: string): AttestKey | undefined {
  try {
    const hex = readFileSync(path, 'utf8').trim();
    return /^[0-9a-f]{64}$/.test(hex) ? keyFrom(Buffer.from(hex, 'hex'), 'machine') : undefined;
  } catch {
    return undefined;
  }
}

/** A fresh machine key, replacing any old one (mode 0600, folder 0700). */
export function newMachineKey(path = machineKeyPath()): AttestKey {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  rmSync(path, { force: true });
  const secret = randomBytes(32);
  // Exclusive: a file or link planted at the name in between is not written through.
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, `${secret.toString('hex')}\n`);
  } finally {
    closeSync(fd);
  }
  chmodSync(path, 0o600);
  return keyFrom(secret, 'machine');
}

function envKey(): AttestKey | undefined {
  const v = process.env.HR_ATTEST_KEY;
  if (!v) return undefined;
  if (v.length < MIN_KEY_CHARS)
    throw new UserError(
      `HR_ATTEST_KEY is ${v.length} characters long: too short to be a key`,
      `set it to at least ${MIN_KEY_CHARS} random characters (openssl rand -hex 32), kept as a workflow secret`,
    );
  return keyFrom(v, 'HR_ATTEST_KEY');
}

/** The keys a reader checks with: HR_ATTEST_KEY and this account's machine key, when they exist. */
export function verifyingKeys(): AttestKey[] {
  return [envKey(), readMachineKey(machineKeyPath())].filter((k): k is AttestKey => !!k);
}

/** The key the engine signs with: HR_ATTEST_KEY, else the machine key (made on first use). */
export function signingKey(): AttestKey {
  return envKey() ?? readMachineKey(machineKeyPath()) ?? newMachineKey();
}

/**
 * How the engine signs the results of the run it just finished. An uncontained harness ran with this
 * account's uid and could read the machine key (and the engine's environment): the machine key is
 * replaced first, so nothing the harness signed with the old one verifies; an HR_ATTEST_KEY it could have
 * read is named in a warning (rotate the secret). A key that cannot be had leaves the result unsigned
 * (a reader then sees `unverified`), with a warning: the run itself is not lost.
 */
export function engineSigner(
  uncontained: boolean,
  warn: (message: string) => void,
): (doc: RunResult) => Attestation | undefined {
  let key: AttestKey | undefined;
  try {
    if (uncontained && !process.env.HR_ATTEST_KEY) key = newMachineKey();
    else key = signingKey();
    if (uncontained && key.source === 'HR_ATTEST_KEY')
      warn(
        'HR_ATTEST_KEY was in the environment of an engine whose harness ran uncontained (same uid: it could read /proc of the engine): treat the key as exposed and rotate the secret',
      );
  } catch (e) {
    warn(
      `the result is not signed (${(e as Error).message}): a later report of it shows its containment as unverified`,
    );
  }
  return (doc) => (key ? signResult(doc, key) : undefined);
}
