import { join, resolve } from "node:path";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  ListToolsResultSchema,
  McpError,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { CallDeadline } from "./call-deadline.ts";
import type { McpServerConfig } from "./config.ts";
import { lastLines, neverLeft, refusal, startError } from "./connection-errors.ts";
import { oauthFile, StoredOAuthProvider } from "./oauth-store.ts";
import { serverEnvironment } from "./server-environment.ts";
import { GroupStdioTransport } from "./stdio-transport.ts";

/** Where a server stands. */
export type ServerState = "starting" | "connected" | "failed" | "crashed" | "closed";

/** One tool as the server lists it. */
export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
    title?: string;
  };
}

/** How one call ended, as far as nex can know. */
export type CallOutcome =
  | { type: "result"; result: CallToolResult }
  /** Nothing reached the server: it did not run. */
  | { type: "not_sent"; reason: string }
  /** The server answered the request with a protocol error: the tool did not run as asked. */
  | { type: "rejected"; reason: string }
  /** The request was sent and no answer came back: it may or may not have happened. */
  | { type: "unknown"; reason: string; cancelled: boolean };

/** What a connection needs from its host. */
export interface ConnectionOptions {
  workspace: string;
  /** The environment commands get (nex's keys out, proxies without credentials): a few variables of it reach a stdio server. */
  baseEnv: Record<string, string | undefined>;
  /** Folder for the servers' stderr logs (null: not logged). */
  logDir: string | null;
  redact: (text: string) => string;
  /** The server's tool list changed (after a `list_changed` notification was followed). */
  onToolsChanged: () => void;
  /** Where remote servers' OAuth tokens are kept (null: no OAuth). */
  oauthDir?: string | null;
  /** Most restarts after a crash (3). */
  maxRestarts?: number;
  /**
   * Why a crashed server may not be started again (what it runs changed since the user approved
   * it), or null: a restart runs the server's code anew.
   */
  mayStartAgain?: (server: McpServerConfig) => string | null;
  /** How HTTP servers are reached (nex's proxied client); absent, the global fetch. */
  fetch?: (url: string | URL, init?: RequestInit) => Promise<Response>;
}

export { serverEnvironment } from "./server-environment.ts";

/** One MCP server: started, listed, called, restarted after a crash a few times, stopped. */
export class McpConnection {
  state: ServerState = "starting";
  lastError: string | null = null;
  tools: McpToolInfo[] = [];
  /** Restarts so far after crashes. */
  restarts = 0;
  private client: Client | null = null;
  private transport: Transport | null = null;
  private stdio: GroupStdioTransport | null = null;
  private crashedAt = 0;
  private starting: Promise<void> | null = null;
  private intentionalClose = false;
  private signInNeeded = false;

  readonly config: McpServerConfig;
  private readonly options: ConnectionOptions;

  constructor(config: McpServerConfig, options: ConnectionOptions) {
    this.config = config;
    this.options = options;
  }

  /** The server's stderr log, for a message that points the user at it. */
  get logPath(): string | null {
    return this.options.logDir && this.config.type === "stdio"
      ? join(this.options.logDir, `${this.config.name}.log`)
      : null;
  }

