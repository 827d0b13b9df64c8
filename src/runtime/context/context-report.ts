// `/context`: what fills the model's window, by part (the system prompt, the tool definitions, the
// user's messages, the model's answers and calls, tool results), each in tokens and as a share of
// the window, with the largest results named: what to drop or compact when the window runs short.
// Parts are nex's cheap estimate (UTF-8 bytes / 3.5, as the request budget sizes them); the total is
// what the budget sizes the next request at (the endpoint's last count plus what came after).
import type { Message, ToolSpec } from "../../protocol/index.ts";
import { formatCount } from "../../protocol/index.ts";
import { cheapTextTokens, cheapTokens } from "../../session/index.ts";

/** What the report is made of. */
export interface ContextInput {
  system: string;
  tools: readonly ToolSpec[];
  messages: readonly Message[];
  window: number;
  /** What the budget sizes the next request's prompt at. */
  total: number;
}

/** One row of the report: a part of the prompt and its estimated tokens. */
export interface ContextPart {
  name: string;
  tokens: number;
}

/** The parts of the prompt, in the order a request sends them. */
export function contextParts(input: ContextInput): ContextPart[] {
  const sums = { user: 0, assistant: 0, result: 0 };
  const counts = { user: 0, assistant: 0, result: 0 };
  for (const message of input.messages) {
    const key =
      message.type === "user" ? "user" : message.type === "assistant" ? "assistant" : "result";
    sums[key] += cheapTokens(message);
    counts[key] += 1;
  }
  const toolTokens = input.tools.reduce(
    (sum, tool) => sum + cheapTextTokens(JSON.stringify(tool)) + 8,
    0,
  );
  const n = (count: number, one: string, many: string) =>
    `${formatCount(count)} ${count === 1 ? one : many}`;
  return [
    { name: "system prompt (with instruction files)", tokens: cheapTextTokens(input.system) },
    { name: `tool definitions (${n(input.tools.length, "tool", "tools")})`, tokens: toolTokens },
    {
      name: `user messages (${n(counts.user, "message", "messages")}, nex's notes included)`,
      tokens: sums.user,
    },
    {
      name: `model answers and calls (${n(counts.assistant, "turn", "turns")})`,
      tokens: sums.assistant,
    },
    { name: `tool results (${n(counts.result, "result", "results")})`, tokens: sums.result },
  ];
}

/** The largest tool results still in the conversation, each with the call that made it. */
export function largestResults(
  messages: readonly Message[],
  count: number,
): { call: string; tokens: number }[] {
  const args = new Map<string, string>();
  for (const message of messages)
    if (message.type === "assistant")
      for (const call of message.toolCalls) args.set(call.id, call.argumentsText);
  return messages
    .flatMap((message) =>
      message.type === "tool_result"
        ? [
            {
              call: callLine(message.toolName, args.get(message.toolCallId)),
              tokens: cheapTokens(message),
            },
          ]
        : [],
    )
    .sort((a, b) => b.tokens - a.tokens)
    .slice(0, count);
}

function callLine(tool: string, argumentsText: string | undefined): string {
  const text = (argumentsText ?? "").replace(/\s+/g, " ");
  return text === "" ? tool : `${tool} ${text.length > 50 ? `${text.slice(0, 49)}…` : text}`;
}

const share = (tokens: number, window: number) =>
  window > 0 ? `${Math.round((tokens / window) * 100)}%` : "?";

/** The report as text, for `/context`. */
export function contextReport(input: ContextInput): string {
  const parts = contextParts(input);
  const rows = parts.map((part) => [
    part.name,
    formatCount(part.tokens),
    share(part.tokens, input.window),
  ]);
  const free = Math.max(0, input.window - input.total);
  rows.push(["free (the answer and what follows)", formatCount(free), share(free, input.window)]);
  const nameWidth = Math.max(...rows.map((row) => row[0]?.length ?? 0));
  const countWidth = Math.max(...rows.map((row) => row[1]?.length ?? 0));
  const lines = [
    `Context: about ${formatCount(input.total)} of ${formatCount(input.window)} tokens (${share(input.total, input.window)} of the window).`,
    "",
    ...rows.map(
      ([name = "", tokens = "", pct = ""]) =>
        `  ${name.padEnd(nameWidth)}  ${tokens.padStart(countWidth)}  ${pct.padStart(4)}`,
    ),
  ];
  const largest = largestResults(input.messages, 3).filter((r) => r.tokens >= 100);
  if (largest.length > 0)
    lines.push(
      "",
      "Largest tool results:",
      ...largest.map((r) => `  ${formatCount(r.tokens).padStart(countWidth)}  ${r.call}`),
    );
  lines.push(
    "",
    "Parts are estimates (UTF-8 bytes / 3.5); the total is the endpoint's last count plus estimates of what came after. /compact summarises the conversation to free room.",
  );
  return lines.join("\n");
}
