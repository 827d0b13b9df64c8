// The session's MCP servers and their secrets. Most sessions configure none: then the MCP config
// readers are not loaded at all (each module is start-up time).
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { KnownSecret } from "../../session/index.ts";
import type { gatherMcpServers, McpServerSet } from "./mcp-servers.ts";

type GatherOptions = Parameters<typeof gatherMcpServers>[0];

/** The servers `gatherMcpServers` would find, and the secrets to scrub for them. */
export async function openMcpServers(
  options: GatherOptions,
): Promise<{ set: McpServerSet; secrets: KnownSecret[] }> {
  const none =
    options.skip === true ||
    (isEmpty(options.fromConfig) &&
      isEmpty(options.fromEditor) &&
      options.files.length === 0 &&
      !existsSync(join(options.workspace, ".mcp.json")));
  if (none) return { set: { servers: [], unusable: [], notices: [], project: null }, secrets: [] };
  const { gatherMcpServers, mcpSecrets } = await import("./mcp-servers.ts");
  const set = gatherMcpServers(options);
  const { oauthDirOf } = await import("./oauth-dir.ts");
  const oauthDir = oauthDirOf(
    {
      dataDir: options.dataDir,
      workspace: options.workspace,
      sandbox: { writable: [...(options.writable ?? [])] },
    },
    options.env,
  );
  return { set, secrets: mcpSecrets(set, oauthDir) };
}

function isEmpty(servers: unknown): boolean {
  return (
    servers === undefined ||
    servers === null ||
    (typeof servers === "object" && !Array.isArray(servers) && Object.keys(servers).length === 0)
  );
}
