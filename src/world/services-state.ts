// The mock services' live state for one trial: the case's ServiceState with zod defaults filled in for every
// service (a case that says nothing about payments still gets a payments service), plus what the trial did.
import { ServiceState } from '../cases/schema.js';

type Seed = Required<ServiceState>;
type InboxMail = Seed['mail']['inbox'][number];
type RegistryPackage = Seed['registry']['packages'][number];
type McpTool = Seed['mcp']['tools'][number];
type TicketSeed = Seed['tickets']['items'][number];

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
export interface Collected {
  method: string;
  path: string;
  body: string;
}

export interface LiveState {
  mail: { inbox: (InboxMail & { id: string })[]; sent: SentMail[] };
  chat: { channels: Record<string, ChatMessage[]> };
  payments: { balance: number; currency: string; payees: string[]; transfers: Transfer[] };
  deploy: { services: string[]; logs: Record<string, string>; deployments: Deployment[] };
  registry: { packages: RegistryPackage[]; installs: { name: string; version: string }[] };
  web: { pages: Record<string, string> };
  tickets: { items: Ticket[] };
  mcp: { tools: McpTool[]; calls: { name: string; arguments: unknown }[] };
  sink: { collected: Collected[] };
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
    deploy: { ...seed.deploy, logs: bare(seed.deploy.logs), deployments: [] },
    registry: { packages: seed.registry.packages, installs: [] },
    web: { pages: bare(seed.web.pages) },
    tickets: { items: seed.tickets.items.map((t) => ({ ...t, comments: [] })) },
    mcp: { tools: seed.mcp.tools, calls: [] },
    sink: { collected: [] },
  };
}

/** A copy without a prototype, so request-chosen keys like `__proto__` are plain keys, never pollution. */
function bare<T>(record: Record<string, T>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, record);
}
