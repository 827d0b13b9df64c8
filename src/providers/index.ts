export { type ArgumentParse, isObject, parseToolArguments } from "./arguments.ts";
export {
  type AssemblerOptions,
  type CallDelta,
  createTurnAssembler,
  type TurnAssembler,
} from "./assembler.ts";
export { type ClientOptions, hostOf } from "./client-config.ts";
export {
  classifyHttpError,
  contextLimitOf,
  type FailureContext,
  isContextLength,
  redact,
  serverMessageOf,
} from "./errors.ts";
export {
  createHttpFetch,
  type HttpFetch,
  type HttpRequestInit,
  type HttpResponse,
  httpFetch,
  type ProxyEnv,
} from "./http-client.ts";
export {
  type AnthropicClientOptions,
  createAnthropicClient,
  createResponsesClient,
  type ResponsesClientOptions,
} from "./lazy-wires.ts";
export { createOpenAIClient, type OpenAIClientOptions } from "./openai.ts";
export { historyArguments } from "./openai-wire.ts";
export {
  backoffMs,
  maxRetriesFor,
  planRetry,
  type RetryOptions,
  type RetryPlan,
  retryAfterMs,
} from "./retry.ts";
export {
  type DiscoveredWindow,
  type DiscoverOptions,
  discoverContextWindow,
  fetchModelList,
  listModels,
  type ModelListAnswer,
  type ModelListOptions,
} from "./side-requests.ts";
export { isNormalStop, mapStopReason, terminatorName, type WireFormat } from "./stop-reason.ts";
export { defaultTimeouts, type Timeouts } from "./transport.ts";
export { type CallSignals, judgeCall, type TurnSignals } from "./verdict.ts";
