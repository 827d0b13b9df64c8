import { join } from "node:path";
import type { AgentEvent, StreamFn, ToolHost } from "../../protocol/index.ts";
import { hostOf } from "../../providers/index.ts";
import { createTokenEstimator } from "../../session/index.ts";
import {
  createResultStore,
  describeSearch,
  latestTodos,
  ownerMark,
  resultCapForWindow,
  type ToolHostOptions,
  type WorkspaceToolHost,
} from "../../tools/index.ts";
import {
  acceptsImages,
  type ConfigFlags,
  createClient,
  createReasoningControl,
  defaultConfigPath,
  prepareDataDir,
  priceFor,
} from "../config/index.ts";
import { consentPlace, realPathOf } from "../consent/index.ts";
import { createSessionBudget, resultShrinker, sessionCompaction } from "../context/index.ts";
import { type Extensions, expandPrompt, loadExtensions, rolePrompt } from "../extensions/index.ts";
import { ownSessionsOnly, recordOwnSession } from "../history/index.ts";
import type { Hooks } from "../hooks/index.ts";
import { openMcpServers } from "../mcp/index.ts";
import {
  concealedValues,
  concealInProcEnviron,
  scrubbedTools,
  sessionScrubber,
  textRedaction,
  toolEnvironment,
} from "../secrets/index.ts";
import type { CurrentModel, SessionInfo, SessionSummary } from "../session/index.ts";
import {
  type ApprovalPolicy,
  createImageStore,
  NexSession,
  noteForModel,
  readSessionSummary,
  UserNotes,
  withTurnNotes,
} from "../session/index.ts";
import { askModel, loadSubagents } from "../subagents/index.ts";
import { webTools } from "../web/index.ts";
import { journalSink } from "./journal-sink.ts";
import { onDemandTools } from "./on-demand-tools.ts";
import { resolveSessionConfig } from "./open-config.ts";
import { NO_HOOKS, openHooks } from "./open-hooks.ts";
import { openSessionJournal, sessionImagesDir } from "./open-journal.ts";
import { discoverLimits, type ModelLimits } from "./open-limits.ts";
import { sessionSystemPrompt } from "./open-system-prompt.ts";
import { sessionTools } from "./open-tools.ts";
import { selectTools, type ToolSelection } from "./tool-selection.ts";
import { extraTools } from "./tool-sources.ts";

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
  /** Replaces nex's system prompt, or adds to it (an orchestrator's instructions). */
  systemPrompt?: { replace?: string; append?: string };
  /** The tools offered to the model (`--tools`, `--disallowed-tools`). */
  tools?: ToolSelection;
  /** Notes for the model, taken at each turn boundary (`--max-time`'s wrap-up, `--inbox` messages). */
  turnNotes?: () => string[];
  /** A caller's stable name (`--session-id`): resumes the session it names, or names the new one. */
  sessionName?: string;
  /** False starts no MCP server (`nex compact` needs no tools). */
  mcp?: boolean;
  /** MCP servers an editor passed for this session (`nex acp`), shaped like `.mcp.json`'s `mcpServers`. */
  mcpServers?: Record<string, unknown>;
  /** The editor's unsaved buffers (`nex acp`), seen by the file tools. */
  editor?: ToolHostOptions["editor"];
  /** `--role NAME`: `roles/NAME.md`'s text joins the system prompt; the name is in the journal's header. */
  role?: string;
  /** The chat folder `--chat` serves when it lies in the workspace: commands and tools may not change it. */
  heldFolder?: string;
}

