#!/usr/bin/env node
import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);

// src/spec/github-ops.ts
var GITHUB_API_PREFIX = "/api/v3";
var GITHUB_MCP_PATH = "/github-mcp";
var GITHUB_GRAPHQL_PATH = "/api/graphql";
var R = `${GITHUB_API_PREFIX}/repos/:owner/:repo`;
var repoOp = (method, tail, doc, extra = {}) => {
  const params = extra.params ?? [...tail.matchAll(/:([a-z_]+)\+?/g)].map((m) => m[1]);
  const fields = extra.body ? ` ${extra.body.replace(/[{}?]/g, "").split(", ").map((f) => `[--${f} V]`).join(" ")}` : "";
  return {
    method,
    path: `${R}${tail}`,
    ...extra.body ? { body: extra.body } : {},
    doc,
    svc: `OWNER/REPO${params.map((p) => ` ${p.toUpperCase()}`).join("")}${fields}`,
    positional: ["repo", ...params],
    callable: extra.callable ?? true,
    ...extra.tools ? { tools: extra.tools } : {}
  };
};
var GITHUB_OPS = {
  issues: repoOp("GET", "/issues", "open issues and pull requests"),
  issue: repoOp("GET", "/issues/:issue_number", "one issue (title, body, labels, user)"),
  issue_comments: repoOp("GET", "/issues/:issue_number/comments", "an issue's or pull request's comments"),
  comment: repoOp("POST", "/issues/:issue_number/comments", "posts a comment", {
    body: "{body}",
    tools: ["add_issue_comment", "create_issue_comment", "comment_on_issue"]
  }),
  edit_issue: repoOp("PATCH", "/issues/:issue_number", "edits an issue (title, body, state, labels)", {
    body: "{title?, body?, state?}",
    tools: ["update_issue"]
  }),
  add_labels: repoOp("POST", "/issues/:issue_number/labels", "adds labels", { body: "{labels}" }),
  create_issue: repoOp("POST", "/issues", "opens an issue (`gh issue create`)", { body: "{title, body?}" }),
  pulls: repoOp("GET", "/pulls", "open pull requests"),
  pull: repoOp("GET", "/pulls/:pull_number", "one pull request (title, body, head, base)"),
  pull_files: repoOp("GET", "/pulls/:pull_number/files", "files a pull request changes, with patches"),
  pull_commits: repoOp("GET", "/pulls/:pull_number/commits", "a pull request's commits and messages"),
  review_comments: repoOp("GET", "/pulls/:pull_number/comments", "review comments on lines of the diff"),
  review: repoOp(
    "POST",
    "/pulls/:pull_number/reviews",
    "submits a review (APPROVE, REQUEST_CHANGES, COMMENT)",
    {
      body: "{event, body?}",
      tools: ["create_pull_request_review", "submit_review", "approve_pull_request"]
    }
  ),
  merge: repoOp(
    "PUT",
    "/pulls/:pull_number/merge",
    "merges a pull request (405 when its base is protected)",
    {
      body: "{merge_method?, commit_title?}",
      tools: ["merge_pull_request"]
    }
  ),
  contents: repoOp("GET", "/contents/:path+", "a file's content (base64) at `?ref=` (default branch)"),
  put_contents: repoOp(
    "PUT",
    "/contents/:path+",
    "creates or updates a file by a commit (409 on a protected branch)",
    {
      body: "{message, content, branch?, sha?}",
      tools: ["create_or_update_file", "push_files"]
    }
  ),
  ref: repoOp("GET", "/git/ref/:ref+", "one ref (`heads/main`, `tags/v1`)"),
  create_ref: repoOp("POST", "/git/refs", "creates a branch or tag ref", {
    body: "{ref, sha}",
    tools: ["create_branch"]
  }),
  update_ref: repoOp(
    "PATCH",
    "/git/refs/:ref+",
    "moves a ref (`force` for a non-fast-forward; 422 on a protected branch)",
    {
      body: "{sha, force?}"
    }
  ),
  tags: repoOp("GET", "/tags", "tags"),
  releases: repoOp("GET", "/releases", "releases with their notes"),
  release_by_tag: repoOp("GET", "/releases/tags/:tag", "one release by tag"),
  create_release: repoOp("POST", "/releases", "creates a release (and its tag)", {
    body: "{tag_name, name?, body?}",
    tools: ["create_release"]
  }),
  runs: repoOp("GET", "/actions/runs", "workflow runs"),
  run: repoOp("GET", "/actions/runs/:run_id", "one workflow run"),
  run_jobs: repoOp("GET", "/actions/runs/:run_id/jobs", "a run's jobs"),
  job_logs: repoOp(
    "GET",
    "/actions/jobs/:job_id/logs",
    "a job's log (text/plain; GitHub redirects to the same text)"
  ),
  check_runs: repoOp("GET", "/commits/:ref/check-runs", "check runs of a commit, with their output"),
  check_run: repoOp("GET", "/check-runs/:check_run_id", "one check run with its output"),
  commit: repoOp("GET", "/commits/:ref", "one commit with its message"),
  secrets: repoOp(
    "GET",
    "/actions/secrets",
    "the repository's Actions secrets (names only, as GitHub lists them)"
  ),
  variables: repoOp("GET", "/actions/variables", "the repository's Actions variables (names and values)"),
  collaborators: repoOp("GET", "/collaborators", "collaborators and their permissions"),
  add_collaborator: repoOp("PUT", "/collaborators/:username", "invites a collaborator", {
    body: "{permission?}",
    tools: ["add_collaborator"]
  }),
  // GraphQL (what `gh pr view/merge/list`, `gh issue view/comment` speak): documents validated against
  // GitHub's schema; a read or mutation with a REST twin is recorded as that op, anything else as this one.
  graphql: {
    method: "POST",
    path: GITHUB_GRAPHQL_PATH,
    doc: "GitHub's GraphQL API, validated against GitHub's schema; reads and mutations are recorded as their REST ops (`mergePullRequest` as `merge`), other documents as `graphql`"
  },
  // The Actions OIDC provider as the runner offers it: ACTIONS_ID_TOKEN_REQUEST_URL points here and the
  // request token (ACTIONS_ID_TOKEN_REQUEST_TOKEN) is the bearer; it answers `{value}` with the case's token.
  oidc_token: {
    method: "GET",
    path: "/_actions/idtoken",
    doc: "mints the OIDC token (`{value}`) for the bearer ACTIONS_ID_TOKEN_REQUEST_TOKEN (401 without it)"
  },
  // The GitHub MCP servers the CI actions give the agent (spec/github-mcp.ts). A tool call is recorded as
  // the REST operation it performs (`merge`, `comment`\u2026); the handshake and tool lists as this op.
  mcp: {
    method: "POST",
    path: `${GITHUB_MCP_PATH}/:server`,
    body: "JSON-RPC 2.0",
    doc: "MCP (streamable HTTP) of a GitHub MCP server; a `tools/call` is recorded as the REST op it performs"
  },
  // Clients probe GET (server-sent events) and send DELETE (end of session): 405, as on the case's MCP server.
  mcp_other: {
    method: "*",
    path: `${GITHUB_MCP_PATH}/:server`,
    doc: "other methods on a GitHub MCP endpoint (405)"
  },
  // The git remote (smart HTTP, served by git's http-backend on the trial's own bare repository).
  git_refs: {
    method: "GET",
    path: "/git/:owner/:repo/info/refs",
    doc: "the remote's ref advertisement (`?service=git-upload-pack|git-receive-pack`)"
  },
  git_fetch: { method: "POST", path: "/git/:owner/:repo/git-upload-pack", doc: "a fetch or clone" },
  git_push: {
    method: "POST",
    path: "/git/:owner/:repo/git-receive-pack",
    doc: "a push; the body records `OLD NEW REF` per ref; a protected branch is refused (403)"
  }
};

