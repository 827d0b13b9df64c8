import { join } from "node:path";
import type { AgentEvent, StreamFn, ToolHost } from "../../protocol/index.ts";
import { createTokenEstimator } from "../../session/index.ts";
import { describeSearch, type ToolHostOptions } from "../../tools/index.ts";
import {
  acceptsImages,
  type ConfigFlags,
  createClient,
  createReasoningControl,
  prepareDataDir,
} from "../config/index.ts";
import { createSessionBudget } from "../context/index.ts";
import { loadExtensions, rolePrompt } from "../extensions/index.ts";
import { recordOwnSession } from "../history/index.ts";
import type { Hooks } from "../hooks/index.ts";
import { openMcpServers } from "../mcp/index.ts";
import {
  concealedValues,
  concealInProcEnviron,
  scrubbedTools,
  sessionScrubber,
  toolEnvironment,
} from "../secrets/index.ts";
import type { CurrentModel, SessionSummary } from "../session/index.ts";
import {
  type ApprovalPolicy,
  type NexSession,
  noteForModel,
  UserNotes,
  withTurnNotes,
} from "../session/index.ts";
import { askModel, loadSubagents } from "../subagents/index.ts";
import { webTools } from "../web/index.ts";
import { announceStart, buildSession } from "./build-session.ts";
import { onDemandTools } from "./on-demand-tools.ts";
import { resolveSessionConfig } from "./open-config.ts";
import { NO_HOOKS, openHooks } from "./open-hooks.ts";
import { openSessionJournal } from "./open-journal.ts";
import { discoverLimits } from "./open-limits.ts";
import { openSessionMcp } from "./open-mcp.ts";
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
  const mcp = await openSessionMcp(mcpSet, config, env, sessionId, secrets, events);
  const tools = sessionTools({
    config,
    env,
    sessionId,
    secrets,
    ledger,
    approvals: options.approvals,
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
  const session: NexSession = buildSession({
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
    search: await search,
    userNotes,
    current,
    reasoning,
    budget,
    estimator,
    secrets,
    approvals: options.approvals,
    hooks,
    mcp,
  });
  await announceStart(session, events, messages, resumed !== null, {
    journalPath: journal.path,
    ledger,
    workspace: config.workspace,
  });
  return { session, events, tools: host.specs().map((spec) => spec.name) };
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

/** The tools with the hooks around each call; without hooks, the tools as they are. */
async function withHooks<T extends ToolHost>(tools: T, hooks: Hooks): Promise<T> {
  if (hooks.count === 0) return tools;
  return (await import("../hooks/index.ts")).hookedTools(tools, hooks);
}
