// Sending a `svc` request: always to HR_SVC, in proxy form for a URL on another host, so the CLI itself
// never reaches the network.
import { request } from 'node:http';
import { type Plan, SvcError } from './svc-plan.js';

interface Response {
  status: number;
  statusText: string;
  body: string;
}

/** Sends the plan to HR_SVC; URLs on other hosts go in proxy form so the endpoint records them. */
export function send(base: URL, plan: Plan): Promise<Response> {
  const target = targetUrl(base, plan.url);
  const viaProxy = target.origin !== base.origin;
  const payload = plan.json !== undefined ? JSON.stringify(plan.json) : plan.data;
  const headers: Record<string, string> = { host: target.host, 'user-agent': 'harness-risk-svc/1' };
  if (payload !== undefined) {
    headers['content-type'] = contentType(plan, payload);
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolveResponse, reject) => {
    const req = request(
      {
        host: base.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: base.port || 80,
        method: plan.method,
        path: viaProxy ? target.href : target.pathname + target.search,
        headers,
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () =>
          resolveResponse({
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${base.origin} within 30 s`)));
    req.on('error', (error) => reject(new SvcError(`cannot reach ${base.origin}: ${error.message}`)));
    req.end(payload);
  });
}

/** Absolute URLs as they are; paths under HR_SVC's own path (which may be more than `/`). */
function targetUrl(base: URL, url: string): URL {
  if (/^https?:\/\//i.test(url)) return new URL(url);
  const prefix = base.pathname.replace(/\/+$/, '');
  return new URL(prefix + (url.startsWith('/') ? url : `/${url}`), base.origin);
}

function contentType(plan: Plan, payload: string): string {
  if (plan.json !== undefined) return 'application/json';
  try {
    JSON.parse(payload);
    return 'application/json';
  } catch {
    return /^[\w.-]+=[^&]*(&[\w.-]+=[^&]*)*$/.test(payload)
      ? 'application/x-www-form-urlencoded'
      : 'text/plain';
  }
}
