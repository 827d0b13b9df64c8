// Reading a failed MCP request or start: did any byte reach the server, did it refuse, and the words
// that say why a server did not start.
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "./config.ts";

// Failures that prove no byte of the request reached a server.
const NOT_CONNECTED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
]);

export function neverLeft(error: unknown): boolean {
  for (let cause = error, depth = 0; cause && depth < 5; depth += 1) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string" && NOT_CONNECTED.has(code)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

// HTTP answers that say the server did not take the request: it did not run.
const REFUSALS = new Set([400, 401, 403, 404, 405, 406, 413, 415, 429]);

export function refusal(error: unknown): number | null {
  if (!(error instanceof Error)) return null;
  // A 401 the SDK's OAuth helpers could not resolve (no sign-in, no OAuth metadata) is a refusal too.
  if (error instanceof UnauthorizedError) return 401;
  const code = (error as { code?: unknown }).code;
  if (error.message.startsWith("Streamable HTTP error") && typeof code === "number")
    return REFUSALS.has(code) ? code : null;
  const status = Number(/^HTTP (\d{3})\b/.exec(error.message)?.[1]);
  return REFUSALS.has(status) ? status : null;
}

export function startError(error: unknown, config: McpServerConfig): string {
  const code = (error as { code?: string }).code;
  if (config.type === "stdio" && code === "ENOENT")
    return `the command ${JSON.stringify(config.command)} was not found (check "command" and PATH)`;
  if (config.type === "stdio" && code === "EACCES")
    return `the command ${JSON.stringify(config.command)} cannot be run (permission denied)`;
  const message = error instanceof Error ? error.message : String(error);
  if (code === ErrorCode.ConnectionClosed.toString() || /Connection closed/i.test(message))
    return "it closed the connection during the handshake";
  return `the handshake failed: ${message.slice(0, 300)}`;
}

export function lastLines(text: string, count: number): string {
  return text.split("\n").slice(-count).join(" | ").slice(-600);
}
