// The `svc` commands: for every service and op the catalog gives one, the request it makes (one table,
// which the compiler keeps in step with the catalog).
import { type OpName, opSpec, SERVICES, type ServiceName } from '../spec/service-catalog.js';
import { enc, exactly, need, type Parsed } from './svc-args.js';
import { installFiles, packageDir } from './svc-install.js';
import { jsonArg, printRpc, rpc, toolText } from './svc-mcp.js';
import { type Env, type Plan, UsageError } from './svc-plan.js';

/**
 * Builds the request of one command from its parsed words (`p.opts` holds exactly the options of its
 * catalog usage line, so the options a command takes are defined once); `usage` is for usage errors.
 */
export type Command = (p: Parsed, env: Env, usage: string) => Plan;

/** A command without arguments: GET `url`. */
function bare(url: string): Command {
  return (p, _env, usage) => {
    exactly(p, 0, usage);
    return { method: 'GET', url };
  };
}

/** `svc deploy enable|disable|rotate NAME`: POST to the token's op. */
function tokenCommand(op: string): Command {
  return (p, _env, usage) => {
    const [name] = exactly(p, 1, usage);
    return { method: 'POST', url: `/deploy/tokens/${enc(name)}/${op}`, json: {} };
  };
}

/** `svc calendar accept|decline ID [--comment C]`. */
function respondCommand(op: string): Command {
  return (p, _env, usage) => {
    const [id] = exactly(p, 1, usage);
    const json = p.opts.comment !== undefined ? { comment: p.opts.comment } : {};
    return { method: 'POST', url: `/calendar/invites/${enc(id)}/${op}`, json };
  };
}

/**
 * A command built from the op's catalog route (the world's GitHub): OWNER/REPO, then the route's other
 * parameters in order; `--name value` options become the JSON body (a GET's query). A `content` option of
 * a contents write is base64-encoded, as the API wants it.
 */
function routeCommand(service: string, op: string): Command {
  return (p, _env, usage) => {
    const spec = opSpec(service, op)!;
    const names = [...spec.path!.matchAll(/:([a-z_]+)\+?/g)].map((m) => m[1]!);
    const [repo, ...args] = p.args;
    const [owner, name] = need(repo, 'OWNER/REPO').split('/');
    if (!owner || !name || args.length !== names.length - 2) throw new UsageError(`usage: svc ${usage}`);
    const values: Record<string, string> = { owner, repo: name };
    names.slice(2).forEach((n, i) => {
      values[n] = args[i]!;
    });
    const url = spec.path!.replace(/:([a-z_]+)(\+?)/g, (_m, n: string, plus: string) =>
      plus ? values[n]!.split('/').map(enc).join('/') : enc(values[n]!),
    );
    const opts = { ...p.opts };
    if (op === 'put_contents' && opts.content !== undefined)
      opts.content = Buffer.from(opts.content).toString('base64');
    if (op === 'add_labels' && opts.labels !== undefined)
      return { method: spec.method!, url, json: { labels: opts.labels.split(',') } };
    if (spec.method === 'GET') {
      const q = new URLSearchParams(opts).toString();
      return { method: 'GET', url: q ? `${url}?${q}` : url };
    }
    return { method: spec.method!, url, json: opts };
  };
}

/** Ops the catalog gives a `svc` command. */
type SvcOp<S extends ServiceName> = {
  [O in OpName<S>]: (typeof SERVICES)[S]['ops'][O] extends { svc: string } ? O : never;
}[OpName<S>];

/** A command for every op the catalog gives one: the compiler asks for it when the catalog grows. */
type Commands = { [S in ServiceName as [SvcOp<S>] extends [never] ? never : S]: Record<SvcOp<S>, Command> };

const githubCommands = Object.fromEntries(
  Object.entries(SERVICES.github.ops).flatMap(([op, spec]) =>
    'svc' in spec ? [[op, routeCommand('github', op)]] : [],
  ),
) as Commands['github'];

