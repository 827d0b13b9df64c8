export type { AnthropicClientOptions } from "./anthropic/index.ts";
export { type ClientOptions, hostOf } from "./client-config.ts";
export {
  backoffMs,
  classifyHttpError,
  contextLimitOf,
  createHttpFetch,
  defaultTimeouts,
  type FailureContext,
  type HttpFetch,
  type HttpRequestInit,
  type HttpResponse,
  httpFetch,
  isContextLength,
  maxRetriesFor,
  type ProxyEnv,
  planRetry,
  type RetryOptions,
  type RetryPlan,
  redact,
  retryAfterMs,
  serverMessageOf,
  type Timeouts,
} from "./http/index.ts";
export { createAnthropicClient, createResponsesClient } from "./lazy-wires.ts";
export { createOpenAIClient, historyArguments, type OpenAIClientOptions } from "./openai/index.ts";
export type { ResponsesClientOptions } from "./responses/index.ts";
export {
  type DiscoveredWindow,
  type DiscoverOptions,
  discoverContextWindow,
  fetchModelList,
  listModels,
  type ModelListAnswer,
  type ModelListOptions,
} from "./side-requests.ts";
export {
  type ArgumentParse,
  type AssemblerOptions,
  type CallDelta,
  type CallSignals,
  createTurnAssembler,
  isNormalStop,
  isObject,
  judgeCall,
  mapStopReason,
  parseToolArguments,
  type TurnAssembler,
  type TurnSignals,
  terminatorName,
  type WireFormat,
} from "./turns/index.ts";
