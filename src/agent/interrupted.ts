// An answer the user interrupted stays in the conversation, as far as it came and marked, so the
// model knows it was cut off and the wire never carries two user messages in a row.
import type { AgentEvent, Message } from "../protocol/index.ts";

/**
 * Adds the interrupted answer (or just the mark) when the conversation does not end in an answer;
 * `why` says who stopped it (the user, a time budget), as the run's end does.
 */
export function* keepInterrupted(
  messages: Message[],
  why: string,
  partial = "",
): Generator<AgentEvent> {
  const last = messages[messages.length - 1];
  if (!last || last.type === "assistant") return;
  const mark = `[${why}]`;
  const text = partial.trim() ? `${partial.trimEnd()}\n\n${mark}` : mark;
  const message: Message = { type: "assistant", text, toolCalls: [] };
  messages.push(message);
  yield { type: "message_added", message };
}
