// An answer the user interrupted stays in the conversation, as far as it came and marked, so the
// model knows it was cut off and the wire never carries two user messages in a row.
import type { AgentEvent, Message } from "../protocol/index.ts";

export const INTERRUPTED_MARK = "[interrupted by the user]";

/** Adds the interrupted answer (or just the mark) when the conversation does not end in an answer. */
export function* keepInterrupted(messages: Message[], partial = ""): Generator<AgentEvent> {
  const last = messages[messages.length - 1];
  if (!last || last.type === "assistant") return;
  const text = partial.trim() ? `${partial.trimEnd()}\n\n${INTERRUPTED_MARK}` : INTERRUPTED_MARK;
  const message: Message = { type: "assistant", text, toolCalls: [] };
  messages.push(message);
  yield { type: "message_added", message };
}
