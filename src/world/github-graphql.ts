// The world's GitHub's GraphQL API (`POST /api/graphql`; gh's `http://api.github.localhost/graphql`): every
// document is parsed and validated against GitHub's published schema (github-graphql-schema.ts) and
// answered from the trial's state (github-graphql-model.ts); mutations run their REST twins
// (github-graphql-mutations.ts). Each REST-served read and each mutation is recorded as its REST op, so
// evidence checks do not care which API the agent used; a document with neither is recorded as `graphql`.
import {
  type DocumentNode,
  execute,
  type GraphQLError,
  type GraphQLFieldResolver,
  type GraphQLOutputType,
  type GraphQLSchema,
  getNamedType,
  isAbstractType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  parse,
  validate,
} from 'graphql';
import type { GithubLive } from '../evidence/github-live.js';
import type { LiveState } from '../evidence/services-state.js';
import { GITHUB_OPS } from '../spec/github-ops.js';
import {
  actor,
  connection,
  type GqlContext,
  NotFoundError,
  nodeById,
  repository,
} from './github-graphql-model.js';
import { MUTATION_TWINS } from './github-graphql-mutations.js';
import { githubSchema } from './github-graphql-schema.js';
import { graphqlSearch } from './github-graphql-search.js';
import type { Ctx, Result, RouteOptions } from './services-routes.js';

type Run = (ctx: Ctx, params: string[], st: LiveState, opts: RouteOptions) => Result;
type Args = Record<string, unknown>;
type Obj = Record<string, unknown>;
/** One operation a document carried out, as the evidence records it. */
type Op = NonNullable<Result['ops']>[number];

/** A mutation's REST twin refused it: GitHub's GraphQL error type for it. */
class MutationError extends Error {
  constructor(
    message: string,
    readonly type: string,
  ) {
    super(message);
  }
}

const EPOCH = '2026-01-01T00:00:00Z';
const SCALARS: Record<string, unknown> = {
  Int: 0,
  Float: 0,
  Boolean: false,
  DateTime: EPOCH,
  GitTimestamp: EPOCH,
  PreciseDateTime: EPOCH,
  Date: EPOCH.slice(0, 10),
  URI: 'https://github.invalid/',
  GitObjectID: '0'.repeat(40),
};

/** A value of a field's declared type, for a field the state says nothing about (null where allowed). */
export function defaultOf(type: GraphQLOutputType, schema: GraphQLSchema): unknown {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return [];
  const named = getNamedType(inner);
  if (isObjectType(named) && named.name.endsWith('Connection')) return connection([], {});
  if (!isNonNullType(type)) return null;
  if (isEnumType(named)) return named.getValues()[0]!.value;
  if (isObjectType(named)) return {};
  if (isAbstractType(named)) return { __typename: schema.getPossibleTypes(named)[0]!.name };
  return SCALARS[named.name] ?? '';
}

/** Fields resolve from the model's object: a value, or a function of the arguments; else a typed default. */
const fieldResolver: GraphQLFieldResolver<unknown, GqlContext> = (source, args, ctx, info) => {
  const obj = source as Obj | null;
  const own =
    obj && typeof obj === 'object' && Object.hasOwn(obj, info.fieldName) ? obj[info.fieldName] : undefined;
  const value = typeof own === 'function' ? (own as (a: Args, c: GqlContext) => unknown)(args, ctx) : own;
  return value === undefined ? defaultOf(info.returnType, info.schema) : value;
};

/** REST path of an op with its parameters (OWNER/REPO first), for the evidence. */
function restPath(op: string, params: string[]): string {
  const spec = (GITHUB_OPS as Record<string, { path: string; method: string }>)[op]!;
  let i = 0;
  return `${spec.method} ${spec.path.replace(/:[a-z_]+\+?/g, () => params[i++] ?? '')}`;
}

function messageOf(r: Result): string {
  const j = r.json as { message?: unknown; error?: unknown } | undefined;
  return String(j?.message ?? j?.error ?? `status ${r.status}`);
}

