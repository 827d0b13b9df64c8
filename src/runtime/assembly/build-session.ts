import { join } from "node:path";
import type { AgentEvent } from "../../protocol/index.ts";
import { hostOf } from "../../providers/index.ts";
import type { createTokenEstimator } from "../../session/index.ts";
import {
  createResultStore,
  type describeSearch,
  latestTodos,
  type WorkspaceToolHost,
} from "../../tools/index.ts";
import { type createReasoningControl, type NexConfig, priceFor } from "../config/index.ts";
import { type createSessionBudget, resultShrinker, sessionCompaction } from "../context/index.ts";
import type { Extensions } from "../extensions/index.ts";
import { textRedaction } from "../secrets/index.ts";
import {
  type CurrentModel,
  createImageStore,
  NexSession,
  readSessionSummary,
  type SessionInfo,
  type SessionParts,
  type UserNotes,
} from "../session/index.ts";
import type { loadSubagents } from "../subagents/index.ts";
import { journalSink } from "./journal-sink.ts";
import { type openSessionJournal, sessionImagesDir } from "./open-journal.ts";
import type { ModelLimits } from "./open-limits.ts";
import type { openSessionMcp } from "./open-mcp.ts";
import { promptExpander, sessionCommands, sessionToolHost } from "./session-commands.ts";

type Opened<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;

/** Everything `openSession` gathered, for the session to be built from. */
export interface GatheredSession {
  config: NexConfig;
  env: Record<string, string | undefined>;
  sessionId: string;
  model: string;
  limits: ModelLimits;
  journal: Opened<typeof openSessionJournal>["journal"];
  messages: Opened<typeof openSessionJournal>["messages"];
  system: string;
  /** The workspace's own tools (sandbox, undo, approvals to save). */
  tools: WorkspaceToolHost;
  /** What the model sees: the tools wrapped by MCP, hooks, notes, the scrubber and the selection. */
  host: Parameters<typeof sessionToolHost>[0];
  extensions: Extensions;
  subagents: Opened<typeof loadSubagents>;
  search?: Opened<typeof describeSearch>;
  userNotes: UserNotes;
  current: CurrentModel;
  reasoning: ReturnType<typeof createReasoningControl>;
  budget: ReturnType<typeof createSessionBudget>;
  estimator: ReturnType<typeof createTokenEstimator>;
  secrets: SessionParts["secrets"];
  approvals: SessionParts["approvals"];
  hooks: SessionParts["hooks"];
  mcp: Opened<typeof openSessionMcp>;
}

/**
 * The session_started line first, the session start hooks run (a resumed session's with its resume
 * note), the todo list a resumed session had.
 */
export async function announceStart(
  session: NexSession,
  events: AgentEvent[],
  messages: GatheredSession["messages"],
  resumed: boolean,
  place: {
    journalPath: string;
    ledger: Opened<typeof openSessionJournal>["ledger"];
    workspace: string;
  },
): Promise<void> {
  const { info } = session;
  events.unshift({
    type: "session_started",
    sessionId: info.sessionId,
    model: info.model,
    provider: info.provider,
    workspace: info.workspace,
    contextWindow: info.contextWindow,
    windowSource: info.windowSource,
    resumed,
    sandbox: info.sandbox,
  });
  // A resumed session's first prompt starts from the summary kept beside the journal, and names the
  // files that changed since the model read them.
  const resumeNote = resumed
    ? (await import("./changed-since-read.ts")).resumeNote(
        await readSessionSummary(place.journalPath),
        place.ledger ?? [],
        place.workspace,
      )
    : null;
  await session.startHooks(resumed ? "resume" : "startup", resumeNote);
  const todos = latestTodos(messages);
  if (todos && todos.length > 0) events.push({ type: "todo_updated", items: todos });
}

/** Builds the running session from its parts and gives the sub-agents their way back to it. */
export function buildSession(parts: GatheredSession): NexSession {
  const {
    config,
    env,
    sessionId,
    model,
    limits,
    journal,
    messages,
    system,
    tools,
    host,
    extensions,
    subagents,
    search,
    userNotes,
    current,
    reasoning,
    budget,
    estimator,
    secrets,
    hooks,
    mcp,
  } = parts;
  const stream = current.stream;
  const compaction = sessionCompaction({
    stream: () => current.stream,
    model: () => current.model,
    window: () => budget.window(),
    estimator,
    journal,
    budget,
    reader: {
      workspace: config.workspace,
      allowedPaths: config.allowedPaths,
      privatePaths: [config.dataDir],
    },
    emit: (event: AgentEvent) => session.emit(event),
    nextRequestId: () => session.nextRequestId(),
  });
  const info: SessionInfo = {
    ...sessionInfo(sessionId, config, model, limits, journal.path, tools),
    extensions: extensionsInfo(extensions),
    notifications: config.notifications,
    ...(search !== undefined ? { search } : {}),
  };
  const session: NexSession = new NexSession({
    notes: userNotes,
    info,
    stream,
    price: (model) => priceFor(model, config.models[model]?.price),
    tools: sessionToolHost(host, config, env, (call) => tools.savableRules(call)),
    journal: journalSink(journal, createImageStore(sessionImagesDir(config.dataDir, sessionId))),
    system,
    messages,
    budget,
    compactor: compaction.automatic,
    shrink: resultShrinker(
      budget,
      createResultStore(join(config.dataDir, "results", sessionId), textRedaction(secrets)),
    ),
    compactNow: compaction.now,
    approvals: parts.approvals,
    maxTurns: config.maxTurns,
    hooks,
    expand: promptExpander(config, env, extensions, budget, current, (message) =>
      session.emit({ type: "notice", message }),
    ),
    secrets,
    ...(mcp ? { onClose: () => mcp.close(), mcpStatus: () => mcp.describe() } : {}),
    ...sessionCommands(config, env, current, budget, reasoning),
  });
  subagents.subagents.bind({
    stream: () => current.stream,
    model: () => current.model,
    window: () => budget.window(),
    maxOutput: () => budget.maxOutput(),
    tools: (agent, turn) => session.childTools(agent, turn),
    approve: (callId, signal) => session.approveCall(callId, signal),
    emit: (event) => session.emit(event),
    nextRequestId: () => session.nextRequestId(),
    summary: () => readSessionSummary(session.info.journalPath),
  });
  return session;
}

/** Step 7: what a UI shows about the session. */
function sessionInfo(
  sessionId: string,
  config: NexConfig,
  model: string,
  limits: ModelLimits,
  journalPath: string,
  tools: WorkspaceToolHost,
): SessionInfo {
  return {
    sessionId,
    provider: config.provider,
    model,
    host: hostOf(config.baseUrl),
    workspace: config.workspace,
    contextWindow: limits.contextWindow,
    windowSource: limits.source,
    permissionMode: config.permissionMode,
    journalPath,
    sandbox: {
      mode: tools.sandbox.mode,
      network: tools.sandbox.network,
      ...(tools.sandbox.allowHosts.length > 0 ? { allowHosts: [...tools.sandbox.allowHosts] } : {}),
      state: tools.sandbox.state().type,
      line: tools.sandbox.describe(),
    },
  };
}

/** The user's commands and skills, for help and completion in a UI. */
function extensionsInfo(extensions: Extensions): SessionInfo["extensions"] {
  return {
    commands: extensions.commands.map(({ name, description, argumentHint }) => ({
      name,
      description,
      argumentHint,
    })),
    skills: extensions.skills.map(({ name, description }) => ({ name, description })),
  };
}
