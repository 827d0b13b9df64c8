import type { Compactor } from "../../agent/loop.ts";
import {
  type AgentEvent,
  type CompactResult,
  describeCompact,
  type Message,
} from "../../protocol/index.ts";
import type { Journal } from "../../session/index.ts";
import type { RestoreReader } from "./compaction-restore.ts";
import type { CompactorParts } from "./compactor.ts";
import type { SessionBudget } from "./request-budget.ts";

/** A compaction on request: the new conversation (null: unchanged) and what happened, as data. */
export type CompactNow = (
  history: Message[],
  signal: AbortSignal,
) => Promise<{ messages: Message[] | null; result: CompactResult }>;

/** What compacting needs from the session being opened. */
export interface CompactionParts extends CompactorParts {
  journal: Journal;
  budget: SessionBudget;
  reader: RestoreReader;
}

/**
 * Step 8: compaction, on request (`/compact`, `nex compact`) and when a request would not fit. After
 * the summary, the task, the todo list and the recent files come back verbatim; the outcome is
 * announced in one line (a `context_fitted` event, or a notice when the loop itself needed it).
 */
export function sessionCompaction(parts: CompactionParts): {
  now: CompactNow;
  automatic: Compactor;
} {
  const now: CompactNow = async (history, signal) => {
    // The compactor loads at the first compaction: most sessions never fill their window.
    const { compactConversation } = await import("./compactor.ts");
    const outcome = await compactConversation(history, signal, parts);
    parts.budget.forgetUsage();
    if (outcome.type !== "compacted")
      return { messages: null, result: { kind: outcome.type, reason: outcome.reason } };
    const { result: done } = outcome;
    const { notes, restored } = await (
      await import("./compaction-restore.ts")
    ).restoreAfterCompaction(history, done.messages, {
      window: parts.window(),
      reader: parts.reader,
    });
    for (const note of notes) parts.journal.appendMessage(note);
    const messages = [...done.messages, ...notes];
    const tokensAfter =
      done.record.tokensAfter +
      notes.reduce((sum, note) => sum + parts.estimator.estimateMessage(note), 0);
    const result: CompactResult = {
      kind: "compacted",
      messagesBefore: history.length,
      messagesAfter: messages.length,
      summarised: done.record.replacedMessages,
      tokensBefore: done.record.tokensBefore,
      tokensAfter,
      restored,
    };
    parts.emit({
      type: "context_fitted",
      method: "compacted",
      messagesBefore: history.length,
      messagesKept: messages.length,
      tokensBefore: result.tokensBefore,
      tokensKept: tokensAfter,
      line: describeCompact(result),
    });
    return { messages, result };
  };
  const automatic: Compactor = async (history, signal) => {
    const { messages, result } = await now(history, signal);
    if (!messages && !signal.aborted) parts.emit(notice(describeCompact(result)));
    return messages;
  };
  return { now, automatic };
}

function notice(message: string): AgentEvent {
  return { type: "notice", message };
}
