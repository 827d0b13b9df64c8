import type { AgentEvent, SandboxStatus, WindowSource } from "../../protocol/index.ts";

/** Token usage and context fill, from `usage` and `session_started` events. */
export interface MeterState {
  contextTokens: number | null;
  contextWindow: number;
  windowSource: WindowSource;
  inputTokens: number;
  outputTokens: number;
  /** The last request's prompt tokens read from the server's cache; null when it said nothing. */
  cacheReadTokens: number | null;
  /** Prompt tokens read from and written to the cache over the session. */
  cacheReadTotal: number;
  cacheWriteTotal: number;
  model: string;
  /** How commands are confined; unknown until the session says. */
  sandbox: SandboxStatus | null;
}

/** The meter before any event, from what the session says about itself. */
export function initialMeter(info: {
  contextWindow: number;
  windowSource: WindowSource;
  model: string;
  sandbox?: SandboxStatus;
}): MeterState {
  return {
    contextTokens: null,
    contextWindow: info.contextWindow,
    windowSource: info.windowSource,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: null,
    cacheReadTotal: 0,
    cacheWriteTotal: 0,
    model: info.model,
    sandbox: info.sandbox ?? null,
  };
}

export function reduceMeter(state: MeterState, event: AgentEvent): MeterState {
  switch (event.type) {
    case "session_started":
      return {
        ...state,
        contextWindow: event.contextWindow,
        windowSource: event.windowSource,
        model: event.model,
        sandbox: event.sandbox,
      };
    case "usage":
      return {
        ...state,
        // A child's request counts in the totals; the fill stays the parent conversation's.
        contextTokens: event.agent ? state.contextTokens : event.contextTokens,
        contextWindow: event.contextWindow,
        inputTokens: state.inputTokens + event.inputTokens,
        outputTokens: state.outputTokens + event.outputTokens,
        cacheReadTokens: event.cacheReadTokens ?? (event.cacheWriteTokens !== undefined ? 0 : null),
        cacheReadTotal: state.cacheReadTotal + (event.cacheReadTokens ?? 0),
        cacheWriteTotal: state.cacheWriteTotal + (event.cacheWriteTokens ?? 0),
      };
    case "request_started":
      return { ...state, model: event.model };
    default:
      return state;
  }
}

/** 950 → "950", 12_345 → "12.3k", 1_234_567 → "1.2M". */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** Context fill as "12.3k / 32.8k", with "?" before the first usage report. */
export function contextFill(state: MeterState): string {
  const used = state.contextTokens === null ? "?" : formatTokens(state.contextTokens);
  return `${used} / ${formatTokens(state.contextWindow)}`;
}

/** The last request's cache reuse, e.g. "cached 11.2k", or "" when the server reported none. */
export function cacheLabel(state: MeterState): string {
  return state.cacheReadTokens === null ? "" : `cached ${formatTokens(state.cacheReadTokens)}`;
}

/** Short words for where the window figure came from. */
export function windowSourceLabel(source: WindowSource): string {
  switch (source) {
    case "config":
      return "window: config";
    case "registry":
      return "window: registry";
    case "endpoint":
      return "window: endpoint";
    case "error_body":
      return "window: endpoint error";
    case "default":
      return "window: default";
  }
}
