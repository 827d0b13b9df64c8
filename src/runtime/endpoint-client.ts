// The provider client and the model's limits for a configuration: what `nex run` and `nex doctor`
// both build, so that doctor checks the endpoint exactly as a session will use it.
import type { StreamFn } from "../protocol/index.ts";
import {
  createAnthropicClient,
  createOpenAIClient,
  discoverContextWindow,
  type HttpFetch,
} from "../providers/index.ts";
import type { NexConfig } from "./config.ts";
import { type ResolvedLimits, resolveLimits } from "./model-registry.ts";

/** Overrides for embedding and for `nex doctor` (which counts every request it sends). */
export interface EndpointOverrides {
  fetch?: HttpFetch;
  signal?: AbortSignal;
}

/** The provider client for a configuration. */
export function createClient(config: NexConfig, overrides: EndpointOverrides = {}): StreamFn {
  const common = {
    baseUrl: config.baseUrl,
    stream: config.stream,
    keyName: config.apiKeyEnv,
    timeouts: config.timeouts,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    ...(overrides.fetch ? { fetch: overrides.fetch } : {}),
  };
  return config.provider === "anthropic"
    ? createAnthropicClient(common)
    : createOpenAIClient(common);
}

/** The model's window: configured, else asked of the endpoint (a few quick GETs, no retries), else known, else 32k. */
export async function limitsFor(
  config: NexConfig,
  model: string,
  overrides: EndpointOverrides = {},
): Promise<ResolvedLimits> {
  const configured = config.models[model];
  const discovered = configured?.contextWindow
    ? null
    : await discoverContextWindow({
        baseUrl: config.baseUrl,
        model,
        kind: config.provider,
        timeoutMs: 1500,
        ...(config.apiKey ? { apiKey: config.apiKey } : {}),
        ...(overrides.fetch ? { fetch: overrides.fetch } : {}),
        ...(overrides.signal ? { signal: overrides.signal } : {}),
      });
  return resolveLimits({ model, configured, discovered });
}
