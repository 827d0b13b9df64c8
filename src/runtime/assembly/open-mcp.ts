import { join } from "node:path";
import type { AgentEvent } from "../../protocol/index.ts";
import { loadProcesses } from "../../tools/index.ts";
import type { ConfigFlags, NexConfig } from "../config/index.ts";
import { openMcpServers } from "../mcp/index.ts";
import { type sessionScrubber, textRedaction, toolEnvironment } from "../secrets/index.ts";

/** The MCP servers gathered for a session, as `openMcpServers` found them. */
export type McpSet = Awaited<ReturnType<typeof openMcpServers>>["set"];

/**
 * Gathers the MCP servers the session may start (config, `--mcp-config` files, the editor's), and
 * the secrets their settings hold. `mcp: false` (`nex compact` needs no tools) and `--no-mcp` gather none.
 */
export async function sessionMcpServers(
  flags: ConfigFlags,
  config: NexConfig,
  env: Record<string, string | undefined>,
  cwd: string,
  given: { mcp?: boolean; mcpServers?: Record<string, unknown> },
) {
  const gathered = await openMcpServers({
    skip: given.mcp === false,
    fromConfig: config.mcpServers,
    ...(given.mcpServers ? { fromEditor: given.mcpServers } : {}),
    configPath: config.configPath,
    files: flags.mcpConfig ?? [],
    workspace: config.workspace,
    dataDir: config.dataDir,
    writable: config.sandbox.writable ?? [],
    env,
    cwd,
  });
  // --no-mcp starts none, but their secrets (a token in a server's env) are still scrubbed everywhere.
  if (flags.noMcp !== true || gathered.set.servers.length + gathered.set.unusable.length === 0)
    return gathered;
  const count = gathered.set.servers.length + gathered.set.unusable.length;
  return {
    set: {
      servers: [],
      unusable: [],
      notices: [
        `--no-mcp: the ${count === 1 ? "MCP server" : `${count} MCP servers`} configured here ${count === 1 ? "was" : "were"} not started.`,
      ],
      project: null,
    },
    secrets: gathered.secrets,
  };
}

/**
 * Starts the session's MCP servers; null when none is configured (then the MCP modules are never
 * loaded: most sessions have none).
 */
export async function openSessionMcp(
  mcpSet: McpSet,
  config: NexConfig,
  env: Record<string, string | undefined>,
  sessionId: string,
  secrets: ReturnType<typeof sessionScrubber>,
  events: AgentEvent[],
) {
  // The MCP session (and its modules) only when a server is configured: most sessions have none.
  // A crashed project server starts again only while what it runs is as the user approved it.
  const restartCheck = mcpSet.project?.approved
    ? await (await import("../mcp/index.ts")).projectRestartCheck(mcpSet, config.workspace)
    : null;
  return mcpSet.servers.length === 0 && mcpSet.unusable.length === 0
    ? noMcp(mcpSet, events)
    : await (await import("../mcp/index.ts")).openMcp(
        mcpSet,
        {
          workspace: config.workspace,
          baseEnv: { ...toolEnvironment(env, config), ...(await loadProcesses()).ownerMark() },
          sessionDir: join(config.dataDir, "logs", sessionId),
          oauthDir: await (await import("../mcp/index.ts")).oauthDirOf(config, env),
          ...(restartCheck ? { mayStartAgain: restartCheck } : {}),
          redact: textRedaction(secrets),
          ...(await (await import("../mcp/index.ts")).mcpFetchFor(config)),
        },
        events as { type: "notice"; message: string }[],
      );
}

/** No MCP server configured: only what gathering them had to say. */
function noMcp(set: { notices: string[] }, events: AgentEvent[]): null {
  for (const message of set.notices) events.push({ type: "notice", message });
  return null;
}
