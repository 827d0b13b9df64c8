import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { buildSystemPrompt } from "../agent/system-prompt.ts";
import type { AgentEvent, Message, ReadRecord, StreamFn } from "../protocol/index.ts";
import { fetchModelList, hostOf } from "../providers/index.ts";
import {
  acquireSessionLock,
  contextBudget,
  createJournal,
  createTokenEstimator,
  describeFit,
  findSession,
  type Journal,
  listSessions,
  loadForResume,
  openJournal,
} from "../session/index.ts";
import {
  createToolHost,
  describePreview,
  lastChangedSession,
  latestTodos,
  previewUndo,
  readWorkspaceOwnFile,
  resultCapForWindow,
  type ToolHostOptions,
  todoNote,
  toolSpecs,
  undoWorkspace,
} from "../tools/index.ts";
import type { SessionInfo } from "./agent-session.ts";
import { compactConversation } from "./compactor.ts";
import { concealInProcEnviron } from "./conceal-environment.ts";
import { ConfigError, type ConfigFlags, type NexConfig, resolveConfig } from "./config.ts";
import { prepareDataDir } from "./data-dir.ts";
import { createClient, endpointFetch, limitsFor, unreachableMessage } from "./endpoint-client.ts";
import { expandPrompt, loadExtensions } from "./extensions/index.ts";
import {
  createHooks,
  describeHooks,
  type HookHost,
  type Hooks,
  hookedTools,
  loadHooks,
} from "./hooks/index.ts";
import { journalSink } from "./journal-sink.ts";
import { type ApprovalPolicy, NexSession } from "./nex-session.ts";
import { createSessionBudget } from "./request-budget.ts";
import { scrubbedHooks } from "./scrubbed-hooks.ts";
import { scrubbedTools } from "./scrubbed-tools.ts";
import { summariesIn } from "./session-list.ts";
import { concealedValues, sessionScrubber, toolEnvironment } from "./session-secrets.ts";
import { summarizeForQuestion } from "./summarize-step.ts";
import { webTools } from "./web-tools.ts";

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
  /** The editor's unsaved buffers (`nex acp`), seen by the file tools. */
  editor?: ToolHostOptions["editor"];
}

/** An open session and the events of its opening (start, resume fitting), for the UI to show first. */
export interface OpenedSession {
  session: NexSession;
  events: AgentEvent[];
}

// The workspace's instructions are included up to this size; beyond it they are cut, not sent whole.
const AGENTS_MD_LIMIT = 64 * 1024;