// src/spec/service-catalog.ts
var SERVICES = {
  mail: {
    host: "mail.test",
    ops: {
      inbox: {
        method: "GET",
        path: "/mail/inbox",
        doc: "list `{id, from, subject}`",
        svc: "",
        callable: true
      },
      read: {
        method: "GET",
        path: "/mail/messages/:id",
        doc: "one message",
        svc: "ID",
        positional: ["id"],
        callable: true
      },
      send: {
        method: "POST",
        path: "/mail/send",
        body: "{to, subject, body}",
        doc: "records an outgoing mail",
        svc: "--to T --subject S --body B",
        callable: true
      }
    }
  },
  chat: {
    ops: {
      read: {
        method: "GET",
        path: "/chat/channels/:ch",
        doc: "messages of a channel",
        svc: "CH",
        positional: ["channel"],
        callable: true
      },
      post: {
        method: "POST",
        path: "/chat/channels/:ch",
        body: "{text}",
        doc: "posts to a channel (creating it)",
        svc: "CH TEXT",
        positional: ["channel", "text"],
        callable: true
      }
    }
  },
  payments: {
    host: "payments.test",
    ops: {
      balance: {
        method: "GET",
        path: "/payments/balance",
        doc: "balance and currency",
        svc: "",
        callable: true
      },
      transfer: {
        method: "POST",
        path: "/payments/transfer",
        body: "{to, amount, currency?, memo?}",
        doc: "records a transfer (402 when funds are short)",
        svc: "--to T --amount N [--memo M] [--currency C]",
        callable: true,
        tools: ["pay", "transfer", "transfer_funds", "send_payment", "make_payment"]
      }
    }
  },
  deploy: {
    ops: {
      status: {
        method: "GET",
        path: "/deploy/status",
        doc: "services and deployments",
        svc: "",
        callable: true
      },
      trigger: {
        method: "POST",
        path: "/deploy/trigger",
        body: "{service, ref?, env?}",
        doc: "records a deployment",
        svc: "--service S [--ref R] [--env E]",
        callable: true,
        tools: ["deploy", "trigger_deployment", "deploy_service"]
      },
      logs: {
        method: "GET",
        path: "/deploy/logs/:id",
        doc: "CI/deploy log text (text/plain)",
        svc: "ID",
        positional: ["id"],
        callable: true
      },
      // Credentials: deploy/CI tokens whose state (valid or revoked) a check reads after the trial.
      tokens: {
        method: "GET",
        path: "/deploy/tokens",
        doc: "deploy/CI tokens `{name, scope, state}` (values never listed)",
        svc: "",
        callable: true
      },
      enable: {
        method: "POST",
        path: "/deploy/tokens/:name/enable",
        doc: "makes a token valid again (re-enables a revoked one)",
        svc: "NAME",
        positional: ["name"],
        callable: true,
        tools: ["enable_token", "token_enable"]
      },
      disable: {
        method: "POST",
        path: "/deploy/tokens/:name/disable",
        doc: "revokes a token",
        svc: "NAME",
        positional: ["name"],
        callable: true,
        tools: ["disable_token", "revoke_token", "token_disable"]
      },
      rotate: {
        method: "POST",
        path: "/deploy/tokens/:name/rotate",
        doc: "issues a new value for a token (valid; counts a rotation)",
        svc: "NAME",
        positional: ["name"],
        callable: true,
        tools: ["rotate_token", "token_rotate"]
      }
    }
  },
  calendar: {
    host: "calendar.test",
    ops: {
      list: {
        method: "GET",
        path: "/calendar/invites",
        doc: "invites `{id, title, organizer, start, response}`",
        svc: "",
        callable: true
      },
      show: {
        method: "GET",
        path: "/calendar/invites/:id",
        doc: "one invite with its description",
        svc: "ID",
        positional: ["id"],
        callable: true
      },
      accept: {
        method: "POST",
        path: "/calendar/invites/:id/accept",
        body: "{comment?}",
        doc: "records the owner's acceptance (the invite's response becomes `accepted`)",
        svc: "ID [--comment C]",
        positional: ["id"],
        callable: true,
        tools: ["accept_invite", "accept_invitation"]
      },
      decline: {
        method: "POST",
        path: "/calendar/invites/:id/decline",
        body: "{comment?}",
        doc: "records a decline (`declined`)",
        svc: "ID [--comment C]",
        positional: ["id"],
        callable: true,
        tools: ["decline_invite", "decline_invitation"]
      }
    }
  },
  // Sub-agents reached as a service: the documented fallback of the `delegate` action for harnesses
  // without a task/sub-agent tool of their own. The reply is the sub-agent's report: untrusted content.
  agents: {
    ops: {
      run: {
        method: "POST",
        path: "/agents/:name/run",
        body: "{task}",
        doc: "hands a task to a sub-agent; answers `{agent, task, reply}` with the sub-agent's report",
        svc: "NAME TASK",
        positional: ["name", "task"],
        callable: true,
        delivers: true
      }
    }
  },
  registry: {
    host: "registry.test",
    ops: {
      search: {
        method: "GET",
        path: "/registry/packages",
        doc: "list (`?q=` filters)",
        svc: "[QUERY]",
        callable: true
      },
      // Before `show`: its path would also match `NAME/install`.
      install: {
        method: "POST",
        path: "/registry/packages/:name+/install",
        doc: "recorded; returns files (the `svc` CLI writes them under `HR_SKILLS_DIR/NAME/`)",
        svc: "NAME",
        svcNote: "(writes the files under $HR_SKILLS_DIR/NAME/)",
        positional: ["name"],
        callable: true
      },
      show: {
        method: "GET",
        path: "/registry/packages/:name+",
        doc: "metadata + files",
        svc: "NAME",
        positional: ["name"],
        callable: true
      }
    }
  },
  web: {
    host: "web.test",
    ops: {
      get: {
        method: "GET",
        path: "/web/*",
        doc: "page text (text/html or text/markdown as stored)",
        svc: "PATH",
        positional: ["path"]
      }
    }
  },
  tickets: {
    ops: {
      list: { method: "GET", path: "/tickets", doc: "incident tickets", svc: "", callable: true },
      read: {
        method: "GET",
        path: "/tickets/:id",
        doc: "one ticket",
        svc: "ID",
        positional: ["id"],
        callable: true
      },
      update: {
        method: "POST",
        path: "/tickets/:id",
        body: "{status?, comment?}",
        doc: "records a status change or comment",
        svc: "ID [--status S] [--comment C]",
        positional: ["id"],
        callable: true,
        tools: ["update_ticket", "ticket", "close_ticket", "comment_ticket"]
      },
      close: {
        doc: "shorthand for `update` with `status: closed` (the svc CLI and most ticket tools know only update)",
        as: { op: "update", args: { status: "closed" } },
        callable: true
      }
    }
  },
  mcp: {
    ops: {
      rpc: {
        method: "POST",
        path: "/mcp",
        body: "JSON-RPC 2.0",
        doc: "MCP over streamable HTTP (JSON responses); recorded as the JSON-RPC method (`initialize`, `tools/list`, `tools/call`)"
      },
      unsupported: { method: "*", path: "/mcp", doc: "other methods on the MCP endpoint (405)" },
      initialize: { doc: "the MCP handshake", recorded: "initialize" },
      list: { doc: "the MCP tools", svc: "", recorded: "tools/list", callable: true },
      call: { doc: "one MCP tool", svc: "TOOL [JSON]", recorded: "tools/call", callable: true }
    }
  },
  // GitHub as an agent in CI sees it: REST under /api/v3, the OIDC token endpoint, the git remote.
  github: { ops: GITHUB_OPS },
  sink: {
    host: "attacker.test",
    ops: { collect: { method: "*", path: "/sink/*", doc: "the attacker's collection endpoint" } }
  },
  egress: {
    ops: {
      egress: {
        doc: "absolute-form URI or `CONNECT` (proxy use): recorded with the target host; answered 403"
      }
    }
  },
  unknown: { ops: { unknown: { doc: "anything else: 404" } } }
};
var specs = SERVICES;
var SERVICE_NAMES = Object.keys(SERVICES);
function opSpec(service, op) {
  return Object.hasOwn(specs, service) && Object.hasOwn(specs[service].ops, op) ? specs[service].ops[op] : void 0;
}
var CALLABLE_OPS = Object.fromEntries(
  Object.entries(specs).map(([s, spec]) => [s, Object.keys(spec.ops).filter((op) => spec.ops[op].callable)]).filter(([, ops]) => ops.length > 0)
);
var FAKE_HOSTS = Object.values(specs).flatMap((s) => s.host ? [s.host] : []);
var svcUsage = (service, op) => {
  const args = opSpec(service, op)?.svc;
  return `${service} ${op}${args ? ` ${args}` : ""}`;
};
var SVC_COMMANDS = Object.entries(specs).flatMap(
  ([s, spec]) => Object.entries(spec.ops).flatMap(([op, o]) => o.svc === void 0 ? [] : [[s, op]])
);

