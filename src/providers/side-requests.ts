// Requests beside the conversation (the endpoint's model list, the model's window), loaded on first
// use: a session whose window is configured never asks, and every module loaded is start-up time.
import type { DiscoveredWindow, DiscoverOptions } from "./discover-limits.ts";
import type { ModelListAnswer, ModelListOptions } from "./model-list.ts";

export type { DiscoveredWindow, DiscoverOptions } from "./discover-limits.ts";
export type { ModelListAnswer, ModelListOptions } from "./model-list.ts";

/** The model's context window as the endpoint reports it (see `discover-limits.ts`). */
export async function discoverContextWindow(
  options: DiscoverOptions,
): Promise<DiscoveredWindow | null> {
  return (await import("./discover-limits.ts")).discoverContextWindow(options);
}

/** The endpoint's model ids, or null when it does not say. */
export async function listModels(
  options: Omit<DiscoverOptions, "model">,
): Promise<string[] | null> {
  return (await import("./discover-limits.ts")).listModels(options);
}

/** The endpoint's answer to a model-list request (see `model-list.ts`). */
export async function fetchModelList(options: ModelListOptions): Promise<ModelListAnswer> {
  return (await import("./model-list.ts")).fetchModelList(options);
}
