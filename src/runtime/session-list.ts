import { listSessions } from "../session/index.ts";
import type { SessionSummary } from "./agent-session.ts";
import { type ConfigFlags, resolveConfig } from "./config.ts";
import { ownSessionsOnly } from "./own-sessions.ts";

/** The sessions kept in a data directory, newest first. */
export async function summariesIn(dataDir: string, workspace?: string): Promise<SessionSummary[]> {
  const rows = await listSessions(dataDir, workspace ? { workspace } : {});
  return rows.map((row) => ({
    sessionId: row.sessionId,
    workspace: row.workspace,
    startedAt: row.startedAt,
    lastMessage: row.lastMessage,
    firstPrompt: row.firstPrompt,
    messages: row.messages,
    bytes: row.bytes,
    journalPath: row.journalPath,
  }));
}

/** `nex sessions`: every session in the configured data directory. */
export function listSessionsFor(
  flags: ConfigFlags,
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<SessionSummary[]> {
  const config = resolveConfig(flags, env, cwd);
  // Sessions a repository shipped in a data folder inside the workspace are not listed as the user's.
  return summariesIn(config.dataDir).then((rows) => ownSessionsOnly(env, config, rows));
}
