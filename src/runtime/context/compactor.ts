import { createAttemptRelay } from "../../agent/request-events.ts";
import type { AgentEvent, Message, StreamFn } from "../../protocol/index.ts";
import {
  type CompactionResult,
  type Journal,
  planCompaction,
  runCompaction,
  type SummaryRequest,
  type TokenEstimator,
} from "../../session/index.ts";

/** What a compaction needs from the running session. */
export interface CompactorParts {
  stream: () => StreamFn;
  model: () => string;
  window: () => number;
  estimator: TokenEstimator;
  journal: Journal;
  emit: (event: AgentEvent) => void;
  nextRequestId: () => number;
}

// Below this many tokens the older part is not worth a summary request.
const WORTH_SUMMARISING = 512;

/** What a compaction came to: the new conversation, or why there is none (the old one stands). */
export type CompactionOutcome =
  | { type: "compacted"; result: CompactionResult }
  | { type: "not_needed"; reason: string }
  | { type: "failed"; reason: string };

/**
 * Summarises the older part of a conversation through the model, one visible request at a time, and
 * journals the result. Says nothing itself: the caller announces the outcome in one line. It never
 * retries beyond the provider's own policy.
 */
export async function compactConversation(
  messages: Message[],
  signal: AbortSignal,
  parts: CompactorParts,
  keepRecentTokens?: number,
): Promise<CompactionOutcome> {
  const window = parts.window();
  const plan = planCompaction(messages, {
    window,
    estimator: parts.estimator,
    ...(keepRecentTokens ? { keepRecentTokens } : {}),
  });
  if (!plan) {
    return {
      type: "not_needed",
      reason:
        messages.length === 0
          ? "the conversation is empty"
          : "there is no older part to summarise (the conversation is already as short as it can be)",
    };
  }
  // A summary takes a few hundred tokens itself: replacing less than that makes nothing smaller.
  if (plan.prefixTokens < WORTH_SUMMARISING) {
    return {
      type: "not_needed",
      reason: `the older part is only ~${plan.prefixTokens} tokens, less than a summary of it would take`,
    };
  }
  try {
    const result = await runCompaction(plan, {
      window,
      estimator: parts.estimator,
      journalSeq: parts.journal.seq,
      summarise: (request) => summarise(request, signal, parts),
    });
    parts.journal.appendCompaction(result.record);
    return { type: "compacted", result };
  } catch (error) {
    return {
      type: "failed",
      reason: signal.aborted ? "interrupted" : (error as Error).message.replace(/\.$/, ""),
    };
  }
}

async function summarise(
  request: SummaryRequest,
  signal: AbortSignal,
  parts: CompactorParts,
): Promise<string> {
  const requestId = parts.nextRequestId();
  const model = parts.model();
  const relay = createAttemptRelay({
    requestId,
    model,
    maxTokens: request.maxTokens,
    purpose: "compaction",
  });
  const body = {
    model,
    system: request.system,
    messages: request.messages,
    tools: [],
    maxTokens: request.maxTokens,
    requestId,
  };
  for await (const event of parts.stream()(body, signal)) {
    const relayed = relay(event);
    if (relayed) parts.emit(relayed);
    if (event.type === "error") throw new Error(event.error.message);
    if (event.type === "done") {
      const { turn } = event;
      if (!turn.terminated || turn.stopReason === "length") {
        throw new Error("the summary was cut off before it ended, so it was not used");
      }
      if (!turn.text.trim()) throw new Error("the model returned an empty summary");
      return turn.text;
    }
  }
  throw new Error("the summary request ended without a result");
}
