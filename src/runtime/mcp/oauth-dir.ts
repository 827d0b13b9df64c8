// MCP servers' OAuth tokens act as the user: tokens a repository shipped in a data folder inside the
// workspace would have nex act as someone else's account (and send the session's work there). Where
// the data folder is one a repository could ship, the tokens live in the user's config folder instead.
import { homedir } from "node:os";
import { join } from "node:path";
import { commandWritable } from "../consent/index.ts";

/** The folder of the MCP servers' OAuth tokens for this configuration. */
export function oauthDirOf(
  config: { dataDir: string; workspace: string; sandbox: { writable?: string[] } },
  env: Record<string, string | undefined>,
): string {
  const shippable = commandWritable(config.dataDir, {
    workspace: config.workspace,
    writable: config.sandbox.writable ?? [],
  });
  if (!shippable) return join(config.dataDir, "mcp-oauth");
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(base, "nex", "mcp-oauth");
}