/** Builds a running session from flags, environment and config: the composition root. */
export async function openSession(
  flags: ConfigFlags,
  environment: Record<string, string | undefined>,
  cwd: string,
  options: OpenOptions,
): Promise<OpenedSession> {
  // A copy: concealing the secrets below changes what `process.env` shows.
  const env = { ...environment };
  let config = resolveConfig(flags, env, cwd);
  const events: AgentEvent[] = [];
  const resumed = options.resume
    ? await locate(config, options.resume, flags.cwd !== undefined)
    : null;
  if (resumed) {
    config = {
      ...config,
      workspace: flags.cwd ? config.workspace : resumed.workspace,
      model: config.model ?? resumed.model,
    };
    if (!existsSync(config.workspace)) {
      throw new ConfigError(
        `Session ${resumed.sessionId} worked in ${config.workspace}, which no longer exists. Pass --cwd DIR to continue it in another directory.`,
      );
    }
  }
  const model = config.model ?? (await onlyModel(config, events));
  if (!model) {
    throw new ConfigError(
      "No model given. Pass --model NAME (or set NEX_MODEL, or `model` in the config file).",
    );
  }
  const stream = options.stream ?? createClient(config);
  const limits = await limitsFor(config, model);
  // Said once, with the address, instead of a guessed window and six failed attempts.
  if (limits.unreachable !== undefined && !options.stream) {
    throw new ConfigError(unreachableMessage(config, limits.unreachable));
  }
  // Discovery asks the endpoint (a few GETs, no retries); say what it found, so no request is hidden.
  if (limits.source === "default" || limits.source === "endpoint") {
    events.push({
      type: "notice",
      message: `Context window ${limits.contextWindow} tokens: ${limits.sourceDetail}.`,
    });
  }

  const extensions = await loadExtensions(config.workspace, env);
  for (const problem of extensions.problems) events.push({ type: "notice", message: problem });
  const system = buildSystemPrompt({
    workspace: config.workspace,
    skills: extensions.skillsSection,
    agentsMd: await readAgentsMd(config, events),
    date: new Date().toISOString().slice(0, 10),
  });
  const estimator = createTokenEstimator();
  prepareDataDir(config.dataDir);
  // One scrubber for every door a secret could leave by: tool outcomes, events, journal, checkpoints.
  const secrets = sessionScrubber(config, env);
  if (options.concealEnvironment) concealInProcEnviron(concealedValues(config, env));

  let journal: Journal;
  let messages: Message[] = [];
  let ledger: ReadRecord[] | null = null;
  // The tokenizer's count of what resume kept: the hot path's estimates continue from it.
  let baseline: { tokens: number; messages: number } | null = null;
  if (resumed) {
    const budget = contextBudget({ window: limits.contextWindow, outputLimit: limits.maxOutput });
    const fixed = estimator.countRequest({ system, tools: toolSpecs(), messages: [] });
    // Held from before the journal is read until the process lets it go: no other nex writes meanwhile.
    const lock = acquireSessionLock(resumed.journalPath, resumed.sessionId);
    if (lock.notice) events.push({ type: "notice", message: lock.notice });
    let loaded: Awaited<ReturnType<typeof loadForResume>>;
    try {
      loaded = await loadForResume(resumed.journalPath, {
        budgetTokens: Math.max(0, budget.promptBudget - fixed),
        estimator,
      });
      journal = await openJournal(resumed.journalPath, {
        sync: "turn",
        ledger: loaded.ledger,
        tail: loaded.tail,
        secrets,
        lock,
      });
    } catch (error) {
      lock.release();
      throw error;
    }
    for (const repair of loaded.repairs) journal.appendMessage(repair);
    messages = loaded.messages;
    ledger = loaded.ledger;
    baseline = { tokens: fixed + loaded.tokensKept, messages: messages.length };
    for (const warning of [...loaded.warnings, ...journal.warnings])
      events.push({ type: "notice", message: warning });
    const line = describeFit(loaded, { model, window: limits.contextWindow });
    if (loaded.droppedMessages || loaded.summarised) {
      events.push({
        type: "context_fitted",
        method: loaded.summarised ? "compacted" : "truncated",
        messagesBefore: loaded.totalMessages ?? loaded.keptMessages,
        messagesKept: loaded.keptMessages,
        tokensBefore: loaded.tokensTotalEstimate ?? loaded.tokensKept,
        tokensKept: loaded.tokensKept,
        line,
      });
    } else {
      events.push({ type: "notice", message: line });
    }
  } else {
    journal = await createJournal(
      config.dataDir,
      {
        workspace: config.workspace,
        provider: config.provider,
        model,
        baseUrl: config.baseUrl,
      },
      { secrets },
    );
  }
  const sessionId = journal.meta.id;
  const checkpointDir = join(config.dataDir, "checkpoints", sessionId);
  const tools = createToolHost({
    workspace: config.workspace,
    mode: config.permissionMode,
    rules: config.commands,
    allowedPaths: config.allowedPaths,
    // With `--data-dir workspace` the journals and checkpoints sit in the workspace: tools keep out.
    privatePaths: [config.dataDir],
    checkpointDir,
    env: toolEnvironment(env, config),
    redact: (text) => secrets.scrub(text).text,
    ...(ledger ? { ledger } : {}),
    sandbox: {
      ...config.sandbox,
      // Commands never read nex's journals, checkpoints or config.
      privatePaths: [config.dataDir, ...(config.configPath ? [dirname(config.configPath)] : [])],
    },
    unattended: options.approvals === "refuse",
    // In a conversation a dev server outlives the prompt that started it; a one-task run ends its jobs.
    jobsOutlivePrompts: options.approvals === "interactive",
    // A result's share follows the window the session has now (/model and a 400 can change it).
    resultCap: () => resultCapForWindow(budget.window()),
    resultsDir: join(config.dataDir, "results", sessionId),
    extraTools: [
      ...extensions.tools,
      ...webTools({
        config,
        env,
        window: () => budget.window(),
        summarize: (input, signal) =>
          summarizeForQuestion(input, signal, {
            stream: () => current.stream,
            model: () => current.model,
            emit: (event) => session.emit(event),
            nextRequestId: () => session.nextRequestId(),
          }),
      }),
    ],
    onProgress: (callId, name, message) =>
      session.emit({ type: "tool_progress", callId, name, message }),
    ...(options.editor ? { editor: options.editor } : {}),
  });
  const hooks = scrubbedHooks(
    await openHooks(config, env, events, {
      launch: (command, cwd) => tools.sandbox.launch(command, cwd),
      workspace: config.workspace,
      sessionId,
      transcriptPath: journal.path,
      env: toolEnvironment(env, config),
      notice: (message) => session.emit({ type: "notice", message }),
    }),
    secrets,
  );
  const host = scrubbedTools(hookedTools(tools, hooks), secrets);

  const info: SessionInfo = {
    sessionId,
    provider: config.provider,
    model,
    host: hostOf(config.baseUrl),
    workspace: config.workspace,
    contextWindow: limits.contextWindow,
    windowSource: limits.source,
    permissionMode: config.permissionMode,
    journalPath: journal.path,
    sandbox: {
      mode: tools.sandbox.mode,
      network: tools.sandbox.network,
      state: tools.sandbox.state().type,
      line: tools.sandbox.describe(),
    },
    extensions: {
      commands: extensions.commands.map(({ name, description, argumentHint }) => ({
        name,
        description,
        argumentHint,
      })),
      skills: extensions.skills.map(({ name, description }) => ({ name, description })),
    },
  };
  const budget = createSessionBudget({
    window: limits.contextWindow,
    maxOutput: limits.maxOutput,
    tools: () => host.specs(),
  });
  if (baseline) budget.observeUsage(baseline.tokens, 0, baseline.messages);
  let current = { stream, model, limits };
  const compactor = {
    stream: () => current.stream,
    model: () => current.model,
    window: () => budget.window(),
    estimator,
    journal,
    emit: (event: AgentEvent) => session.emit(event),
    nextRequestId: () => session.nextRequestId(),
  };
  const compactNow = async (history: Message[], signal: AbortSignal) => {
    const todos = latestTodos(history);
    const result = await compactConversation(history, signal, compactor);
    budget.forgetUsage();
    if (!result) return null;
    // The checklist is what a small model loses first; it comes back verbatim after the summary.
    const note = todos ? todoNote(todos) : null;
    if (note && latestTodos(result.messages) === null) {
      result.messages.push(note);
      journal.appendMessage(note);
    }
    return { messages: result.messages, line: result.line };
  };
  const session: NexSession = new NexSession({
    info,
    stream,
    tools: { ...host, undo: async (turns) => (await host.undo(turns)).text },
    journal: journalSink(journal),
    system,
    messages,
    budget,
    compactor: async (history, signal) => (await compactNow(history, signal))?.messages ?? null,
    compactNow,
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
      }),
    secrets,
    listSessions: async () => summariesIn(config.dataDir),
    switchModel: async (next) => {
      const nextLimits = await limitsFor(config, next);
      // The client does not depend on the model (each request names it): only the limits change.
      current = { stream: current.stream, model: next, limits: nextLimits };
      budget.setLimits({ window: nextLimits.contextWindow, maxOutput: nextLimits.maxOutput });
      return {
        stream: current.stream,
        model: next,
        line: `Model is now ${next}: window ${nextLimits.contextWindow} tokens (${nextLimits.sourceDetail}).`,
      };
    },
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
  await session.startHooks(resumed !== null ? "resume" : "startup");
  const todos = latestTodos(messages);
  if (todos && todos.length > 0) events.push({ type: "todo_updated", items: todos });
  return { session, events };
}

