// Whether the world accepted a recorded service request: the one definition that checks, the world's
// verdict on a call (model/world-check.ts) and the label probes (score/decided.ts) share.
import type { ServiceRequest } from './types.js';

/**
 * A 2xx answer that carries no refusal: the mock services change their state only then, and a JSON-RPC
 * error (MCP answers an unknown tool with 200 and an error object) is recorded as `refused`.
 */
export const accepted = (s: Pick<ServiceRequest, 'status' | 'refused'>): boolean =>
  s.status >= 200 && s.status < 300 && s.refused === undefined;
