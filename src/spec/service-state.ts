// The mock services' starting state as a case writes it (`world.services`): the case schema embeds it, the
// world seeds the services from it and the evidence records what became of it, so it sits below all three.
import { z } from 'zod';
import { GithubState } from './github-state.js';

const Mail = z
  .object({
    id: z.string().optional(),
    from: z.string(),
    to: z.string().default('owner@example.test'),
    subject: z.string(),
    body: z.string(),
  })
  .strict();

const RegistryPackage = z
  .object({
    name: z.string(),
    version: z.string().default('1.0.0'),
    description: z.string().default(''),
    publisher: z.string().default('community'),
    /** Files of the package, path → content; installed under the harness's skills folder. */
    files: z.record(z.string(), z.string()).default({}),
    /**
     * npm-style lifecycle scripts (`preinstall`, `install`, `postinstall`): the package's package.json
     * carries them, and the install path (`svc registry install`, the reference harness) runs them in the
     * package folder inside the trial, as npm would. A malicious hook is then a real effect.
     */
    scripts: z
      .object({
        preinstall: z.string().optional(),
        install: z.string().optional(),
        postinstall: z.string().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const CalendarInvite = z
  .object({
    id: z.string(),
    title: z.string(),
    organizer: z.string(),
    start: z.string().default('2026-06-01T10:00:00Z'),
    /** The invite's text: written by the organizer, so an entry point for injected instructions. */
    description: z.string().default(''),
    response: z.enum(['pending', 'accepted', 'declined']).default('pending'),
  })
  .strict();

const DeployToken = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, . _ -'),
    scope: z.string().default('deploy'),
    state: z.enum(['valid', 'revoked']).default('valid'),
  })
  .strict();

const SubAgent = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, . _ -'),
    /** The sub-agent's report for any task handed to it (untrusted content: an `agent_message` entry point). */
    reply: z.string(),
  })
  .strict();

const McpTool = z
  .object({
    name: z.string(),
    description: z.string(),
    /** Text the tool returns when called. */
    result: z.string().default('ok'),
  })
  .strict();

export const ServiceState = z
  .object({
    mail: z
      .object({ inbox: z.array(Mail).default([]) })
      .strict()
      .optional(),
    chat: z
      .object({
        channels: z
          .record(z.string(), z.array(z.object({ from: z.string(), text: z.string() }).strict()))
          .default({}),
      })
      .strict()
      .optional(),
    payments: z
      .object({
        balance: z.number().default(10_000),
        currency: z.string().default('USD'),
        payees: z.array(z.string()).default([]),
      })
      .strict()
      .optional(),
    deploy: z
      .object({
        /**
         * The services `deploy.trigger` knows (default: `[web]`); a trigger for any other is answered 404
         * (`unknown service NAME`), recorded as refused, and `service_received` does not count it.
         */
        services: z.array(z.string()).default(['web']),
        logs: z.record(z.string(), z.string()).default({}),
        /** Deploy/CI credentials with a state that `enable`/`disable`/`rotate` change (`token_state` reads it). */
        tokens: z.array(DeployToken).optional(),
      })
      .strict()
      .optional(),
    registry: z
      .object({ packages: z.array(RegistryPackage).default([]) })
      .strict()
      .optional(),
    /** Web pages served under {{svc}}/web/PATH. */
    web: z
      .object({ pages: z.record(z.string(), z.string()).default({}) })
      .strict()
      .optional(),
    tickets: z
      .object({
        items: z
          .array(
            z
              .object({
                id: z.string(),
                title: z.string(),
                body: z.string(),
                status: z.string().default('open'),
              })
              .strict(),
          )
          .default([]),
      })
      .strict()
      .optional(),
    mcp: z
      .object({ tools: z.array(McpTool).default([]) })
      .strict()
      .optional(),
    /** Calendar invites the owner can list, show, accept and decline (`invite_response` reads the result). */
    calendar: z
      .object({ invites: z.array(CalendarInvite).default([]) })
      .strict()
      .optional(),
    /** Sub-agents a `delegate` action hands tasks to when the harness has no task tool of its own. */
    agents: z
      .object({ agents: z.array(SubAgent).default([]) })
      .strict()
      .optional(),
    /** The repository on the world's GitHub, its event objects and the Actions job's environment. */
    github: GithubState.optional(),
  })
  .strict();
export type ServiceState = z.infer<typeof ServiceState>;
