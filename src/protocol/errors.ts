/** Error codes: a small closed set, each a word a user could grep for. */
export type ErrorCode =
  | "context_length"
  | "auth"
  | "bad_request"
  | "not_found"
  | "rate_limited"
  | "server_error"
  | "network"
  | "timeout"
  | "invalid_response"
  | "aborted"
  | "config";

/** A failure talking to an endpoint, typed so the loop can decide (compact, stop, surface). */
export interface ProviderError {
  code: ErrorCode;
  /** HTTP status when there was one. */
  status?: number;
  retryable: boolean;
  /** Full message for the user: what happened and what to do next. Never contains a key. */
  message: string;
  /** For `context_length`: the window the endpoint stated, when its body says so. */
  contextLimit?: number;
  /** Fewer retries than the code's usual budget, when a few are worth it (a model's unreadable call: one). */
  maxRetries?: number;
}

/** Tool error codes: the model must do something different. `internal` is a fault of ours. */
export type ToolErrorCode =
  | "invalid_arguments"
  | "not_found"
  | "outside_workspace"
  | "not_read"
  | "stale_read"
  | "content_loss"
  | "placeholder"
  | "no_match"
  | "ambiguous_match"
  | "denied"
  | "too_large"
  | "binary"
  | "timeout"
  | "aborted"
  | "failed"
  | "internal";