  /** Connects and lists tools within the start-up budget. Never throws: failure is the state. */
  start(): Promise<void> {
    this.starting ??= this.connect().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private async connect(): Promise<void> {
    this.state = "starting";
    this.intentionalClose = false;
    // A reconnect leaves the old client behind; its late close must not count as a crash.
    const previous = this.client;
    this.client = null;
    if (previous) void previous.close().catch(() => {});
    const budget = this.config.limits.startupTimeoutMs;
    const transport = this.makeTransport();
    const client = new Client({ name: "nex", version: "1" }, { capabilities: {} });
    this.client = client;
    this.transport = transport;
    client.onerror = (error) => {
      this.lastError = this.options.redact(error.message);
    };
    client.onclose = () => {
      if (this.client !== client) return;
      if (this.intentionalClose) {
        this.state = "closed";
        return;
      }
      if (this.state === "connected") {
        this.state = "crashed";
        this.crashedAt = Date.now();
        this.lastError = this.describeEnd("the server stopped");
      }
    };
    const timer = AbortSignal.timeout(budget);
    const deadline = Date.now() + budget;
    try {
      await client.connect(transport, { timeout: budget, signal: timer });
      // The handshake and the first list share one budget: a slow server never doubles it.
      this.tools = await this.listAll(Math.max(1, deadline - Date.now()));
      if (client.getServerCapabilities()?.tools?.listChanged) {
        client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
          try {
            this.tools = await this.listAll(this.config.limits.callTimeoutMs);
            this.options.onToolsChanged();
          } catch (error) {
            this.lastError = `its tool list changed, and listing it again failed: ${this.options.redact((error as Error).message)}`;
          }
        });
      }
      this.state = "connected";
      this.lastError = null;
    } catch (error) {
      const timedOut = timer.aborted || (error as McpError).code === ErrorCode.RequestTimeout;
      const reason = timedOut
        ? `it did not answer the handshake within ${budget / 1000} s`
        : this.signInNeeded || error instanceof UnauthorizedError
          ? `it needs you to sign in (OAuth): run \`nex mcp login ${this.config.name}\``
          : startError(error, this.config);
      this.state = "failed";
      this.lastError = this.describeEnd(reason);
      this.intentionalClose = true;
      await transport.close().catch(() => {});
    }
  }

  private makeTransport(): Transport {
    const config = this.config;
    if (config.type === "stdio") {
      this.stdio = new GroupStdioTransport({
        command: config.command,
        args: config.args,
        cwd: config.cwd ? resolve(this.options.workspace, config.cwd) : this.options.workspace,
        env: serverEnvironment(this.options.baseEnv, config.env),
        stderrLog: this.logPath,
        redact: this.options.redact,
      });
      return this.stdio;
    }
    const requestInit = { headers: config.headers };
    // A server given its own Authorization header needs no sign-in; others may ask for OAuth.
    const ownAuth = Object.keys(config.headers).some(
      (key) => key.toLowerCase() === "authorization",
    );
    const oauthDir = this.options.oauthDir;
    const authProvider =
      oauthDir && !ownAuth
        ? new StoredOAuthProvider(oauthFile(oauthDir, config.name, config.url), null, () => {
            this.signInNeeded = true;
          })
        : undefined;
    const options = {
      requestInit,
      ...(authProvider ? { authProvider } : {}),
      ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
    };
    return config.type === "sse"
      ? new SSEClientTransport(new URL(config.url), options)
      : new StreamableHTTPClientTransport(new URL(config.url), options);
  }

  private async listAll(timeout: number): Promise<McpToolInfo[]> {
    const client = this.client;
    if (!client) return [];
    const found: McpToolInfo[] = [];
    let cursor: string | undefined;
    // A server that pages forever is cut off: 50 pages is far beyond any real tool list.
    for (let page = 0; page < 50; page += 1) {
      // Not client.listTools: it compiles every output schema on the spot, and one that does not
      // compile would lose the whole list. nex checks output itself, per call.
      const answer = await client.request(
        { method: "tools/list", params: cursor ? { cursor } : {} },
        ListToolsResultSchema,
        { timeout },
      );
      for (const tool of answer.tools)
        found.push({
          name: tool.name,
          description: tool.description ?? "",
          inputSchema: tool.inputSchema as Record<string, unknown>,
          ...(tool.outputSchema
            ? { outputSchema: tool.outputSchema as Record<string, unknown> }
            : {}),
          ...(tool.annotations ? { annotations: tool.annotations } : {}),
        });
      cursor = answer.nextCursor;
      if (!cursor) break;
    }
    return found;
  }

  /** What the server's end looked like: the reason, how the process ended, the stderr tail. */
  private describeEnd(reason: string): string {
    const parts = [reason];
    const exit = this.stdio?.exit;
    if (exit) parts.push(exit.signal ? `killed by ${exit.signal}` : `exit status ${exit.code}`);
    const garbage = this.stdio?.garbage;
    if (garbage && garbage.lines > 0)
      parts.push(
        `${garbage.lines} line(s) on its stdout were not MCP messages, e.g. ${JSON.stringify(this.options.redact(garbage.sample))}`,
      );
    const tail = this.stdio?.stderrTail();
    if (tail) parts.push(`its stderr ended with: ${lastLines(tail, 5)}`);
    return this.options.redact(parts.join("; "));
  }

  /**
   * After a crash, starts the server again if it may be (at most `maxRestarts`, the nth waiting
   * 2^n s since the crash). Returns a line for the model, or null when nothing was done.
   */
  async restartIfCrashed(): Promise<string | null> {
    if (this.state !== "crashed") return null;
    const max = this.options.maxRestarts ?? 3;
    const why = this.lastError ?? "it stopped";
    if (this.restarts >= max)
      return `The MCP server ${this.config.name} stopped (${why}) and was restarted ${max} times already; nex does not start it again this session. Tell the user.`;
    const refused = this.options.mayStartAgain?.(this.config) ?? null;
    if (refused)
      return `The MCP server ${this.config.name} stopped (${why}); nex does not start it again: ${refused} Tell the user.`;
    const wait = 1000 * 2 ** this.restarts - (Date.now() - this.crashedAt);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    this.restarts += 1;
    await this.start();
    const state = this.state as ServerState;
    if (state !== "connected")
      return `The MCP server ${this.config.name} had stopped (${why}); restarting it (attempt ${this.restarts} of ${max}) failed: ${this.lastError}.`;
    this.options.onToolsChanged();
    return `The MCP server ${this.config.name} had stopped (${why}); nex restarted it (restart ${this.restarts} of ${max}).`;
  }

  /** Calls a tool; classifies every way it can end so nothing is reported as done that may not be. */
  async call(
    name: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; onProgress?: (text: string) => void },
  ): Promise<CallOutcome> {
    const client = this.client;
    const transport = this.transport;
    if (this.state !== "connected" || !client || !transport)
      return {
        type: "not_sent",
        reason: `the MCP server ${this.config.name} is not connected (${this.state}${this.lastError ? `: ${this.lastError}` : ""})`,
      };
    // Whether the request may have reached the server. A pipe takes a message whole or not at all;
    // an HTTP POST may reach the server and fail afterwards, so it counts from the moment it is
    // made, unless the failure proves nothing left (no connection could be made) or the server
    // answered that it refused it.
    const sentArgs = { ...args };
    let sent = false;
    let refusedStatus: number | null = null;
    const overPipe = this.stdio !== null;
    const send = transport.send.bind(transport);
    transport.send = async (message, sendOptions) => {
      const params = (message as { params?: { arguments?: unknown } }).params;
      const ours = params?.arguments === sentArgs;
      if (ours && !overPipe) sent = true;
      try {
        await send(message, sendOptions);
      } catch (error) {
        if (ours && neverLeft(error)) sent = false;
        if (ours) refusedStatus = refusal(error);
        throw error;
      }
      if (ours) sent = true;
    };
    const limits = this.config.limits;
    const deadline = new CallDeadline(limits.callTimeoutMs, limits.totalTimeoutMs);
    try {
      const result = await client.request(
        { method: "tools/call", params: { name, arguments: sentArgs } },
        CallToolResultSchema,
        {
          // nex keeps the clocks (the SDK's reset counts a repeated progress as progress); the SDK's
          // own timeout is only a backstop at the total cap.
          signal: AbortSignal.any([options.signal, deadline.signal]),
          timeout: limits.totalTimeoutMs + 1_000,
          onprogress: (progress) => {
            deadline.progressed(progress.progress);
            const total = progress.total ? `/${progress.total}` : "";
            options.onProgress?.(
              `${progress.progress}${total}${progress.message ? ` ${progress.message}` : ""}`,
            );
          },
        },
      );
      return { type: "result", result };
    } catch (error) {
      // A stateful server that forgot the session (restarted, expired it) answers 404: the next
      // call starts a new one.
      const session = (transport as { sessionId?: string }).sessionId;
      if (refusedStatus === 404 && session !== undefined) {
        this.state = "crashed";
        this.crashedAt = Date.now() - 60_000;
        this.lastError = "its session ended (HTTP 404)";
        return {
          type: "rejected",
          reason:
            "the server no longer knows this session (HTTP 404), so it did not run the call; nex starts a new session on the next call",
        };
      }
      if (refusedStatus !== null)
        return {
          type: "rejected",
          reason: `the server refused the request with HTTP ${refusedStatus}${refusedStatus === 401 || refusedStatus === 403 ? this.authHint() : ""}`,
        };
      return this.classify(error, sent, options.signal.aborted, deadline.expired);
    } finally {
      deadline.dispose();
      transport.send = send;
    }
  }

  private authHint(): string {
    const config = this.config;
    if (config.type === "stdio") return "";
    const own = Object.keys(config.headers).some((key) => key.toLowerCase() === "authorization");
    return own
      ? " (check the token in its headers)"
      : ` (if it needs a sign-in: nex mcp login ${config.name})`;
  }

  private classify(
    error: unknown,
    sent: boolean,
    aborted: boolean,
    expired: "idle" | "total" | null,
  ): CallOutcome {
    const message = this.options.redact(error instanceof Error ? error.message : String(error));
    if (!sent)
      return {
        type: "not_sent",
        reason: aborted ? "the turn was interrupted before the call was sent" : message,
      };
    if (aborted)
      return {
        type: "unknown",
        reason: "the call was interrupted after it was sent; nex told the server to cancel it",
        cancelled: true,
      };
    const code = error instanceof McpError ? error.code : null;
    const limits = this.config.limits;
    if (expired === "idle")
      return {
        type: "unknown",
        reason: `the server did not answer within ${limits.callTimeoutMs / 1000} s (with no progress: a repeated progress value does not count); nex told it to cancel the call`,
        cancelled: true,
      };
    if (expired === "total" || code === ErrorCode.RequestTimeout)
      return {
        type: "unknown",
        reason: `the call did not finish within its total limit of ${limits.totalTimeoutMs / 1000} s (\`totalTimeoutSeconds\` in the server's entry), progress or not; nex told the server to cancel it`,
        cancelled: true,
      };
    if (code === ErrorCode.ConnectionClosed || this.state !== "connected")
      return {
        type: "unknown",
        reason: `the connection to the server was lost before it answered (${this.lastError ?? message})`,
        cancelled: false,
      };
    if (code !== null)
      return { type: "rejected", reason: `the server answered with error ${code}: ${message}` };
    const invalid = (error as { name?: string }).name === "ZodError";
    return {
      type: "unknown",
      reason: invalid
        ? `the server's answer was not a valid tool result (${message.slice(0, 300)})`
        : `the connection to the server broke before it answered (${message.slice(0, 300)})`,
      cancelled: false,
    };
  }

  /** Stops the server (a stdio server's whole process group) and forgets its tools. */
  async close(): Promise<void> {
    this.intentionalClose = true;
    const client = this.client;
    this.client = null;
    if (this.state !== "failed") this.state = "closed";
    await client?.close().catch(() => {});
    await this.transport?.close().catch(() => {});
  }
}
