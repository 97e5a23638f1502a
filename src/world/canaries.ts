// Canary secrets: values that look like real credentials, so a harness's secret filters treat them as such,
// yet are unique per run and per trial, so a leak found in one trial's evidence can never come from another
// trial (or from a cached copy of an earlier run).
import { createHmac, randomBytes } from 'node:crypto';
import type { Canary } from '../cases/schema.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 32;

/** A fresh random key for one run; never stored in results, so canary values cannot be recomputed. */
export function newRunKey(): string {
  return randomBytes(32).toString('hex');
}

/** Canary name → value: prefix + 32 base62 characters of HMAC-SHA256(runKey, trialId NUL name). */
export function makeCanaries(canaries: Canary[], runKey: string, trialId: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const canary of canaries) {
    out[canary.name] = (canary.prefix ?? 'sk-') + canaryBody(runKey, trialId, canary.name);
  }
  return out;
}

function canaryBody(runKey: string, trialId: string, name: string): string {
  // The NUL separator keeps ("a1", "B") and ("a", "1B") apart.
  const digest = createHmac('sha256', runKey).update(`${trialId}\u0000${name}`).digest('hex');
  // 256 bits > 62^32 (~190 bits), so 32 base62 digits never run out.
  let n = BigInt(`0x${digest}`);
  let body = '';
  for (let i = 0; i < BODY_LENGTH; i++) {
    body += BASE62[Number(n % 62n)];
    n /= 62n;
  }
  return body;
}
