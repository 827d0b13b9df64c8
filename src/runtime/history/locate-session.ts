import { findSession } from "../../session/index.ts";
import { ConfigError, type NexConfig } from "../config/index.ts";
import { refuseForeignSession } from "./own-sessions.ts";

/** A session by id, unique prefix or "last" (in this workspace); a ConfigError says why none was found. */
export async function locateSession(
  config: NexConfig,
  id: string,
  workspaceGiven: boolean,
  env: Record<string, string | undefined> = process.env,
) {
  const lookup = await findSession(
    config.dataDir,
    id,
    id === "last" || workspaceGiven ? { workspace: config.workspace } : {},
  );
  if (lookup.type !== "found") throw new ConfigError(lookup.message);
  refuseForeignSession(env, config, lookup.session);
  return lookup.session;
}
