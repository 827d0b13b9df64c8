import type { ModelSwitchResult, StreamFn } from "../../protocol/index.ts";
import type { NexConfig } from "../config/index.ts";
import { describeServed, limitsFor, servedModels } from "../config/index.ts";
import type { SessionBudget } from "../context/index.ts";

/** The model the session talks to now; /model changes it. */
export interface CurrentModel {
  stream: StreamFn;
  model: string;
}

/**
 * Step 9: `/model NAME`. The client does not depend on the model (each request names it): only the
 * limits change, and the budget takes them.
 */
export function modelSwitcher(config: NexConfig, current: CurrentModel, budget: SessionBudget) {
  return async (asked: string): Promise<{ stream: StreamFn | null; result: ModelSwitchResult }> => {
    const previousModel = current.model;
    const refusal = await refuseModel(config, asked, current.model);
    if (refusal)
      return { stream: null, result: { kind: "refused", model: asked, reason: refusal } };
    const next = unprefixed(config, asked);
    try {
      const limits = await limitsFor(config, next);
      current.model = next;
      budget.setLimits({ window: limits.contextWindow, maxOutput: limits.maxOutput });
      return {
        stream: current.stream,
        result: {
          kind: "switched",
          previousModel,
          model: next,
          contextWindow: limits.contextWindow,
          windowSource: limits.sourceDetail,
          maxOutput: limits.maxOutput,
        },
      };
    } catch (error) {
      return {
        stream: null,
        result: { kind: "failed", model: next, reason: (error as Error).message },
      };
    }
  };
}

/** The name without this session's own `ENDPOINT:` prefix. */
export function unprefixed(config: NexConfig, name: string): string {
  const own = config.endpoint?.name;
  return own && name.startsWith(`${own}:`) ? name.slice(own.length + 1) : name;
}

/** Why the model cannot be switched to, or null when it can. */
export async function refuseModel(
  config: NexConfig,
  asked: string,
  current: string,
): Promise<string | null> {
  const colon = asked.indexOf(":");
  const prefix = colon > 0 ? asked.slice(0, colon) : "";
  if (prefix && prefix !== config.endpoint?.name && config.endpointNames.includes(prefix)) {
    return `Model not switched: ${prefix} is another endpoint, and a session keeps its endpoint. Start nex with -e ${prefix} (or --model ${asked}) to use it; still using ${current}.`;
  }
  const name = unprefixed(config, asked);
  const served = await servedModels(config);
  if (!served.models || served.models.includes(name)) return null;
  return `Model not switched: ${served.source.replace(/ \(.*\)$/, "")} does not serve ${name}; still using ${current}. ${describeServed(served, current)}`;
}

/** What `/model`'s picker offers: this endpoint's models, and the config's other endpoints. */
export interface ModelChoices {
  current: string;
  /** The models this endpoint serves (null: it did not say). */
  models: string[] | null;
  /** Where the list came from, in words. */
  source: string;
  /** The config's other named endpoints: a session keeps its endpoint, so these are named, not switched to. */
  otherEndpoints: string[];
}

export async function modelChoices(
  config: NexConfig,
  current: CurrentModel,
): Promise<ModelChoices> {
  const served = await servedModels(config);
  return {
    current: current.model,
    models: served.models,
    source: served.source,
    otherEndpoints: config.endpointNames.filter((name) => name !== config.endpoint?.name),
  };
}
