import type { RequestBudget } from "../agent/loop.ts";
import type { Message, ToolSpec } from "../protocol/index.ts";
import { cheapTextTokens, cheapTokens, chooseMaxTokens, contextBudget } from "../session/index.ts";

/** The budget the loop asks, plus what the session feeds it. */
export interface SessionBudget extends RequestBudget {
  window(): number;
  /** The endpoint reported usage for a request that carried `messageCount` messages. */
  observeUsage(inputTokens: number, outputTokens: number, messageCount: number): void;
  /** The conversation was replaced (compaction, clear): earlier reports no longer describe it. */
  forgetUsage(): void;
  /** Another model: its window and output limit replace the old ones. */
  setLimits(limits: { window: number; maxOutput: number }): void;
}

/**
 * Sizes requests on the hot path without loading a tokenizer: the prompt is what the endpoint last
 * reported for the same prefix plus a cheap estimate (UTF-8 bytes / 3.5) of the messages added since,
 * or the cheap estimate of everything before the first report. `max_tokens` is the proportional output
 * reserve while the prompt is within its budget; past it, the loop compacts instead of starving the answer.
 */
export function createSessionBudget(options: {
  window: number;
  maxOutput: number;
  tools: () => ToolSpec[];
}): SessionBudget {
  let window = options.window;
  let maxOutput = options.maxOutput;
  let reported: { tokens: number; messageCount: number } | null = null;
  let toolTokens: number | null = null;

  const fixedTokens = (system: string): number => {
    toolTokens ??= options
      .tools()
      .reduce((sum, tool) => sum + cheapTextTokens(JSON.stringify(tool)) + 8, 0);
    return cheapTextTokens(system) + toolTokens;
  };

  return {
    window: () => window,
    correctWindow(limit) {
      if (limit > 0) window = limit;
    },
    observeUsage(inputTokens, outputTokens, messageCount) {
      reported = { tokens: inputTokens + outputTokens, messageCount };
    },
    forgetUsage() {
      reported = null;
    },
    setLimits(limits) {
      window = limits.window;
      maxOutput = limits.maxOutput;
      reported = null;
    },
    estimatePrompt(system: string, messages: Message[]) {
      const base = reported && reported.messageCount <= messages.length ? reported : null;
      let tokens = base ? base.tokens : fixedTokens(system);
      for (let i = base ? base.messageCount : 0; i < messages.length; i++) {
        const message = messages[i];
        if (message) tokens += cheapTokens(message);
      }
      return tokens;
    },
    maxTokensFor(promptTokens) {
      const budget = contextBudget({ window, outputLimit: maxOutput });
      if (promptTokens > budget.promptBudget) return null;
      return chooseMaxTokens({ window, promptTokens, outputLimit: budget.outputReserve });
    },
    largestMaxTokensFor(promptTokens) {
      return chooseMaxTokens({ window, promptTokens, outputLimit: maxOutput }) ?? 0;
    },
  };
}
