import { join } from "node:path";
import type { AgentEvent, StreamFn } from "../../protocol/index.ts";
import { createTokenEstimator } from "../../session/index.ts";
import { describeSearch, type ToolHostOptions } from "../../tools/index.ts";
import {
  type ConfigFlags,
  createClient,
  createReasoningControl,
  prepareDataDir,
} from "../config/index.ts";
import { createSessionBudget } from "../context/index.ts";
import { loadExtensions } from "../extensions/index.ts";
import { concealedValues, concealInProcEnviron, sessionScrubber } from "../secrets/index.ts";
import type { ApprovalPolicy, CurrentModel, NexSession, SessionSummary } from "../session/index.ts";
import { loadSubagents } from "../subagents/index.ts";
import { announceStart, buildSession } from "./build-session.ts";
import { resolveSessionConfig } from "./open-config.ts";
import { openSessionJournal, recordNewSession } from "./open-journal.ts";
import { discoverLimits } from "./open-limits.ts";
import { sessionMcpServers } from "./open-mcp.ts";
import { composeSystemPrompt } from "./open-system-prompt.ts";
import { openToolHost } from "./open-tool-host.ts";
import type { ToolSelection } from "./tool-selection.ts";

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
  // Looked up while the session opens (a few stat calls along PATH), for the chat's `/status`; a
  // session no person talks to has no use for it.
  const search = options.approvals === "interactive" ? describeSearch(cwd, environment) : undefined;
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
  const system = await composeSystemPrompt(
    config,
    env,
    events,
    extensions.skillsSection,
    options.systemPrompt,
    options.role,
  );
  const estimator = createTokenEstimator();
  prepareDataDir(config.dataDir);
  // One scrubber for every door a secret could leave by: tool outcomes, events, journal, checkpoints.
  const { set: mcpSet, secrets: mcpSecretValues } = await sessionMcpServers(
    flags,
    config,
    env,
    cwd,
    options,
  );
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
  if (resumed === null) await recordNewSession(env, config, sessionId, options.sessionName);
  let window = () => limits.contextWindow;
  const current: CurrentModel = { stream, model };
  const { tools, hooks, userNotes, host, mcp } = await openToolHost({
    config,
    env,
    sessionId,
    secrets,
    ledger,
    window: () => window(),
    extensions,
    subagents,
    mcpSet,
    journalPath: journal.path,
    events,
    current,
    session: () => session,
    open: options,
  });
  const budget = createSessionBudget({
    window: limits.contextWindow,
    maxOutput: limits.maxOutput,
    tools: () => host.specs(),
  });
  window = () => budget.window();
  if (baseline) budget.observeUsage(baseline.tokens, 0, baseline.messages);
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
    ...(search ? { search: await search } : {}),
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
