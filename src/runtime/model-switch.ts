import type { ModelSwitchResult, StreamFn } from "../protocol/index.ts";
import type { NexConfig } from "./config.ts";
import { limitsFor } from "./endpoint-client.ts";
import type { SessionBudget } from "./request-budget.ts";

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
  return async (next: string): Promise<{ stream: StreamFn | null; result: ModelSwitchResult }> => {
    const previousModel = current.model;
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
