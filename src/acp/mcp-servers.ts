import type { McpServer } from "@agentclientprotocol/sdk";

/**
 * The MCP servers an editor passes in `session/new` or `session/load`, in the shape nex reads from a
 * `.mcp.json` (`mcpServers`): stdio servers with their command, arguments and environment, HTTP and
 * SSE servers with their URL and headers. nex then starts and checks them like its own.
 */
export function editorMcpServers(servers: readonly McpServer[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const server of servers) {
    const pairs = (list: readonly { name: string; value: string }[] | undefined) =>
      Object.fromEntries((list ?? []).map(({ name, value }) => [name, value]));
    if ("type" in server && (server.type === "http" || server.type === "sse")) {
      out[server.name] = { type: server.type, url: server.url, headers: pairs(server.headers) };
    } else if ("command" in server) {
      out[server.name] = {
        command: server.command,
        args: server.args ?? [],
        env: pairs(server.env),
      };
    }
  }
  return out;
}
