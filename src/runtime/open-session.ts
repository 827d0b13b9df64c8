import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { buildSystemPrompt } from "../agent/system-prompt.ts";
import type { AgentEvent, Message, ReadRecord, StreamFn } from "../protocol/index.ts";
import { hostOf, listModels } from "../providers/index.ts";
import {
  acquireSessionLock,
  contextBudget,
  createJournal,
  createTokenEstimator,
  describeFit,
  findSession,
  type Journal,
  loadForResume,
  openJournal,
} from "../session/index.ts";
import { createToolHost, toolSpecs, undoWorkspace } from "../tools/index.ts";
import type { SessionInfo } from "./agent-session.ts";
import { compactConversation } from "./compactor.ts";
import { ConfigError, type ConfigFlags, type NexConfig, resolveConfig } from "./config.ts";
import { createClient, endpointFetch, limitsFor } from "./endpoint-client.ts";
import { journalSink } from "./journal-sink.ts";
import { type ApprovalPolicy, NexSession } from "./nex-session.ts";
import { createSessionBudget } from "./request-budget.ts";
import { summariesIn } from "./session-list.ts";

/** How to open a session. */
export interface OpenOptions {
  /** A session id, unique prefix, or "last"; null starts a new session. */
  resume: string | null;
  approvals: ApprovalPolicy;
  /** Overrides the provider client (the demo and tests use the real one; this is for embedding). */
  stream?: StreamFn;
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
  env: Record<string, string | undefined>,
  cwd: string,
  options: OpenOptions,
): Promise<OpenedSession> {
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
  // Discovery asks the endpoint (a few GETs, no retries); say what it found, so no request is hidden.
  if (limits.source === "default" || limits.source === "endpoint") {
    events.push({
      type: "notice",
      message: `Context window ${limits.contextWindow} tokens: ${limits.sourceDetail}.`,
    });
  }

  const system = buildSystemPrompt({
    workspace: config.workspace,
    agentsMd: readAgentsMd(config.workspace),
    date: new Date().toISOString().slice(0, 10),
  });
  const estimator = createTokenEstimator();

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
        secrets: secretsOf(config),
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
      { secrets: secretsOf(config) },
    );
  }
  const sessionId = journal.meta.id;
  const checkpointDir = join(config.dataDir, "checkpoints", sessionId);
  const host = createToolHost({
    workspace: config.workspace,
    mode: config.permissionMode,
    rules: config.commands,
    allowedPaths: config.allowedPaths,
    // With `--data-dir workspace` the journals and checkpoints sit in the workspace: tools keep out.
    privatePaths: [config.dataDir],
    checkpointDir,
    env: toolEnvironment(env, config),
    ...(ledger ? { ledger } : {}),
  });

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
    const result = await compactConversation(history, signal, compactor);
    budget.forgetUsage();
    return result ? { messages: result.messages, line: result.line } : null;
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
  });
  return { session, events };
}

/**
 * With no model given, a server that serves exactly one (llama.cpp, a single vLLM model) is asked
 * which; several are listed in the error so the user can pick.
 */
async function onlyModel(config: NexConfig, events: AgentEvent[]): Promise<string | null> {
  const models = await listModels({
    fetch: endpointFetch(config),
    baseUrl: config.baseUrl,
    kind: config.provider,
    timeoutMs: 1500,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
  });
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

/** Secrets nex holds, for the journal to redact wherever a model or a tool echoes them. */
function secretsOf(config: NexConfig): string[] {
  // A proxy's password travels in its URL; it is nex's credential as much as the key is.
  const proxyPasswords = [config.proxy?.HTTP_PROXY, config.proxy?.HTTPS_PROXY].flatMap((value) => {
    const password = value ? (URL.parse(value)?.password ?? "") : "";
    return password ? [password, decodeURIComponent(password)] : [];
  });
  return [...(config.apiKey ? [config.apiKey] : []), ...new Set(proxyPasswords)];
}

/**
 * The environment for commands the model runs: nex's own credentials are left out, so `env` in a
 * command cannot put the key in front of the model or into the journal.
 */
function toolEnvironment(
  env: Record<string, string | undefined>,
  config: NexConfig,
): Record<string, string | undefined> {
  const out = { ...env };
  for (const name of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "NEX_API_KEY", config.apiKeyEnv])
    delete out[name];
  return out;
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

function readAgentsMd(workspace: string): string | null {
  const path = join(workspace, "AGENTS.md");
  if (!existsSync(path)) return null;
  const text = readFileSync(path, "utf8");
  return text.length > AGENTS_MD_LIMIT ? text.slice(0, AGENTS_MD_LIMIT) : text;
}

/** `nex undo`: restores the workspace of a session to before its last `turns` turns. */
export async function undoSession(
  flags: ConfigFlags,
  env: Record<string, string | undefined>,
  cwd: string,
  id: string,
  turns: number,
): Promise<{ ok: boolean; text: string }> {
  const config = resolveConfig(flags, env, cwd);
  const found = await locate(config, id, true);
  // A running nex on this session would go on changing the files undo restores.
  const lock = acquireSessionLock(found.journalPath, found.sessionId);
  try {
    const report = await undoWorkspace({
      workspace: found.workspace,
      checkpointDir: join(config.dataDir, "checkpoints", found.sessionId),
      turns,
      privatePaths: [config.dataDir],
    });
    const text = lock.notice ? `${lock.notice}\n${report.text}` : report.text;
    return { ok: report.failed.length === 0, text };
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
