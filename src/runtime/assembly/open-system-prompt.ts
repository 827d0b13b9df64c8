import { buildSystemPrompt } from "../../agent/system-prompt.ts";
import type { AgentEvent } from "../../protocol/index.ts";
import { readWorkspaceOwnFile } from "../../tools/index.ts";
import type { NexConfig } from "../config/index.ts";

// The workspace's instructions are included up to this size; beyond it they are cut, not sent whole.
const AGENTS_MD_LIMIT = 64 * 1024;

/** Step 3: the system prompt, with the workspace's AGENTS.md. */
export async function sessionSystemPrompt(
  config: NexConfig,
  events: AgentEvent[],
  skills: string | null = null,
): Promise<string> {
  return buildSystemPrompt({
    workspace: config.workspace,
    skills,
    agentsMd: await readAgentsMd(config, events),
    date: new Date().toISOString().slice(0, 10),
  });
}

/**
 * The workspace's instructions, read like a tool would read them: through the workspace guard (a link
 * to a file outside it is not followed), only a regular file, at most 64 KiB. Why one was not sent,
 * or was cut, is a notice the user sees before the first request.
 */
async function readAgentsMd(config: NexConfig, events: AgentEvent[]): Promise<string | null> {
  const read = await readWorkspaceOwnFile({
    workspace: config.workspace,
    name: "AGENTS.md",
    limit: AGENTS_MD_LIMIT,
    allowedPaths: config.allowedPaths,
    privatePaths: [config.dataDir],
  });
  if (read.type === "missing") return null;
  if (read.type === "refused") {
    events.push({
      type: "notice",
      message: `AGENTS.md was not read, so the model does not see it: ${read.reason}. Make it a regular file inside the workspace (a link may point into a folder listed in \`allowedPaths\`).`,
    });
    return null;
  }
  if (read.truncated) {
    events.push({
      type: "notice",
      message: `AGENTS.md is ${read.size} bytes; only its first ${AGENTS_MD_LIMIT / 1024} KiB are sent to the model. Shorten it to send it whole.`,
    });
  }
  return read.text;
}
