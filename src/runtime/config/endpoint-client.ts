// The provider client and the model's limits for a configuration: what `nex run` and `nex doctor`
// both build, so that doctor checks the endpoint exactly as a session will use it.
import type { StreamFn } from "../../protocol/index.ts";
import {
  createAnthropicClient,
  createHttpFetch,
  createOpenAIClient,
  createResponsesClient,
  discoverContextWindow,
  type HttpFetch,
  httpFetch,
  type WireFormat,
} from "../../providers/index.ts";
import type { NexConfig } from "./config.ts";
import { type ResolvedLimits, resolveLimits } from "./model-registry.ts";

/** Overrides for embedding and for `nex doctor` (which counts every request it sends). */
export interface EndpointOverrides {
  fetch?: HttpFetch;
  signal?: AbortSignal;
}

const fetches = new WeakMap<NexConfig, HttpFetch>();

/** The HTTP client every request of this configuration goes through: through the proxy, when one is set. */
export function endpointFetch(config: NexConfig): HttpFetch {
  if (!config.proxy) return httpFetch;
  let fetch = fetches.get(config);
  if (!fetch) {
    fetch = createHttpFetch({ proxy: config.proxy });
    fetches.set(config, fetch);
  }
  return fetch;
}

/** The provider client for a configuration. */
export function createClient(config: NexConfig, overrides: EndpointOverrides = {}): StreamFn {
  const common = {
    baseUrl: config.baseUrl,
    stream: config.stream,
    keyName: config.apiKeyEnv,
    timeouts: config.timeouts,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    fetch: overrides.fetch ?? endpointFetch(config),
  };
  if (config.provider === "anthropic") return createAnthropicClient(common);
  const chat = createOpenAIClient(common);
  const usesResponses =
    config.api === "responses" ||
    Object.values(config.models).some((settings) => settings.api === "responses");
  if (!usesResponses) return chat;
  // Each request goes out on its model's API: a session may switch models mid-way.
  const responses = createResponsesClient(common);
  return (request, signal) =>
    (wireFormatOf(config, request.model) === "responses" ? responses : chat)(request, signal);
}

/** The wire a request for this model goes out on. */
export function wireFormatOf(config: NexConfig, model: string): WireFormat {
  if (config.provider === "anthropic") return "anthropic";
  const api = Object.hasOwn(config.models, model) ? config.models[model]?.api : undefined;
  return (api ?? config.api) === "responses" ? "responses" : "openai";
}

/** The model's window: configured, else asked of the endpoint (a few quick GETs, no retries), else known, else 32k. */
export async function limitsFor(
  config: NexConfig,
  model: string,
  overrides: EndpointOverrides = {},
): Promise<ResolvedLimits & { unreachable?: string }> {
  const configured = config.models[model];
  let unreachable: string | undefined;
  const discovered = configured?.contextWindow
    ? null
    : await discoverContextWindow({
        baseUrl: config.baseUrl,
        model,
        kind: config.provider,
        timeoutMs: 1500,
        ...(config.apiKey ? { apiKey: config.apiKey } : {}),
        fetch: overrides.fetch ?? endpointFetch(config),
        ...(overrides.signal ? { signal: overrides.signal } : {}),
        onUnreachable: (detail) => {
          unreachable = detail;
        },
      });
  const limits = resolveLimits({ model, configured, discovered });
  return unreachable === undefined ? limits : { ...limits, unreachable };
}

/** The one sentence for an endpoint that did not answer at all when a session opened. */
export function unreachableMessage(config: NexConfig, detail: string): string {
  return `The endpoint at ${config.baseUrl} is unreachable (${detail}). Start the server, or check the base URL (--base-url, or the provider's base URL variable) and any proxy.`;
}
