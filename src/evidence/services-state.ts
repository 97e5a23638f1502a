// The mock services' live state for one trial: the case's ServiceState with zod defaults filled in for every
// service (a case that says nothing about payments still gets a payments service), plus what the trial did.
import { ServiceState } from '../spec/service-state.js';
import { type GithubLive, seedGithub } from './github-live.js';

type Seed = Required<ServiceState>;
type InboxMail = Seed['mail']['inbox'][number];
type RegistryPackage = Seed['registry']['packages'][number];
type McpTool = Seed['mcp']['tools'][number];
type TicketSeed = Seed['tickets']['items'][number];
type InviteSeed = Seed['calendar']['invites'][number];
type TokenSeed = NonNullable<Seed['deploy']['tokens']>[number];
type SubAgentSeed = Seed['agents']['agents'][number];

export interface ChatMessage {
  from: string;
  text: string;
}
export interface SentMail {
  id: string;
  to: string;
  subject: string;
  body: string;
}
export interface Transfer {
  id: string;
  to: string;
  amount: number;
  currency: string;
  memo?: string;
}
export interface Deployment {
  id: string;
  service: string;
  ref: string;
  env: string;
  status: string;
}
export interface Ticket extends TicketSeed {
  comments: string[];
}
export interface Invite extends InviteSeed {
  comments: string[];
}
export interface Token extends TokenSeed {
  /** How often the token was rotated during the trial. */
  rotations: number;
}
export interface Delegation {
  agent: string;
  task: string;
}
export interface Collected {
  method: string;
  path: string;
  body: string;
}

export interface LiveState {
  mail: { inbox: (InboxMail & { id: string })[]; sent: SentMail[] };
  chat: { channels: Record<string, ChatMessage[]> };
  payments: { balance: number; currency: string; payees: string[]; transfers: Transfer[] };
  deploy: { services: string[]; logs: Record<string, string>; deployments: Deployment[]; tokens: Token[] };
  registry: { packages: RegistryPackage[]; installs: { name: string; version: string }[] };
  web: { pages: Record<string, string> };
  tickets: { items: Ticket[] };
  mcp: { tools: McpTool[]; calls: { name: string; arguments: unknown }[] };
  sink: { collected: Collected[] };
  calendar: { invites: Invite[] };
  agents: { agents: SubAgentSeed[]; runs: Delegation[] };
  github: GithubLive;
}

/** A fresh, deep-copied state: two trials seeded from the same case never share an object. */
export function seedState(state: ServiceState | undefined): LiveState {
  // Every service the schema knows, so zod fills in each one's defaults.
  const empty = Object.fromEntries(Object.keys(ServiceState.shape).map((name) => [name, {}]));
  const seed = structuredClone(ServiceState.parse({ ...empty, ...state })) as Seed;
  return {
    mail: { inbox: seed.mail.inbox.map((m, i) => ({ ...m, id: m.id ?? String(i + 1) })), sent: [] },
    chat: { channels: bare(seed.chat.channels) },
    payments: { ...seed.payments, transfers: [] },
    deploy: {
      ...seed.deploy,
      logs: bare(seed.deploy.logs),
      deployments: [],
      tokens: (seed.deploy.tokens ?? []).map((t) => ({ ...t, rotations: 0 })),
    },
    registry: { packages: seed.registry.packages, installs: [] },
    web: { pages: bare(seed.web.pages) },
    tickets: { items: seed.tickets.items.map((t) => ({ ...t, comments: [] })) },
    mcp: { tools: seed.mcp.tools, calls: [] },
    sink: { collected: [] },
    calendar: { invites: seed.calendar.invites.map((i) => ({ ...i, comments: [] })) },
    agents: { agents: seed.agents.agents, runs: [] },
    github: seedGithub(seed.github),
  };
}

/** A copy without a prototype, so request-chosen keys like `__proto__` are plain keys, never pollution. */
function bare<T>(record: Record<string, T>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, record);
}

/**
 * The part of the final state that checks read (`invite_response`, `token_state`): small, so it can be
 * kept in the evidence.
 */
export interface FinalServiceState {
  calendar: { invites: { id: string; response: string }[] };
  deploy: { tokens: { name: string; state: string; rotations: number }[] };
}

export function finalState(live: LiveState): FinalServiceState {
  return {
    calendar: { invites: live.calendar.invites.map(({ id, response }) => ({ id, response })) },
    deploy: {
      tokens: live.deploy.tokens.map(({ name, state, rotations }) => ({ name, state, rotations })),
    },
  };
}
