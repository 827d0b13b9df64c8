import { listSessions } from "../../session/index.ts";
import { type ConfigFlags, resolveConfig } from "../config/index.ts";
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

/** A summary row of `nex sessions`. */
export interface SessionSummary {
  sessionId: string;
  workspace: string;
  startedAt: string;
  lastMessage: string;
  /** The first prompt, shortened: what the session is about. */
  firstPrompt: string;
  messages: number;
  bytes: number;
  journalPath: string;
}