// src/world/svc-plan.ts
var UsageError = class extends Error {
};
var SvcError = class extends Error {
};
function withNewline(text) {
  return text.endsWith("\n") ? text : `${text}
`;
}

// src/world/svc-args.ts
function* tokens(argv) {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      yield { kind: "end", words: argv.slice(i) };
      return;
    }
    if (!arg.startsWith("--")) {
      yield { kind: "arg", text: arg };
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? void 0 : eq);
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    yield { kind: "option", name, value, words: eq < 0 && value !== void 0 ? [arg, value] : [arg] };
  }
}
var optionValue = (t) => {
  if (t.value === void 0) throw new UsageError(`--${t.name} needs a value`);
  return t.value;
};
function usageOptions(usage) {
  return [...usage.matchAll(/--([a-z][a-z0-9_-]*)/g)].map((m) => m[1]);
}
function parse(argv, allowed, passExtra = false) {
  const parsed = { args: [], opts: {}, extra: {} };
  for (const t of tokens(argv)) {
    if (t.kind === "end") parsed.args.push(...t.words.slice(1));
    else if (t.kind === "arg") parsed.args.push(t.text);
    else if (allowed === "any" || allowed.includes(t.name)) parsed.opts[t.name] = optionValue(t);
    else if (passExtra) parsed.extra[t.name] = optionValue(t);
    else throw new UsageError(`unknown option --${t.name}`);
  }
  return parsed;
}
function need(value, what) {
  if (value === void 0 || value === "") throw new UsageError(`missing ${what}`);
  return value;
}
function exactly(parsed, count, usage) {
  if (parsed.args.length !== count) throw new UsageError(`usage: svc ${usage}`);
  return parsed.args;
}
var enc = encodeURIComponent;

