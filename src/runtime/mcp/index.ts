export type { McpCommand } from "./mcp-command.ts";
export { runMcpCommand } from "./mcp-command.ts";
export { mcpFetchFor } from "./mcp-fetch.ts";
export { openMcp } from "./mcp-session.ts";
export { openMcpServers } from "./open-mcp-servers.ts";
