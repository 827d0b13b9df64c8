import type { Message, ToolResultMessage } from "../protocol/index.ts";

/**
 * Where a kept suffix of a conversation may begin without separating a tool call from its result.
 * Index i is a safe start when:
 * - message i is not a tool result;
 * - every tool result at or after i answers a call made at or after i (a result whose call is not in the
 *   list at all counts as answering a call before it, so a suffix never holds an orphan result);
 * - every assistant message at or after i has all its results, except one followed only by tool results
 *   at the very end (a crash can end a journal between a call and its result; `closeOpenCalls` answers it).
 * Tool call ids are matched to the nearest preceding call with that id, because some servers reuse ids.
 */
export function safeStarts(messages: readonly Message[]): boolean[] {
  const n = messages.length;
  const callOf = new Array<number>(n).fill(Number.POSITIVE_INFINITY);
  const latestCall = new Map<string, number>();
  const trailing = trailingAssistantIndex(messages);
  let lastIncomplete = -1;
  for (let i = 0; i < n; i++) {
    const m = messages[i] as Message;
    if (m.type === "assistant") {
      for (const call of m.toolCalls) latestCall.set(call.id, i);
      if (i !== trailing && missingResults(messages, i).length > 0) {
        lastIncomplete = i;
      }
    } else if (m.type === "tool_result") {
      callOf[i] = latestCall.get(m.toolCallId) ?? -1;
    }
  }
  const safe = new Array<boolean>(n).fill(false);
  let minCall = Number.POSITIVE_INFINITY;
  for (let i = n - 1; i >= 0; i--) {
    minCall = Math.min(minCall, callOf[i] as number);
    const m = messages[i] as Message;
    safe[i] = m.type !== "tool_result" && minCall >= i && i > lastIncomplete;
  }
  return safe;
}

/** The last assistant message when only tool results follow it, else -1. */
function trailingAssistantIndex(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const type = messages[i]?.type;
    if (type === "assistant") return i;
    if (type !== "tool_result") return -1;
  }
  return -1;
}

/** The ids of calls of the assistant message at `index` that no following tool result answers. */
export function missingResults(messages: readonly Message[], index: number): string[] {
  const m = messages[index];
  if (m?.type !== "assistant" || m.toolCalls.length === 0) return [];
  const answered = new Set<string>();
  for (let j = index + 1; j < messages.length; j++) {
    const r = messages[j] as Message;
    if (r.type !== "tool_result") break;
    answered.add(r.toolCallId);
  }
  return m.toolCalls.filter((c) => !answered.has(c.id)).map((c) => c.id);
}

/**
 * Results for the calls of a final assistant message that have none (the session ended while they ran),
 * so the conversation is valid to send again. They say the outcome is unknown rather than inventing one.
 */
export function closeOpenCalls(messages: readonly Message[]): ToolResultMessage[] {
  const last = trailingAssistantIndex(messages);
  const assistant = messages[last];
  if (assistant?.type !== "assistant") return [];
  const missing = new Set(missingResults(messages, last));
  return assistant.toolCalls
    .filter((c) => missing.has(c.id))
    .map((c) => ({
      type: "tool_result",
      toolCallId: c.id,
      toolName: c.name,
      isError: true,
      content:
        "No result was recorded for this call: the session ended before it finished, so whether it " +
        "ran, and what it changed, is unknown. Check the workspace (read the files involved) before relying on it.",
    }));
}

/**
 * The start index of the suffix to keep within `budget` tokens (`tokens[i]` is message i's count).
 * Among safe starts whose suffix fits, the earliest is taken, except that (with `preferUser`, when
 * something is being cut anyway) a user message is preferred if starting there still keeps at least half
 * as many tokens. Returns `messages.length` when no safe start fits (nothing can be kept).
 */
export function chooseStart(
  messages: readonly Message[],
  tokens: readonly number[],
  budget: number,
  options: { safe?: readonly boolean[]; preferUser?: boolean } = {},
): number {
  const safe = options.safe ?? safeStarts(messages);
  let sum = 0;
  let earliest = messages.length;
  let earliestUser = messages.length;
  let sumAtEarliest = 0;
  let sumAtUser = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    sum += tokens[i] ?? 0;
    if (sum > budget) break;
    if (!safe[i]) continue;
    earliest = i;
    sumAtEarliest = sum;
    if (messages[i]?.type === "user") {
      earliestUser = i;
      sumAtUser = sum;
    }
  }
  const prefer = options.preferUser ?? true;
  if (prefer && earliestUser < messages.length && sumAtUser * 2 >= sumAtEarliest)
    return earliestUser;
  return earliest;
}