/** An open session and the events of its opening (start, resume fitting), for the UI to show first. */
export interface OpenedSession {
  session: NexSession;
  events: AgentEvent[];
  /** The names of the tools the model is offered. */
  tools: string[];
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
  // Looked up while the session opens (a few stat calls along PATH), for `/status`.
  const search = describeSearch(cwd, environment);
  const { config, model, resumed } = await resolveSessionConfig(
    flags,
    env,
    cwd,
    options.resume,
    events,
    options.sessionName,
  );
  const reasoning = createReasoningControl(config);
  const stream = reasoning.wrap(options.stream ?? createClient(config));
  if (reasoning.settingFor(model))
    events.push({ type: "notice", message: reasoning.describe(model) });
  const limits = await discoverLimits(config, model, !options.stream, events);
  const extensions = await loadExtensions(config.workspace, env);
  const subagents = await loadSubagents(config.workspace, env);
  for (const problem of [...extensions.problems, ...subagents.problems])
    events.push({ type: "notice", message: problem });
  const role = options.role ? await rolePrompt(options.role, config.workspace, env) : null;
  const system = [
    options.systemPrompt?.replace ??
      (await sessionSystemPrompt(config, env, events, extensions.skillsSection)),
    role ? `# Your role: ${options.role}\n\n${role.text}` : undefined,
    options.systemPrompt?.append,
  ]
    .filter((part) => part !== undefined)
    .join("\n\n");
  const estimator = createTokenEstimator();
  prepareDataDir(config.dataDir);
  // One scrubber for every door a secret could leave by: tool outcomes, events, journal, checkpoints.
  const { set: mcpSet, secrets: mcpSecretValues } = await openMcpServers({
    skip: options.mcp === false,
    fromConfig: config.mcpServers,
    ...(options.mcpServers ? { fromEditor: options.mcpServers } : {}),
    configPath: config.configPath,
    files: flags.mcpConfig ?? [],
    workspace: config.workspace,
    dataDir: config.dataDir,
    writable: config.sandbox.writable ?? [],
    env,
    cwd,
  });
  const secrets = sessionScrubber(config, env, mcpSecretValues);
  if (options.concealEnvironment) concealInProcEnviron(concealedValues(config, env));
  const { journal, messages, ledger, baseline } = await openSessionJournal(resumed, {
    config,
    model,
    limits,
    system,
    estimator,
    secrets,
    events,
    ...(options.role ? { role: options.role } : {}),
  });
  const sessionId = journal.meta.id;
  subagents.subagents.keepReaderNotes(join(config.dataDir, "readers", sessionId));
  if (resumed === null) recordOwnSession(env, config, sessionId);
  if (options.sessionName && resumed === null)
    await (await import("../history/index.ts")).nameSession(
      config.dataDir,
      options.sessionName,
      sessionId,
    );
  let window = () => limits.contextWindow;
  const added = [
    ...(await extraTools({ workspace: config.workspace })),
    ...extensions.tools,
    ...subagents.tools,
    ...webTools({
      config,
      env,
      window: () => window(),
      summarize: async (input, signal) =>
        (await import("../context/index.ts")).summarizeForQuestion(input, signal, {
          stream: () => current.stream,
          model: () => current.model,
          emit: (event) => session.emit(event),
          nextRequestId: () => session.nextRequestId(),
        }),
      ask: (system, prompt, ctx) =>
        askModel(subagents.subagents, "deep_research", ctx, system, prompt),
    }),
  ];
  // The MCP session (and its modules) only when a server is configured: most sessions have none.
  // A crashed project server starts again only while what it runs is as the user approved it.
  const restartCheck = mcpSet.project?.approved
    ? await (await import("../mcp/index.ts")).projectRestartCheck(mcpSet, config.workspace)
    : null;
  const mcp =
    mcpSet.servers.length === 0 && mcpSet.unusable.length === 0
      ? noMcp(mcpSet, events)
      : await (await import("../mcp/index.ts")).openMcp(
          mcpSet,
          {
            workspace: config.workspace,
            baseEnv: { ...toolEnvironment(env, config), ...ownerMark() },
            sessionDir: join(config.dataDir, "logs", sessionId),
            oauthDir: await (await import("../mcp/index.ts")).oauthDirOf(config, env),
            ...(restartCheck ? { mayStartAgain: restartCheck } : {}),
            redact: textRedaction(secrets),
            ...(await (await import("../mcp/index.ts")).mcpFetchFor(config)),
          },
          events as { type: "notice"; message: string }[],
        );
  const tools = sessionTools({
    config,
    env,
    sessionId,
    secrets,
    ledger,
    approvals: options.approvals,
    ...(options.heldFolder ? { heldFolder: options.heldFolder } : {}),
    window: () => window(),
    extraTools: added,
    onProgress: (callId, name, message) =>
      session.emit({ type: "tool_progress", callId, name, message }),
    onOutput: (callId, name, tail, lines, bytes) =>
      session.emit({ type: "tool_output", callId, name, tail, lines, bytes }),
    ...(options.editor ? { editor: options.editor } : {}),
    ...(mcp ? { dynamicTools: mcp.tools } : {}),
    acceptsImages: () => acceptsImages(current.model, config.models[current.model]),
  });
  // What a hook prints reaches the model and the screen: scrubbed of nex's secrets like a tool's output.
  const opened = await openHooks(
    config,
    events,
    {
      launch: (command, hookCwd) => tools.sandbox.launch(command, hookCwd),
      workspace: config.workspace,
      sessionId,
      transcriptPath: journal.path,
      env: toolEnvironment(env, config),
      notice: (message) => session.emit({ type: "notice", message }),
    },
    env,
  );
  const hooks =
    opened === NO_HOOKS
      ? NO_HOOKS
      : await (await import("../secrets/index.ts")).scrubbedHooks(opened, secrets);
  // What the user types while the model works, and the orchestrator's notes, ride with the next result.
  const userNotes = new UserNotes();
  const takeNotes = () => {
    const typed = userNotes.takeAll();
    for (const note of typed) session.emit({ type: "note_delivered", ...note });
    return [...typed.map(noteForModel), ...(options.turnNotes?.() ?? [])];
  };
  const mcpWrapped = mcp ? mcp.wrap(tools, config.commands) : tools;
  // Notes are added inside the scrubber: an inbox message is outside text like a tool's output.
  const host = selectTools(
    onDemandTools(
      scrubbedTools(withTurnNotes(await withHooks(mcpWrapped, hooks), takeNotes), secrets),
      liveSet(() => tools.deferredTools()),
      () => window(),
    ),
    options.tools,
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
  const info: SessionInfo = {
    ...sessionInfo(sessionId, config, model, limits, journal.path, tools),
    extensions: extensionsInfo(extensions),
    notifications: config.notifications,
    search: await search,
  };
  const session: NexSession = new NexSession({
    notes: userNotes,
    info,
    stream,
    price: (model) => priceFor(model, config.models[model]?.price),
    tools: {
      ...host,
      undo: async (turns) =>
        (await import("../history/index.ts")).undoResultOf(await host.undo(turns)),
      saveApproval: async (call) =>
        (await import("../config/index.ts")).saveApprovalLine(
          config.configPath ?? defaultConfigPath(env),
          // Keyed by the workspace's real path, as every grant is.
          realPathOf(config.workspace),
          call.name.startsWith("mcp__") ? { rules: [call.name] } : await tools.savableRules(call),
        ),
    },
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
    approvals: options.approvals,
    maxTurns: config.maxTurns,
    hooks,
    expand: (prompt, run) =>
      expandPrompt(prompt, extensions.commands, {
        workspace: config.workspace,
        allowedPaths: config.allowedPaths,
        privatePaths: [config.dataDir],
        // Attachments may take twice a tool result's share of the window.
        attachLimit: 2 * resultCapForWindow(budget.window()),
        run,
        consent: consentPlace({
          env,
          workspace: config.workspace,
          writable: config.sandbox.writable ?? [],
        }),
        announce: (message) => session.emit({ type: "notice", message }),
        model: current.model,
        acceptsImages: acceptsImages(current.model, config.models[current.model]),
      }),
    secrets,
    ...(mcp ? { onClose: () => mcp.close(), mcpStatus: () => mcp.describe() } : {}),
    // Sessions are per workspace: another project's opens only when asked for by its id, from there;
    // where a repository could ship journals, only the sessions nex started for this user are listed.
    listSessions: async (scope) =>
      ownSessionsOnly(
        env,
        config,
        await (await import("../history/index.ts")).summariesIn(
          config.dataDir,
          scope === "all" ? undefined : config.workspace,
        ),
      ),
    setReasoning: (effort) =>
      effort === null ? reasoning.describe(current.model) : reasoning.set(effort, current.model),
    listModels: async () => {
      const { describeServed, servedModels } = await import("../config/index.ts");
      return describeServed(await servedModels(config), current.model);
    },
    modelChoices: async () => (await import("../session/index.ts")).modelChoices(config, current),
    switchModel: async (asked) =>
      (await (await import("../session/index.ts")).modelSwitcher(config, current, budget))(asked),
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
  // A resumed session's first prompt starts from the summary kept beside the journal, and names the
  // files that changed since the model read them.
  const resumeNote =
    resumed !== null
      ? (await import("./changed-since-read.ts")).resumeNote(
          await readSessionSummary(journal.path),
          ledger ?? [],
          config.workspace,
        )
      : null;
  await session.startHooks(resumed !== null ? "resume" : "startup", resumeNote);
  const todos = latestTodos(messages);
  if (todos && todos.length > 0) events.push({ type: "todo_updated", items: todos });
  return { session, events, tools: host.specs().map((spec) => spec.name) };
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

/** The sessions of a configuration, newest first (see `session-list.ts`). */
export async function listSessionsFor(
  flags: ConfigFlags,
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<SessionSummary[]> {
  return (await import("../history/index.ts")).listSessionsFor(flags, env, cwd);
}

/** A set that follows a list returned anew only when it changes (the tools' deferred names). */
function liveSet(names: () => readonly string[]): () => ReadonlySet<string> {
  let seen: readonly string[] | null = null;
  let set: ReadonlySet<string> = new Set();
  return () => {
    const now = names();
    if (now !== seen) {
      seen = now;
      set = new Set(now);
    }
    return set;
  };
}

/** No MCP server configured: only what gathering them had to say. */
function noMcp(set: { notices: string[] }, events: AgentEvent[]): null {
  for (const message of set.notices) events.push({ type: "notice", message });
  return null;
}

/** The tools with the hooks around each call; without hooks, the tools as they are. */
async function withHooks<T extends ToolHost>(tools: T, hooks: Hooks): Promise<T> {
  if (hooks.count === 0) return tools;
  return (await import("../hooks/index.ts")).hookedTools(tools, hooks);
}
