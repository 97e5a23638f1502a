// A local stand-in for api.github.com that is as strict as the real one on what it receives: every
// request's path, method, path/query parameters and JSON body are validated against GitHub's published
// OpenAPI description (@octokit/openapi, api.github.com.json, $refs resolved by ajv), plus the rules the
// description does not encode (auth, size limits, known commits, existing resources). Anything the real
// API would reject gets the real API's status (401/404/422) AND is recorded in `violations`, which the
// tests assert empty. Issue comments and check runs are kept in memory; responses are built from the
// description's own examples and checked against its response schemas (`responseViolations`).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { Ajv, type ValidateFunction } from 'ajv';

const require = createRequire(import.meta.url);
// ajv-formats is CommonJS with a default export; load it the CommonJS way.
const addFormats: (ajv: Ajv) => Ajv = require('ajv-formats');

type Json = any;

// ---- the OpenAPI description, loaded once per process ----

interface Route {
  template: string;
  regex: RegExp;
  params: string[];
  literals: number;
  item: Json;
}

interface Spec {
  doc: Json;
  routes: Route[];
  ajv: Ajv;
  validators: Map<string, ValidateFunction>;
}

let SPEC: Spec | undefined;

/** OpenAPI 3.0 → JSON Schema: `nullable`, and refs into the description's components. */
function toJsonSchema(node: Json, nameMap = false): Json {
  if (Array.isArray(node)) return node.map((n) => toJsonSchema(n));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    // In `properties` (and the components map) keys are names, not keywords: keep them all.
    if (nameMap) {
      out[k] = toJsonSchema(v);
      continue;
    }
    if (k === 'example' || k === 'examples' || k === 'discriminator' || k.startsWith('x-')) continue;
    if (k === '$ref' && typeof v === 'string' && v.startsWith('#/')) out.$ref = `openapi.json${v}`;
    else out[k] = toJsonSchema(v, k === 'properties' || k === 'patternProperties' || k === 'definitions');
  }
  if (out.nullable === true) {
    delete out.nullable;
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.type)) out.type = [...new Set([...out.type, 'null'])];
    else if (out.enum) out.enum = [...out.enum, null];
    else return { anyOf: [out, { type: 'null' }] };
    if (out.enum && !out.enum.includes(null)) out.enum = [...out.enum, null];
  } else if ('nullable' in out) delete out.nullable;
  return out;
}

function loadSpec(): Spec {
  if (SPEC) return SPEC;
  const doc = require('@octokit/openapi/generated/api.github.com.json');
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true, coerceTypes: false });
  addFormats(ajv);
  for (const f of [
    'int32',
    'int64',
    'float',
    'double',
    'byte',
    'binary',
    'password',
    'repo.nwo',
    'ssh-key',
    'ssh-key fingerprint',
  ]) {
    ajv.addFormat(f, true);
  }
  ajv.addSchema({ $id: 'openapi.json', components: { schemas: toJsonSchema(doc.components.schemas, true) } });
  const routes: Route[] = Object.entries(doc.paths as Record<string, Json>).map(([template, item]) => {
    const params: string[] = [];
    const regex = new RegExp(
      `^${template
        .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
        .replace(/\{([^}]+)\}(?=(\/?))/g, (_m, name: string, more: string) => {
          params.push(name);
          // A file path or a git ref at the end spans segments, as clients send them (contents/docs/a.md).
          return !more && (name === 'path' || name === 'ref') ? '(.+)' : '([^/]+)';
        })}$`,
    );
    return {
      template,
      regex,
      params,
      literals: template.split('/').filter((s) => s && !s.startsWith('{')).length,
      item,
    };
  });
  SPEC = { doc, routes, ajv, validators: new Map() };
  return SPEC;
}

