import { findSession } from "../../session/index.ts";
import { ConfigError, type NexConfig } from "../config/index.ts";

/** A session by id, unique prefix or "last" (in this workspace); a ConfigError says why none was found. */
export async function locateSession(config: NexConfig, id: string, workspaceGiven: boolean) {
  const lookup = await findSession(
    config.dataDir,
    id,
    id === "last" || workspaceGiven ? { workspace: config.workspace } : {},
  );
  if (lookup.type !== "found") throw new ConfigError(lookup.message);
  return lookup.session;
}