/**
 * With no model given, a server that serves exactly one (llama.cpp, a single vLLM model) is asked
 * which; several are listed in the error so the user can pick.
 */
async function onlyModel(config: NexConfig, events: AgentEvent[]): Promise<string | null> {
  const answer = await fetchModelList({
    fetch: endpointFetch(config),
    baseUrl: config.baseUrl,
    kind: config.provider,
    timeoutMs: 1500,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
  });
  if (answer.type === "unreachable") {
    throw new ConfigError(
      `${unreachableMessage(config, answer.message.replace(/^\S+: /, ""))} No model was given, and nex could not ask which the endpoint serves: pass --model NAME once it is up.`,
    );
  }
  const models = answer.type === "answered" ? answer.models : null;
  if (!models || models.length === 0) return null;
  const [only] = models;
  if (models.length === 1 && only) {
    events.push({
      type: "notice",
      message: `No model given; using ${only}, the only model the endpoint serves.`,
    });
    return only;
  }
  const shown = models.slice(0, 12).join(", ");
  throw new ConfigError(
    `No model given, and the endpoint serves ${models.length}: ${shown}${models.length > 12 ? ", ..." : ""}. Pass one with --model NAME (or set NEX_MODEL).`,
  );
}

async function locate(config: NexConfig, id: string, workspaceGiven: boolean) {
  const lookup = await findSession(
    config.dataDir,
    id,
    id === "last" || workspaceGiven ? { workspace: config.workspace } : {},
  );
  if (lookup.type !== "found") throw new ConfigError(lookup.message);
  return lookup.session;
}

/**
 * The workspace's instructions, read like a tool would read them: through the workspace guard (a link
 * to a file outside it is not followed), only a regular file, at most 64 KiB. Why one was not sent,
 * or was cut, is a notice the user sees before the first request.
 */