function deref(doc: Json, node: Json): Json {
  let n = node;
  while (n && typeof n === 'object' && typeof n.$ref === 'string') {
    n = n.$ref
      .slice(2)
      .split('/')
      .reduce((o: Json, k: string) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return n;
}

function validator(spec: Spec, key: string, schema: Json): ValidateFunction {
  const known = spec.validators.get(key);
  if (known) return known;
  const v = spec.ajv.compile(toJsonSchema(schema));
  spec.validators.set(key, v);
  return v;
}

const ajvErrors = (v: ValidateFunction) =>
  (v.errors ?? [])
    .slice(0, 5)
    .map(
      (e) =>
        `${e.instancePath || '(body)'} ${e.message}${e.params && 'allowedValues' in e.params ? ` ${JSON.stringify(e.params.allowedValues)}` : ''}`,
    )
    .join('; ');

export type CheckedRequest =
  | { route?: string; violation: string; status: number }
  | { route: string; values: Record<string, Json>; body: Json; op: Json };

/**
 * One request checked against GitHub's OpenAPI description: its path and method, auth header, path and
 * query parameters and JSON body. The fake answers with it; the world's GitHub is tested with it.
 */
export function checkGithubRequest(
  method: string,
  url: URL,
  auth: string,
  contentType: string,
  raw: string,
): CheckedRequest {
  const spec = loadSpec();
  let template: string | undefined;
  const bad = (status: number, violation: string): CheckedRequest => ({ route: template, violation, status });
  // Route by the description: the template with the most literal segments wins.
  const matches = spec.routes
    .filter((r) => r.regex.test(url.pathname))
    .sort((a, b) => b.literals - a.literals);
  const route = matches[0];
  if (!route) return bad(404, `no such path in GitHub's OpenAPI description`);
  template = route.template;
  const op = route.item[method];
  if (!op) return bad(404, `method ${method.toUpperCase()} is not defined for ${route.template}`);

  if (!/^(token|bearer) \S+$/i.test(auth)) return bad(401, 'Requires authentication');

  // Parameters: path and query, typed per the description.
  const values: Record<string, Json> = {};
  const m = url.pathname.match(route.regex)!;
  route.params.forEach((p, i) => {
    values[p] = decodeURIComponent(m[i + 1]!);
  });
  for (const p0 of [...(route.item.parameters ?? []), ...(op.parameters ?? [])]) {
    const p = deref(spec.doc, p0);
    if (p.in !== 'path' && p.in !== 'query') continue;
    const rawValue = p.in === 'path' ? values[p.name] : url.searchParams.get(p.name);
    if (rawValue === null || rawValue === undefined) {
      if (p.required) return bad(422, `missing required ${p.in} parameter ${p.name}`);
      continue;
    }
    const schema = toJsonSchema(p.schema ?? {});
    const typed =
      schema.type === 'integer' || schema.type === 'number'
        ? Number(rawValue)
        : schema.type === 'boolean'
          ? rawValue === 'true'
          : rawValue;
    if ((schema.type === 'integer' && !Number.isInteger(typed)) || Number.isNaN(typed)) {
      return bad(
        p.in === 'path' ? 404 : 422,
        `${p.in} parameter ${p.name}=${rawValue} is not ${schema.type}`,
      );
    }
    const v = validator(spec, `param:${route.template}:${method}:${p.name}`, p.schema ?? {});
    if (!v(typed)) return bad(422, `${p.in} parameter ${p.name}: ${ajvErrors(v)}`);
    values[p.name] = typed;
  }
  if (values.per_page !== undefined && (values.per_page < 1 || values.per_page > 100))
    return bad(422, 'per_page must be 1..100');

  // Body.
  let body: Json;
  const rb = deref(spec.doc, op.requestBody);
  if (rb) {
    const media = rb.content?.['application/json'];
    if (raw === '') {
      if (rb.required) return bad(400, 'Problems parsing JSON: request body required');
    } else {
      if (!/application\/json/.test(contentType)) return bad(415, 'Content-Type must be application/json');
      try {
        body = JSON.parse(raw);
      } catch {
        return bad(400, 'Problems parsing JSON');
      }
      if (media?.schema) {
        const v = validator(spec, `body:${route.template}:${method}`, media.schema);
        if (!v(body)) return bad(422, `Invalid request: ${ajvErrors(v)}`);
      }
    }
  } else if (raw !== '' && method !== 'get') {
    return bad(422, 'this endpoint takes no request body');
  }
  return { route: route.template, values, body, op };
}

// ---- the fake ----

export interface StoredComment {
  id: number;
  issue_number: number;
  body: string;
  created_at: string;
  updated_at: string;
}

export interface StoredCheckRun {
  id: number;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string | null;
  output: { title?: string; summary?: string; text?: string };
  annotations: Json[];
  /** Requests that carried annotations (create + updates). */
  annotationRequests: number[];
  details_url?: string;
  external_id?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  route?: string;
  status: number;
  body?: Json;
}

export interface FakeGitHubOptions {
  /** `owner/repo` names that exist. */
  repos: string[];
  /** Pull request / issue numbers that exist (in every repo). */
  issues: number[];
  /** Commit SHAs that exist (check runs need one). */
  commits: string[];
  /** The token answers 403 "Resource not accessible by integration" to every write (a fork PR's token). */
  readOnly?: boolean;
  /** What GET /pulls/{n}/files answers per pull request (absent: no files changed). */
  pullFiles?: Record<number, { filename: string; status?: string; patch?: string }[]>;
}

/**
 * A failure the fake answers instead of handling a request, as the real API does now and then: a 502 from
 * the load balancer, a secondary rate limit (403/429 with retry-after). Matched requests are answered
 * before anything is stored, `times` times, then the fault is used up.
 */
export interface Fault {
  /** `POST`, `PATCH`… (any when absent). */
  method?: string;
  /** Matched against the request path (any when absent). */
  path?: RegExp;
  status: number;
  body?: Json;
  headers?: Record<string, string>;
  /** How many matching requests fail (default 1). */
  times?: number;
  /**
   * The request is carried out, then answered with the fault: GitHub's load balancer answering 502 to a
   * POST that did create the resource (a retry then makes a second one).
   */
  after?: boolean;
}

/** GitHub's answer to a secondary rate limit (its documented message and a retry-after header). */
/**
 * Where an answer to a checked request breaks the description's response schema for its status (undefined:
 * it conforms, or the description gives no JSON schema for that status). Used on the fake's own answers
 * and on the world's GitHub's.
 */
export function responseViolation(
  method: string,
  checked: { route: string; op: Json },
  status: number,
  json: Json,
): string | undefined {
  const spec = loadSpec();
  const op = checked.op as { responses?: Record<string, Json> };
  const schema = deref(spec.doc, op.responses?.[String(status)])?.content?.['application/json']?.schema;
  if (!schema) return undefined;
  const v = validator(spec, `response:${checked.route}:${method}:${status}`, schema);
  return v(json) ? undefined : `${method.toUpperCase()} ${checked.route} ${status}: ${ajvErrors(v)}`;
}

export const SECONDARY_RATE_LIMIT = (status: 403 | 429, retryAfterS = 1): Omit<Fault, 'method' | 'path'> => ({
  status,
  headers: { 'retry-after': String(retryAfterS), 'x-ratelimit-remaining': '4000' },
  body: {
    message:
      'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.',
    documentation_url:
      'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
  },
});

export interface FakeGitHub {
  url: string;
  /** Answers the next matching request(s) with `fault` (see Fault). */
  inject(fault: Fault): void;
  /** Requests answered by an injected fault. */
  faulted: RecordedRequest[];
  options: FakeGitHubOptions;
  comments: StoredComment[];
  checkRuns: StoredCheckRun[];
  requests: RecordedRequest[];
  /** Requests the real API would reject. Tests assert this stays empty. */
  violations: string[];
  /** Responses of the fake that do not match the description's response schema (a bug in the fake). */
  responseViolations: string[];
  /** Writes attempted (POST/PATCH/PUT/DELETE), whatever the answer. */
  writes(): RecordedRequest[];
  reset(): void;
  close(): Promise<void>;
}

const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeGitHub(options: FakeGitHubOptions): Promise<FakeGitHub> {
  const spec = loadSpec();
  const examples = spec.doc.components.examples;
  let nextId = 1_000_001;
  const state = {
    comments: [] as StoredComment[],
    checkRuns: [] as StoredCheckRun[],
    requests: [] as RecordedRequest[],
    violations: [] as string[],
    responseViolations: [] as string[],
    faults: [] as Fault[],
    faulted: [] as RecordedRequest[],
  };
  let baseUrl = '';

  const commentJson = (owner: string, repo: string, c: StoredComment): Json => ({
    ...examples['issue-comment'].value,
    id: c.id,
    node_id: `IC_${c.id}`,
    url: `${baseUrl}/repos/${owner}/${repo}/issues/comments/${c.id}`,
    html_url: `https://github.com/${owner}/${repo}/pull/${c.issue_number}#issuecomment-${c.id}`,
    issue_url: `${baseUrl}/repos/${owner}/${repo}/issues/${c.issue_number}`,
    body: c.body,
    user: {
      ...examples['issue-comment'].value.user,
      login: 'github-actions[bot]',
      id: 41898282,
      type: 'Bot',
    },
    created_at: c.created_at,
    updated_at: c.updated_at,
    author_association: 'NONE',
  });

  const checkJson = (owner: string, repo: string, c: StoredCheckRun): Json => ({
    ...examples['check-run-example-of-completed-conclusion'].value,
    id: c.id,
    node_id: `CR_${c.id}`,
    name: c.name,
    head_sha: c.head_sha,
    external_id: c.external_id ?? '',
    url: `${baseUrl}/repos/${owner}/${repo}/check-runs/${c.id}`,
    html_url: `https://github.com/${owner}/${repo}/runs/${c.id}`,
    details_url: c.details_url ?? `https://github.com/${owner}/${repo}/runs/${c.id}`,
    status: c.status,
    conclusion: c.conclusion,
    output: {
      title: c.output.title ?? null,
      summary: c.output.summary ?? null,
      text: c.output.text ?? null,
      annotations_count: c.annotations.length,
      annotations_url: `${baseUrl}/repos/${owner}/${repo}/check-runs/${c.id}/annotations`,
    },
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', baseUrl);
    const method = (req.method ?? 'GET').toLowerCase();
    const raw = await readBody(req);
    const rec: RecordedRequest = { method: method.toUpperCase(), path: url.pathname, status: 0 };
    state.requests.push(rec);
    let answerWith: Fault | undefined;
    const send = (status: number, body?: Json, headers: Record<string, string> = {}) => {
      if (answerWith) {
        [status, body, headers] = [
          answerWith.status,
          answerWith.body ?? { message: 'Server Error' },
          answerWith.headers ?? {},
        ];
        answerWith = undefined;
      }
      rec.status = status;
      res.writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'x-github-api-version-selected': '2022-11-28',
        ...headers,
      });
      res.end(body === undefined ? '' : JSON.stringify(body));
    };
    const reject = (status: number, message: string) => {
      state.violations.push(`${rec.method} ${rec.path}: ${message}`);
      send(status, { message, documentation_url: 'https://docs.github.com/rest', status: String(status) });
    };

    const fault = state.faults.find(
      (f) =>
        (f.times ?? 1) > 0 && (!f.method || f.method === rec.method) && (!f.path || f.path.test(rec.path)),
    );
    if (fault) {
      fault.times = (fault.times ?? 1) - 1;
      state.faulted.push(rec);
      if (fault.after) answerWith = fault;
      else return send(fault.status, fault.body ?? { message: 'Server Error' }, fault.headers);
    }

    const checked = checkGithubRequest(
      method,
      url,
      String(req.headers.authorization ?? ''),
      String(req.headers['content-type'] ?? ''),
      raw,
    );
    if (checked.route) rec.route = checked.route;
    if ('violation' in checked) return reject(checked.status, checked.violation);
    const { values, body, op } = checked;
    const route = { template: checked.route };
    rec.body = body;

    // Resources and the rules the description leaves out.
    const fullName = `${values.owner}/${values.repo}`;
    if (
      values.owner !== undefined &&
      !options.repos.some((r) => r.toLowerCase() === fullName.toLowerCase())
    ) {
      return reject(404, `Not Found (no repository ${fullName})`);
    }
    const write = method !== 'get' && method !== 'head';
    if (write && options.readOnly) {
      rec.status = 403;
      return send(403, {
        message: 'Resource not accessible by integration',
        documentation_url: 'https://docs.github.com/rest',
        status: '403',
      });
    }

    const respond = (status: number, json: Json, headers: Record<string, string> = {}) => {
      const violation = responseViolation(method, { route: route.template, op: op as Json }, status, json);
      if (violation) state.responseViolations.push(violation);
      send(status, json, headers);
    };

    const key = `${method} ${route.template}`;
    switch (key) {
      case 'get /repos/{owner}/{repo}/issues/{issue_number}/comments': {
        if (!options.issues.includes(values.issue_number))
          return reject(404, `Not Found (no issue ${values.issue_number})`);
        const all = state.comments.filter((c) => c.issue_number === values.issue_number);
        const perPage = values.per_page ?? 30;
        const page = values.page ?? 1;
        const last = Math.max(1, Math.ceil(all.length / perPage));
        const links: string[] = [];
        const link = (p: number, rel: string) => {
          const u = new URL(url.toString());
          u.searchParams.set('page', String(p));
          u.searchParams.set('per_page', String(perPage));
          links.push(`<${u.toString()}>; rel="${rel}"`);
        };
        if (page < last) {
          link(page + 1, 'next');
          link(last, 'last');
        }
        return respond(
          200,
          all
            .slice((page - 1) * perPage, page * perPage)
            .map((c) => commentJson(values.owner, values.repo, c)),
          links.length ? { link: links.join(', ') } : {},
        );
      }
      case 'post /repos/{owner}/{repo}/issues/{issue_number}/comments': {
        if (!options.issues.includes(values.issue_number))
          return reject(404, `Not Found (no issue ${values.issue_number})`);
        if (body.body.length > 65_536)
          return reject(
            422,
            `Validation Failed: body is too long (maximum is 65536 characters; got ${body.body.length})`,
          );
        const c: StoredComment = {
          id: nextId++,
          issue_number: values.issue_number,
          body: body.body,
          created_at: now(),
          updated_at: now(),
        };
        state.comments.push(c);
        return respond(201, commentJson(values.owner, values.repo, c), {
          location: `${baseUrl}/repos/${fullName}/issues/comments/${c.id}`,
        });
      }
      case 'patch /repos/{owner}/{repo}/issues/comments/{comment_id}': {
        const c = state.comments.find((x) => x.id === values.comment_id);
        if (!c) return reject(404, `Not Found (no comment ${values.comment_id})`);
        if (body.body.length > 65_536)
          return reject(
            422,
            `Validation Failed: body is too long (maximum is 65536 characters; got ${body.body.length})`,
          );
        c.body = body.body;
        c.updated_at = now();
        return respond(200, commentJson(values.owner, values.repo, c));
      }
      case 'delete /repos/{owner}/{repo}/issues/comments/{comment_id}': {
        const i = state.comments.findIndex((x) => x.id === values.comment_id);
        if (i < 0) return reject(404, `Not Found (no comment ${values.comment_id})`);
        state.comments.splice(i, 1);
        rec.status = 204;
        res.writeHead(204);
        return res.end();
      }
      case 'get /repos/{owner}/{repo}/commits/{ref}/check-runs': {
        const runs = state.checkRuns.filter(
          (c) =>
            c.head_sha === values.ref && (values.check_name === undefined || c.name === values.check_name),
        );
        return respond(200, {
          total_count: runs.length,
          check_runs: runs.map((c) => checkJson(values.owner, values.repo, c)),
        });
      }
      case 'post /repos/{owner}/{repo}/check-runs':
      case 'patch /repos/{owner}/{repo}/check-runs/{check_run_id}': {
        const creating = method === 'post';
        let run: StoredCheckRun | undefined;
        if (creating) {
          if (!/^[0-9a-f]{40}$/.test(body.head_sha) || !options.commits.includes(body.head_sha)) {
            return reject(422, `No commit found for SHA: ${body.head_sha}`);
          }
        } else {
          run = state.checkRuns.find((x) => x.id === values.check_run_id);
          if (!run) return reject(404, `Not Found (no check run ${values.check_run_id})`);
        }
        const status = body.conclusion ? 'completed' : (body.status ?? (creating ? 'queued' : run!.status));
        if ((status === 'completed' || body.completed_at) && !body.conclusion && !run?.conclusion) {
          return reject(422, 'Validation Failed: conclusion is required when status is completed');
        }
        const out = body.output;
        if (out) {
          // GitHub's docs: title and summary are required in `output` (the description marks only summary).
          if (typeof out.title !== 'string' || typeof out.summary !== 'string')
            return reject(422, 'Validation Failed: output needs title and summary');
          for (const a of out.annotations ?? []) {
            if ((a.start_column !== undefined || a.end_column !== undefined) && a.start_line !== a.end_line) {
              return reject(422, 'Validation Failed: start_column/end_column need start_line == end_line');
            }
            if (a.start_line < 1 || a.end_line < a.start_line)
              return reject(422, 'Validation Failed: bad annotation lines');
            if (a.title !== undefined && a.title.length > 255)
              return reject(422, 'Validation Failed: annotation title is longer than 255 characters');
            if (Buffer.byteLength(a.message) > 64 * 1024)
              return reject(422, 'Validation Failed: annotation message is larger than 64 KB');
            if (a.raw_details !== undefined && Buffer.byteLength(a.raw_details) > 64 * 1024)
              return reject(422, 'Validation Failed: raw_details is larger than 64 KB');
          }
        }
        if (creating) {
          run = {
            id: nextId++,
            name: body.name,
            head_sha: body.head_sha,
            status,
            conclusion: body.conclusion ?? null,
            output: {},
            annotations: [],
            annotationRequests: [],
            details_url: body.details_url,
            external_id: body.external_id,
          };
          state.checkRuns.push(run);
        }
        const r = run!;
        if (!creating) {
          r.status = status;
          if (body.conclusion) r.conclusion = body.conclusion;
          if (body.name) r.name = body.name;
        }
        if (out) {
          r.output = {
            title: out.title,
            summary: out.summary,
            ...(out.text !== undefined ? { text: out.text } : {}),
          };
          if (out.annotations?.length) {
            r.annotations.push(...out.annotations);
            r.annotationRequests.push(out.annotations.length);
          }
        }
        return respond(creating ? 201 : 200, checkJson(values.owner, values.repo, r));
      }
      case 'get /repos/{owner}/{repo}/pulls/{pull_number}/files': {
        if (!options.issues.includes(values.pull_number))
          return reject(404, `Not Found (no pull request ${values.pull_number})`);
        const all = options.pullFiles?.[values.pull_number] ?? [];
        const perPage = values.per_page ?? 30;
        const page = values.page ?? 1;
        const last = Math.max(1, Math.ceil(all.length / perPage));
        const links: string[] = [];
        if (page < last) {
          const u = new URL(url.toString());
          u.searchParams.set('page', String(page + 1));
          u.searchParams.set('per_page', String(perPage));
          links.push(`<${u.toString()}>; rel="next"`);
        }
        const blob = `https://github.com/${fullName}/blob/${'0'.repeat(40)}`;
        return respond(
          200,
          all.slice((page - 1) * perPage, page * perPage).map((f) => {
            const plus = (f.patch ?? '').split('\n').filter((l) => l.startsWith('+')).length;
            const minus = (f.patch ?? '').split('\n').filter((l) => l.startsWith('-')).length;
            return {
              sha: 'bbcd538c8e72b8c175046e27cc8f907076331401',
              filename: f.filename,
              status: f.status ?? 'modified',
              additions: plus,
              deletions: minus,
              changes: plus + minus,
              blob_url: `${blob}/${f.filename}`,
              raw_url: `${blob.replace('/blob/', '/raw/')}/${f.filename}`,
              contents_url: `${baseUrl}/repos/${fullName}/contents/${f.filename}`,
              ...(f.patch !== undefined ? { patch: f.patch } : {}),
            };
          }),
          links.length ? { link: links.join(', ') } : {},
        );
      }
      default:
        return reject(
          404,
          `the fake does not implement ${key} (valid per the description, but unexpected here)`,
        );
    }
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e) => {
      state.violations.push(`fake crashed: ${(e as Error).stack}`);
      res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: baseUrl,
    options,
    get comments() {
      return state.comments;
    },
    get checkRuns() {
      return state.checkRuns;
    },
    get requests() {
      return state.requests;
    },
    get violations() {
      return state.violations;
    },
    get responseViolations() {
      return state.responseViolations;
    },
    writes: () => state.requests.filter((r) => r.method !== 'GET' && r.method !== 'HEAD'),
    inject(fault) {
      state.faults.push({ ...fault });
    },
    get faulted() {
      return state.faulted;
    },
    reset() {
      state.faults.length = 0;
      state.faulted.length = 0;
      state.comments.length = 0;
      state.checkRuns.length = 0;
      state.requests.length = 0;
      state.violations.length = 0;
      state.responseViolations.length = 0;
    },
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
