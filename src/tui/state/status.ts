import type { AgentEvent, ErrorCode } from "../../protocol/index.ts";

/** A request the endpoint has not answered yet: the spinner is on exactly while there is one. */
export interface InFlight {
  requestId: number;
  attempt: number;
  host: string;
  model: string;
  since: number;
}

/** A wait before the next attempt of a failed request, counting down to `until`. */
export interface RetryWait {
  requestId: number;
  /** The attempt that failed; the next one is retry number `attempt`. */
  attempt: number;
  maxRetries: number;
  status: number | null;
  code: ErrorCode;
  host: string;
  until: number;
}

/** A tool call that started and has no result yet. */
export interface RunningTool {
  callId: string;
  name: string;
  since: number;
}

/** What the status line shows, derived from events only. */
export interface StatusState {
  request: InFlight | null;
  retry: RetryWait | null;
  tools: readonly RunningTool[];
  /** Call ids of permission requests the user has not answered. */
  awaitingPermission: readonly string[];
  /** How the last turn ended, once one has. */
  lastOutcome: "done" | "error" | "aborted" | null;
  /** When the model's current stretch of reasoning began (ms), while it reasons; else null. */
  thinkingSince?: number | null;
}

export const initialStatus: StatusState = {
  request: null,
  retry: null,
  tools: [],
  awaitingPermission: [],
  lastOutcome: null,
};

/** True exactly while a request is in flight. */
export function spinnerOn(state: StatusState): boolean {
  return state.request !== null;
}

function withoutCall(state: StatusState, callId: string): StatusState {
  return {
    ...state,
    tools: state.tools.filter((tool) => tool.callId !== callId),
    awaitingPermission: state.awaitingPermission.filter((id) => id !== callId),
  };
}

/**
 * A stretch of reasoning lasts from its first delta to the first event that is not reasoning (the
 * same rule that commits its collapsed line, transcript.ts); arguments and usage do not end it.
 */
function thinkingAfter(since: number | null, event: AgentEvent, now: number): number | null {
  if (event.type === "reasoning_delta") return since ?? now;
  if (event.type === "tool_call_delta" || event.type === "usage") return since;
  return null;
}

/** Folds one event into the status; `now` (ms) stamps the start of waits and requests. */
export function reduceStatus(state: StatusState, event: AgentEvent, now: number): StatusState {
  const thinkingSince = thinkingAfter(state.thinkingSince ?? null, event, now);
  const next = reduceStatusEvent(state, event, now);
  return next.thinkingSince === thinkingSince ? next : { ...next, thinkingSince };
}

function reduceStatusEvent(state: StatusState, event: AgentEvent, now: number): StatusState {
  switch (event.type) {
    case "request_started":
      return {
        ...state,
        request: {
          requestId: event.requestId,
          attempt: event.attempt,
          host: event.host,
          model: event.model,
          since: now,
        },
        retry: null,
        lastOutcome: null,
      };
    case "request_finished":
      if (state.request?.requestId !== event.requestId) return state;
      return { ...state, request: null };
    case "request_failed": {
      const request = state.request?.requestId === event.requestId ? null : state.request;
      if (event.retryInMs === null) return { ...state, request, retry: null };
      return {
        ...state,
        request,
        retry: {
          requestId: event.requestId,
          attempt: event.attempt,
          maxRetries: event.maxRetries,
          status: event.status,
          code: event.code,
          host: event.host,
          until: now + event.retryInMs,
        },
      };
    }
    case "tool_call_started":
      return {
        ...state,
        tools: [
          ...state.tools.filter((t) => t.callId !== event.callId),
          { callId: event.callId, name: event.name, since: now },
        ],
      };
    case "permission_requested":
      if (state.awaitingPermission.includes(event.callId)) return state;
      return { ...state, awaitingPermission: [...state.awaitingPermission, event.callId] };
    case "tool_result":
    case "tool_call_refused":
      return withoutCall(state, event.callId);
    case "done":
    case "error":
    case "aborted":
      return {
        request: null,
        retry: null,
        tools: [],
        awaitingPermission: [],
        lastOutcome: event.type,
      };
    default:
      return state;
  }
}

/** Marks a permission request answered by the user (the runtime's next event confirms it). */
export function permissionAnswered(state: StatusState, callId: string): StatusState {
  return {
    ...state,
    awaitingPermission: state.awaitingPermission.filter((id) => id !== callId),
  };
}

/** Seconds with one decimal below a minute, then minutes and seconds. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const whole = Math.floor(seconds);
  return `${Math.floor(whole / 60)}m ${String(whole % 60).padStart(2, "0")}s`;
}

/** The status line's words (without the spinner glyph), or "" when there is nothing to show. */
export function statusText(state: StatusState, now: number): string {
  if (state.request) {
    const attempt = state.request.attempt > 1 ? ` (attempt ${state.request.attempt})` : "";
    return `waiting for ${state.request.model} at ${state.request.host}${attempt} · ${formatElapsed(now - state.request.since)}`;
  }
  if (state.retry) {
    const seconds = Math.max(0, Math.ceil((state.retry.until - now) / 1000));
    const what =
      state.retry.code === "network"
        ? `${state.retry.host} unreachable`
        : `${state.retry.status ?? state.retry.code} from ${state.retry.host}`;
    return `${what}, retry ${state.retry.attempt}/${state.retry.maxRetries} in ${seconds}s`;
  }
  if (state.awaitingPermission.length > 0) return "waiting for your answer";
  const tool = state.tools.at(-1);
  if (tool) return `running ${tool.name} · ${formatElapsed(now - tool.since)}`;
  return "";
}
