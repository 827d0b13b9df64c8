import { join } from "node:path";
import type { AgentEvent, Message, ReadRecord } from "../../protocol/index.ts";
import {
  acquireSessionLock,
  contextBudget,
  createJournal,
  describeFit,
  type Journal,
  loadForResume,
  openJournal,
  type SecretScrubber,
  type TokenEstimator,
} from "../../session/index.ts";
import { toolSpecs } from "../../tools/index.ts";
import type { NexConfig } from "../config/index.ts";
import { recordOwnSession } from "../history/index.ts";
import { textRedaction } from "../secrets/index.ts";
import { createImageStore } from "../session/index.ts";
import type { ResumedSession } from "./open-config.ts";
import type { ModelLimits } from "./open-limits.ts";

/** The journal a session writes to, and what a resume brought back from it. */
export interface SessionJournal {
  journal: Journal;
  messages: Message[];
  ledger: ReadRecord[] | null;
  /** The tokenizer's count of what resume kept: the hot path's estimates continue from it. */
  baseline: { tokens: number; messages: number } | null;
}

/** What opening the journal needs. */
export interface JournalParts {
  config: NexConfig;
  model: string;
  limits: ModelLimits;
  system: string;
  estimator: TokenEstimator;
  secrets: SecretScrubber;
  events: AgentEvent[];
  /** `--role NAME`, kept in a new journal's header. */
  role?: string;
}

/** Step 5: a new journal, or the resumed one, locked, read back within the window's budget. */
export async function openSessionJournal(
  resumed: ResumedSession | null,
  parts: JournalParts,
): Promise<SessionJournal> {
  const { config, model, secrets } = parts;
  if (!resumed) {
    const journal = await createJournal(
      config.dataDir,
      {
        workspace: config.workspace,
        provider: config.provider,
        model,
        baseUrl: config.baseUrl,
        ...(parts.role ? { role: parts.role } : {}),
      },
      { secrets, redact: textRedaction(secrets) },
    );
    return { journal, messages: [], ledger: null, baseline: null };
  }
  return resumeJournal(resumed, parts);
}

async function resumeJournal(
  resumed: ResumedSession,
  parts: JournalParts,
): Promise<SessionJournal> {
  const { model, limits, system, estimator, secrets, events } = parts;
  const budget = contextBudget({ window: limits.contextWindow, outputLimit: limits.maxOutput });
  const fixed = estimator.countRequest({ system, tools: toolSpecs(), messages: [] });
  // Held from before the journal is read until the process lets it go: no other nex writes meanwhile.
  const lock = acquireSessionLock(resumed.journalPath, resumed.sessionId);
  if (lock.notice) events.push({ type: "notice", message: lock.notice });
  let loaded: Awaited<ReturnType<typeof loadForResume>>;
  let journal: Journal;
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
      redact: textRedaction(secrets),
      lock,
    });
  } catch (error) {
    lock.release();
    throw error;
  }
  for (const repair of loaded.repairs) journal.appendMessage(repair);
  // Images are kept beside the journal, which names them: loaded back here.
  const withImages = createImageStore(
    sessionImagesDir(parts.config.dataDir, resumed.sessionId),
  ).loaded(loaded.messages);
  loaded.warnings.push(...withImages.warnings);
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
  return {
    journal,
    messages: withImages.messages,
    ledger: loaded.ledger,
    baseline: { tokens: fixed + loaded.tokensKept, messages: withImages.messages.length },
  };
}

/** Where a session's images are kept (see image-store.ts). */
export function sessionImagesDir(dataDir: string, sessionId: string): string {
  return join(dataDir, "images", sessionId);
}

/** A new session joins this workspace's own sessions and, with `--session-id`, takes its name. */
export async function recordNewSession(
  env: Record<string, string | undefined>,
  config: NexConfig,
  sessionId: string,
  name: string | undefined,
): Promise<void> {
  recordOwnSession(env, config, sessionId);
  if (name)
    await (await import("../history/index.ts")).nameSession(config.dataDir, name, sessionId);
}
