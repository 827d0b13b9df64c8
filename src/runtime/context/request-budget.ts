import type { RequestBudget } from "../../agent/loop.ts";
import type { Message, ToolSpec } from "../../protocol/index.ts";
import { formatCount } from "../../protocol/index.ts";
import {
  cheapTextTokens,
  cheapTokens,
  chooseMaxTokens,
  contextBudget,
} from "../../session/index.ts";
import { absurdUsage, absurdUsageNotice } from "./usage-sanity.ts";

/** The budget the loop asks, plus what the session feeds it. */
export interface SessionBudget extends RequestBudget {
  window(): number;
  /**
   * The endpoint reported usage for a request that carried `messageCount` messages. Returns a notice
   * for the user the first time a report is implausibly low (the server may be cutting the prompt).
   */
  observeUsage(inputTokens: number, outputTokens: number, messageCount: number): string | null;
  /** The conversation was replaced (compaction, clear): earlier reports no longer describe it. */
  forgetUsage(): void;
  /** The model's output limit now. */
  maxOutput(): number;
  /** Another model: its window and output limit replace the old ones. */
  setLimits(limits: { window: number; maxOutput: number }): void;
}

// Below this estimate the cheap count is too rough to call a report implausible: an eighth of the
// window, between 1k and 8k tokens. A fixed 8k would never be reached on an 8k window, and a server
// under-reporting there would make nex believe an overflowing prompt was small.
const lowReportMin = (window: number): number => Math.min(8192, Math.max(1024, window / 8));
// Tokenizers differ by a third at most on the same text; a report under half the estimate is a cut.
const LOW_REPORT_RATIO = 0.5;

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
  // Counted once per tool list: a list changes only when the model loads deferred tools.
  let toolTokens: { specs: ToolSpec[]; tokens: number } | null = null;
  // Cheap estimates of the prompt's prefixes: `prefix[n]` covers the fixed part and the first n
  // messages, kept up as messages are appended, so each request adds only its new messages.
  let cheap: { system: string; prefix: number[] } | null = null;
  let warned = false;
  let warnedAbsurd = false;

  const fixedTokens = (system: string): number => {
    const specs = options.tools();
    if (toolTokens?.specs !== specs) {
      const tokens = specs.reduce(
        (sum, tool) => sum + cheapTextTokens(JSON.stringify(tool)) + 8,
        0,
      );
      toolTokens = { specs, tokens };
    }
    return cheapTextTokens(system) + toolTokens.tokens;
  };

  return {
    window: () => window,
    maxOutput: () => maxOutput,
    correctWindow(limit) {
      if (limit > 0) window = limit;
    },
    observeUsage(inputTokens, outputTokens, messageCount) {
      const absurd = absurdUsage(inputTokens, outputTokens, window);
      if (absurd) {
        if (warnedAbsurd) return null;
        warnedAbsurd = true;
        return absurdUsageNotice(absurd);
      }
      // Some servers fill usage with zeros: that is no report at all.
      if (inputTokens <= 0) return null;
      const estimated = cheap?.prefix[messageCount] ?? null;
      // A server that cuts long prompts (Ollama beyond num_ctx) reports what it kept. Trusting that
      // would hide the cut for good; nex keeps its own estimate and says what is going on, once.
      const implausible =
        estimated !== null &&
        estimated >= lowReportMin(window) &&
        inputTokens < estimated * LOW_REPORT_RATIO;
      reported = {
        tokens: Math.max(inputTokens, implausible ? (estimated ?? 0) : 0) + outputTokens,
        messageCount,
      };
      if (!implausible || warned) return null;
      warned = true;
      return (
        `The endpoint counted ${formatCount(inputTokens)} prompt tokens where nex estimated about ${formatCount(estimated ?? 0)}. ` +
        "If the server cuts long prompts (Ollama does beyond its num_ctx), the model is not seeing the whole conversation: " +
        "raise the server's context (OLLAMA_CONTEXT_LENGTH, or num_ctx), or set `models` in nex's config to the window it really serves. " +
        "nex keeps sizing requests by its own estimate."
      );
    },
    forgetUsage() {
      reported = null;
      cheap = null;
    },
    setLimits(limits) {
      window = limits.window;
      maxOutput = limits.maxOutput;
      reported = null;
    },
    estimatePrompt(system: string, messages: Message[]) {
      // A new tool list (deferred tools loaded) changes the fixed part the prefixes start from.
      const toolsChanged = toolTokens !== null && toolTokens.specs !== options.tools();
      if (
        !cheap ||
        toolsChanged ||
        cheap.system !== system ||
        cheap.prefix.length > messages.length + 1
      ) {
        cheap = { system, prefix: [fixedTokens(system)] };
      }
      const { prefix } = cheap;
      for (let i = prefix.length - 1; i < messages.length; i++) {
        const message = messages[i];
        prefix.push((prefix[i] ?? 0) + (message ? cheapTokens(message) : 0));
      }
      const total = prefix[messages.length] ?? 0;
      const base = reported && reported.messageCount <= messages.length ? reported : null;
      return base ? base.tokens + total - (prefix[base.messageCount] ?? 0) : total;
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
