// Anthropic's extended thinking for a request: `thinking: {type: "enabled", budget_tokens}`.
// Anthropic documents a budget of at least 1,024 tokens and below `max_tokens` (the thinking counts
// against it), and no `temperature`/`top_k` change with thinking on (nex sends neither).
import type { ModelRequest, ReasoningEffort } from "../../protocol/index.ts";

/** The smallest budget Anthropic accepts. */
export const MIN_THINKING_BUDGET = 1_024;

const BUDGET_FOR: Record<ReasoningEffort, number> = { low: 2_048, medium: 8_192, high: 24_576 };

/**
 * The `thinking` field for a request, or null when it asks for none or `max_tokens` leaves no room:
 * the budget is at most three quarters of `max_tokens`, so the answer keeps a quarter.
 */
export function thinkingOf(
  request: Pick<ModelRequest, "reasoning" | "maxTokens">,
): { type: "enabled"; budget_tokens: number } | null {
  if (!request.reasoning) return null;
  const wanted = request.reasoning.budgetTokens ?? BUDGET_FOR[request.reasoning.effort];
  const budget = Math.min(wanted, Math.floor((request.maxTokens * 3) / 4));
  return budget >= MIN_THINKING_BUDGET ? { type: "enabled", budget_tokens: budget } : null;
}
