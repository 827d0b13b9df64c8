export type { McpCommand } from "./mcp-command.ts";
export { openMcpServers } from "./open-mcp-servers.ts";

// Loaded on first use: most sessions never need these (ARCHITECTURE.md, "loads when first used").
type McpCommandModule = typeof import("./mcp-command.ts");
export const runMcpCommand = async (...args: Parameters<McpCommandModule["runMcpCommand"]>) =>
  (await import("./mcp-command.ts")).runMcpCommand(...args);
type McpFetchModule = typeof import("./mcp-fetch.ts");
export const mcpFetchFor = async (...args: Parameters<McpFetchModule["mcpFetchFor"]>) =>
  (await import("./mcp-fetch.ts")).mcpFetchFor(...args);
type McpServersModule = typeof import("./mcp-servers.ts");
export const projectRestartCheck = async (
  ...args: Parameters<McpServersModule["projectRestartCheck"]>
) => (await import("./mcp-servers.ts")).projectRestartCheck(...args);
type OauthDirModule = typeof import("./oauth-dir.ts");
export const oauthDirOf = async (...args: Parameters<OauthDirModule["oauthDirOf"]>) =>
  (await import("./oauth-dir.ts")).oauthDirOf(...args);
type McpSessionModule = typeof import("./mcp-session.ts");
export const openMcp = async (...args: Parameters<McpSessionModule["openMcp"]>) =>
  (await import("./mcp-session.ts")).openMcp(...args);