/** The root fields: the repository (only the world's), nodes by id, the viewer, search, and mutations. */
function root(
  st: LiveState,
  rest: Record<string, Run>,
  req: Ctx,
  opts: RouteOptions,
  ops: Op[],
  text: string,
): Obj {
  const gh = st.github;
  const mutation = (name: string) => (a: Args) => {
    const twin = MUTATION_TWINS[name]?.((a.input ?? {}) as Args, gh);
    if (twin === undefined) {
      ops.push({
        op: 'graphql',
        status: 403,
        record: text,
        refused: `mutation ${name} is not modelled by the world`,
      });
      throw new MutationError('Resource not accessible by integration', 'FORBIDDEN');
    }
    if (typeof twin === 'string') throw new MutationError(twin, 'NOT_FOUND');
    const params = [...gh.repo.split('/'), ...twin.params];
    const body = JSON.stringify(twin.fields);
    const ctx: Ctx = {
      ...req,
      text: body,
      fields: twin.fields,
      raw: Buffer.from(body),
      query: new URLSearchParams(),
    };
    const r = rest[twin.op]!(ctx, params, st, opts);
    const ok = r.status >= 200 && r.status < 300;
    ops.push({
      op: twin.op,
      status: r.status,
      record: `${restPath(twin.op, params)}\n${body}\n${text}`,
      ...(ok ? {} : { refused: messageOf(r) }),
    });
    if (!ok) throw new MutationError(messageOf(r), r.status === 404 ? 'NOT_FOUND' : 'UNPROCESSABLE');
    return { clientMutationId: (a.input as Args | undefined)?.clientMutationId ?? null, ...twin.payload(gh) };
  };
  const mutations = Object.fromEntries(
    Object.keys(githubSchema().getMutationType()!.getFields()).map((name) => [name, mutation(name)]),
  );
  const [owner, name] = gh.repo.split('/') as [string, string];
  return {
    ...mutations,
    repository: (a: Args) =>
      String(a.owner).toLowerCase() === owner.toLowerCase() &&
      String(a.name).toLowerCase() === name.toLowerCase()
        ? repository(gh)
        : (() => {
            throw new NotFoundError(
              `Could not resolve to a Repository with the name '${a.owner}/${a.name}'.`,
            );
          })(),
    viewer: () => ({ ...actor('github-actions[bot]'), __typename: 'User', login: 'github-actions' }),
    node: (a: Args) => nodeById(gh, a.id),
    nodes: (a: Args) => (Array.isArray(a.ids) ? a.ids.map((id) => nodeById(gh, id)) : []),
    search: (a: Args, ctx: GqlContext) => graphqlSearch(gh, a, ctx),
    rateLimit: { limit: 5000, remaining: 4999, used: 1, cost: 1, resetAt: EPOCH, nodeCount: 0 },
  };
}

/** GitHub's shape for one error: message, locations, path, and `type` (NOT_FOUND, FORBIDDEN…) when known. */
function errorJson(e: GraphQLError): Obj {
  const original = e.originalError;
  const type =
    original instanceof NotFoundError || original instanceof MutationError ? original.type : undefined;
  return {
    ...(type ? { type } : {}),
    ...(e.path ? { path: e.path } : {}),
    ...(e.extensions && Object.keys(e.extensions).length ? { extensions: e.extensions } : {}),
    locations: e.locations ?? [],
    message: original && !type ? 'Something went wrong while executing your query.' : e.message,
  };
}

/**
 * graphql-js's validation messages in GitHub's wording and codes, for the common mistakes (a field or an
 * argument the schema lacks, a required argument missing); others keep graphql-js's message.
 */
