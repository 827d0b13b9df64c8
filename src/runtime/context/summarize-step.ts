// One summarise step: a text condensed for a question through the session's own model and endpoint,
// as one visible request with no tools. Kept in one file so that a subagent's summarize can replace it.
import { createAttemptRelay } from "../../agent/request-events.ts";
import type { AgentEvent, StreamFn } from "../../protocol/index.ts";

/** What the step needs from the running session. */
export interface SummarizeParts {
  stream: () => StreamFn;
  model: () => string;
  emit: (event: AgentEvent) => void;
  nextRequestId: () => number;
}

/** What to summarise, and the most bytes the summary may take. */
export interface SummarizeInput {
  question: string;
  title: string;
  url: string;
  text: string;
  maxBytes: number;
}

const SYSTEM =
  "You summarise one web page for a question. Use only what the page says; quote exact names, versions, commands and numbers. If the page does not answer the question, say so in one sentence. No preamble.";

/** Summarises; throws with the reason when the model gave no usable summary. */
export async function summarizeForQuestion(
  input: SummarizeInput,
  signal: AbortSignal,
  parts: SummarizeParts,
): Promise<string> {
  const requestId = parts.nextRequestId();
  const model = parts.model();
  // About 3.5 bytes a token; a few hundred tokens is a note, not a page.
  const maxTokens = Math.max(128, Math.min(1024, Math.floor(input.maxBytes / 3.5)));
  const relay = createAttemptRelay({ requestId, model, maxTokens, purpose: "summary" });
  const request = {
    model,
    system: SYSTEM,
    messages: [
      {
        type: "user" as const,
        text: `Question: ${input.question}\n\nPage: ${input.title ? `${input.title} (${input.url})` : input.url}\n\n${input.text}\n\nSummarise what this page says about the question in at most ${Math.round(input.maxBytes / 6)} words.`,
      },
    ],
    tools: [],
    maxTokens,
    requestId,
  };
  for await (const event of parts.stream()(request, signal)) {
    const relayed = relay(event);
    if (relayed) parts.emit(relayed);
    if (event.type === "error") throw new Error(event.error.message);
    if (event.type === "done") {
      const text = event.turn.text.trim();
      if (!text) throw new Error("the model returned an empty summary");
      if (!event.turn.terminated || event.turn.stopReason === "length")
        return `${text} […the summary was cut off]`;
      return text;
    }
  }
  throw new Error("the summary request ended without a result");
}
