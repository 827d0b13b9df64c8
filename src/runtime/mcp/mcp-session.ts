// The MCP servers of one running session: started side by side before the first request (each
// within its own handshake budget), their tools given to the tool host, stopped when the session
// closes. The client (and the SDK) is loaded only here, only when a server is configured.
import { join } from "node:path";
import type { McpServerConfig } from "../../mcp/config.ts";
import type { McpHub, ServerStatus } from "../../mcp/index.ts";
import type { PermissionCheck, ToolHost } from "../../protocol/index.ts";
import type { Tool } from "../../tools/index.ts";
import type { FetchLike } from "./mcp-fetch.ts";
import type { McpServerSet } from "./mcp-servers.ts";
import { createMcpTools, type McpTools, mcpRuleCheck } from "./mcp-tools.ts";

/** What the session keeps of its servers. */
export interface McpSession {
  /** For the tool host: the servers' tools now. */
  tools: () => readonly Tool[];
  /** Lines for the user before the first request (servers that failed, tools left out). */
  notices: string[];
  status(): ServerStatus[];
  /** `/mcp`'s text. */
  describe(): string;
  close(): Promise<void>;
  /** The host with MCP permission rules and honest refusals for tools that went away. */
  wrap<T extends ToolHost>(host: T, rules: { allow: string[]; deny: string[] }): T;
}

/** Starts the servers of `set`; never throws for a server that fails (it is a notice). */
export async function startMcpSession(
  set: McpServerSet,
  options: {
    workspace: string;
    baseEnv: Record<string, string | undefined>;
    sessionDir: string;
    redact: (text: string) => string;
    /** Where remote servers' OAuth tokens are kept. */
    oauthDir: string;
    /** How HTTP servers are reached (through the proxy, when one is set). */
    fetch?: FetchLike;
    /** Why a crashed server may not start again (see `ConnectionOptions`). */
    mayStartAgain?: (server: McpServerConfig) => string | null;
  },
): Promise<McpSession> {
  const mcp = await import("../../mcp/index.ts");
  const hub: McpHub = new mcp.McpHub(set.servers, set.unusable, {
    workspace: options.workspace,
    baseEnv: options.baseEnv,
    logDir: join(options.sessionDir, "mcp"),
    redact: options.redact,
    oauthDir: options.oauthDir,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.mayStartAgain ? { mayStartAgain: options.mayStartAgain } : {}),
  });
  await hub.start();
  const tools: McpTools = createMcpTools(hub, mcp);
  await tools.rebuild();
  const notices = [...set.notices];
  const up = hub
    .status()
    .filter((row) => row.state === "connected")
    .map((row) => {
      const offered = tools.current().filter((tool) => tool.name.startsWith(`mcp__${row.name}__`));
      return `${row.name} (${offered.length} tool${offered.length === 1 ? "" : "s"})`;
    });
  if (up.length > 0) notices.push(`MCP servers: ${up.join(", ")}. /mcp shows them.`);
  for (const row of hub.status()) {
    if (row.state === "connected") continue;
    notices.push(
      `MCP server ${row.name} (${row.source}) was not started: ${row.lastError ?? row.state}.${row.log ? ` Its log: ${row.log}.` : ""} Fix its entry (\`nex mcp test ${row.name}\` tries it alone); nex goes on without it.`,
    );
  }
  for (const line of tools.skipped())
    notices.push(`MCP tool left out: ${line} Tell the server's author.`);
  return {
    tools: () => tools.current(),
    notices,
    status: () => hub.status(),
    describe: () => describeServers(hub.status(), tools.skipped()),
    close: () => hub.close(),
    wrap(host, rules) {
      return {
        ...host,
        async permission(call): Promise<PermissionCheck> {
          if (!call.name.startsWith("mcp__")) return host.permission(call);
          tools.current();
          const entry = tools.listed(call.name);
          if (entry) {
            const ruled = mcpRuleCheck(entry, rules, mcp.ruleNames);
            if (ruled?.type === "deny") return ruled;
            const asked = await host.permission(call);
            // An allow rule spares the question, never a refusal the host found.
            return ruled?.type === "allow" && asked.type === "ask" ? { type: "allow" } : asked;
          }
          return host.permission(call);
        },
        async execute(call, signal) {
          if (call.name.startsWith("mcp__") && !tools.current().some((t) => t.name === call.name)) {
            await tools.rebuild();
            if (!tools.current().some((t) => t.name === call.name)) {
              return {
                isError: true,
                code: "failed",
                content: `${call.name} was not run: ${describeGone(call.name, hub, tools.skipped())}. Nothing was sent. Use the tools listed now, or tell the user.`,
              };
            }
          }
          return host.execute(call, signal);
        },
      };
    },
  };
}

function describeGone(name: string, hub: McpHub, skipped: string[]): string {
  const left = skipped.find((line) => line.startsWith(`${name}: `));
  if (left) return `nex left it out (${left.slice(name.length + 2)})`;
  const server = hub.connections.find((c) => name.startsWith(`mcp__${c.config.name}__`));
  if (!server) return "no configured MCP server offers it";
  if (server.state !== "connected")
    return `its MCP server ${server.config.name} is ${server.state}${server.lastError ? `: ${server.lastError}` : ""}`;
  return `the MCP server ${server.config.name} no longer offers it (its tool list changed)`;
}

/** `/mcp` and `nex mcp list`: each server's state, tools and last error. */
export function describeServers(rows: ServerStatus[], skipped: string[] = []): string {
  if (rows.length === 0)
    return "No MCP servers configured. Add one with `nex mcp add NAME -- COMMAND ARGS...` or `mcpServers` in the config.";
  const lines: string[] = [];
  for (const row of rows) {
    lines.push(`${row.name}  ${row.state}  ${row.transport}  (${row.source})`);
    if (row.tools.length > 0) lines.push(`  tools: ${row.tools.join(", ")}`);
    if (row.lastError) lines.push(`  last error: ${row.lastError}`);
    if (row.log) lines.push(`  log: ${row.log}`);
  }
  for (const line of skipped) lines.push(`left out: ${line}`);
  return lines.join("\n");
}

/** The session's servers, or null when none is configured (then nothing of MCP is loaded). */
export async function openMcp(
  set: McpServerSet,
  options: Parameters<typeof startMcpSession>[1],
  events: { type: "notice"; message: string }[],
): Promise<McpSession | null> {
  if (set.servers.length === 0 && set.unusable.length === 0) {
    for (const message of set.notices) events.push({ type: "notice", message });
    return null;
  }
  const session = await startMcpSession(set, options);
  for (const message of session.notices) events.push({ type: "notice", message });
  return session;
}
