import { buildSystemPrompt } from "../../agent/system-prompt.ts";
import type { AgentEvent } from "../../protocol/index.ts";
import type { NexConfig } from "../config/index.ts";
import { readInstructions, rolePrompt } from "../extensions/index.ts";

/** Step 3: the system prompt, with the instruction files that apply (extensions/instruction-files.ts). */
export async function sessionSystemPrompt(
  config: NexConfig,
  env: Record<string, string | undefined>,
  events: AgentEvent[],
  skills: string | null = null,
): Promise<string> {
  return buildSystemPrompt({
    workspace: config.workspace,
    skills,
    agentsMd: await readInstructions(config, env, events),
    date: new Date().toISOString().slice(0, 10),
  });
}

/**
 * The session's system prompt: nex's own (or the caller's replacement), the role's text (`--role`)
 * and what the caller appends.
 */
export async function composeSystemPrompt(
  config: NexConfig,
  env: Record<string, string | undefined>,
  events: AgentEvent[],
  skills: string | null,
  given: { replace?: string; append?: string } | undefined,
  roleName: string | undefined,
): Promise<string> {
  const role = roleName ? await rolePrompt(roleName, config.workspace, env) : null;
  return [
    given?.replace ?? (await sessionSystemPrompt(config, env, events, skills)),
    role ? `# Your role: ${roleName}\n\n${role.text}` : undefined,
    given?.append,
  ]
    .filter((part) => part !== undefined)
    .join("\n\n");
}
