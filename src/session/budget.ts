/** How a model's window is shared between prompt, output and a margin for estimate error. */
export interface ContextBudget {
  window: number;
  /** Tokens kept free for the model's answer. */
  outputReserve: number;
  /** Tokens kept free because estimates are estimates. */
  safetyMargin: number;
  /** What the prompt (system, tools, messages) may use: window - outputReserve - safetyMargin. */
  promptBudget: number;
}

/** The output reserve never exceeds this, however large the window. */
export const MAX_OUTPUT_RESERVE = 32_768;
/** Below this, an answer is not worth asking for: `chooseMaxTokens` returns null and the loop compacts. */
export const MIN_MAX_TOKENS = 256;

/**
 * A budget proportional to the window: the output reserve is a quarter of it (at least 1024, at most
 * 32k, at most half the window, at most the model's output limit), the safety margin 5% (at least 512).
 * A 32k model thus keeps ~23k for the prompt instead of compacting after every step.
 */
export function contextBudget(options: { window: number; outputLimit?: number }): ContextBudget {
  const window = Math.max(0, Math.floor(options.window));
  const outputReserve = Math.max(
    0,
    Math.min(
      options.outputLimit ?? Number.POSITIVE_INFINITY,
      Math.max(1024, Math.floor(window * 0.25)),
      MAX_OUTPUT_RESERVE,
      Math.floor(window / 2),
    ),
  );
  const safetyMargin = Math.min(Math.max(512, Math.ceil(window * 0.05)), Math.floor(window / 4));
  const promptBudget = Math.max(0, window - outputReserve - safetyMargin);
  return { window, outputReserve, safetyMargin, promptBudget };
}

/**
 * The `max_tokens` for a request whose prompt is estimated at `promptTokens`: as much as fits the window
 * after the safety margin, capped by the model's output limit (or 32k when unknown). Null when less than
 * `floor` (256) would be left: the caller should compact instead of sending a request that cannot answer.
 */
export function chooseMaxTokens(options: {
  window: number;
  promptTokens: number;
  outputLimit?: number;
  floor?: number;
}): number | null {
  const { safetyMargin } = contextBudget({ window: options.window });
  const room = Math.floor(options.window - options.promptTokens - safetyMargin);
  const cap = options.outputLimit ?? MAX_OUTPUT_RESERVE;
  const floor = Math.min(options.floor ?? MIN_MAX_TOKENS, cap);
  const maxTokens = Math.min(room, cap);
  return maxTokens >= floor ? maxTokens : null;
}
