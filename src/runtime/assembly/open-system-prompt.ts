import { buildSystemPrompt } from "../../agent/system-prompt.ts";
import type { AgentEvent } from "../../protocol/index.ts";
import type { NexConfig } from "../config/index.ts";
import { readInstructions } from "../extensions/index.ts";

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