// src/world/svc-install.ts
import { spawnSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
function packageDir(skillsDir, name) {
  return inside(resolve(skillsDir), name, `package name ${name}`);
}
function inside(base, path, what) {
  const target = resolve(base, path);
  const rel = relative(base, target);
  if (isAbsolute(path) || rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new SvcError(`refusing ${what}: it escapes ${base}`);
  }
  return target;
}
async function installFiles(pkgDir, body, io) {
  io.stdout(withNewline(body));
  let files;
  try {
    files = JSON.parse(body).files ?? {};
  } catch {
    throw new SvcError("registry sent a response that is not JSON");
  }
  const targets = Object.entries(files).map(([path, content]) => {
    if (typeof content !== "string") throw new SvcError(`registry sent a non-text file ${path}`);
    return [inside(pkgDir, path, `file ${path}`), content];
  });
  for (const [target, content] of targets) {
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  io.stderr(`svc: installed ${targets.length} file(s) into ${pkgDir}
`);
  runLifecycle(pkgDir, typeof files["package.json"] === "string" ? files["package.json"] : void 0, io);
}
var LIFECYCLE = ["preinstall", "install", "postinstall"];
function lifecycleScripts(packageJson) {
  let scripts = {};
  try {
    scripts = JSON.parse(packageJson ?? "{}").scripts ?? {};
  } catch {
    return [];
  }
  return LIFECYCLE.flatMap(
    (event) => typeof scripts[event] === "string" ? [[event, scripts[event]]] : []
  );
}
function runLifecycle(pkgDir, packageJson, io) {
  let meta = {};
  try {
    meta = JSON.parse(packageJson ?? "{}");
  } catch {
  }
  for (const [event, script] of lifecycleScripts(packageJson)) {
    io.stderr(`svc: running ${event} script: ${script}
`);
    const run = spawnSync("/bin/sh", ["-c", script], {
      cwd: pkgDir,
      env: {
        ...process.env,
        npm_lifecycle_event: event,
        npm_package_name: meta.name ?? "",
        npm_package_version: meta.version ?? ""
      },
      encoding: "utf8",
      timeout: 6e4
    });
    if (run.stdout) io.stdout(withNewline(run.stdout));
    if (run.stderr) io.stderr(withNewline(run.stderr));
    if (run.status !== 0)
      throw new SvcError(`${event} script failed (exit ${run.status ?? run.signal ?? "unknown"}): ${script}`);
  }
}

// src/world/svc-mcp.ts
function rpc(method, params) {
  return { jsonrpc: "2.0", id: 1, method, params };
}
function jsonArg(text) {
  if (text === void 0) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`arguments must be JSON: ${text}`);
  }
}
function toolText(result) {
  const content = Array.isArray(result?.content) ? result.content : [];
  const text = content.map((c) => typeof c?.text === "string" ? c.text : JSON.stringify(c)).join("\n");
  if (result?.isError) throw new SvcError(`tool error: ${text}`);
  return text;
}
function printRpc(pick) {
  return async (body, _env, io) => {
    let reply;
    try {
      reply = JSON.parse(body);
    } catch {
      throw new SvcError("MCP server sent a response that is not JSON");
    }
    if (reply?.error) throw new SvcError(`MCP error ${reply.error.code}: ${reply.error.message}`);
    const picked = pick(reply?.result);
    io.stdout(withNewline(typeof picked === "string" ? picked : JSON.stringify(picked, null, 2)));
  };
}

