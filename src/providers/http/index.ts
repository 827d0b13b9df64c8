export type { HttpFetch, HttpRequestInit, HttpResponse, ProxyEnv } from "../../net/index.ts";
export { createHttpFetch, httpFetch, readText } from "../../net/index.ts";
export type { FailureContext } from "./errors.ts";
export {
  classifyHttpError,
  contextLimitOf,
  inBodyError,
  invalidResponse,
  isContextLength,
  networkError,
  redact,
  serverMessageOf,
  unparsedToolCall,
} from "./errors.ts";
export type { RetryOptions, RetryPlan } from "./retry.ts";
export { backoffMs, maxRetriesFor, planRetry, retryAfterMs } from "./retry.ts";
export { eventJson, sseEvents } from "./sse.ts";
export type { ReadOutcome, Timeouts, TransportOptions, WireExchange } from "./transport.ts";
export { defaultTimeouts, describeFetchError, runRequest, StreamFailure } from "./transport.ts";
