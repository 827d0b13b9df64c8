// Which models take a reasoning effort or a thinking budget, and what a session sends. Nothing is
// sent unless the user asked (config, --reasoning-effort, /reasoning effort): reasoning models
// think at their server's default anyway, and a field a server does not know may be refused.
import type { ReasoningEffort, ReasoningRequest } from "../../protocol/index.ts";
import type { ProviderKind } from "./config.ts";

export const REASONING_EFFORTS: readonly ReasoningEffort[] = ["low", "medium", "high"];

/** How a model takes a reasoning setting: OpenAI's `reasoning_effort`, Anthropic's thinking budget, or not at all. */
export type ReasoningSupport = "effort" | "budget" | "none";

// Models known not to take `reasoning_effort` on the OpenAI wire (they do not reason, or reason at
// a fixed depth: DeepSeek's reasoner ignores it, a few gateways refuse the unknown field).
const NO_EFFORT = /gpt-4o|gpt-4\.1|gpt-3\.5|deepseek|llama|gemma|mistral|codestral|devstral|qwen2/i;
// Claude models with extended thinking (3.7 and the 4 family); earlier ones refuse `thinking`.
const THINKING_CLAUDE = /claude-3-7|claude-(opus|sonnet|haiku)-4|claude-4|claude-.*-4[-.]/i;

/** Whether a model takes a reasoning setting on this wire. Unknown OpenAI-compatible models are trusted to. */
export function reasoningSupport(provider: ProviderKind, model: string): ReasoningSupport {
  if (provider === "anthropic") return THINKING_CLAUDE.test(model) ? "budget" : "none";
  return NO_EFFORT.test(model) ? "none" : "effort";
}

/** Parses an effort as typed by a user; null when it is none of them. */
export function parseEffort(value: string): ReasoningEffort | null {
  return REASONING_EFFORTS.find((effort) => effort === value.trim().toLowerCase()) ?? null;
}

/** What the user asked for a model: an effort and, on Anthropic, perhaps a budget. */
export interface ReasoningSetting {
  effort: ReasoningEffort;
  budgetTokens?: number;
}

/** The reasoning a request carries for this model, or null (nothing sent). */
export function reasoningRequest(
  provider: ProviderKind,
  model: string,
  setting: ReasoningSetting | null,
): ReasoningRequest | null {
  if (!setting || reasoningSupport(provider, model) === "none") return null;
  return setting.budgetTokens !== undefined && provider === "anthropic"
    ? { effort: setting.effort, budgetTokens: setting.budgetTokens }
    : { effort: setting.effort };
}

/** One line saying what the model will be sent, for `/reasoning effort` and the session's start. */
export function describeReasoning(
  provider: ProviderKind,
  model: string,
  setting: ReasoningSetting | null,
): string {
  if (!setting) return `Reasoning effort: the server's default for ${model} (nothing is sent).`;
  if (reasoningSupport(provider, model) === "none") {
    return `Reasoning effort ${setting.effort} is not sent: ${model} does not take a reasoning setting on this endpoint. Use a reasoning model, or /reasoning effort off.`;
  }
  if (provider === "anthropic") {
    const budget = setting.budgetTokens;
    return `Reasoning effort ${setting.effort}: extended thinking on${budget ? ` with a budget of ${budget} tokens` : ""} (kept below max_tokens).`;
  }
  return `Reasoning effort ${setting.effort}: sent as reasoning_effort.`;
}
