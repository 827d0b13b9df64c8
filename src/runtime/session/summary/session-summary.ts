// A short summary of the session kept beside its journal (`<id>.summary.md`), rewritten every few
// prompts by the session's own model within a small budget, so a resumed agent starts from it and
// `nex sessions show ID` can say what a session did without replaying it. It is best effort: it runs
// after a prompt has ended, a failure is one notice, and it never holds a turn back. What it writes
// passes the session's redaction, as every journal record does.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { createAttemptRelay } from "../../../agent/request-events.ts";
import type { AgentEvent, Message, StreamFn } from "../../../protocol/index.ts";
import { renderMessage } from "../../../session/index.ts";

/** A summary is rewritten after every this many prompts that ended with an answer. */
export const SUMMARY_EVERY = 5;
/** The most output tokens the summary may take, and how long it may run. */
const SUMMARY_TOKENS = 400;
const SUMMARY_TIMEOUT_MS = 90_000;
/** The newest part of the conversation shown to the summariser. */
const TRANSCRIPT_BYTES = 24 * 1024;
/** The most of a summary read back (for a resume or `nex sessions show`). */
export const MAX_SUMMARY_BYTES = 8 * 1024;

const SYSTEM =
  "You keep a short running summary of a coding session for whoever continues it: the task, what was done (files changed, commands run and their results), decisions taken, and what is left. At most 200 words, plain sentences or short bullets, no preamble. Never include keys, tokens or passwords.";

/** Where a journal's summary is kept. */
export function summaryPathOf(journalPath: string): string {
  return `${journalPath.replace(/\.jsonl$/, "")}.summary.md`;
}

/** The summary kept for a journal, or null (none yet, or unreadable). */
export function readSessionSummary(journalPath: string): string | null {
  try {
    const text = readFileSync(summaryPathOf(journalPath), "utf8")
      .slice(0, MAX_SUMMARY_BYTES)
      .trim();
    return text === "" ? null : text;
  } catch {
    return null;
  }
}

export interface SummaryParts {
  journalPath: string;
  stream: StreamFn;
  model: string;
  emit: (event: AgentEvent) => void;
  nextRequestId: () => number;
  redact: (text: string) => string;
}

/** Rewrites the summary from the conversation (and the previous summary); false when it could not. */
export async function writeSessionSummary(
  messages: readonly Message[],
  parts: SummaryParts,
  signal: AbortSignal,
): Promise<boolean> {
  const previous = readSessionSummary(parts.journalPath);
  let transcript = messages.map(renderMessage).join("\n\n");
  if (transcript.length > TRANSCRIPT_BYTES)
    transcript = `[…]\n${transcript.slice(-TRANSCRIPT_BYTES)}`;
  const requestId = parts.nextRequestId();
  const relay = createAttemptRelay({
    requestId,
    model: parts.model,
    maxTokens: SUMMARY_TOKENS,
    purpose: "summary",
  });
  const request = {
    model: parts.model,
    system: SYSTEM,
    messages: [
      {
        type: "user" as const,
        text: `${previous ? `The summary so far:\n${previous}\n\n` : ""}The conversation (newest part):\n${transcript}\n\nWrite the updated summary.`,
      },
    ],
    tools: [],
    maxTokens: SUMMARY_TOKENS,
    requestId,
  };
  const timed = AbortSignal.any([signal, AbortSignal.timeout(SUMMARY_TIMEOUT_MS)]);
  try {
    for await (const event of parts.stream(request, timed)) {
      const relayed = relay(event);
      if (relayed) parts.emit(relayed);
      if (event.type === "error") throw new Error(event.error.message);
      if (event.type !== "done") continue;
      const text = event.turn.text.trim();
      if (!text || !event.turn.terminated || event.turn.stopReason === "length")
        throw new Error("the model gave no whole summary");
      const path = summaryPathOf(parts.journalPath);
      const temporary = `${path}.${process.pid}.tmp`;
      writeFileSync(temporary, `${parts.redact(text).slice(0, MAX_SUMMARY_BYTES)}\n`, {
        mode: 0o600,
      });
      renameSync(temporary, path);
      return true;
    }
    throw new Error("the request ended without a result");
  } catch (error) {
    if (!signal.aborted)
      parts.emit({
        type: "notice",
        message: `The session summary was not updated (${(error as Error).message}); the session goes on, and the next one is tried after ${SUMMARY_EVERY} more prompts.`,
      });
    return false;
  }
}
