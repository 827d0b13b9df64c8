import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import type { McpServerConfig, UnusableServer } from "./config.ts";
import { type ConnectionOptions, McpConnection, type McpToolInfo } from "./connection.ts";

export { ruleNames } from "./tool-rules.ts";

/** One server's line in `/mcp` and `nex mcp list`. */
export interface ServerStatus {
  name: string;
  source: string;
  transport: string;
  state: string;
  tools: string[];
  lastError: string | null;
  log: string | null;
}

/** A server's tool under the name the model sees. */
export interface ListedTool {
  /** `mcp__<server>__<tool>`, at most 64 characters of [A-Za-z0-9_-]. */
  name: string;
  server: McpConnection;
  tool: McpToolInfo;
}

/** What the hub needs beyond each connection's options. */
export interface HubOptions extends Omit<ConnectionOptions, "onToolsChanged"> {
  /** Any server's tool list changed (a refresh, a restart). */
  onToolsChanged?: () => void;
}

/** The configured servers of one session: started side by side, listed, stopped together. */
export class McpHub {
  readonly connections: McpConnection[];
  /** Bumped whenever any tool list changes, so the runtime rebuilds its tools only then. */
  version = 0;

  readonly unusable: UnusableServer[];

  constructor(configs: McpServerConfig[], unusable: UnusableServer[], options: HubOptions) {
    this.unusable = unusable;
    if (options.logDir) mkdirSync(options.logDir, { recursive: true, mode: 0o700 });
    this.connections = configs.map(
      (config) =>
        new McpConnection(config, {
          ...options,
          onToolsChanged: () => {
            this.version += 1;
            options.onToolsChanged?.();
          },
        }),
    );
  }

  /** Starts every server at once; resolves when all have answered or failed (each within its budget). */
  async start(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.start()));
    this.version += 1;
  }

  /** Every tool of every connected server, named for the model; names never collide. */
  tools(): ListedTool[] {
    const listed: ListedTool[] = [];
    const taken = new Set<string>();
    for (const server of this.connections) {
      // A crashed server's tools stay listed: calling one restarts it (within its restart budget).
      if (server.state !== "connected" && server.state !== "crashed") continue;
      for (const tool of server.tools) {
        const name = toolName(server.config.name, tool.name, taken);
        taken.add(name);
        listed.push({ name, server, tool });
      }
    }
    return listed;
  }

  status(): ServerStatus[] {
    return [
      ...this.connections.map((server) => ({
        name: server.config.name,
        source: server.config.source,
        transport: server.config.type,
        state: server.state,
        tools: server.state === "connected" ? server.tools.map((tool) => tool.name) : [],
        lastError: server.lastError,
        log: server.logPath,
      })),
      ...this.unusable.map((entry) => ({
        name: entry.name,
        source: entry.source,
        transport: "-",
        state: "not started",
        tools: [],
        lastError: entry.problem,
        log: null,
      })),
    ];
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((server) => server.close()));
  }
}

/**
 * `mcp__<server>__<tool>` as models and users know it. Characters a provider refuses in a tool name
 * become `_`; a name past 64 characters, or one taken, ends in a short hash of the original.
 */
export function toolName(
  server: string,
  tool: string,
  taken: ReadonlySet<string> = new Set(),
): string {
  const clean = `mcp__${server}__${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  if (clean.length <= 64 && !taken.has(clean)) return clean;
  const hash = createHash("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, 8);
  return `${clean.slice(0, 55)}_${hash}`;
}
