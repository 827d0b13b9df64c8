// `/model NAME` switches only to a model the session's endpoint serves: a name it does not serve
// would fail on the next request, and the window "from the endpoint" would be another model's.
import type { NexConfig } from "./config.ts";
import { describeServed, servedModels } from "./served-models.ts";

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