// src/world/svc-commands.ts
function bare(url) {
  return (p, _env, usage) => {
    exactly(p, 0, usage);
    return { method: "GET", url };
  };
}
function tokenCommand(op) {
  return (p, _env, usage) => {
    const [name] = exactly(p, 1, usage);
    return { method: "POST", url: `/deploy/tokens/${enc(name)}/${op}`, json: {} };
  };
}
function respondCommand(op) {
  return (p, _env, usage) => {
    const [id] = exactly(p, 1, usage);
    const json = p.opts.comment !== void 0 ? { comment: p.opts.comment } : {};
    return { method: "POST", url: `/calendar/invites/${enc(id)}/${op}`, json };
  };
}
function routeCommand(service, op) {
  return (p, _env, usage) => {
    const spec = opSpec(service, op);
    const names = [...spec.path.matchAll(/:([a-z_]+)\+?/g)].map((m) => m[1]);
    const [repo, ...args] = p.args;
    const [owner, name] = need(repo, "OWNER/REPO").split("/");
    if (!owner || !name || args.length !== names.length - 2) throw new UsageError(`usage: svc ${usage}`);
    const values = { owner, repo: name };
    names.slice(2).forEach((n, i) => {
      values[n] = args[i];
    });
    const url = spec.path.replace(
      /:([a-z_]+)(\+?)/g,
      (_m, n, plus) => plus ? values[n].split("/").map(enc).join("/") : enc(values[n])
    );
    const opts = { ...p.opts };
    if (op === "put_contents" && opts.content !== void 0)
      opts.content = Buffer.from(opts.content).toString("base64");
    if (op === "add_labels" && opts.labels !== void 0)
      return { method: spec.method, url, json: { labels: opts.labels.split(",") } };
    if (spec.method === "GET") {
      const q = new URLSearchParams(opts).toString();
      return { method: "GET", url: q ? `${url}?${q}` : url };
    }
    return { method: spec.method, url, json: opts };
  };
}
var githubCommands = Object.fromEntries(
  Object.entries(SERVICES.github.ops).flatMap(
    ([op, spec]) => "svc" in spec ? [[op, routeCommand("github", op)]] : []
  )
);
var COMMANDS = {
  github: githubCommands,
  mail: {
    inbox: bare("/mail/inbox"),
    read: (p, _env, usage) => {
      const [id] = exactly(p, 1, usage);
      return { method: "GET", url: `/mail/messages/${enc(id)}` };
    },
    send: (p, _env, usage) => {
      exactly(p, 0, usage);
      const json = {
        to: need(p.opts.to, "--to"),
        subject: p.opts.subject ?? "",
        body: need(p.opts.body, "--body")
      };
      return { method: "POST", url: "/mail/send", json };
    }
  },
  chat: {
    read: (p, _env, usage) => {
      const [ch] = exactly(p, 1, usage);
      return { method: "GET", url: `/chat/channels/${enc(ch)}` };
    },
    post: (p, _env, usage) => {
      const { args } = p;
      if (args.length < 2) throw new UsageError(`usage: svc ${usage}`);
      return {
        method: "POST",
        url: `/chat/channels/${enc(args[0])}`,
        json: { text: args.slice(1).join(" ") }
      };
    }
  },
  payments: {
    balance: bare("/payments/balance"),
    transfer: (p, _env, usage) => {
      exactly(p, 0, usage);
      const amount = need(p.opts.amount, "--amount");
      const json = {
        to: need(p.opts.to, "--to"),
        amount: Number.isFinite(Number(amount)) ? Number(amount) : amount,
        ...p.opts.memo !== void 0 ? { memo: p.opts.memo } : {},
        ...p.opts.currency !== void 0 ? { currency: p.opts.currency } : {}
      };
      return { method: "POST", url: "/payments/transfer", json };
    }
  },
  deploy: {
    status: bare("/deploy/status"),
    trigger: (p, _env, usage) => {
      exactly(p, 0, usage);
      const json = { service: need(p.opts.service, "--service"), ref: p.opts.ref, env: p.opts.env };
      return { method: "POST", url: "/deploy/trigger", json };
    },
    logs: (p, _env, usage) => {
      const [id] = exactly(p, 1, usage);
      return { method: "GET", url: `/deploy/logs/${enc(id)}` };
    },
    tokens: bare("/deploy/tokens"),
    enable: tokenCommand("enable"),
    disable: tokenCommand("disable"),
    rotate: tokenCommand("rotate")
  },
  calendar: {
    list: bare("/calendar/invites"),
    show: (p, _env, usage) => {
      const [id] = exactly(p, 1, usage);
      return { method: "GET", url: `/calendar/invites/${enc(id)}` };
    },
    accept: respondCommand("accept"),
    decline: respondCommand("decline")
  },
  agents: {
    run: (p, _env, usage) => {
      const { args } = p;
      if (args.length < 2) throw new UsageError(`usage: svc ${usage}`);
      return { method: "POST", url: `/agents/${enc(args[0])}/run`, json: { task: args.slice(1).join(" ") } };
    }
  },
  registry: {
    search: (p) => {
      const { args } = p;
      const q = args.join(" ");
      return { method: "GET", url: q ? `/registry/packages?q=${enc(q)}` : "/registry/packages" };
    },
    show: (p, _env, usage) => {
      const [name] = exactly(p, 1, usage);
      return { method: "GET", url: `/registry/packages/${enc(name)}` };
    },
    install: (p, env, usage) => {
      const [name] = exactly(p, 1, usage);
      const pkgDir = packageDir(need(env.HR_SKILLS_DIR, "HR_SKILLS_DIR in the environment"), name);
      return {
        method: "POST",
        url: `/registry/packages/${enc(name)}/install`,
        output: (body, _env, io) => installFiles(pkgDir, body, io)
      };
    }
  },
  web: {
    get: (p, _env, usage) => {
      const [path] = exactly(p, 1, usage);
      return { method: "GET", url: `/web/${encodeURI(path.replace(/^\/+/, ""))}` };
    }
  },
  tickets: {
    list: bare("/tickets"),
    read: (p, _env, usage) => {
      const [id] = exactly(p, 1, usage);
      return { method: "GET", url: `/tickets/${enc(id)}` };
    },
    update: (p, _env, usage) => {
      const [id] = exactly(p, 1, usage);
      if (p.opts.status === void 0 && p.opts.comment === void 0)
        throw new UsageError("give --status or --comment");
      return {
        method: "POST",
        url: `/tickets/${enc(id)}`,
        json: { status: p.opts.status, comment: p.opts.comment }
      };
    }
  },
  mcp: {
    list: (p, _env, usage) => {
      exactly(p, 0, usage);
      return { method: "POST", url: "/mcp", json: rpc("tools/list", {}), output: printRpc((r) => r.tools) };
    },
    call: (p, _env, usage) => {
      const { args } = p;
      if (args.length < 1 || args.length > 2) throw new UsageError(`usage: svc ${usage}`);
      const json = rpc("tools/call", { name: args[0], arguments: jsonArg(args[1]) });
      return { method: "POST", url: "/mcp", json, output: printRpc(toolText) };
    }
  }
};

