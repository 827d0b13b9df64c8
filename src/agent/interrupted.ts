// An answer the user interrupted stays in the conversation, as far as it came and marked, so the
// model knows it was cut off and the wire never carries two user messages in a row.
import type { AgentEvent, Message } from "../protocol/index.ts";

export const INTERRUPTED_MARK = "[interrupted by the user]";

/**
 * An abort that nex itself decided (its --max-time), with the words that say so. It is an
 * AbortError like any other, so whatever handles a cancellation handles it the same way.
 */
export class StopReason extends DOMException {
  constructor(words: string) {
    super(words, "AbortError");
  }
}

/** Who or what stopped the run, in words: nex's own reason when it gave one, else the user. */
export function stopWords(signal: AbortSignal): string {
  return signal.reason instanceof StopReason ? signal.reason.message : "interrupted by the user";
}

/** Adds the interrupted answer (or just the mark) when the conversation does not end in an answer. */
export function* keepInterrupted(
  messages: Message[],
  partial = "",
  words = "interrupted by the user",
): Generator<AgentEvent> {
  const last = messages[messages.length - 1];
  if (!last || last.type === "assistant") return;
  const mark = `[${words}]`;
  const text = partial.trim() ? `${partial.trimEnd()}\n\n${mark}` : mark;
  const message: Message = { type: "assistant", text, toolCalls: [] };
  messages.push(message);
  yield { type: "message_added", message };
}
