import type { AgentEvent, ProviderEvent } from "../protocol/index.ts";

/** Which request an attempt belongs to, for the events a UI shows. */
export interface RequestLabel {
  requestId: number;
  model: string;
  maxTokens: number;
  /** A compaction's or a tool's summary request, whose prompt is not the conversation. */
  purpose?: "compaction" | "summary";
}

/**
 * Turns a provider's attempt events into the agent's request events, remembering the host of the
 * latest attempt. Every request nex sends, task or compaction, is shown through this one mapping,
 * and every `request_started` gets its end: when the provider ends with an error that no attempt
 * event reported (an interrupt during a stream or a wait), a final `request_failed` is made for it.
 */
export function createAttemptRelay(
  label: RequestLabel,
): (event: ProviderEvent) => AgentEvent | null {
  let host = "";
  let open = false;
  return (event) => {
    if (event.type === "error") {
      if (!open) return null;
      open = false;
      return {
        type: "request_failed",
        requestId: label.requestId,
        attempt: 0,
        status: event.error.status ?? null,
        code: event.error.code,
        message: event.error.message,
        retryInMs: null,
        maxRetries: 0,
        host,
      };
    }
    if (event.type === "attempt_started") {
      host = event.host;
      open = true;
      return { type: "request_started", ...label, attempt: event.attempt, host };
    }
    if (event.type === "attempt_failed") {
      open = event.retryInMs !== null;
      return {
        type: "request_failed",
        requestId: label.requestId,
        attempt: event.attempt,
        status: event.error.status ?? null,
        code: event.error.code,
        message: event.error.message,
        retryInMs: event.retryInMs,
        maxRetries: event.maxRetries,
        host,
      };
    }
    if (event.type === "done") {
      open = false;
      return {
        type: "request_finished",
        requestId: label.requestId,
        stopReason: event.turn.stopReason,
        usage: event.turn.usage,
        ...(label.purpose ? { purpose: label.purpose } : {}),
      };
    }
    return null;
  };
}