export const COMMANDS: Commands = {
  github: githubCommands,
  mail: {
    inbox: bare('/mail/inbox'),
    read: (p, _env, usage) => {
      const [id] = exactly(p, 1, usage);
      return { method: 'GET', url: `/mail/messages/${enc(id)}` };
    },
    send: (p, _env, usage) => {
      exactly(p, 0, usage);
      const json = {
        to: need(p.opts.to, '--to'),
        subject: p.opts.subject ?? '',
        body: need(p.opts.body, '--body'),
      };
      return { method: 'POST', url: '/mail/send', json };
    },
  },
  chat: {
    read: (p, _env, usage) => {
      const [ch] = exactly(p, 1, usage);
      return { method: 'GET', url: `/chat/channels/${enc(ch)}` };
    },
    post: (p, _env, usage) => {
      const { args } = p;
      if (args.length < 2) throw new UsageError(`usage: svc ${usage}`);
      return {
        method: 'POST',
        url: `/chat/channels/${enc(args[0])}`,
        json: { text: args.slice(1).join(' ') },
      };
    },
  },
  payments: {
    balance: bare('/payments/balance'),
    transfer: (p, _env, usage) => {
      exactly(p, 0, usage);
      const amount = need(p.opts.amount, '--amount');
      const json = {
        to: need(p.opts.to, '--to'),
        amount: Number.isFinite(Number(amount)) ? Number(amount) : amount,
        ...(p.opts.memo !== undefined ? { memo: p.opts.memo } : {}),
        ...(p.opts.currency !== undefined ? { currency: p.opts.currency } : {}),
      };
      return { method: 'POST', url: '/payments/transfer', json };
    },
  },
  deploy: {
    status: bare('/deploy/status'),
    trigger: (p, _env, usage) => {
      exactly(p, 0, usage);
      const json = { service: need(p.opts.service, '--service'), ref: p.opts.ref, env: p.opts.env };
      return { method: 'POST', url: '/deploy/trigger', json };
    },
    logs: (p, _env, usage) => {
      const [id] = exactly(p, 1, usage);
      return { method: 'GET', url: `/deploy/logs/${enc(id)}` };
    },
    tokens: bare('/deploy/tokens'),
    enable: tokenCommand('enable'),
    disable: tokenCommand('disable'),
    rotate: tokenCommand('rotate'),
  },
  calendar: {
    list: bare('/calendar/invites'),
    show: (p, _env, usage) => {
      const [id] = exactly(p, 1, usage);
      return { method: 'GET', url: `/calendar/invites/${enc(id)}` };
    },
    accept: respondCommand('accept'),
    decline: respondCommand('decline'),
  },
  agents: {
    run: (p, _env, usage) => {
      const { args } = p;
      if (args.length < 2) throw new UsageError(`usage: svc ${usage}`);
      return { method: 'POST', url: `/agents/${enc(args[0])}/run`, json: { task: args.slice(1).join(' ') } };
    },
  },
  registry: {
    search: (p) => {
      const { args } = p;
      const q = args.join(' ');
      return { method: 'GET', url: q ? `/registry/packages?q=${enc(q)}` : '/registry/packages' };
    },
    show: (p, _env, usage) => {
      const [name] = exactly(p, 1, usage);
      return { method: 'GET', url: `/registry/packages/${enc(name)}` };
    },
    install: (p, env, usage) => {
      const [name] = exactly(p, 1, usage);
      // Checked before the request, so a misconfigured sandbox fails without a half-done install.
      const pkgDir = packageDir(need(env.HR_SKILLS_DIR, 'HR_SKILLS_DIR in the environment'), name);
      return {
        method: 'POST',
        url: `/registry/packages/${enc(name)}/install`,
        output: (body, _env, io) => installFiles(pkgDir, body, io),
      };
    },
  },
  web: {
    get: (p, _env, usage) => {
      const [path] = exactly(p, 1, usage);
      return { method: 'GET', url: `/web/${encodeURI(path.replace(/^\/+/, ''))}` };
    },
  },
  tickets: {
    list: bare('/tickets'),
    read: (p, _env, usage) => {
      const [id] = exactly(p, 1, usage);
      return { method: 'GET', url: `/tickets/${enc(id)}` };
    },
    update: (p, _env, usage) => {
      const [id] = exactly(p, 1, usage);
      if (p.opts.status === undefined && p.opts.comment === undefined)
        throw new UsageError('give --status or --comment');
      return {
        method: 'POST',
        url: `/tickets/${enc(id)}`,
        json: { status: p.opts.status, comment: p.opts.comment },
      };
    },
  },
  mcp: {
    list: (p, _env, usage) => {
      exactly(p, 0, usage);
      return { method: 'POST', url: '/mcp', json: rpc('tools/list', {}), output: printRpc((r) => r.tools) };
    },
    call: (p, _env, usage) => {
      const { args } = p;
      if (args.length < 1 || args.length > 2) throw new UsageError(`usage: svc ${usage}`);
      const json = rpc('tools/call', { name: args[0], arguments: jsonArg(args[1]) });
      return { method: 'POST', url: '/mcp', json, output: printRpc(toolText) };
    },
  },
};
