// What the session's endpoint serves, for `/model`: the named endpoint's `models` in the config when
// it lists them, else the endpoint's own model list; null when neither says.
import { fetchModelList } from "../../providers/index.ts";
import type { NexConfig } from "./config.ts";
import { endpointFetch } from "./endpoint-client.ts";

export interface ServedModels {
  models: string[] | null;
  /** Where the list came from, in words for the user. */
  source: string;
}

export async function servedModels(config: NexConfig): Promise<ServedModels> {
  const where = config.endpoint ? `endpoint ${config.endpoint.name}` : config.baseUrl;
  if (config.endpoint?.models) {
    return { models: config.endpoint.models, source: `${where} (as your config lists them)` };
  }
  const answer = await fetchModelList({
    fetch: endpointFetch(config),
    baseUrl: config.baseUrl,
    kind: config.provider,
    timeoutMs: 3000,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
  });
  const models = answer.type === "answered" ? answer.models : null;
  return models && models.length > 0
    ? { models, source: `${where} (its model list)` }
    : { models: null, source: where };
}

/** The `/model` line: what the endpoint serves and which is in use. */
export function describeServed(served: ServedModels, current: string): string {
  if (!served.models) {
    return `Using ${current}. ${served.source} did not list its models; /model NAME switches to a model it serves.`;
  }
  const shown = served.models.slice(0, 30).map((m) => (m === current ? `${m} (in use)` : m));
  const more = served.models.length > 30 ? `, and ${served.models.length - 30} more` : "";
  return `Models of ${served.source}: ${shown.join(", ")}${more}. /model NAME switches.`;
}