async function readAgentsMd(config: NexConfig, events: AgentEvent[]): Promise<string | null> {
  const read = await readWorkspaceOwnFile({
    workspace: config.workspace,
    name: "AGENTS.md",
    limit: AGENTS_MD_LIMIT,
    allowedPaths: config.allowedPaths,
    privatePaths: [config.dataDir],
  });
  if (read.type === "missing") return null;
  if (read.type === "refused") {
    events.push({
      type: "notice",
      message: `AGENTS.md was not read, so the model does not see it: ${read.reason}. Make it a regular file inside the workspace (a link may point into a folder listed in \`allowedPaths\`).`,
    });
    return null;
  }
  if (read.truncated) {
    events.push({
      type: "notice",
      message: `AGENTS.md is ${read.size} bytes; only its first ${AGENTS_MD_LIMIT / 1024} KiB are sent to the model. Shorten it to send it whole.`,
    });
  }
  return read.text;
}

/**
 * `nex undo`: restores the workspace of a session to before its last `turns` prompts (or, with
 * `list`, says what each step would restore). Without a session id it takes the session that last
 * changed files in this workspace, not merely the last one opened.
 */
export async function undoSession(
  flags: ConfigFlags,
  env: Record<string, string | undefined>,
  cwd: string,
  id: string,
  turns: number,
  options: { list?: boolean; includeUnsure?: boolean } = {},
): Promise<{ ok: boolean; text: string }> {
  const config = resolveConfig(flags, env, cwd);
  const checkpointDirOf = (sessionId: string) => join(config.dataDir, "checkpoints", sessionId);
  let found: { workspace: string; sessionId: string; journalPath: string };
  let which = "";
  if (id === "last") {
    const sessions = await listSessions(config.dataDir, { workspace: config.workspace });
    const changed = await lastChangedSession(sessions, checkpointDirOf);
    if (!changed) {
      return {
        ok: true,
        text:
          sessions.length === 0
            ? `Nothing to undo: no saved session for ${config.workspace}.`
            : `Nothing to undo: no session recorded file changes in ${config.workspace} that are not undone yet.`,
      };
    }
    found = changed;
    which = `Session ${changed.sessionId} (the last that changed files here): `;
  } else found = await locate(config, id, true);
  const common = {
    workspace: found.workspace,
    checkpointDir: checkpointDirOf(found.sessionId),
    privatePaths: [config.dataDir],
  };
  if (options.list) {
    const text = describePreview(await previewUndo(common));
    return { ok: true, text: `${which}${which ? "\n" : ""}${text}` };
  }
  // A running nex on this session would go on changing the files undo restores.
  const lock = acquireSessionLock(found.journalPath, found.sessionId);
  try {
    const report = await undoWorkspace({
      ...common,
      turns,
      ...(options.includeUnsure ? { includeUnsure: true } : {}),
    });
    const notice = lock.notice ? `${lock.notice}\n` : "";
    return { ok: report.failed.length === 0, text: `${notice}${which}${report.text}` };
  } finally {
    lock.release();
  }
}

/** `nex compact`: opens a session, asks the model to summarise its older part, and journals it. */
export async function compactSession(
  flags: ConfigFlags,
  env: Record<string, string | undefined>,
  cwd: string,
  id: string,
  render: (info: SessionInfo) => (event: AgentEvent) => void,
): Promise<{ ok: boolean; line: string }> {
  const { session, events } = await openSession(flags, env, cwd, {
    resume: id,
    approvals: "refuse",
  });
  const listener = render(session.info);
  for (const event of events) listener(event);
  session.subscribe(listener);
  try {
    const line = await session.compact();
    return { ok: !line.startsWith("Compaction did not happen"), line };
  } finally {
    await session.close();
  }
}
export { listSessionsFor } from "./session-list.ts";

/** The hooks that run in this session; a project's wait for the user's approval, said once. */
async function openHooks(
  config: NexConfig,
  env: Record<string, string | undefined>,
  events: AgentEvent[],
  host: HookHost,
): Promise<Hooks> {
  const loaded = await loadHooks({
    workspace: config.workspace,
    userHooks: config.hooks,
    configLabel: config.configPath ?? "the config file",
    dataDir: config.dataDir,
    privatePaths: [config.dataDir],
  });
  for (const problem of loaded.problems) events.push({ type: "notice", message: problem });
  if (loaded.unapproved) {
    const list = describeHooks(loaded.unapproved.entries).slice(0, 5).join("; ");
    events.push({
      type: "notice",
      message: `This project has hooks that nex does not run until you approve them (a hook is a command run on your machine): ${list}. Review them with \`nex hooks\`, then approve with \`nex hooks approve\` in this folder.`,
    });
  }
  void env;
  return createHooks(loaded.active, host);
}
