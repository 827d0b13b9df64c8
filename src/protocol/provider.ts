import type { ProviderError } from "./errors.ts";
import type { ModelRequest } from "./messages.ts";
import type { AssembledTurn } from "./turn.ts";

/**
 * What a provider stream yields for one logical request (all its attempts).
 * It always ends with exactly one `done` or `error`; it never throws.
 */
export type ProviderEvent =
  | { type: "attempt_started"; attempt: number; host: string }
  | {
      type: "attempt_failed";
      attempt: number;
      error: ProviderError;
      /** Milliseconds until the next attempt, or null when no retry follows. */
      retryInMs: number | null;
      /** The most retries this kind of failure gets. */
      maxRetries: number;
    }
  | { type: "text_delta"; text: string }
  /** The model's reasoning (thinking), never part of its answer. */
  | { type: "reasoning_delta"; text: string }
  | { type: "tool_call_delta"; index: number; name: string | null; argumentsDelta: string }
  | { type: "done"; turn: AssembledTurn }
  | { type: "error"; error: ProviderError };

/** A provider client: one request in, events out. The signal cancels the request and any wait. */
export type StreamFn = (request: ModelRequest, signal: AbortSignal) => AsyncIterable<ProviderEvent>;
