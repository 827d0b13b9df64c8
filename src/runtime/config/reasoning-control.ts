// The session's reasoning setting: the flag or `/reasoning effort` first, then the model's own
// `reasoningEffort` in the config, then the config's default. Each request gets what its model takes.
import type { StreamFn } from "../../protocol/index.ts";
import type { EffortOrOff, NexConfig } from "./config.ts";
import { describeReasoning, type ReasoningSetting, reasoningRequest } from "./reasoning.ts";

export interface ReasoningControl {
  /** The client, with each request carrying the reasoning its model takes. */
  wrap(stream: StreamFn): StreamFn;
  /** Sets the effort for the rest of the session (`/reasoning effort X`); returns the line to show. */
  set(effort: EffortOrOff, model: string): string;
  /** What the model is sent now, in one line. */
  describe(model: string): string;
  /** The user's setting for a model, or null when nothing is to be sent. */
  settingFor(model: string): ReasoningSetting | null;
}

export function createReasoningControl(
  config: Pick<NexConfig, "provider" | "models" | "reasoningEffort">,
): ReasoningControl {
  let chosen: EffortOrOff | null = config.reasoningEffort.given;
  const settingFor = (model: string): ReasoningSetting | null => {
    const own = config.models[model];
    const effort = chosen ?? own?.reasoningEffort ?? config.reasoningEffort.configured;
    if (!effort || effort === "off") return null;
    return own?.thinkingBudget ? { effort, budgetTokens: own.thinkingBudget } : { effort };
  };
  return {
    wrap: (stream) => (request, signal) => {
      const reasoning = reasoningRequest(config.provider, request.model, settingFor(request.model));
      return stream(reasoning ? { ...request, reasoning } : request, signal);
    },
    set(effort, model) {
      chosen = effort;
      return describeReasoning(config.provider, model, settingFor(model));
    },
    describe: (model) => describeReasoning(config.provider, model, settingFor(model)),
    settingFor,
  };
}
