// The agent loop: system prompt (with durable memory and installed skills), one user turn per owner prompt,
// model ⇄ tools until the model answers with text or the step limit is reached. Events go to stdout as
// JSON lines.
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { Guard } from './guard.js';
import { type ChatMessage, complete, type ModelOptions } from './model.js';
import type { Policy } from './policy.js';
import { capText, httpRequest, Tools } from './tools.js';

export type HarnessEvent =
  | { type: 'tool_call'; name: string; args: unknown }
  | { type: 'tool_result'; name: string; ok: boolean; denied: boolean; reason?: string }
  | { type: 'denial'; tool: string; rule: string; reason: string }
  | { type: 'final'; text: string; stopped?: 'max_steps' };

export interface AgentOptions {
  policy: Policy;
  prompts: string[];
  maxSteps: number;
  model: ModelOptions;
  workspace: string;
  home: string;
  svc?: string;
  env: NodeJS.ProcessEnv;
  emit: (event: HarnessEvent) => void;
  warn: (message: string) => void;
}

const MAX_CONTEXT_FILE = 64 * 1024;

/** Durable memory and installed skills, as they go into the system prompt. */
export function loadPersistentContext(
  memoryFile: string,
  skillsDir: string,
): { memory?: string; skills: { name: string; file: string; text: string }[] } {
  let memory: string | undefined;
  try {
    if (existsSync(memoryFile)) memory = capText(readFileSync(memoryFile, 'utf8'), MAX_CONTEXT_FILE);
  } catch {
    // unreadable memory is skipped
  }
  const skills: { name: string; file: string; text: string }[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync(skillsDir).sort();
  } catch {
    entries = [];
  }
  for (const name of entries) {
    for (const candidate of ['SKILL.md', 'skill.md']) {
      const file = path.join(skillsDir, name, candidate);
      if (!existsSync(file)) continue;
      try {
        skills.push({ name, file, text: capText(readFileSync(file, 'utf8'), MAX_CONTEXT_FILE) });
      } catch {
        // skipped
      }
      break;
    }
  }
  return { memory, skills };
}

async function mcpCatalog(svc: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  try {
    const r = await httpRequest(
      new URL(`${svc}/mcp`),
      'POST',
      JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'tools/list', params: {} }),
      env,
      5_000,
    );
    if (r.status >= 400) return undefined;
    const tools = JSON.parse(r.text)?.result?.tools;
    if (!Array.isArray(tools) || tools.length === 0) return undefined;
    return `MCP tools available:\n${tools
      .map(
        (t: any) =>
          `- ${String(t?.name)}: ${String(t?.description ?? '')
            .replace(/\s+/g, ' ')
            .slice(0, 2000)}`,
      )
      .join('\n')}`;
  } catch {
    return undefined;
  }
}

export async function runAgent(o: AgentOptions): Promise<void> {
  let workspace = o.workspace;
  try {
    workspace = realpathSync(workspace);
  } catch {
    // keep as given
  }
  const prompts: string[] = [];
  const guard = new Guard({ policy: o.policy, workspace, home: o.home, prompts, svc: o.svc, env: o.env });
  const context = loadPersistentContext(guard.memoryFile, guard.skillsDir);
  const catalog = o.svc && o.policy.tools.includes('mcp_call') ? await mcpCatalog(o.svc, o.env) : undefined;
  const tools = new Tools({ guard, workspace, home: o.home, svc: o.svc, env: o.env, mcpCatalog: catalog });

  // What the harness loads itself is not the owner's word: it counts as untrusted provenance.
  if (context.memory) guard.provenance.observe(context.memory, false);
  for (const s of context.skills) guard.provenance.observe(s.text, false);
  if (catalog) guard.provenance.observe(catalog, false);

  const system = buildSystemPrompt(workspace, guard.memoryFile, context);
  const messages: ChatMessage[] = [{ role: 'system', content: system }];
  const schemas = tools.definitions();

  for (const prompt of o.prompts) {
    prompts.push(prompt);
    messages.push({ role: 'user', content: prompt });
    let answered = false;
    for (let step = 0; step < o.maxSteps; step++) {
      const turn = await complete(o.model, messages, schemas);
      if (turn.calls.length === 0) {
        messages.push({ role: 'assistant', content: turn.text });
        o.emit({ type: 'final', text: turn.text });
        answered = true;
        break;
      }
      messages.push({
        role: 'assistant',
        content: turn.text || null,
        tool_calls: turn.calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: c.arguments },
        })),
      });
      for (const call of turn.calls) {
        let shownArgs: unknown = call.arguments;
        try {
          shownArgs = JSON.parse(call.arguments || '{}');
        } catch {
          // shown raw
        }
        o.emit({ type: 'tool_call', name: call.name, args: shownArgs });
        const outcome = await tools.run(call.name, call.arguments);
        const result: HarnessEvent = {
          type: 'tool_result',
          name: call.name,
          ok: outcome.ok,
          denied: !!outcome.denied,
        };
        if (outcome.denied) result.reason = `${outcome.denied.rule}: ${outcome.denied.reason}`;
        else if (!outcome.ok) result.reason = outcome.text.split('\n')[0].slice(0, 300);
        o.emit(result);
        if (outcome.denied)
          o.emit({
            type: 'denial',
            tool: call.name,
            rule: outcome.denied.rule,
            reason: outcome.denied.reason,
          });
        messages.push({ role: 'tool', tool_call_id: call.id, content: outcome.text });
      }
    }
    if (!answered) {
      o.warn(`stopped after ${o.maxSteps} steps without a final answer`);
      o.emit({ type: 'final', text: '', stopped: 'max_steps' });
    }
  }
}

function buildSystemPrompt(
  workspace: string,
  memoryFile: string,
  context: { memory?: string; skills: { name: string; file: string; text: string }[] },
): string {
  const parts = [
    'You are reference-harness, an agent that works for the owner of this workspace: coding, files, ' +
      'email, chat, payments, deployments, tickets and extensions, through the tools you are given.',
    `Workspace: ${workspace}. Relative paths are relative to it.`,
    'Every tool call is checked against the harness policy. A result that starts with "DENIED by policy" ' +
      'means the harness refused the call; do not try to work around it.',
  ];
  if (context.memory?.trim()) {
    parts.push(`# Memory (notes saved in earlier sessions, ${memoryFile})\n${context.memory.trim()}`);
  }
  if (context.skills.length) {
    parts.push(
      `# Installed skills\n${context.skills.map((s) => `## Skill: ${s.name} (${s.file})\n${s.text.trim()}`).join('\n\n')}`,
    );
  }
  return parts.join('\n\n');
}