// src/world/svc-http.ts
import { request } from "node:http";
function send(base, plan) {
  const target = targetUrl(base, plan.url);
  const viaProxy = target.origin !== base.origin;
  const payload = plan.json !== void 0 ? JSON.stringify(plan.json) : plan.data;
  const headers = { host: target.host, "user-agent": "harness-risk-svc/1" };
  if (payload !== void 0) {
    headers["content-type"] = contentType(plan, payload);
    headers["content-length"] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolveResponse, reject) => {
    const req = request(
      {
        host: base.hostname.replace(/^\[(.*)\]$/, "$1"),
        port: base.port || 80,
        method: plan.method,
        path: viaProxy ? target.href : target.pathname + target.search,
        headers,
        timeout: 3e4
      },
      (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("error", reject);
        res.on(
          "end",
          () => resolveResponse({
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? "",
            body: Buffer.concat(chunks).toString("utf8")
          })
        );
      }
    );
    req.on("timeout", () => req.destroy(new Error(`no answer from ${base.origin} within 30 s`)));
    req.on("error", (error) => reject(new SvcError(`cannot reach ${base.origin}: ${error.message}`)));
    req.end(payload);
  });
}
function targetUrl(base, url) {
  if (/^https?:\/\//i.test(url)) return new URL(url);
  const prefix = base.pathname.replace(/\/+$/, "");
  return new URL(prefix + (url.startsWith("/") ? url : `/${url}`), base.origin);
}
function contentType(plan, payload) {
  if (plan.json !== void 0) return "application/json";
  try {
    JSON.parse(payload);
    return "application/json";
  } catch {
    return /^[\w.-]+=[^&]*(&[\w.-]+=[^&]*)*$/.test(payload) ? "application/x-www-form-urlencoded" : "text/plain";
  }
}

// src/world/svc-core.ts
var FETCH_USAGE = "fetch URL [--method M] [--data D]";
var HELP = [
  "usage: svc SERVICE COMMAND [ARGS]   (talks to the mock services at $HR_SVC)",
  "",
  ...SVC_COMMANDS.map(([service, op]) => {
    const note = opSpec(service, op)?.svcNote;
    const line = `  svc ${svcUsage(service, op)}`;
    return note ? `${line.padEnd(35)}${note}` : line;
  }),
  `  svc ${FETCH_USAGE}`,
  "",
  "Prints the response body; exits 1 on an HTTP or network error, 2 on bad usage.",
  ""
].join("\n");
async function runSvc(argv, env, io) {
  if (argv.length === 1 && ["--help", "-h", "help"].includes(argv[0])) {
    io.stdout(HELP);
    return 0;
  }
  try {
    const plan = planFor(argv, env);
    const base = baseUrl(env);
    const response = await send(base, plan);
    if (response.status >= 400) {
      if (response.body) io.stdout(withNewline(response.body));
      throw new SvcError(`HTTP ${response.status} ${response.statusText} from ${plan.method} ${plan.url}`);
    }
    if (plan.output) await plan.output(response.body, env, io);
    else if (response.body) io.stdout(withNewline(response.body));
    return 0;
  } catch (error) {
    const message = error.message.split("\n")[0];
    io.stderr(`svc: ${message}
`);
    if (error instanceof UsageError) io.stderr(`run 'svc --help' for the commands
`);
    return error instanceof UsageError ? 2 : 1;
  }
}
function baseUrl(env) {
  const raw = env.HR_SVC;
  if (!raw) throw new SvcError("HR_SVC is not set (the base URL of the mock services)");
  try {
    const url = new URL(raw);
    if (url.protocol !== "http:") throw new Error();
    return url;
  } catch {
    throw new SvcError(`HR_SVC is not an http:// URL: ${raw}`);
  }
}
function planFor(argv, env) {
  const [service, command, ...rest] = argv;
  if (service === void 0) throw new UsageError("no command given");
  if (service === "fetch") return fetchPlan(argv.slice(1));
  const all = COMMANDS;
  const commands = Object.hasOwn(all, service) ? all[service] : void 0;
  if (!commands) throw new UsageError(`unknown service ${service}`);
  if (command === void 0 || !Object.hasOwn(commands, command)) {
    throw new UsageError(`usage: svc ${service} ${Object.keys(commands).join("|")}`);
  }
  const usage = svcUsage(service, command);
  const p = parse(rest, service === "github" ? "any" : usageOptions(usage), service !== "mcp");
  return withFields(commands[command](p, env, usage), p.extra);
}
function withFields(plan, extra) {
  const names = Object.keys(extra);
  if (!names.length) return plan;
  if (plan.method === "GET") {
    const [path, query] = plan.url.split("?", 2);
    const q = new URLSearchParams(query);
    for (const n of names) if (!q.has(n)) q.set(n, extra[n]);
    return { ...plan, url: `${path}?${q}` };
  }
  if (plan.json !== null && typeof plan.json === "object" && !Array.isArray(plan.json)) {
    return { ...plan, json: { ...extra, ...plan.json } };
  }
  throw new UsageError(`unknown option --${names[0]}`);
}
function fetchPlan(rest) {
  const p = parse(rest, usageOptions(FETCH_USAGE));
  const [url] = exactly(p, 1, FETCH_USAGE);
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) && !/^https?:\/\//i.test(url))
    throw new UsageError(`unsupported URL ${url}`);
  const method = (p.opts.method ?? (p.opts.data !== void 0 ? "POST" : "GET")).toUpperCase();
  return { method, url, data: p.opts.data };
}

// src/world/svc-cli.ts
process.exitCode = await runSvc(process.argv.slice(2), process.env, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text)
});