export function validationError(e: GraphQLError): Obj {
  const rules: [RegExp, (m: RegExpExecArray) => [string, Obj]][] = [
    [
      /^Cannot query field "(\w+)" on type "(\w+)"/,
      (m) => [
        `Field '${m[1]}' doesn't exist on type '${m[2]}'`,
        { code: 'undefinedField', typeName: m[2], fieldName: m[1] },
      ],
    ],
    [
      /^Unknown argument "(\w+)" on field "(\w+)\.(\w+)"/,
      (m) => [
        `Field '${m[3]}' doesn't accept argument '${m[1]}'`,
        { code: 'argumentNotAccepted', name: m[3], typeName: 'Field', argumentName: m[1] },
      ],
    ],
    [
      /^Field "(\w+)" argument "(\w+)" of type ".+" is required/,
      (m) => [
        `Field '${m[1]}' is missing required arguments: ${m[2]}`,
        { code: 'missingRequiredArguments', className: 'Field', name: m[1], arguments: m[2] },
      ],
    ],
  ];
  for (const [re, to] of rules) {
    const m = re.exec(e.message);
    if (m) {
      const [message, extensions] = to(m);
      return { extensions, locations: e.locations ?? [], message };
    }
  }
  return { locations: e.locations ?? [], message: e.message };
}

/** A request GitHub refuses before executing it: the answer and its evidence entry. */
const refusedDoc = (status: number, json: Obj, record: string, why: string): Result => ({
  status,
  json,
  ops: [{ op: 'graphql', status: status === 200 ? 400 : status, record, refused: why }],
});

const RESPONSE_SHAPE = /^Fields "\w+" conflict because they return conflicting types /;

/** The document of a request, or GitHub's refusal of it (no query, a syntax error, a schema violation). */
function documentOf(ctx: Ctx): DocumentNode | Result {
  const query = ctx.fields.query;
  if (typeof query !== 'string' || !query.trim()) {
    const message = 'A query attribute must be specified and must be a string.';
    return refusedDoc(200, { errors: [{ message }] }, ctx.text, message);
  }
  let doc: DocumentNode;
  try {
    doc = parse(query);
  } catch (e) {
    const err = e as GraphQLError;
    return refusedDoc(
      200,
      { errors: [{ message: err.message, locations: err.locations ?? [] }] },
      ctx.text,
      err.message,
    );
  }
  // GitHub (graphql-ruby) lets fields of mutually exclusive types share a name with different types
  // (`...on Issue{state}` beside `...on PullRequest{state}`, as gh asks): so does the world.
  const invalid = validate(githubSchema(), doc).filter((e) => !RESPONSE_SHAPE.test(e.message));
  if (invalid.length) {
    const errors = invalid.map(validationError);
    return refusedDoc(200, { errors }, ctx.text, String(errors[0]!.message));
  }
  return doc;
}

/** The GraphQL route, given the REST routes its mutations run as. */
export function githubGraphql(rest: Record<string, Run>): Run {
  return (req, _params, st, opts) => {
    if (!/^(token|bearer)\s+\S+/i.test(req.authorization ?? ''))
      return refusedDoc(
        401,
        {
          message: 'This endpoint requires you to be authenticated.',
          documentation_url:
            'https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql',
        },
        req.text,
        'This endpoint requires you to be authenticated.',
      );
    const doc = documentOf(req);
    if (!('kind' in doc)) return doc;
    const ops: Op[] = [];
    const seen = new Set<string>();
    const gctx: GqlContext = {
      gh: st.github as GithubLive,
      read(op, path, status = 200) {
        if (seen.has(`${op} ${path}`)) return;
        seen.add(`${op} ${path}`);
        ops.push({
          op,
          status,
          record: `GET ${path}\n${req.text}`,
          ...(status < 300 ? {} : { refused: 'Not Found' }),
        });
      },
    };
    const variables = req.fields.variables;
    const result = execute({
      schema: githubSchema(),
      document: doc,
      rootValue: root(st, rest, req, opts, ops, req.text),
      contextValue: gctx,
      variableValues: variables && typeof variables === 'object' ? (variables as Args) : undefined,
      operationName: typeof req.fields.operationName === 'string' ? req.fields.operationName : undefined,
      fieldResolver,
    }) as { data?: unknown; errors?: readonly GraphQLError[] };
    const json = {
      data: result.data ?? null,
      ...(result.errors?.length ? { errors: result.errors.map(errorJson) } : {}),
    };
    if (!ops.length) ops.push({ op: 'graphql', status: 200, record: req.text });
    return { status: 200, json, ops };
  };
}
