import { join } from "node:path";
import type { AgentEvent, StreamFn } from "../protocol/index.ts";
import { hostOf } from "../providers/index.ts";
import { createTokenEstimator } from "../session/index.ts";
import { createResultStore, latestTodos, type WorkspaceToolHost } from "../tools/index.ts";
import type { SessionInfo } from "./agent-session.ts";
import { concealInProcEnviron } from "./conceal-environment.ts";
import type { ConfigFlags } from "./config.ts";
import { prepareDataDir } from "./data-dir.ts";
import { createClient } from "./endpoint-client.ts";
import { journalSink } from "./journal-sink.ts";
import { type CurrentModel, modelSwitcher } from "./model-switch.ts";
import { type ApprovalPolicy, NexSession } from "./nex-session.ts";
import { onDemandTools } from "./on-demand-tools.ts";
import { resolveSessionConfig } from "./open-config.ts";
import { openSessionJournal } from "./open-journal.ts";
import { discoverLimits, type ModelLimits } from "./open-limits.ts";
import { sessionSystemPrompt } from "./open-system-prompt.ts";
import { sessionTools } from "./open-tools.ts";
import { createSessionBudget } from "./request-budget.ts";
import { resultShrinker } from "./result-stubs.ts";
import { scrubbedTools } from "./scrubbed-tools.ts";
import { sessionCompaction } from "./session-compaction.ts";
import { summariesIn } from "./session-list.ts";
import { concealedValues, sessionScrubber } from "./session-secrets.ts";
import { extraTools } from "./tool-sources.ts";
import { undoResultOf } from "./undo-result.ts";

/** How to open a session. */
export interface OpenOptions {
  /** A session id, unique prefix, or "last"; null starts a new session. */
  resume: string | null;
  approvals: ApprovalPolicy;
  /** Overrides the provider client (the demo and tests use the real one; this is for embedding). */
  stream?: StreamFn;
  /**
   * `env` is this process's own environment: overwrite nex's secrets in the block that
   * `/proc/<pid>/environ` shows, once they are read (`concealInProcEnviron`).
   */
  concealEnvironment?: boolean;
}

/** An open session and the events of its opening (start, resume fitting), for the UI to show first. */
export interface OpenedSession {
  session: NexSession;
  events: AgentEvent[];
}

/**
 * Builds a running session from flags, environment and config: the composition root. Each step is
 * a named function in its own file: configuration, limits, system prompt, secrets, journal, tools,
 * budget, compaction, model switching.
 */
export async function openSession(
  flags: ConfigFlags,
  environment: Record<string, string | undefined>,
  cwd: string,
  options: OpenOptions,
): Promise<OpenedSession> {
  // A copy: concealing the secrets below changes what `process.env` shows.
  const env = { ...environment };
  const events: AgentEvent[] = [];
  const { config, model, resumed } = await resolveSessionConfig(
    flags,
    env,
    cwd,
    options.resume,
    events,
  );
  const stream = options.stream ?? createClient(config);
  const limits = await discoverLimits(config, model, !options.stream, events);
  const system = await sessionSystemPrompt(config, events);
  const estimator = createTokenEstimator();
  prepareDataDir(config.dataDir);
  // One scrubber for every door a secret could leave by: tool outcomes, events, journal, checkpoints.
  const secrets = sessionScrubber(config, env);
  if (options.concealEnvironment) concealInProcEnviron(concealedValues(config, env));
  const { journal, messages, ledger, baseline } = await openSessionJournal(resumed, {
    config,
    model,
    limits,
    system,
    estimator,
    secrets,
    events,
  });
  const sessionId = journal.meta.id;
  let window = () => limits.contextWindow;
  const added = await extraTools({ workspace: config.workspace });
  const tools = sessionTools({
    config,
    env,
    sessionId,
    secrets,
    ledger,
    approvals: options.approvals,
    window: () => window(),
    extraTools: added,
  });
  const host = onDemandTools(
    scrubbedTools(tools, secrets),
    new Set(added.filter((tool) => tool.deferred).map((tool) => tool.name)),
    () => window(),
  );
  const budget = createSessionBudget({
    window: limits.contextWindow,
    maxOutput: limits.maxOutput,
    tools: () => host.specs(),
  });
  window = () => budget.window();
  if (baseline) budget.observeUsage(baseline.tokens, 0, baseline.messages);
  const current: CurrentModel = { stream, model };
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
  const info = sessionInfo(sessionId, config, model, limits, journal.path, tools);
  const session: NexSession = new NexSession({
    info,
    stream,
    tools: { ...host, undo: async (turns) => undoResultOf(await host.undo(turns)) },
    journal: journalSink(journal),
    system,
    messages,
    budget,
    compactor: compaction.automatic,
    shrink: resultShrinker(
      budget,
      createResultStore(
        join(config.dataDir, "results", sessionId),
        (text) => secrets.scrub(text).text,
      ),
    ),
    compactNow: compaction.now,
    approvals: options.approvals,
    maxTurns: config.maxTurns,
    secrets,
    listSessions: async () => summariesIn(config.dataDir),
    switchModel: modelSwitcher(config, current, budget),
  });
  events.unshift({
    type: "session_started",
    sessionId,
    model,
    provider: config.provider,
    workspace: config.workspace,
    contextWindow: limits.contextWindow,
    windowSource: limits.source,
    resumed: resumed !== null,
    sandbox: info.sandbox,
  });
  const todos = latestTodos(messages);
  if (todos && todos.length > 0) events.push({ type: "todo_updated", items: todos });
  return { session, events };
}

/** Step 7: what a UI shows about the session. */
function sessionInfo(
  sessionId: string,
  config: Awaited<ReturnType<typeof resolveSessionConfig>>["config"],
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
      state: tools.sandbox.state().type,
      line: tools.sandbox.describe(),
    },
  };
}

export { listSessionsFor } from "./session-list.ts";
