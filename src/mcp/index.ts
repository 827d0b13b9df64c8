// The MCP client: speaks the wire to configured servers, knows no loop. Loaded only when a server is
// configured (it brings the SDK).
export {
  type CallOutcome,
  McpConnection,
  type McpToolInfo,
  serverEnvironment,
} from "./connection.ts";
export { type ListedTool, McpHub, ruleNames, type ServerStatus, toolName } from "./hub.ts";
export { resultText } from "./result-text.ts";
