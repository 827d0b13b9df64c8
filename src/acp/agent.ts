// The ACP agent: `initialize`, sessions (new, load, prompt, cancel, mode) over nex's sessions.
import { realpathSync } from "node:fs";
import { isAbsolute } from "node:path";
import {
  type AgentApp,
  type AgentContext,
  agent,
  type ClientCapabilities,
  type InitializeResponse,
  type McpServer,
  PROTOCOL_VERSION,
  RequestError,
} from "@agentclientprotocol/sdk";
import type { AgentEvent } from "../protocol/index.ts";
import type { OpenedSession, OpenOptions } from "../runtime/assembly/index.ts";
import type { ConfigFlags } from "../runtime/config/index.ts";
import type { SessionSummary } from "../runtime/session/index.ts";
import { editorFiles } from "./editor-files.ts";
import { editorMcpServers } from "./mcp-servers.ts";
import { SessionBridge } from "./session-bridge.ts";

/** What the agent needs from its host: how to open a session, where to log. */
export interface AcpHost {
  flags: ConfigFlags;
  version: string;
  open(flags: ConfigFlags, options: OpenOptions): Promise<OpenedSession>;
  /** nex's saved sessions (`nex sessions`), newest first. */
  list(flags: ConfigFlags): Promise<SessionSummary[]>;
  log(line: string): void;
}

/** The agent's state for one connection: the client's capabilities and the open sessions. */
export function createAcpAgent(host: AcpHost): { app: AgentApp; closeAll(): Promise<void> } {
  const sessions = new Map<string, SessionBridge>();
  let capabilities: ClientCapabilities = {};
  let client: AgentContext | null = null;

  const bridge = (opened: OpenedSession): SessionBridge => {
    if (!client) throw new RequestError(-32603, "The connection is not open yet.");
    const made = new SessionBridge(opened.session, {
      client,
      notices: Boolean(capabilities.session?.notices),
      log: host.log,
    });
    sessions.set(made.sessionId, made);
    return made;
  };

  const find = (sessionId: string): SessionBridge => {
    const found = sessions.get(sessionId);
    if (!found)
      throw new RequestError(
        -32002,
        `No open session ${sessionId} in this nex acp process; create one with session/new, or open a saved one with session/load.`,
        { sessionId },
      );
    return found;
  };

  const open = async (
    cwd: string,
    resume: string | null,
    servers: readonly McpServer[],
  ): Promise<OpenedSession> => {
    if (!isAbsolute(cwd))
      throw RequestError.invalidParams({ cwd }, `cwd must be an absolute path, not "${cwd}".`);
    let opened: OpenedSession | null = null;
    // The tools ask the editor only once the session is open, and only where the editor offers it.
    const editor =
      client && capabilities.fs?.readTextFile
        ? editorFiles({
            client,
            session: () => (opened ? openedFiles(opened) : null),
            log: host.log,
          })
        : null;
    try {
      opened = await host.open(
        { ...host.flags, cwd },
        {
          resume,
          approvals: "interactive",
          ...(editor ? { editor } : {}),
          ...(servers.length > 0 ? { mcpServers: editorMcpServers(servers) } : {}),
        },
      );
      return opened;
    } catch (error) {
      // A refused configuration (no model, a busy session, an unreachable endpoint) says what to fix.
      throw new RequestError(-32603, (error as Error).message);
    }
  };

  const app = agent({ name: "nex" })
    .onConnect((connection) => {
      client = connection.client;
    })
    .onRequest("initialize", ({ params }): InitializeResponse => {
      capabilities = params.clientCapabilities ?? {};
      return initializeResponse(host.version);
    })
    .onRequest("session/new", async ({ params }) => {
      const opened = await open(params.cwd, null, params.mcpServers);
      const made = bridge(opened);
      logOpening(host, opened.events);
      return { sessionId: made.sessionId, modes: made.modes() };
    })
    .onRequest("session/load", async ({ params }) => {
      const already = sessions.get(params.sessionId);
      if (already) {
        await already.replay([]);
        return { modes: already.modes() };
      }
      const opened = await open(params.cwd, params.sessionId, params.mcpServers);
      const made = bridge(opened);
      logOpening(host, opened.events);
      await made.replay(opened.events);
      return { modes: made.modes() };
    })
    .onRequest("session/list", ({ params }) => listSessions(host, params.cwd ?? null))
    .onRequest("session/prompt", ({ params }) =>
      find(params.sessionId).prompt(params.prompt, params._meta?.urgent === true),
    )
    .onNotification("session/cancel", ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    })
    .onRequest("session/set_mode", ({ params }) => {
      find(params.sessionId).setMode(params.modeId);
      return {};
    });

  return {
    app,
    async closeAll() {
      await Promise.allSettled([...sessions.values()].map((session) => session.close()));
      sessions.clear();
    },
  };
}

/** What nex offers the editor: sessions to load and list, MCP servers of every transport, no media. */
function initializeResponse(version: string): InitializeResponse {
  return {
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: false, audio: false, embeddedContext: true },
      // The editor's MCP servers start with the session, checked like nex's own (stdio, HTTP, SSE).
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: { list: {} },
    },
    agentInfo: { name: "nex", title: "nex", version },
    authMethods: [],
  };
}

/** `session/list`: nex's saved sessions, of one workspace when the editor names it. */
async function listSessions(host: AcpHost, cwd: string | null) {
  if (cwd !== null && !isAbsolute(cwd))
    throw RequestError.invalidParams({ cwd }, `cwd must be an absolute path, not "${cwd}".`);
  let rows: SessionSummary[];
  try {
    rows = await host.list(cwd ? { ...host.flags, cwd } : host.flags);
  } catch (error) {
    throw new RequestError(-32603, (error as Error).message);
  }
  const places = cwd === null ? null : new Set([cwd, realOrSame(cwd)]);
  return {
    sessions: rows
      .filter((row) => places === null || places.has(row.workspace))
      .slice(0, LISTED)
      .map((row) => ({
        sessionId: row.sessionId,
        cwd: row.workspace,
        title: title(row.lastMessage),
      })),
  };
}

/** The session's id and its workspace as the tools name paths (symlinks resolved). */
function openedFiles(opened: OpenedSession): { sessionId: string; workspace: string } {
  const { sessionId, workspace } = opened.session.info;
  let real = workspace;
  try {
    real = realpathSync(workspace);
  } catch {}
  return { sessionId, workspace: real };
}

function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The sessions one list shows; `nex sessions` shows them all. */
const LISTED = 200;

/** A session's line in the editor's history: its last message, on one line. */
function title(lastMessage: string): string {
  const line = lastMessage.replace(/\s+/g, " ").trim();
  return line.length > 100 ? `${line.slice(0, 100)}…` : line;
}

function logOpening(host: AcpHost, events: readonly AgentEvent[]): void {
  for (const event of events) {
    if (event.type === "notice") host.log(event.message);
    if (event.type === "context_fitted") host.log(event.line);
    if (event.type === "session_started")
      host.log(`session ${event.sessionId}: ${event.sandbox.line}`);
  }
}
