import type { AgentEvent } from "../../protocol/index.ts";
import { ConfigError, limitsFor, type NexConfig, unreachableMessage } from "../config/index.ts";

export type ModelLimits = Awaited<ReturnType<typeof limitsFor>>;

/**
 * Step 2: the model's window and output limit. An unreachable endpoint is said once, with its
 * address, instead of a guessed window and six failed attempts; what discovery found is a notice, so
 * no request is hidden.
 */
export async function discoverLimits(
  config: NexConfig,
  model: string,
  ownClient: boolean,
  events: AgentEvent[],
): Promise<ModelLimits> {
  const limits = await limitsFor(config, model);
  if (limits.unreachable !== undefined && ownClient) {
    throw new ConfigError(unreachableMessage(config, limits.unreachable));
  }
  if (limits.source === "default" || limits.source === "endpoint") {
    events.push({
      type: "notice",
      message: `Context window ${limits.contextWindow} tokens: ${limits.sourceDetail}.`,
    });
  }
  return limits;
}
